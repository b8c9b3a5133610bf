// SPDX-License-Identifier: MIT
/*
 * evidence.c: the trace lines a verdict quotes. A line is found again by
 * its place (file, offset) in the file or buffer it came from and
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

/* Where the lines of a trace file past its first 4 GiB start (a location
 * holds 32 bits of offset: those are REP_LOC_FAR): the start of every
 * FAR_STEP-th line, found by reading the file through once, the first
 * time one of its far lines is quoted; each is then read from its mark
 * on. (Quoted from one thread at a time, as renderers and the digest
 * writer do.) */
#define FAR_STEP 4096
struct rep_farfile {
	uint32_t file;
	size_t n;
	uint64_t *off;			/* off[i]: where line i * FAR_STEP + 1 starts */
};
struct rep_farmarks {
	struct rep_farfile *v;
	size_t n, cap;
};

static const struct rep_farfile *far_marks(const struct rep_job *job, uint32_t file, int fd)
{
	/* (the job's cache, made when first asked for) */
	struct rep_job *j = (struct rep_job *)job;
	if (j->far == NULL && (j->far = calloc(1, sizeof(*j->far))) == NULL)
		return NULL;
	struct rep_farmarks *m = j->far;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].file == file)
			return &m->v[i];
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 4;
		struct rep_farfile *v = realloc(m->v, cap * sizeof(*v));
		if (v == NULL)
			return NULL;
		m->v = v;
		m->cap = cap;
	}
	struct rep_farfile *f = &m->v[m->n];
	*f = (struct rep_farfile){ .file = file };
	enum { CHUNK = 1 << 20 };
	char *buf = malloc(CHUNK);
	if (buf == NULL)
		return NULL;
	size_t cap = 0;
	uint64_t at = 0, line = 1;	/* buf's place in the file; the line at k */
	bool mark = true;		/* line 1 starts at 0 */
	ssize_t r;
	while ((r = pread(fd, buf, CHUNK, (off_t)at)) > 0) {
		size_t k = 0;
		for (;;) {
			if (mark) {
				if (k >= (size_t)r)
					break;	/* (it starts in the next chunk) */
				if (f->n == cap) {
					cap = cap ? 2 * cap : 64;
					uint64_t *o = realloc(f->off, cap * sizeof(*o));
					if (o == NULL) {
						free(f->off);
						free(buf);
						return NULL;
					}
					f->off = o;
				}
				f->off[f->n++] = at + k;
				mark = false;
			}
			const char *nl = memchr(buf + k, '\n', (size_t)r - k);
			if (nl == NULL)
				break;
			k = (size_t)(nl - buf) + 1;
			mark = line++ % FAR_STEP == 0;
		}
		at += (uint64_t)r;
	}
	free(buf);
	m->n++;
	return f;
}

/* The line at loc of a trace file on disk (fd), from its offset (past
 * 4 GiB: from its mark) to its newline. */
static char *disk_line(const struct rep_job *job, int fd, const struct rep_loc *loc, size_t *n)
{
	enum { STEP = 4096 };
	off_t at = loc->off;
	char *s = NULL;
	size_t got = 0, cap = 0;
	if (loc->off == REP_LOC_FAR) {
		const struct rep_farfile *f = far_marks(job, loc->file, fd);
		size_t i = (loc->line - 1) / FAR_STEP;
		if (f == NULL || i >= f->n)
			return NULL;
		at = (off_t)f->off[i];
		uint32_t l = (uint32_t)(i * FAR_STEP + 1);
		char buf[65536];
		ssize_t r;
		while (l < loc->line && (r = pread(fd, buf, sizeof(buf), at)) > 0) {
			size_t k = 0;
			while (l < loc->line && k < (size_t)r) {
				const char *nl = memchr(buf + k, '\n', (size_t)r - k);
				if (nl == NULL) {
					k = (size_t)r;
					break;
				}
				k = (size_t)(nl - buf) + 1;
				l++;
			}
			at += (off_t)k;
		}
		if (l < loc->line)
			return NULL;
	}
	for (;;) {
		if (got + STEP + 1 > cap) {
			cap = cap ? cap * 2 : STEP + 1;
			char *t = realloc(s, cap);
			if (t == NULL) {
				free(s);
				return NULL;
			}
			s = t;
		}
		ssize_t r = pread(fd, s + got, STEP, at + (off_t)got);
		if (r <= 0)
			break;
		bool nl = memchr(s + got, '\n', (size_t)r) != NULL;
		got += (size_t)r;
		if (nl || got > REP_LOC_MAX_LEN)
			break;
	}
	if (got == 0) {
		free(s);
		return NULL;
	}
	*n = ht_rep_line_len(s, got, NULL);
	s[*n] = '\0';
	return s;
}

void ht_rep__far_free(struct rep_job *job)
{
	for (size_t i = 0; job->far != NULL && i < job->far->n; i++)
		free(job->far->v[i].off);
	if (job->far != NULL)
		free(job->far->v);
	free(job->far);
	job->far = NULL;
}

char *ht_rep_line_text(const struct rep_job *job, const struct rep_loc *loc)
{
	if (!rep_has_loc(loc) || loc->file >= job->nfiles)
		return NULL;
	const struct rep_file *f = &job->files[loc->file];
	size_t n;
	if (f->digest)
		return f->dgdoc != NULL ? ht_rep__digest_line(f->dgdoc, loc->off, &n) : NULL;
	if (f->path == NULL && f->mem != NULL) {
		const char *t = ht_rep_line_in(f->mem, f->memlen, loc, &n);
		char *s = t != NULL ? malloc(n + 1) : NULL;
		if (s == NULL)
			return NULL;
		memcpy(s, t, n);
		s[n] = '\0';
		return s;
	}
	int fd = f->path != NULL ? open(f->path, O_RDONLY | O_CLOEXEC) : -1;
	char *s = fd >= 0 ? disk_line(job, fd, loc, &n) : NULL;
	if (fd >= 0)
		close(fd);
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
