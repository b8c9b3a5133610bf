// SPDX-License-Identifier: MIT
/*
 * ibfacts.h: InfiniBand and RoCE facts as plain functions over a sysfs root
 * (normally /sys/class/infiniband; a test gives a fake tree): the devices
 * and ports with their state, physical state, link layer, rate and GID
 * table, NCCL's matching of NCCL_IB_HCA against them, and the judgement of
 * NCCL_IB_HCA, NCCL_IB_GID_INDEX and NCCL_IB_DISABLE that the library's
 * "ib" event and `hangtrace check` both write. Normal context only (opendir
 * allocates); no stdio, no getenv: the caller passes the variables.
 */
#ifndef HT_IBFACTS_H
#define HT_IBFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HT_IB_MAX_PORTS 32
#define HT_IB_MAX_GIDS 16	/* non-empty GIDs kept per port */
#define HT_IB_MAX_PROBLEMS 16

struct ht_ib_gid {
	int index;
	char gid[40];		/* "fe80:0000:...", as sysfs writes it */
	char type[24];		/* "RoCE v2", "IB/RoCE v1", "" unknown */
};

struct ht_ib_port {
	char dev[64];
	int port;
	char state[24];		/* "ACTIVE" (sysfs "4: ACTIVE"), "DOWN", ... */
	char phys_state[24];	/* "LinkUp", "Disabled", ... */
	char link_layer[16];	/* "InfiniBand" or "Ethernet" (RoCE) */
	char rate[48];		/* "200 Gb/sec (4X HDR)" */
	int ngids;
	struct ht_ib_gid gids[HT_IB_MAX_GIDS];
	/* The GID at the selected index, when one was asked for. */
	bool selected;		/* NCCL_IB_HCA selects this port */
};

/*
 * Reads every device and port under root (root/<dev>/ports/<n>/...). Returns
 * the number of ports filled into out (at most max), 0 when root does not
 * exist or holds none.
 */
int ht_ib_scan(const char *root, struct ht_ib_port *out, int max);

/*
 * True when NCCL would use port `port` of device dev under NCCL_IB_HCA=spec
 * (NCCL 2.x net_ib.cc, with parseStringList and matchIfList of
 * src/misc/utils.cc): a comma-separated list of device-name prefixes, each
 * with an optional ":port"; a leading '^' excludes the listed ones, then a
 * leading '=' makes names exact. An unset or empty list selects every port.
 */
bool ht_ib_hca_selects(const char *spec, const char *dev, int port);

/* True for the all-zero GID (an empty slot) and for fe80::/10 (link-local). */
bool ht_ib_gid_empty(const char *gid);
bool ht_ib_gid_link_local(const char *gid);

/* What NCCL would be given, read from the environment by the caller. */
struct ht_ib_env {
	const char *hca;		/* NCCL_IB_HCA or NULL */
	const char *gid_index;		/* NCCL_IB_GID_INDEX or NULL */
	const char *disable;		/* NCCL_IB_DISABLE or NULL */
	int64_t memlock_soft;		/* bytes; -1 unlimited, -2 unknown */
};

struct ht_ib_problem {
	char dev[64];
	int port;			/* 0: not about one port */
	char what[200];
};

/*
 * Judges ports (marking each one's `selected`) under env: NCCL_IB_HCA that
 * names no device or port of the host; a selected port that is not ACTIVE
 * or not LinkUp; on a RoCE port, NCCL_IB_GID_INDEX at an empty or
 * link-local GID; a memlock limit below 64 MiB while IB is in use. Nothing
 * is judged when NCCL_IB_DISABLE=1 or when no port exists and NCCL_IB_HCA
 * is unset. Returns the number of problems written to out (at most max).
 */
int ht_ib_judge(struct ht_ib_port *ports, int n, const struct ht_ib_env *env,
		struct ht_ib_problem *out, int max);

/* True when IB is in use for NCCL: not disabled and a port is selected. */
bool ht_ib_in_use(const struct ht_ib_port *ports, int n, const struct ht_ib_env *env);

struct ht_jw;
/* The "ports" and "problems" arrays of an "ib" line (doc/trace-format.md),
 * written alike by the library and `hangtrace check`. */
void ht_ib_write_ports(struct ht_jw *w, const struct ht_ib_port *p, int n);
void ht_ib_write_problems(struct ht_jw *w, const struct ht_ib_problem *p, int n);

#define HT_IB_MEMLOCK_MIN (64LL << 20)

#endif
