// SPDX-License-Identifier: MIT
/*
 * brief_parse.c: the plain text work of the brief (brief.h): an LD_PRELOAD
 * list without the library, and the library's folder from the text of
 * /proc/self/maps. Functions over buffers: no allocation, no system call,
 * unit-tested (tests/live/check_brief.c).
 */
#include <string.h>

#include "brief.h"

static bool is_ours(const char *entry, size_t n)
{
	static const char name[] = "libhangtrace";
	size_t base = n;
	while (base > 0 && entry[base - 1] != '/')
		base--;
	return n - base >= sizeof(name) - 1 && memcmp(entry + base, name, sizeof(name) - 1) == 0;
}

long ht_brief_strip_preload(const char *list, char *out, size_t cap)
{
	size_t n = 0;
	const char *s = list;

	if (cap == 0)
		return -1;
	out[0] = '\0';
	while (*s != '\0') {
		while (*s == ':' || *s == ' ')
			s++;
		const char *e = s;
		while (*e != '\0' && *e != ':' && *e != ' ')
			e++;
		size_t len = (size_t)(e - s);
		if (len > 0 && !is_ours(s, len)) {
			if (n + (n > 0) + len + 1 > cap)
				return -1;
			if (n > 0)
				out[n++] = ':';
			memcpy(out + n, s, len);
			n += len;
			out[n] = '\0';
		}
		s = e;
	}
	return (long)n;
}

/* Parses "lo-hi perms offset dev inode   path" and, when addr is in
 * [lo, hi), copies the path's folder. */
static bool maps_line(const char *l, size_t len, unsigned long addr, char *out, size_t cap)
{
	unsigned long lo = 0, hi = 0;
	size_t i = 0;
	int field = 0;

	for (; i < len && l[i] != '-'; i++) {
		char c = l[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return false;
		lo = lo * 16 + (unsigned long)d;
	}
	for (i++; i < len && l[i] != ' '; i++) {
		char c = l[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return false;
		hi = hi * 16 + (unsigned long)d;
	}
	if (addr < lo || addr >= hi)
		return false;
	/* Five fields after the range, then spaces, then the path. */
	for (; i < len && field < 5; i++)
		if (l[i] == ' ') {
			field++;
			while (i + 1 < len && l[i + 1] == ' ' && field < 5)
				i++;
		}
	while (i < len && l[i] == ' ')
		i++;
	if (i >= len || l[i] != '/')
		return false;
	size_t end = len;
	while (end > i && l[end - 1] != '/')
		end--;
	if (end <= i + 1 || end - 1 - i >= cap)
		return false;
	memcpy(out, l + i, end - 1 - i);
	out[end - 1 - i] = '\0';
	return true;
}

bool ht_brief_lib_folder(const char *maps, size_t len, unsigned long addr, char *out, size_t cap)
{
	size_t i = 0;
	while (i < len) {
		size_t e = i;
		while (e < len && maps[e] != '\n')
			e++;
		if (maps_line(maps + i, e - i, addr, out, cap))
			return true;
		i = e + 1;
	}
	return false;
}
