// SPDX-License-Identifier: MIT
/*
 * util.h: the report's memory (util.c): a bump arena that holds what a
 * report reads until it is freed, a pointer vector, a growable string, and
 * small helpers every stage uses.
 */
#ifndef HT_REP_UTIL_H
#define HT_REP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* qsort that accepts an empty (NULL) array. */
/* qsort, passing over what is in order already: the order a stable sort
 * (glibc's merge sort, where it has the memory) leaves it in; where the
 * comparison ties, any order is one qsort may give. */
static inline void rep_sort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	size_t i = 1;
	while (i < n && cmp((const char *)base + (i - 1) * size, (const char *)base + i * size) <= 0)
		i++;
	if (i < n)
		qsort(base, n, size, cmp);
}

/* rep_sort by cmp, which orders first by what group compares (a host):
 * when base comes grouped, the groups in order (a folder's files, a
 * digest's records), only each group is sorted. The order rep_sort
 * gives (where cmp ties, either may give any), at a fraction of its
 * comparisons for a million records. */
static inline void rep_sort_grouped(void *base, size_t n, size_t size,
				    int (*group)(const void *, const void *),
				    int (*cmp)(const void *, const void *))
{
	char *b = base;
	for (size_t i = 1; i < n; i++)
		if (group(b + (i - 1) * size, b + i * size) > 0) {
			rep_sort(base, n, size, cmp);
			return;
		}
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && group(b + i * size, b + j * size) == 0; j++)
			;
		rep_sort(b + i * size, j - i, size, cmp);
	}
}

/* ---- passes over a million records -------------------------------------- */

/* The passes of the model and the rules go over a million records one by
 * one, for a member or a few of each, and each record waits on memory: the
 * record REP_AHEAD places on is asked for while one is worked on (the net
 * rules over the merge of 131,072 node digests: 0.50 -> 0.28 s). Hints
 * only: what a pass reads and does is the same without them. */
#define REP_AHEAD 12

/* The line of record v[i + REP_AHEAD] (of n) that holds member `off`. */
static inline void rep_ahead(void *const *v, size_t n, size_t i, size_t off)
{
	if (i + REP_AHEAD < n)
		__builtin_prefetch((const char *)v[i + REP_AHEAD] + off);
}

/* All `size` bytes of it. */
static inline void rep_ahead_all(void *const *v, size_t n, size_t i, size_t size)
{
	if (i + REP_AHEAD < n)
		for (size_t o = 0; o < size + 63; o += 64)
			__builtin_prefetch((const char *)v[i + REP_AHEAD] + o);
}

/* What member `off` of record v[i + REP_AHEAD / 2] points at, `at` bytes
 * in (that record asked for earlier, by rep_ahead). */
static inline void rep_ahead_in(void *const *v, size_t n, size_t i, size_t off, size_t at)
{
	if (i + REP_AHEAD / 2 < n) {
		const char *q;
		memcpy(&q, (const char *)v[i + REP_AHEAD / 2] + off, sizeof(q));
		if (q != NULL)
			__builtin_prefetch(q + at);
	}
}

/* ---- memory ------------------------------------------------------------- */

/* A bump allocator: everything a report reads lives until ht_rep_job_free. */
struct rep_arena {
	struct rep_chunk *head;
	size_t used, cap;
	struct rep_intern *intern;	/* strings kept once, when set (ht_rep_intern_on) */
};

void *ht_rep_alloc(struct rep_arena *a, size_t n);	/* zeroed; aborts on ENOMEM */
char *ht_rep_strdup(struct rep_arena *a, const char *s);	/* NULL -> NULL */
char *ht_rep_strndup(struct rep_arena *a, const char *s, size_t n);
/* The same text as one string of the arena for every caller (read-only):
 * the fields that repeat across thousands of records (host, boot id,
 * launcher, roles, results) are stored once. A plain copy unless
 * ht_rep_intern_on was called on a. */
const char *ht_rep_intern(struct rep_arena *a, const char *s, size_t n);
/* A 64-bit hash of n bytes, eight at a time (for tables, not for output). */
uint64_t ht_rep_hash(const char *s, size_t n);
void ht_rep_intern_on(struct rep_arena *a);
/* Drops the table (the strings stay in the arena). */
void ht_rep_intern_off(struct rep_arena *a);
char *ht_rep_printf(struct rep_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ht_rep_arena_free(struct rep_arena *a);
/* Appends b's chunks to a (b is left empty). */
void ht_rep_arena_take(struct rep_arena *a, struct rep_arena *b);

/* A growable array of pointers. */
struct rep_vec {
	void **v;
	size_t n, cap;
};
void ht_rep_vec_push(struct rep_vec *v, void *p);
/* Room for n more in v (a vector whose size is known: no slack). */
void ht_rep_vec_reserve(struct rep_vec *v, size_t n);
void ht_rep_vec_free(struct rep_vec *v);

/* A growable string (malloc'd); s is always NUL-terminated once used. */
struct rep_buf {
	char *s;
	size_t n, cap;
};
void ht_rep_buf_add(struct rep_buf *b, const char *s);
void ht_rep_buf_addn(struct rep_buf *b, const char *s, size_t n);
void ht_rep_buf_printf(struct rep_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ht_rep_buf_free(struct rep_buf *b);

/* The length of s cut to at most n bytes without splitting a UTF-8
 * character (s is at least n bytes long). */
static inline size_t rep_utf8_cut(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

#endif
