// SPDX-License-Identifier: MIT
/*
 * netfacts.h: the plain logic behind the network family (hooks/net/net.c):
 * socket addresses normalised and written as the trace writes them, the
 * roles of known endpoints, connect outcomes, the 1-2-4-8 rule for
 * repeated attempts, the destination and aggregation tables, and the
 * interface-name rules of NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME. Every
 * function here is async-signal-safe, never allocates, and is unit-tested
 * in tests/net/check_netfacts.c.
 */
#ifndef HT_NETFACTS_H
#define HT_NETFACTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a destination is to the job (the "role" of connect and listen). */
#define HT_NET_ROLE_MAP(XX)                        \
	XX(OTHER, "other")                         \
	XX(RENDEZVOUS, "rendezvous")               \
	XX(NCCL_BOOTSTRAP, "nccl_bootstrap")       \
	XX(JAX_COORDINATOR, "jax_coordinator")

enum ht_net_role {
#define XX(id, name) HT_ROLE_##id,
	HT_NET_ROLE_MAP(XX)
#undef XX
	HT_ROLE_COUNT
};

/* The outcome of one connect attempt (the "result" of connect). */
#define HT_NET_RESULT_MAP(XX)          \
	XX(OK, "ok")                   \
	XX(REFUSED, "refused")         \
	XX(TIMEOUT, "timeout")         \
	XX(UNREACHABLE, "unreachable") \
	XX(PENDING, "pending")         \
	XX(ERROR, "error")

enum ht_net_result {
#define XX(id, name) HT_RES_##id,
	HT_NET_RESULT_MAP(XX)
#undef XX
	HT_RES_COUNT
};

const char *ht_net_role_name(int role);		/* NULL when out of range */
int ht_net_role_from_name(const char *s);	/* -1 when unknown */
const char *ht_net_result_name(int res);
/* The outcome an errno stands for: 0 ok, ECONNREFUSED refused, ETIMEDOUT
 * timeout, EHOSTUNREACH/ENETUNREACH unreachable, EINPROGRESS/EALREADY
 * pending, anything else error. */
enum ht_net_result ht_net_result_of(int err);

/* The kernel's name of a TCP state (TCP_INFO tcpi_state): "SYN_SENT"...;
 * "UNKNOWN" out of range. */
const char *ht_tcp_state_name(int st);
/* True for the states a connect that succeeded can be in (ESTABLISHED and
 * the closing states after it). */
bool ht_tcp_state_connected(int st);

/* True for the attempts that get a trace line: 1, 2, 4, 8, 16, ... */
bool ht_net_log_due(uint64_t count);

/* ---- addresses -------------------------------------------------------------- */

/* An IPv4 or IPv6 socket address, IPv4-mapped IPv6 folded to IPv4. */
struct ht_addr {
	uint16_t family;	/* AF_INET or AF_INET6 */
	uint16_t port;		/* host byte order; 0 when none */
	uint32_t scope;		/* IPv6 scope id */
	uint8_t a[16];		/* IPv4 in the first 4 bytes */
};

/* "[ffff:...:ffff%4294967295]:65535" and a NUL fit in this. */
#define HT_ADDR_STRLEN 64

/* Fills out from a sockaddr of len bytes; false when it is not IPv4/IPv6
 * or too short. */
bool ht_addr_from_sa(struct ht_addr *out, const void *sa, size_t len);
/* Writes "ip:port" / "[ipv6]:port", or with port false "ip" / "ipv6"
 * (RFC 5952 form); returns the length. cap >= HT_ADDR_STRLEN. */
size_t ht_addr_fmt(char *out, size_t cap, const struct ht_addr *a, bool port);
/* Parses a numeric address ("10.0.0.1", "::1", "::ffff:1.2.3.4"); port 0. */
bool ht_addr_parse(struct ht_addr *out, const char *s);
bool ht_addr_equal(const struct ht_addr *x, const struct ht_addr *y);	/* port too */
bool ht_addr_loopback(const struct ht_addr *a);	/* 127.0.0.0/8 or ::1 */
bool ht_addr_any(const struct ht_addr *a);		/* 0.0.0.0 or :: */
uint32_t ht_addr_hash(const struct ht_addr *a);

/*
 * Splits "host:port", "[v6]:port", "host" or a bare IPv6 address into host
 * (brackets removed) and port (-1 when absent). False when the host does
 * not fit or the port is not 1..65535.
 */
bool ht_hostport_split(const char *s, char *host, size_t cap, int *port);

/* ---- endpoints: the addresses a job's ranks meet at --------------------------- */

#define HT_NET_ENDPOINTS 64

struct ht_endpoint {
	_Atomic uint32_t ready;
	struct ht_addr addr;
	uint8_t role;
};

struct ht_endpoints {
	_Atomic uint32_t claimed;
	struct ht_endpoint e[HT_NET_ENDPOINTS];
};

/* Adds (addr, role); a known address keeps its first role. 0, or -ENOSPC.
 * Safe against concurrent adders and readers. */
int ht_endpoints_add(struct ht_endpoints *t, const struct ht_addr *a, enum ht_net_role role);
/* The role of a connect destination: an endpoint with the same address
 * and port, else HT_ROLE_OTHER. */
enum ht_net_role ht_endpoints_role(const struct ht_endpoints *t, const struct ht_addr *a);
/* The role of a listening address: an endpoint with the same port whose
 * address is the listening one, or any endpoint's port when the listener
 * is bound to the wildcard address. */
enum ht_net_role ht_endpoints_role_listen(const struct ht_endpoints *t, const struct ht_addr *a);

/* ---- destinations: every address connected to, formatted once ----------------- */

#define HT_NET_DESTS 512

struct ht_dest {
	_Atomic uint32_t state;		/* 0 free, 1 being filled, 2 ready */
	_Atomic uint8_t role;
	struct ht_addr addr;
	char str[HT_ADDR_STRLEN];
};

struct ht_dests {
	struct ht_dest d[HT_NET_DESTS];
};

/* The index of a's entry, inserting it; -1 when the table is full. */
int ht_dests_get(struct ht_dests *t, const struct ht_addr *a);

/* ---- aggregation: attempts counted per (destination, errno) ------------------- */

#define HT_NET_AGG 1024

struct ht_agg_ent {
	_Atomic uint32_t state;		/* 0 free, 1 being filled, 2 ready */
	uint32_t dest;
	int32_t err;			/* the outcome's errno; -1 unknown */
	_Atomic uint64_t count;
	_Atomic int64_t first, last;	/* monotonic ns */
	_Atomic uint64_t logged;	/* count the latest line showed */
};

struct ht_agg {
	struct ht_agg_ent e[HT_NET_AGG];
};

/* Counts one attempt to dest ending in err at now; *count gets the new
 * total. NULL (and *count 0) when the table is full. */
struct ht_agg_ent *ht_agg_add(struct ht_agg *t, uint32_t dest, int err, int64_t now,
			      uint64_t *count);

/* ---- interface names ---------------------------------------------------------- */

/*
 * True when NCCL would use interface ifname under NCCL_SOCKET_IFNAME=spec:
 * a comma-separated list of name prefixes (a ":port" suffix of an item is
 * ignored); a leading '^' excludes the listed ones instead, and then or
 * alone a leading '=' makes the names exact. An empty list selects every
 * interface (NCCL's matchIfList with no entries).
 */
bool ht_nccl_ifname_selects(const char *spec, const char *ifname);
/*
 * NCCL's list syntax, shared by NCCL_SOCKET_IFNAME and NCCL_IB_HCA: true
 * when name (and port, -1 for any) is selected by spec, items "name" or
 * "name:port" separated by commas, '^' and '=' as above.
 */
bool ht_nccl_list_selects(const char *spec, const char *name, int port);
/* True when gloo would use ifname under GLOO_SOCKET_IFNAME=spec: a
 * comma-separated list of exact interface names. */
bool ht_gloo_ifname_selects(const char *spec, const char *ifname);

#endif
