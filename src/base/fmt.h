// SPDX-License-Identifier: MIT
/*
 * fmt.h: numbers and names into fixed buffers (fmt.c). Async-signal-safe, no
 * allocation, errno preserved.
 */
#ifndef HT_BASE_FMT_H
#define HT_BASE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Each writes a NUL-terminated string at out and returns its length. */
size_t ht_fmt_u64(char *out, uint64_t v);		/* out: 21 bytes */
size_t ht_fmt_i64(char *out, int64_t v);		/* out: 21 bytes */
size_t ht_fmt_hex(char *out, uint64_t v);		/* "0x...", out: 19 bytes */
size_t ht_fmt_secs(char *out, int64_t ns);		/* "12.345678", out: 32 bytes */
size_t ht_fmt_signal(char *out, int sig);		/* "SIGTERM", out: 24 bytes */
/* Strict decimal integer; false on anything else (sign allowed). */
bool ht_parse_i64(const char *s, int64_t *out);
/* Non-negative seconds with optional fraction ("300", "2.5") into ns. */
bool ht_parse_secs(const char *s, int64_t *ns);
size_t ht_strlcpy(char *dst, const char *src, size_t n);
/* Appends s (or v) to the string of length n in buf[cap], as much as fits;
 * always NUL-terminated; returns the new length, never more than cap - 1.
 * Chains of these cannot run past the buffer, unlike strlcpy's return. */
size_t ht_append(char *buf, size_t cap, size_t n, const char *s);
size_t ht_append_i64(char *buf, size_t cap, size_t n, int64_t v);
/* HANGTRACE_DIR's pattern into out[cap] (SPEC section 3, as NCCL_DEBUG_FILE):
 * %h the host name, %j the job id ("local" without one), %% a percent
 * sign; any other '%' is kept. Returns the length, never more than cap - 1. */
size_t ht_dir_expand(char *out, size_t cap, const char *pattern, const char *host,
		     const char *job);
/* The first '%' of pattern that ht_dir_expand keeps as written (not %h,
 * %j or %%), or NULL. */
const char *ht_dir_bad_percent(const char *pattern);
/* "ECONNREFUSED" etc., NULL when not in our table. */
const char *ht_errno_name(int e);
const char *ht_signal_name(int sig);

#endif
