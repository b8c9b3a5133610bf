// SPDX-License-Identifier: MIT
/*
 * jsonw.h: one JSON line in a fixed buffer (jsonw.c). Async-signal-safe, no
 * allocation.
 */
#ifndef HT_BASE_JSONW_H
#define HT_BASE_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HT_JW_MAX_DEPTH 12

struct ht_jw {
	char *buf;
	size_t cap;
	size_t len;
	int depth;
	char stack[HT_JW_MAX_DEPTH];
	bool full;		/* an item did not fit: the rest is dropped */
	bool first;		/* no item yet at the current level */
};

void ht_jw_init(struct ht_jw *w, char *buf, size_t cap);
/* key is NULL inside arrays and for the top-level object. */
bool ht_jw_obj_begin(struct ht_jw *w, const char *key);
bool ht_jw_arr_begin(struct ht_jw *w, const char *key);
void ht_jw_end(struct ht_jw *w);
bool ht_jw_str(struct ht_jw *w, const char *key, const char *val);	/* NULL -> null */
bool ht_jw_strn(struct ht_jw *w, const char *key, const char *val, size_t n);
bool ht_jw_raw(struct ht_jw *w, const char *key, const char *json, size_t n);
bool ht_jw_int(struct ht_jw *w, const char *key, int64_t v);
bool ht_jw_uint(struct ht_jw *w, const char *key, uint64_t v);
bool ht_jw_hex(struct ht_jw *w, const char *key, uint64_t v);
bool ht_jw_secs(struct ht_jw *w, const char *key, int64_t ns);
bool ht_jw_bool(struct ht_jw *w, const char *key, bool v);
bool ht_jw_null(struct ht_jw *w, const char *key);
bool ht_jw_int_or_null(struct ht_jw *w, const char *key, int64_t v, bool known);
/* Closes every open container, adds "truncated":true after an overflow and
 * the newline; returns the line length (0 if the buffer is unusably small). */
size_t ht_jw_finish(struct ht_jw *w);

#endif
