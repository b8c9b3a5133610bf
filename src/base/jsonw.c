// SPDX-License-Identifier: MIT
/*
 * jsonw.c: builds one JSON line in a caller-owned buffer. It never
 * allocates, never calls stdio and never fails loudly: an item that does not
 * fit is dropped, every later item too, and the line is closed with
 * "truncated":true so that it still parses. Strings are escaped and made
 * valid UTF-8 (bad bytes become U+FFFD). Safe in signal handlers.
 */
#include <string.h>

#include "fmt.h"
#include "jsonw.h"

/* Room kept at the end for the closers, ,"truncated":true and the newline. */
#define RESERVE (HT_JW_MAX_DEPTH + 24)

void ht_jw_init(struct ht_jw *w, char *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->depth = 0;
	w->full = false;
	w->first = true;
	if (cap < RESERVE + 2)
		w->full = true;
}

static size_t room(const struct ht_jw *w)
{
	return w->len + RESERVE < w->cap ? w->cap - RESERVE - w->len : 0;
}

static bool put(struct ht_jw *w, const char *s, size_t n)
{
	if (w->full || n > room(w)) {
		w->full = true;
		return false;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	return true;
}

static bool putc1(struct ht_jw *w, char c)
{
	return put(w, &c, 1);
}

/* Writes the separator and "key": for the next item; false if it did not fit. */
static bool item(struct ht_jw *w, const char *key)
{
	if (w->full)
		return false;
	if (!w->first && !putc1(w, ','))
		return false;
	if (key != NULL) {
		if (!putc1(w, '"') || !put(w, key, strlen(key)) || !put(w, "\":", 2))
			return false;
	}
	w->first = false;
	return true;
}

/*
 * Every item is written all or nothing: on overflow the buffer is rolled
 * back to where the item began, so the line never ends inside a value.
 */
#define ITEM_BEGIN(w) size_t mark_ = (w)->len; bool first_ = (w)->first
#define ITEM_FAIL(w) do { (w)->len = mark_; (w)->first = first_; (w)->full = true; } while (0)

static bool open_container(struct ht_jw *w, const char *key, char c)
{
	ITEM_BEGIN(w);
	if (w->depth >= HT_JW_MAX_DEPTH || !item(w, key) || !putc1(w, c)) {
		ITEM_FAIL(w);
		return false;
	}
	w->stack[w->depth++] = c;
	w->first = true;
	return true;
}

bool ht_jw_obj_begin(struct ht_jw *w, const char *key)
{
	return open_container(w, key, '{');
}

bool ht_jw_arr_begin(struct ht_jw *w, const char *key)
{
	return open_container(w, key, '[');
}

static void close_container(struct ht_jw *w)
{
	/* Closers always fit: RESERVE keeps room for every open level. */
	char c = w->stack[--w->depth] == '{' ? '}' : ']';
	w->buf[w->len++] = c;
	w->first = false;
}

void ht_jw_end(struct ht_jw *w)
{
	/* After an overflow the containers stay open; ht_jw_finish closes them. */
	if (w->full || w->depth == 0)
		return;
	close_container(w);
}

static const char hexd[] = "0123456789abcdef";

/* Length of a valid UTF-8 sequence at s (n bytes left), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static bool put_escaped(struct ht_jw *w, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	if (!putc1(w, '"'))
		return false;
	while (i < n) {
		unsigned char c = p[i];
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			if (!put(w, e, 2))
				return false;
			i++;
		} else if (c < 0x20) {
			char e[6] = { '\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 0xf] };
			if (c == '\n') {
				if (!put(w, "\\n", 2))
					return false;
			} else if (c == '\t') {
				if (!put(w, "\\t", 2))
					return false;
			} else if (!put(w, e, 6)) {
				return false;
			}
			i++;
		} else if (c < 0x80) {
			/* Copy the whole run of plain ASCII at once. */
			size_t j = i;
			while (j < n && p[j] >= 0x20 && p[j] < 0x80 && p[j] != '"' && p[j] != '\\')
				j++;
			if (!put(w, s + i, j - i))
				return false;
			i = j;
		} else {
			size_t len = utf8_len(p + i, n - i);
			if (len == 0) {
				if (!put(w, "\\ufffd", 6))
					return false;
				i++;
			} else {
				if (!put(w, s + i, len))
					return false;
				i += len;
			}
		}
	}
	return putc1(w, '"');
}

bool ht_jw_strn(struct ht_jw *w, const char *key, const char *val, size_t n)
{
	ITEM_BEGIN(w);
	if (!item(w, key))
		goto fail;
	if (val == NULL ? !put(w, "null", 4) : !put_escaped(w, val, n))
		goto fail;
	return true;
fail:
	ITEM_FAIL(w);
	return false;
}

bool ht_jw_str(struct ht_jw *w, const char *key, const char *val)
{
	return ht_jw_strn(w, key, val, val != NULL ? strlen(val) : 0);
}

/* A value written verbatim (already valid JSON). */
bool ht_jw_raw(struct ht_jw *w, const char *key, const char *json, size_t n)
{
	ITEM_BEGIN(w);
	if (!item(w, key) || !put(w, json, n)) {
		ITEM_FAIL(w);
		return false;
	}
	return true;
}

bool ht_jw_int(struct ht_jw *w, const char *key, int64_t v)
{
	char b[24];
	return ht_jw_raw(w, key, b, ht_fmt_i64(b, v));
}

bool ht_jw_uint(struct ht_jw *w, const char *key, uint64_t v)
{
	char b[28];
	size_t n = ht_fmt_u64(b, v);
	/* Readers (jansson) reject integers past INT64_MAX: such a value is
	 * written as a real, so the line still parses. */
	if (v > (uint64_t)INT64_MAX) {
		memcpy(b + n, ".0", 3);
		n += 2;
	}
	return ht_jw_raw(w, key, b, n);
}

bool ht_jw_hex(struct ht_jw *w, const char *key, uint64_t v)
{
	char b[24];
	size_t n = ht_fmt_hex(b + 1, v);
	b[0] = '"';
	b[n + 1] = '"';
	return ht_jw_raw(w, key, b, n + 2);
}

bool ht_jw_secs(struct ht_jw *w, const char *key, int64_t ns)
{
	char b[32];
	return ht_jw_raw(w, key, b, ht_fmt_secs(b, ns));
}

bool ht_jw_bool(struct ht_jw *w, const char *key, bool v)
{
	return v ? ht_jw_raw(w, key, "true", 4) : ht_jw_raw(w, key, "false", 5);
}

bool ht_jw_null(struct ht_jw *w, const char *key)
{
	return ht_jw_raw(w, key, "null", 4);
}

bool ht_jw_int_or_null(struct ht_jw *w, const char *key, int64_t v, bool known)
{
	return known ? ht_jw_int(w, key, v) : ht_jw_null(w, key);
}

size_t ht_jw_finish(struct ht_jw *w)
{
	bool truncated = w->full;

	if (w->cap < RESERVE + 2)
		return 0;
	/* Close inner containers first so the marker lands in the top object. */
	while (w->depth > 1)
		close_container(w);
	if (truncated && w->depth == 1) {
		static const char mark[] = "\"truncated\":true";
		if (!w->first)
			w->buf[w->len++] = ',';
		memcpy(w->buf + w->len, mark, sizeof(mark) - 1);
		w->len += sizeof(mark) - 1;
	}
	while (w->depth > 0)
		close_container(w);
	w->buf[w->len++] = '\n';
	w->full = true;		/* nothing may be added after the newline */
	return w->len;
}
