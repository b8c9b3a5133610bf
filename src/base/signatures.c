// SPDX-License-Identifier: MIT
/*
 * signatures.c: the stack-signature table and its matcher (signatures.h).
 */
#include <string.h>

#include "signatures.h"

const struct ht_sig ht_sigs[] = {
#define HT_SIG(id, kind, lang, func, file, words) \
	{ #id, HT_SIG_##kind, #lang[0] == 'P', func, file, words },
#include "signatures.def"
#undef HT_SIG
};
const size_t ht_nsigs = sizeof(ht_sigs) / sizeof(ht_sigs[0]);

bool ht_sig_kind_is_wait(enum ht_sig_kind k)
{
	static const bool wait[] = {
#define XX(id, name, w) w,
		HT_SIG_KIND_MAP(XX)
#undef XX
	};
	return (unsigned)k < HT_SIG_KIND_COUNT && wait[k];
}

/* frame is "function (where)"; the function part ends at the last " (". */
static size_t func_len(const char *frame)
{
	const char *p = strrchr(frame, '(');
	if (p == NULL || p == frame)
		return strlen(frame);
	size_t n = (size_t)(p - frame);
	while (n > 0 && frame[n - 1] == ' ')
		n--;
	return n;
}

static bool contains_n(const char *hay, size_t n, const char *needle)
{
	size_t m = strlen(needle);
	if (m == 0)
		return true;
	for (size_t i = 0; i + m <= n; i++)
		if (memcmp(hay + i, needle, m) == 0)
			return true;
	return false;
}

const struct ht_sig *ht_sig_match_frame(const char *frame, bool python)
{
	if (frame == NULL)
		return NULL;
	size_t fl = func_len(frame);
	const char *where = frame + fl;
	size_t wl = strlen(where);
	for (size_t i = 0; i < ht_nsigs; i++) {
		const struct ht_sig *s = &ht_sigs[i];
		if (s->python != python)
			continue;
		if (python) {
			if (strlen(s->func) != fl || memcmp(frame, s->func, fl) != 0)
				continue;
			if (!contains_n(where, wl, s->file))
				continue;
			return s;
		}
		if (contains_n(frame, fl, s->func))
			return s;
	}
	return NULL;
}

const struct ht_sig *ht_sig_match_stack(const char *const *python, size_t npython,
					const char *const *native, size_t nnative)
{
	const struct ht_sig *best = NULL;
	for (size_t i = 0; i < npython; i++) {
		const struct ht_sig *s = ht_sig_match_frame(python[i], true);
		if (s != NULL && (best == NULL || s < best))
			best = s;
	}
	for (size_t i = 0; i < nnative; i++) {
		const struct ht_sig *s = ht_sig_match_frame(native[i], false);
		if (s != NULL && (best == NULL || s < best))
			best = s;
	}
	return best;
}
