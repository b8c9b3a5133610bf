// SPDX-License-Identifier: MIT
/*
 * netfacts.c: plain functions for the network family (see netfacts.h):
 * address normalising and formatting (our own, since glibc's inet_ntop
 * goes through sprintf), endpoint roles, outcome classes, the lock-free
 * destination and aggregation tables, and NCCL's and gloo's interface-name
 * rules. Async-signal-safe; no allocation; no locks.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>

#include "fmt.h"
#include "netfacts.h"

static const char *const role_names[] = {
#define XX(id, name) name,
	HT_NET_ROLE_MAP(XX)
#undef XX
};

static const char *const result_names[] = {
#define XX(id, name) name,
	HT_NET_RESULT_MAP(XX)
#undef XX
};

const char *ht_net_role_name(int role)
{
	return role >= 0 && role < HT_ROLE_COUNT ? role_names[role] : NULL;
}

int ht_net_role_from_name(const char *s)
{
	for (int i = 0; s != NULL && i < HT_ROLE_COUNT; i++)
		if (strcmp(role_names[i], s) == 0)
			return i;
	return -1;
}

const char *ht_net_result_name(int res)
{
	return res >= 0 && res < HT_RES_COUNT ? result_names[res] : NULL;
}

enum ht_net_result ht_net_result_of(int err)
{
	switch (err) {
	case 0:
		return HT_RES_OK;
	case ECONNREFUSED:
		return HT_RES_REFUSED;
	case ETIMEDOUT:
		return HT_RES_TIMEOUT;
	case EHOSTUNREACH:
	case ENETUNREACH:
		return HT_RES_UNREACHABLE;
	case EINPROGRESS:
	case EALREADY:
		return HT_RES_PENDING;
	default:
		return HT_RES_ERROR;
	}
}

/* The order of enum in <netinet/tcp.h> (TCP_ESTABLISHED = 1 ...). */
static const char *const tcp_states[] = {
	"UNKNOWN", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2",
	"TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING",
};

const char *ht_tcp_state_name(int st)
{
	return st > 0 && (size_t)st < sizeof(tcp_states) / sizeof(tcp_states[0]) ? tcp_states[st]
										 : tcp_states[0];
}

bool ht_tcp_state_connected(int st)
{
	switch (st) {
	case TCP_ESTABLISHED:
	case TCP_FIN_WAIT1:
	case TCP_FIN_WAIT2:
	case TCP_TIME_WAIT:
	case TCP_CLOSE_WAIT:
	case TCP_LAST_ACK:
	case TCP_CLOSING:
		return true;
	default:
		return false;
	}
}

bool ht_net_log_due(uint64_t count)
{
	return count != 0 && (count & (count - 1)) == 0;
}

/* ---- addresses -------------------------------------------------------------- */

static const uint8_t v4mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

bool ht_addr_from_sa(struct ht_addr *out, const void *sa, size_t len)
{
	sa_family_t fam;

	if (sa == NULL || len < sizeof(fam))
		return false;
	memset(out, 0, sizeof(*out));
	memcpy(&fam, sa, sizeof(fam));
	if (fam == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;
		memcpy(&in, sa, sizeof(in));
		out->family = AF_INET;
		out->port = ntohs(in.sin_port);
		memcpy(out->a, &in.sin_addr, 4);
		return true;
	}
	if (fam == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 in6;
		memcpy(&in6, sa, sizeof(in6));
		out->port = ntohs(in6.sin6_port);
		if (memcmp(&in6.sin6_addr, v4mapped_prefix, 12) == 0) {
			/* ::ffff:a.b.c.d is IPv4 (PyTorch 1.13's TCPStore). */
			out->family = AF_INET;
			memcpy(out->a, (const uint8_t *)&in6.sin6_addr + 12, 4);
		} else {
			out->family = AF_INET6;
			out->scope = in6.sin6_scope_id;
			memcpy(out->a, &in6.sin6_addr, 16);
		}
		return true;
	}
	return false;
}

bool ht_addr_parse(struct ht_addr *out, const char *s)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };

	if (inet_pton(AF_INET, s, &in.sin_addr) == 1)
		return ht_addr_from_sa(out, &in, sizeof(in));
	if (inet_pton(AF_INET6, s, &in6.sin6_addr) == 1)
		return ht_addr_from_sa(out, &in6, sizeof(in6));
	return false;
}

static size_t put_u(char *out, unsigned v)
{
	char tmp[12];
	size_t n = 0, k = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		out[k++] = tmp[--n];
	return k;
}

static size_t put_hex16(char *out, unsigned v)
{
	static const char digits[] = "0123456789abcdef";
	size_t k = 0;
	bool lead = true;
	for (int shift = 12; shift >= 0; shift -= 4) {
		unsigned d = (v >> shift) & 0xf;
		if (d == 0 && lead && shift != 0)
			continue;
		lead = false;
		out[k++] = digits[d];
	}
	return k;
}

/* RFC 5952: lowercase, no leading zeros, the longest run (first on a tie)
 * of two or more zero groups written "::". */
static size_t fmt_v6(char *out, const uint8_t *a)
{
	unsigned g[8];
	int best = -1, best_len = 0;
	size_t k = 0;

	for (int i = 0; i < 8; i++)
		g[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
	for (int i = 0; i < 8;) {
		int j = i;
		while (j < 8 && g[j] == 0)
			j++;
		if (j - i > best_len && j - i >= 2) {
			best = i;
			best_len = j - i;
		}
		i = j > i ? j : i + 1;
	}
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			out[k++] = ':';
			out[k++] = ':';
			i += best_len - 1;
			continue;
		}
		if (i > 0 && !(best >= 0 && i == best + best_len))
			out[k++] = ':';
		k += put_hex16(out + k, g[i]);
	}
	return k;
}

size_t ht_addr_fmt(char *out, size_t cap, const struct ht_addr *a, bool port)
{
	char buf[HT_ADDR_STRLEN];
	size_t k = 0;

	if (a->family == AF_INET) {
		for (int i = 0; i < 4; i++) {
			if (i > 0)
				buf[k++] = '.';
			k += put_u(buf + k, a->a[i]);
		}
	} else {
		if (port)
			buf[k++] = '[';
		k += fmt_v6(buf + k, a->a);
		if (a->scope != 0) {
			buf[k++] = '%';
			k += put_u(buf + k, a->scope);
		}
		if (port)
			buf[k++] = ']';
	}
	if (port) {
		buf[k++] = ':';
		k += put_u(buf + k, a->port);
	}
	buf[k] = '\0';
	if (cap == 0)
		return k;
	if (k >= cap)
		k = cap - 1;
	memcpy(out, buf, k);
	out[k] = '\0';
	return k;
}

bool ht_addr_equal(const struct ht_addr *x, const struct ht_addr *y)
{
	return x->family == y->family && x->port == y->port &&
	       memcmp(x->a, y->a, x->family == AF_INET ? 4 : 16) == 0;
}

bool ht_addr_loopback(const struct ht_addr *a)
{
	static const uint8_t v6lo[16] = { [15] = 1 };
	if (a->family == AF_INET)
		return a->a[0] == 127;
	return memcmp(a->a, v6lo, 16) == 0;
}

bool ht_addr_any(const struct ht_addr *a)
{
	static const uint8_t zero[16];
	return memcmp(a->a, zero, a->family == AF_INET ? 4 : 16) == 0;
}

uint32_t ht_addr_hash(const struct ht_addr *a)
{
	uint32_t h = 2166136261u;
	uint8_t head[4] = { (uint8_t)a->family, (uint8_t)(a->family >> 8),
			    (uint8_t)a->port, (uint8_t)(a->port >> 8) };
	for (size_t i = 0; i < sizeof(head); i++)
		h = (h ^ head[i]) * 16777619u;
	for (size_t i = 0; i < (a->family == AF_INET ? 4u : 16u); i++)
		h = (h ^ a->a[i]) * 16777619u;
	return h;
}

static bool parse_port(const char *s, int *port)
{
	int v = 0;
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > 65535)
			return false;
		v = v * 10 + (*s - '0');
	}
	if (v < 1 || v > 65535)
		return false;
	*port = v;
	return true;
}

static bool copy_host(char *host, size_t cap, const char *s, size_t n)
{
	if (n == 0 || n >= cap)
		return false;
	memcpy(host, s, n);
	host[n] = '\0';
	return true;
}

bool ht_hostport_split(const char *s, char *host, size_t cap, int *port)
{
	*port = -1;
	if (s == NULL)
		return false;
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (end == NULL || !copy_host(host, cap, s + 1, (size_t)(end - s - 1)))
			return false;
		if (end[1] == '\0')
			return true;
		return end[1] == ':' && parse_port(end + 2, port);
	}
	const char *colon = strchr(s, ':');
	if (colon == NULL || strchr(colon + 1, ':') != NULL)
		return copy_host(host, cap, s, strlen(s));	/* a name, or bare IPv6 */
	return copy_host(host, cap, s, (size_t)(colon - s)) && parse_port(colon + 1, port);
}

/* ---- endpoints ----------------------------------------------------------------- */

int ht_endpoints_add(struct ht_endpoints *t, const struct ht_addr *a, enum ht_net_role role)
{
	uint32_t n = atomic_load(&t->claimed);
	for (uint32_t i = 0; i < n && i < HT_NET_ENDPOINTS; i++)
		if (atomic_load_explicit(&t->e[i].ready, memory_order_acquire) &&
		    ht_addr_equal(&t->e[i].addr, a))
			return 0;
	uint32_t i = atomic_fetch_add(&t->claimed, 1);
	if (i >= HT_NET_ENDPOINTS)
		return -ENOSPC;
	t->e[i].addr = *a;
	t->e[i].role = (uint8_t)role;
	atomic_store_explicit(&t->e[i].ready, 1, memory_order_release);
	return 0;
}

enum ht_net_role ht_endpoints_role(const struct ht_endpoints *t, const struct ht_addr *a)
{
	uint32_t n = atomic_load_explicit(&t->claimed, memory_order_acquire);
	for (uint32_t i = 0; i < n && i < HT_NET_ENDPOINTS; i++)
		if (atomic_load_explicit(&t->e[i].ready, memory_order_acquire) &&
		    ht_addr_equal(&t->e[i].addr, a))
			return (enum ht_net_role)t->e[i].role;
	return HT_ROLE_OTHER;
}

enum ht_net_role ht_endpoints_role_listen(const struct ht_endpoints *t, const struct ht_addr *a)
{
	bool any = ht_addr_any(a);
	uint32_t n = atomic_load_explicit(&t->claimed, memory_order_acquire);
	for (uint32_t i = 0; i < n && i < HT_NET_ENDPOINTS; i++) {
		const struct ht_endpoint *e = &t->e[i];
		if (!atomic_load_explicit(&e->ready, memory_order_acquire) ||
		    e->addr.port != a->port)
			continue;
		if (any || ht_addr_equal(&e->addr, a))
			return (enum ht_net_role)e->role;
	}
	return HT_ROLE_OTHER;
}

/* ---- open-addressed tables ----------------------------------------------------- */

enum { SLOT_FREE = 0, SLOT_FILLING = 1, SLOT_READY = 2 };

/* Waits (briefly) for a slot another thread is filling; false if it does
 * not become ready, in which case the caller probes on. */
static bool wait_ready(_Atomic uint32_t *state)
{
	for (int spin = 0; spin < 100000; spin++) {
		if (atomic_load_explicit(state, memory_order_acquire) == SLOT_READY)
			return true;
	}
	return false;
}

int ht_dests_get(struct ht_dests *t, const struct ht_addr *a)
{
	uint32_t h = ht_addr_hash(a);
	for (uint32_t probe = 0; probe < HT_NET_DESTS; probe++) {
		uint32_t i = (h + probe) % HT_NET_DESTS;
		struct ht_dest *d = &t->d[i];
		uint32_t s = atomic_load_explicit(&d->state, memory_order_acquire);
		if (s == SLOT_FREE) {
			uint32_t expect = SLOT_FREE;
			if (atomic_compare_exchange_strong(&d->state, &expect, SLOT_FILLING)) {
				d->addr = *a;
				ht_addr_fmt(d->str, sizeof(d->str), a, true);
				atomic_store_explicit(&d->role, 0, memory_order_relaxed);
				atomic_store_explicit(&d->state, SLOT_READY, memory_order_release);
				return (int)i;
			}
			s = expect;
		}
		if (s == SLOT_FILLING && !wait_ready(&d->state))
			continue;
		if (ht_addr_equal(&d->addr, a))
			return (int)i;
	}
	return -1;
}

struct ht_agg_ent *ht_agg_add(struct ht_agg *t, uint32_t dest, int err, int64_t now,
			      uint64_t *count)
{
	uint32_t h = (dest * 2654435761u) ^ ((uint32_t)err * 40503u);
	*count = 0;
	for (uint32_t probe = 0; probe < HT_NET_AGG; probe++) {
		struct ht_agg_ent *e = &t->e[(h + probe) % HT_NET_AGG];
		uint32_t s = atomic_load_explicit(&e->state, memory_order_acquire);
		if (s == SLOT_FREE) {
			uint32_t expect = SLOT_FREE;
			if (atomic_compare_exchange_strong(&e->state, &expect, SLOT_FILLING)) {
				e->dest = dest;
				e->err = err;
				atomic_store(&e->count, 0);
				atomic_store(&e->logged, 0);
				atomic_store(&e->first, now);
				atomic_store(&e->last, now);
				atomic_store_explicit(&e->state, SLOT_READY, memory_order_release);
				*count = atomic_fetch_add(&e->count, 1) + 1;
				return e;
			}
			s = expect;
		}
		if (s == SLOT_FILLING && !wait_ready(&e->state))
			continue;
		if (e->dest == dest && e->err == err) {
			atomic_store(&e->last, now);
			*count = atomic_fetch_add(&e->count, 1) + 1;
			return e;
		}
	}
	return NULL;
}

/* ---- interface names ------------------------------------------------------------ */

static bool item_matches(const char *item, size_t n, const char *ifname, bool exact)
{
	if (exact)
		return strlen(ifname) == n && memcmp(ifname, item, n) == 0;
	return strncmp(ifname, item, n) == 0;
}

bool ht_nccl_list_selects(const char *spec, const char *name, int port)
{
	bool exclude = spec[0] == '^';
	if (exclude)
		spec++;
	bool exact = spec[0] == '=';
	if (exact)
		spec++;
	int items = 0;
	bool hit = false;
	for (const char *p = spec;;) {
		size_t len = strcspn(p, ",");
		size_t n = strcspn(p, ":,");
		if (n > len)
			n = len;
		if (n > 0) {
			int want = -1;	/* no ":port": any port */
			if (n < len) {
				int64_t v;
				char num[16];
				size_t nl = len - n - 1;
				if (nl > 0 && nl < sizeof(num)) {
					memcpy(num, p + n + 1, nl);
					num[nl] = '\0';
					want = ht_parse_i64(num, &v) ? (int)v : 0;
				}
			}
			items++;
			hit = hit || (item_matches(p, n, name, exact) &&
				      (want == -1 || port == -1 || want == port));
		}
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	return (items == 0 || hit) != exclude;
}

bool ht_nccl_ifname_selects(const char *spec, const char *ifname)
{
	return ht_nccl_list_selects(spec, ifname, -1);	/* "eth0:1234": the port is ignored */
}

bool ht_gloo_ifname_selects(const char *spec, const char *ifname)
{
	for (const char *p = spec;;) {
		size_t len = strcspn(p, ",");
		if (len > 0 && item_matches(p, len, ifname, true))
			return true;
		if (p[len] == '\0')
			return false;
		p += len + 1;
	}
}
