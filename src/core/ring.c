// SPDX-License-Identifier: MIT
/*
 * ring.c: the last HT_RING_SIZE collectives of a process, written out with
 * every dump (SPEC section 5). A writer takes a number with one atomic add
 * and fills its entry; the number stored last marks the entry complete, so
 * a dump never prints a half-written one. No allocation, no locks.
 */
#include "ring.h"

void ht_ring_put(struct ht_ring *r, uint64_t comm, uint32_t seq, uint16_t op,
		 uint64_t count, int8_t dtype, int8_t redop, int32_t peer, int64_t now)
{
	uint64_t n = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed);
	struct ht_coll *c = &r->e[n % HT_RING_SIZE];

	/* A writer descheduled between taking its number and writing, while
	 * the others went round the whole ring, finds a newer entry in its
	 * slot: it is the older one and gives way (seen once under load).
	 * Descheduled between this check and its first store, it takes the
	 * slot back for its older number: the newer entry is lost and the
	 * slot reads as being rewritten, never torn (closing that needs an
	 * exchange on every call, about 8 ns of the collective's budget). */
	if (atomic_load_explicit(&c->n, memory_order_relaxed) > n + 1)
		return;
	atomic_store_explicit(&c->n, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	c->comm = comm;
	c->count = count;
	c->mono_ns = now;
	c->seq = seq;
	c->peer = peer;
	c->op = op;
	c->dtype = dtype;
	c->redop = redop;
	atomic_store_explicit(&c->n, n + 1, memory_order_release);
}

uint64_t ht_ring_walk(struct ht_ring *r,
		      void (*fn)(const struct ht_coll *c, void *arg), void *arg)
{
	uint64_t total = atomic_load_explicit(&r->next, memory_order_acquire);
	uint64_t first = total > HT_RING_SIZE ? total - HT_RING_SIZE : 0;

	for (uint64_t i = first; i < total; i++) {
		struct ht_coll *c = &r->e[i % HT_RING_SIZE];
		if (atomic_load_explicit(&c->n, memory_order_acquire) != i + 1)
			continue;	/* being rewritten, or overtaken */
		struct ht_coll copy = {
			.comm = c->comm, .count = c->count, .mono_ns = c->mono_ns,
			.seq = c->seq, .peer = c->peer, .op = c->op,
			.dtype = c->dtype, .redop = c->redop,
		};
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&c->n, memory_order_relaxed) != i + 1)
			continue;
		atomic_store_explicit(&copy.n, i + 1, memory_order_relaxed);
		fn(&copy, arg);
	}
	return total;
}
