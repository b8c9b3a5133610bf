// SPDX-License-Identifier: MIT
/*
 * nccltab.h: the NCCL family's plain data: the names of collective ops,
 * data types and reduction ops written into the ring, and the fixed-size
 * table of communicators (sequence numbers, init state, the facts of the
 * init that made each one). Lookups are lock-free and allocation-free; adds
 * and removals must be serialised by the caller.
 */
#ifndef HT_NCCLTAB_H
#define HT_NCCLTAB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "inflight.h"
#include "ncclid.h"

/* Collective and point-to-point operations: ring op codes and names. */
#define HT_NCCL_OP_MAP(XX)                \
	XX(ALLREDUCE, "allreduce")         \
	XX(BROADCAST, "broadcast")         \
	XX(REDUCE, "reduce")               \
	XX(ALLGATHER, "allgather")         \
	XX(REDUCESCATTER, "reducescatter") \
	XX(ALLTOALL, "alltoall")           \
	XX(GATHER, "gather")               \
	XX(SCATTER, "scatter")             \
	XX(SEND, "send")                   \
	XX(RECV, "recv")

enum ht_nccl_op {
#define XX(id, name) HT_NCCL_OP_##id,
	HT_NCCL_OP_MAP(XX)
#undef XX
	HT_NCCL_OP_COUNT
};

/* Names of the NCCL ops, data types and reduction ops in ring entries. */
const char *ht_nccl_op_name(int op);
const char *ht_nccl_dtype_name(int dtype);
const char *ht_nccl_redop_name(int redop);

/* Reduction ops at or above this value were made by
 * ncclRedOpCreatePreMulSum; the ring stores them as this value. */
#define HT_NCCL_REDOP_CUSTOM 5

/* Where a communicator stands. */
enum ht_ncomm_state {
	HT_NCOMM_READY = 0,	/* init succeeded (or the comm was met in a collective) */
	HT_NCOMM_PENDING,	/* non-blocking init returned ncclInProgress */
	HT_NCOMM_GROUP,		/* init inside ncclGroupStart/End: done at GroupEnd */
	HT_NCOMM_FAILED,	/* init, or the comm later, reported an error */
};

#define HT_NCCL_COMMS 512
#define HT_NCCL_NAME_LEN 64

/* What the init that made a communicator said about it. */
struct ht_ncomm_facts {
	int hook;		/* hook id of the init, -1 unknown */
	int nranks, rank;	/* -1 unknown */
	int blocking;		/* 1, 0, or -1: NCCL's default */
	int n_ids;		/* unique ids passed (0: none, e.g. split) */
	bool have_id;
	struct ht_ncclid id;	/* the first of them */
	uintptr_t parent;	/* split, shrink: the parent comm */
	int color, key;		/* split */
	char name[HT_NCCL_NAME_LEN];	/* config->commName, "" when none */
	int64_t start_ns;	/* coarse monotonic start of the init */
};

struct ht_ncomm {
	_Atomic uintptr_t key;	/* the ncclComm_t; 0 free, 1 removed */
	_Atomic uint32_t seq;	/* collectives and p2p issued on it so far */
	_Atomic int state;	/* enum ht_ncomm_state */
	_Atomic bool first_done;	/* its first collective was written */
	_Atomic bool error_seen;	/* an asynchronous error was written */
	/* Below: written by the adding thread before the comm is in use. */
	struct ht_ncomm_facts f;
	pid_t owner;		/* thread of a grouped init */
	struct ht_slot *pending;	/* in-flight record of a pending init */
};

struct ht_ncomms {
	struct ht_ncomm e[HT_NCCL_COMMS];
	_Atomic uint32_t live;		/* entries in use */
	_Atomic uint32_t dropped;	/* adds refused: table full */
};

/* The home slot of comm: Fibonacci hashing of the pointer. */
static inline uint32_t ht_ncomm_slot(uintptr_t comm)
{
	return (uint32_t)(((uint64_t)comm * 0x9e3779b97f4a7c15ULL) >> 40) % HT_NCCL_COMMS;
}
/* The entry of comm, or NULL (always for 0 and 1, which mark free and
 * removed entries). Lock-free. */
struct ht_ncomm *ht_ncomm_find(struct ht_ncomms *t, uintptr_t comm);
/* The same, with the common case (comm in its home slot) inlined. */
static inline struct ht_ncomm *ht_ncomm_find_fast(struct ht_ncomms *t, uintptr_t comm)
{
	struct ht_ncomm *e = &t->e[ht_ncomm_slot(comm)];
	if (__builtin_expect(atomic_load_explicit(&e->key, memory_order_acquire) == comm &&
				     comm > 1, 1))
		return e;
	return ht_ncomm_find(t, comm);
}
/* The entry of comm, added (zeroed, seq 0, READY, facts unknown) if absent;
 * NULL when the table is full or comm is 0 or 1. Callers serialise adds
 * and removals. */
struct ht_ncomm *ht_ncomm_add(struct ht_ncomms *t, uintptr_t comm, bool *added);
/* Frees an entry (a later find misses it). */
void ht_ncomm_remove(struct ht_ncomms *t, struct ht_ncomm *e);
void ht_ncomm_reset(struct ht_ncomms *t);

#endif
