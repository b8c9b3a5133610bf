// SPDX-License-Identifier: MIT
/*
 * fmt.c: number formatting and parsing, errno and signal names. Everything
 * here is async-signal-safe: no malloc, no stdio, no locale, no errno
 * changes. It runs inside hooks, signal handlers and the dump path.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "fmt.h"

size_t ht_fmt_u64(char *out, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
	return n;
}

size_t ht_fmt_i64(char *out, int64_t v)
{
	if (v < 0) {
		out[0] = '-';
		/* Negate in unsigned arithmetic: INT64_MIN has no positive twin. */
		return 1 + ht_fmt_u64(out + 1, (uint64_t)0 - (uint64_t)v);
	}
	return ht_fmt_u64(out, (uint64_t)v);
}

size_t ht_fmt_hex(char *out, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	size_t n = 0;

	do {
		tmp[n++] = digits[v & 0xf];
		v >>= 4;
	} while (v != 0);
	out[0] = '0';
	out[1] = 'x';
	for (size_t i = 0; i < n; i++)
		out[2 + i] = tmp[n - 1 - i];
	out[2 + n] = '\0';
	return 2 + n;
}

size_t ht_fmt_secs(char *out, int64_t ns)
{
	size_t n = 0;
	uint64_t u;

	if (ns < 0) {
		out[n++] = '-';
		u = (uint64_t)0 - (uint64_t)ns;
	} else {
		u = (uint64_t)ns;
	}
	n += ht_fmt_u64(out + n, u / 1000000000u);
	out[n++] = '.';
	uint64_t us = (u % 1000000000u) / 1000u;
	for (int d = 100000; d >= 1; d /= 10) {
		out[n++] = (char)('0' + (us / (uint64_t)d) % 10);
	}
	out[n] = '\0';
	return n;
}

bool ht_parse_i64(const char *s, int64_t *out)
{
	bool neg = false;
	uint64_t v = 0;

	if (s == NULL || *s == '\0')
		return false;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (uint64_t)INT64_MAX / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > (uint64_t)INT64_MAX)
			return false;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

bool ht_parse_secs(const char *s, int64_t *ns)
{
	uint64_t whole = 0, frac = 0, scale = 1000000000u;
	bool digits = false;

	if (s == NULL)
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		digits = true;
		if (whole > 100000000u)	/* over 3 years: nonsense, and 4x it must fit */
			return false;
		whole = whole * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++) {
			digits = true;
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*s - '0') * scale;
			}
		}
	}
	if (!digits || *s != '\0')
		return false;
	*ns = (int64_t)(whole * 1000000000u + frac);
	return true;
}

size_t ht_strlcpy(char *dst, const char *src, size_t n)
{
	size_t len = src != NULL ? strlen(src) : 0;

	if (n == 0)
		return len;
	size_t c = len < n - 1 ? len : n - 1;
	if (c > 0)
		memcpy(dst, src, c);
	dst[c] = '\0';
	return len;
}

size_t ht_append(char *buf, size_t cap, size_t n, const char *s)
{
	if (cap == 0)
		return 0;
	if (n >= cap)
		n = cap - 1;
	size_t len = s != NULL ? strlen(s) : 0;
	if (len > cap - 1 - n)
		len = cap - 1 - n;
	memcpy(buf + n, s, len);
	buf[n + len] = '\0';
	return n + len;
}

size_t ht_dir_expand(char *out, size_t cap, const char *pattern, const char *host,
		     const char *job)
{
	size_t n = 0;
	if (cap == 0)
		return 0;
	out[0] = '\0';
	for (const char *p = pattern; *p != '\0'; p++) {
		char one[2] = { *p, '\0' };
		if (p[0] == '%' && p[1] == 'h') {
			n = ht_append(out, cap, n, host);
			p++;
		} else if (p[0] == '%' && p[1] == 'j') {
			n = ht_append(out, cap, n, job != NULL && job[0] != '\0' ? job : "local");
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			n = ht_append(out, cap, n, "%");
			p++;
		} else {
			n = ht_append(out, cap, n, one);
		}
	}
	return n;
}

const char *ht_dir_bad_percent(const char *pattern)
{
	for (const char *p = pattern; *p != '\0'; p++) {
		if (*p != '%')
			continue;
		if (p[1] != 'h' && p[1] != 'j' && p[1] != '%')
			return p;
		p++;
	}
	return NULL;
}

size_t ht_append_i64(char *buf, size_t cap, size_t n, int64_t v)
{
	char num[24];
	ht_fmt_i64(num, v);
	return ht_append(buf, cap, n, num);
}

#define HT_ERRNO_MAP(XX) \
	XX(EPERM) XX(ENOENT) XX(EINTR) XX(EIO) XX(EBADF) XX(EAGAIN) XX(ENOMEM) \
	XX(EACCES) XX(EFAULT) XX(EBUSY) XX(EEXIST) XX(EINVAL) XX(ENFILE) \
	XX(EMFILE) XX(ENOSPC) XX(EPIPE) XX(ENOTSOCK) XX(EADDRINUSE) \
	XX(EADDRNOTAVAIL) XX(ENETDOWN) XX(ENETUNREACH) XX(ENETRESET) \
	XX(ECONNABORTED) XX(ECONNRESET) XX(ENOBUFS) XX(EISCONN) XX(ENOTCONN) \
	XX(ETIMEDOUT) XX(ECONNREFUSED) XX(EHOSTDOWN) XX(EHOSTUNREACH) \
	XX(EALREADY) XX(EINPROGRESS) XX(EAFNOSUPPORT) XX(EPROTONOSUPPORT) \
	XX(EDQUOT) XX(EFBIG) XX(EROFS) XX(ELOOP) XX(ENOTDIR) XX(ESRCH) XX(ECHILD)

const char *ht_errno_name(int e)
{
	switch (e) {
#define XX(name) case name: return #name;
	HT_ERRNO_MAP(XX)
#undef XX
	default:
		return NULL;
	}
}

#define HT_SIGNAL_MAP(XX) \
	XX(SIGHUP) XX(SIGINT) XX(SIGQUIT) XX(SIGILL) XX(SIGTRAP) XX(SIGABRT) \
	XX(SIGBUS) XX(SIGFPE) XX(SIGKILL) XX(SIGUSR1) XX(SIGSEGV) XX(SIGUSR2) \
	XX(SIGPIPE) XX(SIGALRM) XX(SIGTERM) XX(SIGSTKFLT) XX(SIGCHLD) \
	XX(SIGCONT) XX(SIGSTOP) XX(SIGTSTP) XX(SIGTTIN) XX(SIGTTOU) XX(SIGURG) \
	XX(SIGXCPU) XX(SIGXFSZ) XX(SIGVTALRM) XX(SIGPROF) XX(SIGWINCH) \
	XX(SIGIO) XX(SIGPWR) XX(SIGSYS)

const char *ht_signal_name(int sig)
{
	switch (sig) {
#define XX(name) case name: return #name;
	HT_SIGNAL_MAP(XX)
#undef XX
	default:
		return NULL;
	}
}

size_t ht_fmt_signal(char *out, int sig)
{
	const char *name = ht_signal_name(sig);

	if (name != NULL) {
		size_t n = strlen(name);
		memcpy(out, name, n + 1);
		return n;
	}
	/* Real-time signals have no fixed names: SIGRTMIN+k, as kill -l says. */
	if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
		memcpy(out, "SIGRTMIN+", 9);
		return 9 + ht_fmt_u64(out + 9, (uint64_t)(sig - SIGRTMIN));
	}
	memcpy(out, "SIG", 3);
	return 3 + ht_fmt_i64(out + 3, sig);
}
