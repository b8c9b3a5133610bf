// SPDX-License-Identifier: MIT
/*
 * inflight.c: the table of blocking hooked calls in flight, one slot per
 * thread, lock-free. A thread claims a slot once (CAS on the owner tid) and
 * marks the outermost call it is in with an odd sequence number; the
 * watchdog copies the table seqlock-style. Async-signal-safe, no allocation.
 */
#include <string.h>

#include "inflight.h"

struct ht_slot *ht_inflight_claim(struct ht_inflight *t, pid_t tid)
{
	for (uint32_t i = 0; i < HT_INFLIGHT_SLOTS; i++) {
		pid_t expected = 0;
		struct ht_slot *s = &t->slot[i];
		if (atomic_load_explicit(&s->tid, memory_order_relaxed) != 0)
			continue;
		if (atomic_compare_exchange_strong(&s->tid, &expected, tid)) {
			uint32_t used = atomic_load(&t->used);
			while (i + 1 > used &&
			       !atomic_compare_exchange_weak(&t->used, &used, i + 1))
				;
			return s;
		}
	}
	atomic_fetch_add(&t->dropped, 1);
	return NULL;
}

void ht_inflight_release(struct ht_slot *s)
{
	uint32_t seq = atomic_load(&s->seq);
	if (seq & 1)
		atomic_store(&s->seq, seq + 1);
	atomic_store(&s->tid, 0);
}

void ht_inflight_enter(struct ht_slot *s, int hook, int64_t now)
{
	uint32_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	atomic_store_explicit(&s->hook, hook, memory_order_relaxed);
	atomic_store_explicit(&s->start_ns, now, memory_order_relaxed);
	/* Release: a reader that sees the odd seq sees hook and start too. */
	atomic_store_explicit(&s->seq, (seq | 1) + ((seq & 1) ? 2 : 0), memory_order_release);
}

void ht_inflight_leave(struct ht_slot *s)
{
	uint32_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	atomic_store_explicit(&s->seq, (seq | 1) + 1, memory_order_release);
}

size_t ht_inflight_snapshot(struct ht_inflight *t, struct ht_inflight_view *out, size_t max)
{
	size_t n = 0;
	uint32_t used = atomic_load(&t->used);

	for (uint32_t i = 0; i < used && n < max; i++) {
		struct ht_slot *s = &t->slot[i];
		uint32_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
		if ((seq & 1) == 0)
			continue;
		pid_t tid = atomic_load_explicit(&s->tid, memory_order_relaxed);
		int hook = atomic_load_explicit(&s->hook, memory_order_relaxed);
		int64_t start = atomic_load_explicit(&s->start_ns, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&s->seq, memory_order_relaxed) != seq || tid == 0)
			continue;	/* the call ended while we looked */
		out[n++] = (struct ht_inflight_view){ tid, hook, start, seq, s };
	}
	return n;
}

void ht_inflight_reset(struct ht_inflight *t)
{
	memset(t, 0, sizeof(*t));
}
