// SPDX-License-Identifier: MIT
/*
 * util.c: the report's memory: a bump arena that holds everything read
 * from the traces until the report is freed, a pointer vector and a
 * growable string. Allocation failure ends the command (err(3)): a report
 * that cannot allocate cannot say anything useful.
 */
#include <err.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util.h"

struct rep_chunk {
	struct rep_chunk *next;
	size_t size;
	max_align_t data[];
};

#define CHUNK ((1u << 20) - sizeof(struct rep_chunk))

/* Chunks are mapped, not malloc's: a mapping is zero already, and the
 * arena hands out each byte once, so nothing is cleared twice; a chunk
 * from malloc's heap made it merge its freed small blocks each time (2%
 * of a 131,072-rank report). */
void *ht_rep_alloc(struct rep_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (a->head == NULL || a->used + n > a->cap) {
		size_t size = n > CHUNK / 4 ? n : CHUNK;
		struct rep_chunk *c = mmap(NULL, sizeof(*c) + size, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (c == MAP_FAILED)
			err(2, "report");
		c->size = size;
		if (a->head != NULL && n > CHUNK / 4) {
			/* A big block: keep the current chunk for the small ones. */
			c->next = a->head->next;
			a->head->next = c;
			return c->data;
		}
		c->next = a->head;
		a->head = c;
		a->used = 0;
		a->cap = size;
	}
	void *p = (char *)a->head->data + a->used;
	a->used += n;
	return p;
}

char *ht_rep_strndup(struct rep_arena *a, const char *s, size_t n)
{
	if (s == NULL)
		return NULL;
	char *p = ht_rep_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *ht_rep_strdup(struct rep_arena *a, const char *s)
{
	return s == NULL ? NULL : ht_rep_strndup(a, s, strlen(s));
}

char *ht_rep_printf(struct rep_arena *a, const char *fmt, ...)
{
	va_list ap;
	char small[256];

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return ht_rep_strdup(a, "");
	if ((size_t)n < sizeof(small))
		return ht_rep_strndup(a, small, (size_t)n);
	char *p = ht_rep_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void ht_rep_arena_free(struct rep_arena *a)
{
	struct rep_chunk *c = a->head;
	while (c != NULL) {
		struct rep_chunk *next = c->next;
		munmap(c, sizeof(*c) + c->size);
		c = next;
	}
	a->head = NULL;
	a->used = a->cap = 0;
}

void ht_rep_arena_take(struct rep_arena *a, struct rep_arena *b)
{
	if (b->head == NULL)
		return;
	if (a->head == NULL) {
		*a = *b;
	} else {
		/* b's chunks go behind a's current one: a keeps allocating there. */
		struct rep_chunk *last = b->head;
		while (last->next != NULL)
			last = last->next;
		last->next = a->head->next;
		a->head->next = b->head;
	}
	b->head = NULL;
	b->used = b->cap = 0;
}

void ht_rep_vec_push(struct rep_vec *v, void *p)
{
	if (v->n == v->cap) {
		size_t cap = v->cap != 0 ? v->cap * 2 : 4;
		void **n = realloc(v->v, cap * sizeof(*n));
		if (n == NULL)
			err(2, "report");
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = p;
}

void ht_rep_vec_reserve(struct rep_vec *v, size_t n)
{
	if (v->n + n <= v->cap)
		return;
	void **m = realloc(v->v, (v->n + n) * sizeof(*m));
	if (m == NULL)
		err(2, "report");
	v->v = m;
	v->cap = v->n + n;
}

void ht_rep_vec_free(struct rep_vec *v)
{
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}

void ht_rep_buf_addn(struct rep_buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap != 0 ? b->cap : 256;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *p = realloc(b->s, cap);
		if (p == NULL)
			err(2, "report");
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

void ht_rep_buf_add(struct rep_buf *b, const char *s)
{
	ht_rep_buf_addn(b, s, strlen(s));
}

void ht_rep_buf_printf(struct rep_buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[512];

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		ht_rep_buf_addn(b, small, (size_t)n);
		return;
	}
	char *p = malloc((size_t)n + 1);
	if (p == NULL)
		err(2, "report");
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	ht_rep_buf_addn(b, p, (size_t)n);
	free(p);
}

void ht_rep_buf_free(struct rep_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->n = b->cap = 0;
}

/* ---- interned strings ---------------------------------------------------------- */

struct rep_intern {
	const char **slot;
	uint32_t *len;
	size_t cap, n;
};

#define INTERN_MAX 96	/* longer strings rarely repeat: plain copies */

void ht_rep_intern_on(struct rep_arena *a)
{
	struct rep_intern *t = calloc(1, sizeof(*t));
	if (t == NULL)
		err(2, "report");
	a->intern = t;
}

void ht_rep_intern_off(struct rep_arena *a)
{
	if (a->intern == NULL)
		return;
	free(a->intern->slot);
	free(a->intern->len);
	free(a->intern);
	a->intern = NULL;
}

static inline uint64_t mix(uint64_t h, const char *s)
{
	uint64_t w;
	memcpy(&w, s, 8);
	h = (h ^ w) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

/* Texts of kilobytes (a stack's frames, a header) are hashed on four
 * lanes, 32 bytes a step: the multiplications of one lane wait for each
 * other, those of four do not. */
uint64_t ht_rep_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	if (n >= 64) {
		uint64_t a = h, b = h ^ 0x165667b19e3779f9ull, c = h ^ 0x27d4eb2f165667c5ull,
			 d = h ^ 0xc2b2ae3d27d4eb4full;
		while (n >= 32) {
			a = mix(a, s);
			b = mix(b, s + 8);
			c = mix(c, s + 16);
			d = mix(d, s + 24);
			s += 32;
			n -= 32;
		}
		h = mix(mix(mix(a, (const char *)&b), (const char *)&c), (const char *)&d);
	}
	while (n >= 8) {
		h = mix(h, s);
		s += 8;
		n -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

static void intern_grow(struct rep_intern *t)
{
	size_t cap = t->cap != 0 ? t->cap * 2 : 4096;
	const char **slot = calloc(cap, sizeof(*slot));
	uint32_t *len = calloc(cap, sizeof(*len));
	if (slot == NULL || len == NULL)
		err(2, "report");
	for (size_t i = 0; i < t->cap; i++) {
		if (t->slot[i] == NULL)
			continue;
		size_t k = ht_rep_hash(t->slot[i], t->len[i]) & (cap - 1);
		while (slot[k] != NULL)
			k = (k + 1) & (cap - 1);
		slot[k] = t->slot[i];
		len[k] = t->len[i];
	}
	free(t->slot);
	free(t->len);
	t->slot = slot;
	t->len = len;
	t->cap = cap;
}

const char *ht_rep_intern(struct rep_arena *a, const char *s, size_t n)
{
	struct rep_intern *t = a->intern;
	if (s == NULL)
		return NULL;
	if (t == NULL || n > INTERN_MAX)
		return ht_rep_strndup(a, s, n);
	if (2 * (t->n + 1) > t->cap)
		intern_grow(t);
	size_t k = ht_rep_hash(s, n) & (t->cap - 1);
	while (t->slot[k] != NULL) {
		if (t->len[k] == n && memcmp(t->slot[k], s, n) == 0)
			return t->slot[k];
		k = (k + 1) & (t->cap - 1);
	}
	char *c = ht_rep_strndup(a, s, n);
	t->slot[k] = c;
	t->len[k] = (uint32_t)n;
	t->n++;
	return c;
}
