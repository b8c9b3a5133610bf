// SPDX-License-Identifier: MIT
/*
 * texttab.c: the table of texts of reader.h (struct rep_ttab), open
 * addressing on the texts' hashes, at most half full (the caller grows it
 * first). Entries are the caller's: a struct that begins with its key.
 * Also the table of the hashes seen (struct rep_seen), which decides what
 * the parsed-once caches keep.
 */
#include <stdlib.h>
#include <string.h>

#include "reader.h"

struct rep_tkey **ht_rep__ttab_slot(const struct rep_ttab *t, const char *s, size_t n,
				    uint64_t h)
{
	size_t k = h & (t->cap - 1);
	while (t->slot[k] != NULL) {
		const struct rep_tkey *x = t->slot[k];
		if (x->hash == h && x->len == n && memcmp(x->text, s, n) == 0)
			break;
		k = (k + 1) & (t->cap - 1);
	}
	return &t->slot[k];
}

bool ht_rep__ttab_grow(struct rep_ttab *t, size_t first)
{
	size_t cap = t->cap != 0 ? t->cap * 2 : first;
	struct rep_tkey **s = calloc(cap, sizeof(*s));
	if (s == NULL)
		return false;
	for (size_t i = 0; i < t->cap; i++) {
		struct rep_tkey *x = t->slot[i];
		if (x == NULL)
			continue;
		size_t k = x->hash & (cap - 1);
		while (s[k] != NULL)
			k = (k + 1) & (cap - 1);
		s[k] = x;
	}
	free(t->slot);
	t->slot = s;
	t->cap = cap;
	return true;
}

#define SEEN_SLOTS (1u << 13)	/* a power of two */

struct rep_seenslot {
	uint64_t hash;		/* 0: empty */
	uint32_t file;		/* where it was seen last */
};

bool ht_rep__seen(struct rep_seen *t, uint64_t h, uint32_t *file)
{
	if (t->slot == NULL) {
		t->slot = calloc(SEEN_SLOTS, sizeof(*t->slot));
		if (t->slot == NULL)
			return false;
	}
	h |= 1;
	size_t k = h & (SEEN_SLOTS - 1);
	while (t->slot[k].hash != 0) {
		if (t->slot[k].hash == h) {
			uint32_t last = t->slot[k].file;
			t->slot[k].file = *file;
			*file = last;
			return true;
		}
		k = (k + 1) & (SEEN_SLOTS - 1);
	}
	/* Emptied when half full: the repeated texts are found again among
	 * the latest ones. */
	if (t->n >= SEEN_SLOTS / 2) {
		memset(t->slot, 0, SEEN_SLOTS * sizeof(*t->slot));
		t->n = 0;
		k = h & (SEEN_SLOTS - 1);
	}
	t->slot[k] = (struct rep_seenslot){ h, *file };
	t->n++;
	return false;
}

void ht_rep__seen_free(struct rep_seen *t)
{
	free(t->slot);
	t->slot = NULL;
	t->n = 0;
}
