// SPDX-License-Identifier: MIT
/*
 * ring.h: the last collectives, written out with every dump (ring.c).
 */
#ifndef HT_CORE_RING_H
#define HT_CORE_RING_H

#include <stdatomic.h>
#include <stdint.h>

#define HT_RING_SIZE 4096

struct ht_coll {
	_Atomic uint64_t n;	/* global number + 1 when complete, 0 while written */
	uint64_t comm;
	uint64_t count;
	int64_t mono_ns;
	uint32_t seq;		/* per-communicator sequence number */
	int32_t peer;		/* root or peer, -1 when none */
	uint16_t op;		/* index into the op names of the NCCL hooks */
	int8_t dtype;
	int8_t redop;
};

struct ht_ring {
	_Atomic uint64_t next;
	struct ht_coll e[HT_RING_SIZE];
};

/* Records one collective; lock-free, no allocation. */
void ht_ring_put(struct ht_ring *r, uint64_t comm, uint32_t seq, uint16_t op,
		 uint64_t count, int8_t dtype, int8_t redop, int32_t peer, int64_t now);
/* Calls fn for each complete entry, oldest first; returns the total issued. */
uint64_t ht_ring_walk(struct ht_ring *r,
		      void (*fn)(const struct ht_coll *c, void *arg), void *arg);

#endif
