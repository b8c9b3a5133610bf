// SPDX-License-Identifier: MIT
/*
 * inflight.h: which thread is inside which blocking hooked call (inflight.c).
 */
#ifndef HT_CORE_INFLIGHT_H
#define HT_CORE_INFLIGHT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HT_INFLIGHT_SLOTS 1024

struct ht_slot {
	_Atomic pid_t tid;		/* owner, 0 = free */
	_Atomic uint32_t seq;		/* odd while a call is in flight */
	_Atomic int32_t hook;		/* hook id of the outermost call */
	_Atomic int64_t start_ns;	/* coarse monotonic start */
	_Atomic uint32_t stalled_seq;	/* seq a dump saw this call at */
	_Atomic uint64_t pthread;	/* the owner's pthread_self(): Python's name for it */
};

struct ht_inflight {
	struct ht_slot slot[HT_INFLIGHT_SLOTS];
	_Atomic uint32_t used;		/* high-water mark of claimed slots */
	_Atomic uint32_t dropped;	/* calls untracked: table full */
};

/* Claims a free slot for thread tid; NULL when the table is full. */
struct ht_slot *ht_inflight_claim(struct ht_inflight *t, pid_t tid);
void ht_inflight_release(struct ht_slot *s);
/* Marks the start and the end of the outermost blocking call of a thread. */
void ht_inflight_enter(struct ht_slot *s, int hook, int64_t now);
void ht_inflight_leave(struct ht_slot *s);

struct ht_inflight_view {
	pid_t tid;
	int hook;
	int64_t start_ns;
	uint32_t seq;
	struct ht_slot *slot;
};
/* A consistent copy of the calls in flight (at most max); returns the count. */
size_t ht_inflight_snapshot(struct ht_inflight *t, struct ht_inflight_view *out, size_t max);
void ht_inflight_reset(struct ht_inflight *t);

#endif
