// SPDX-License-Identifier: MIT
/*
 * clock.h: the monotonic clocks, in nanoseconds.
 */
#ifndef HT_BASE_CLOCK_H
#define HT_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t ht_clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static inline int64_t ht_now(void) { return ht_clock_ns(CLOCK_MONOTONIC); }
/* A few ns through the vDSO, a few ms of resolution: for in-flight calls. */
static inline int64_t ht_now_coarse(void) { return ht_clock_ns(CLOCK_MONOTONIC_COARSE); }

#define HT_NS_PER_SEC 1000000000LL

#endif
