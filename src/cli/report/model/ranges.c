// SPDX-License-Identifier: MIT
/*
 * ranges.c: rank lists written the way people write them, "0-6,8-15",
 * and read back (for the tests). A list that does not fit the room given
 * ends with "...(+N)", N being the ranks left out, so a line never
 * overflows however scattered the ranks are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ranges.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

size_t ht_rep_ranks_sort(int64_t *v, size_t n)
{
	if (n == 0)
		return 0;
	rep_sort(v, n, sizeof(*v), cmp_i64);	/* (passes over a list in rank order) */
	size_t k = 1;
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

char *ht_rep_ranges(const int64_t *v, size_t n, char *out, size_t max)
{
	size_t len = 0;

	if (max == 0)
		return out;
	out[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		char item[48];
		int k;
		if (j == i)
			k = snprintf(item, sizeof(item), "%s%lld", i > 0 ? "," : "", (long long)v[i]);
		else
			k = snprintf(item, sizeof(item), "%s%lld-%lld", i > 0 ? "," : "",
				     (long long)v[i], (long long)v[j]);
		/* Room for this item and, if more follow, the "...(+N)" tail. */
		char tail[32];
		int tk = j + 1 < n ? snprintf(tail, sizeof(tail), ",...(+%zu)", n - j - 1) : 0;
		if (len + (size_t)k + (size_t)tk + 1 > max) {
			int r = snprintf(tail, sizeof(tail), "%s...(+%zu)", i > 0 ? "," : "", n - i);
			if (len + (size_t)r + 1 <= max)
				memcpy(out + len, tail, (size_t)r + 1);
			return out;
		}
		memcpy(out + len, item, (size_t)k + 1);
		len += (size_t)k;
		i = j + 1;
	}
	return out;
}

const char *ht_rep_ranges_a(struct rep_arena *a, const int64_t *v, size_t n, size_t max)
{
	char *out = ht_rep_alloc(a, max + 1);
	return ht_rep_ranges(v, n, out, max + 1);
}

long ht_rep_ranges_parse(const char *s, int64_t *out, size_t max)
{
	size_t n = 0;
	while (*s != '\0') {
		char *end;
		long long a = strtoll(s, &end, 10), b = a;
		if (end == s)
			return -1;
		s = end;
		if (*s == '-') {
			b = strtoll(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -1;
			s = end;
		}
		for (long long r = a; r <= b; r++) {
			if (n == max)
				return -1;
			out[n++] = r;
		}
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return -1;
	}
	return (long)n;
}

bool ht_rep_ranks_hold(const int64_t *r, size_t n, int64_t x, bool sorted)
{
	if (!sorted) {
		for (size_t i = 0; i < n; i++)
			if (r[i] == x)
				return true;
		return false;
	}
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && r[lo] == x;
}
