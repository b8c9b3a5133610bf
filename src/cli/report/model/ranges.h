// SPDX-License-Identifier: MIT
/*
 * ranges.h: rank lists as "0-6,8-15" (ranges.c).
 */
#ifndef HT_REP_RANGES_H
#define HT_REP_RANGES_H

#include "model/model.h"

/* Sorts and de-duplicates v in place; returns the new length. */
size_t ht_rep_ranks_sort(int64_t *v, size_t n);
/* True when r[0..n) holds x; sorted: r is in ascending order (then a
 * binary search). */
bool ht_rep_ranks_hold(const int64_t *r, size_t n, int64_t x, bool sorted);
/* Writes "0-6,8-15" for the sorted unique ranks; at most max bytes are
 * used, then "...(+N)" ends the list. Returns out. */
char *ht_rep_ranges(const int64_t *v, size_t n, char *out, size_t max);
/* The same, allocated in the job's arena. */
const char *ht_rep_ranges_a(struct rep_arena *a, const int64_t *v, size_t n, size_t max);
/* Parses "0-6,8" into ranks (tests); returns the count or -1. */
long ht_rep_ranges_parse(const char *s, int64_t *out, size_t max);

#endif
