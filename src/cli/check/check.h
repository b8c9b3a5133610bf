// SPDX-License-Identifier: MIT
/*
 * check.h: `hangtrace check` (SPEC section 1), shared by the files of
 * src/cli/check/: check.c (options, the order of the steps, the exit
 * status), trace.c (the trace file, its lines and clocks), facts.c (what one rank finds on its host),
 * wire.c (sockets with deadlines), compare.c (rank 0's comparisons),
 * meet.c (rank 0's listener, every rank's connect, the plans, the
 * peer connects) and selftest.c (the one-element all-reduce). One struct
 * chk per process; nothing else is global but the peer listener and the
 * self-test thread.
 */
#ifndef HT_CLI_CHECK_H
#define HT_CLI_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hangtrace.h"
#include "clock.h"
#include "common.h"
#include "fmt.h"
#include "identity.h"
#include "jsonw.h"
#include "options.h"
#include "redact.h"
#include "ibfacts.h"

#include "check/names.h"

#define CHK_SKEW_MAX 2.0	/* seconds: SPEC section 8, clock_skew */
#define CHK_SHM_MIN (1LL << 30)	/* as the report's shm_too_small */
#define CHK_MAX_RANKS 4096

/* What a rank tells rank 0 about itself (also written in its facts line). */
struct chk_facts {
	char host[256];
	char boot_id[64];
	int64_t rank, world_size, local_rank;
	/* GPU */
	bool cuda;			/* a driver was loaded and cuInit succeeded */
	char libcuda[256];
	int cuda_init;			/* cuInit's result, -1 not called */
	int64_t driver, runtime, nccl;	/* versions, -1 unknown */
	int gpu_count;			/* -1 unknown */
	int ordinal;			/* the one its local rank would take, -1 none */
	char uuid[48];			/* "GPU-..." or "" */
	char visible[128];		/* CUDA_VISIBLE_DEVICES or "" (unset: "-") */
	/* network */
	char ifname[64];		/* the interface NCCL would bootstrap from */
	char addr[64];			/* its address, without port */
	int peer_port;			/* where this rank listens for its peers */
	/* ib */
	int nports;
	struct ht_ib_port ports[HT_IB_MAX_PORTS];
	const char *gid_index;
};

struct chk {
	/* options */
	const char *dir;
	double timeout;			/* seconds */
	int port;			/* the rendezvous port */
	int nccl;			/* 1 asked, 0 refused, -1 by default */
	/* identity and clocks */
	struct ht_identity id;
	double t0;			/* CLOCK_MONOTONIC seconds at start */
	const char *master;		/* where rank 0 listens (host), NULL: loopback */
	/* the trace file */
	int fd;
	bool write_failed;		/* a trace line was lost: exit 2 */
	char path[1024];
	/* results */
	int failed;			/* checks that failed so far */
	struct chk_facts f;
	/* A JSON object the next ht_chk_result line carries as "facts" (then
	 * cleared), or "" for none. */
	char facts[2048];
	/* the NCCL unique id (hex) rank 0 hands out */
	char nccl_id[260];
	bool nccl_on;
};

/* ---- trace.c ---------------------------------------------------------------- */

/* Seconds on CLOCK_MONOTONIC and CLOCK_REALTIME. */
double ht_chk_mono(void);
double ht_chk_wall(void);
/* Seconds left before the step that ends at fraction frac of the bound. */
double ht_chk_left(const struct chk *c, double frac);
/* The trace file D/<host>.<pid>.jsonl : created (0 or -errno),
 * its header line, its exit line. */
int ht_chk_open(struct chk *c);
void ht_chk_header(struct chk *c);
void ht_chk_exit_line(struct chk *c, int status);
/* Writes one line begun with ht_chk_begin (ts, mono, tid filled in). */
void ht_chk_begin(struct chk *c, struct ht_jw *w, char *buf, size_t cap, enum ht_event_type t);
void ht_chk_emit(struct chk *c, struct ht_jw *w);
/*
 * Writes one "check" line: name, result ("pass", "fail", "skip"), why (a
 * sentence), code (the verdict it stands for, NULL for none) and, for
 * checks that blame others, ranks (n of them). Counts a failure.
 */
void ht_chk_result(struct chk *c, enum ht_check_id id, const char *result, const char *code,
		   const int64_t *ranks, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

/* ---- facts.c ---------------------------------------------------------------- */

/* Gathers and writes the local facts and checks (identity, gpu, ifname,
 * resolve, shm, ib). */
void ht_chk_local(struct chk *c);
/* The NCCL library when it can be loaded (dlopen handle), else NULL. */
void *ht_chk_libnccl(void);
/* The driver, once loaded by ht_chk_local (dlopen handle), else NULL. */
void *ht_chk_libcuda(void);

/* ---- meet.c ----------------------------------------------------------------- */

/* Rank 0: listens, gathers, compares, answers; the others: connect, send,
 * receive their plan; then the peer connects and the self-test through
 * selftest.c; writes every networked check. */
void ht_chk_meet(struct chk *c);

/* ---- selftest.c ------------------------------------------------------------- */

/* Rank 0: a new NCCL unique id, hex-encoded into c->nccl_id. 0 or -1. */
int ht_chk_nccl_id(struct chk *c, char *why, size_t cap);
/*
 * Starts the one-element all-reduce on its own thread (it may hang in
 * NCCL): returns at once. ht_chk_nccl_state says how far it got.
 */
void ht_chk_nccl_start(struct chk *c);
/* 0 not begun, 1 in init, 2 in the all-reduce, 3 done, -1 failed (why). */
int ht_chk_nccl_state(char *why, size_t cap);

#endif
