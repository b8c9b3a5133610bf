// SPDX-License-Identifier: MIT
/*
 * evidence.c: the trace lines a verdict quotes. A line is found again by
 * its place (file, offset, length) in the file or buffer it came from and
 * written as "FILE:LINE: {...}": its members with their own bytes, without
 * ts, mono and tid, the telling fields of its type first, cut to the
 * length asked.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/evidence.h"
#include "read/reader.h"

char *ht_rep_line_text(const struct rep_job *job, const struct rep_loc *loc)
{
	if (!rep_has_loc(loc) || loc->file >= job->nfiles)
		return NULL;
	const struct rep_file *f = &job->files[loc->file];
	if (f->dgdoc != NULL) {
		size_t n;
		return ht_rep__digest_line(f->dgdoc, loc->off, &n);
	}
	char *s = malloc((size_t)loc->len + 1);
	if (s == NULL)
		return NULL;
	if (f->mem != NULL) {
		if (loc->off + loc->len > f->memlen) {
			free(s);
			return NULL;
		}
		memcpy(s, f->mem + loc->off, loc->len);
	} else {
		int fd = f->path != NULL ? open(f->path, O_RDONLY | O_CLOEXEC) : -1;
		ssize_t r = fd >= 0 ? pread(fd, s, loc->len, (off_t)loc->off) : -1;
		if (fd >= 0)
			close(fd);
		if (r != (ssize_t)loc->len) {
			free(s);
			return NULL;
		}
	}
	s[loc->len] = '\0';
	return s;
}

/* Per event type, the fields quoted first (the telling ones); NULL: all. */
static const char *const header_keys[] = { "host", "pid", "rank", "world_size", "local_rank",
					   "launcher", NULL };
static const char *const connect_keys[] = { "dest", "result", "error", "count", "role",
					    "tcp_state", "probe", NULL };
static const char *const nccl_keys[] = { "fn", "state", "nranks", "rank", "root", "id_hash",
					 "result", "error", "last_error", "comm", NULL };
static const char *const cuda_keys[] = { "fn", "result", "error", "after_fork", "hung",
					 "ordinal", "parent", NULL };

static const char *const *default_keys(const char *t)
{
	if (t == NULL)
		return NULL;
	if (strcmp(t, "header") == 0)
		return header_keys;
	if (strcmp(t, "connect") == 0)
		return connect_keys;
	if (strcmp(t, "nccl") == 0)
		return nccl_keys;
	if (strcmp(t, "cuda") == 0)
		return cuda_keys;
	return NULL;
}

/* The end of the JSON value that starts at s (a string, a number, a
 * literal, an object or an array), or NULL when the text ends first. */
const char *ht_rep_value_end(const char *s)
{
	int depth = 0;
	bool in_str = false;

	for (const char *p = s; *p != '\0'; p++) {
		if (in_str) {
			if (*p == '\\' && p[1] != '\0')
				p++;
			else if (*p == '"') {
				in_str = false;
				if (depth == 0)
					return p + 1;
			}
			continue;
		}
		switch (*p) {
		case '"':
			in_str = true;
			break;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (depth == 0)
				return p;	/* a scalar ended by its object's close */
			if (--depth == 0)
				return p + 1;
			break;
		case ',':
			if (depth == 0)
				return p;
			break;
		default:
			break;
		}
	}
	return NULL;
}

/* (evidence.h) */
size_t ht_rep_members(const char *line, struct rep_member *m, size_t cap)
{
	const char *p = line;
	size_t n = 0;

	while (*p == ' ')
		p++;
	if (*p++ != '{')
		return 0;
	for (;;) {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p != '"')
			return n;
		const char *k = p + 1, *ke = ht_rep_value_end(p);
		if (ke == NULL)
			return n;
		p = ke;
		while (*p == ' ')
			p++;
		if (*p++ != ':')
			return n;
		while (*p == ' ')
			p++;
		const char *ve = ht_rep_value_end(p);
		if (ve == NULL || ve == p)
			return n;
		if (n < cap)
			m[n++] = (struct rep_member){ k, p, (size_t)(ke - 1 - k), (size_t)(ve - p) };
		p = ve;
	}
}

static const struct rep_member *member_of(const struct rep_member *m, size_t n, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i < n; i++)
		if (m[i].klen == kl && memcmp(m[i].key, key, kl) == 0)
			return &m[i];
	return NULL;
}

static void put(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
	if (*len + n >= cap)
		n = *len < cap ? cap - 1 - *len : 0;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
}

static void put_member(char *buf, size_t cap, size_t *len, const struct rep_member *m)
{
	put(buf, cap, len, *len > 1 ? "," : "", *len > 1 ? 1 : 0);
	put(buf, cap, len, m->key - 1, m->klen + 2);
	put(buf, cap, len, ":", 1);
	put(buf, cap, len, m->val, m->vlen);
}

/* The quote of a line: its members as the line has them, each with its own
 * bytes (a number as the library wrote it, never as a parser prints it
 * back), "t" first, then the telling fields of its type (KEEP, or the
 * type's), or all but ts, mono and tid; cut to MAX. */
char *ht_rep_evidence(struct rep_job *job, const struct rep_loc *loc,
		      const char *const *keep, size_t max)
{
	char *text = ht_rep_line_text(job, loc);
	if (text == NULL)
		return NULL;
	struct rep_member m[REP_MAX_MEMBERS];
	size_t n = ht_rep_members(text, m, sizeof(m) / sizeof(m[0]));
	size_t cap = strlen(text) + 3, len = 0;
	char *body = n > 0 ? malloc(cap) : NULL;
	if (body != NULL) {
		const struct rep_member *t = member_of(m, n, "t");
		char type[32] = "";
		if (t != NULL && t->vlen >= 2 && t->vlen - 2 < sizeof(type)) {
			memcpy(type, t->val + 1, t->vlen - 2);
			type[t->vlen - 2] = '\0';
		}
		if (keep == NULL)
			keep = default_keys(type[0] != '\0' ? type : NULL);
		put(body, cap, &len, "{", 1);
		if (t != NULL)
			put_member(body, cap, &len, t);
		if (keep != NULL) {
			for (size_t i = 0; keep[i] != NULL; i++) {
				const struct rep_member *k = member_of(m, n, keep[i]);
				if (k != NULL && k != t)
					put_member(body, cap, &len, k);
			}
		} else {
			static const char *const skip[] = { "t", "ts", "mono", "tid" };
			for (size_t i = 0; i < n; i++) {
				bool drop = false;
				for (size_t j = 0; j < sizeof(skip) / sizeof(skip[0]); j++)
					drop |= m[i].klen == strlen(skip[j]) &&
						memcmp(m[i].key, skip[j], m[i].klen) == 0;
				if (!drop)
					put_member(body, cap, &len, &m[i]);
			}
		}
		put(body, cap, &len, "}", 1);
	}
	const char *b = body != NULL ? body : text;
	size_t bn = strlen(b);
	char *r;
	if (bn > max)
		r = ht_rep_printf(&job->a, "%s:%u: %.*s...", job->files[loc->file].name, loc->line,
				  (int)rep_utf8_cut(b, max > 3 ? max - 3 : 0), b);
	else
		r = ht_rep_printf(&job->a, "%s:%u: %s", job->files[loc->file].name, loc->line, b);
	free(body);
	free(text);
	return r;
}
