// SPDX-License-Identifier: MIT
/*
 * rctx.c: what the reader's parts share (reader.h): warnings, with their
 * caps per file and per thread; a line parsed again from the file's
 * buffer; jansson's scratch memory of each reading thread. reader.c drives
 * the reading; parse*.c, dumps.c, lines.c and members.c use these.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"

#define MAX_WARNINGS 1000		/* per reading thread */
#define MAX_FILE_WARNINGS 20

/* ---- warnings ------------------------------------------------------------- */

static void warn_add(struct rep_warning **w, size_t *n, size_t *cap, uint32_t file,
		     uint32_t line, char *msg)
{
	if (*n == *cap) {
		*cap = *cap != 0 ? *cap * 2 : 16;
		struct rep_warning *nw = realloc(*w, *cap * sizeof(**w));
		if (nw == NULL) {
			free(msg);
			return;
		}
		*w = nw;
	}
	(*w)[(*n)++] = (struct rep_warning){ file, line, msg };
}

static char *vformat(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

void ht_rep__warn_take(struct rep_job *job, uint32_t file, uint32_t line, char *msg)
{
	warn_add(&job->warns, &job->nwarns, &job->cap_warns, file, line, msg);
}

void ht_rep_warn(struct rep_job *job, uint32_t file, uint32_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = vformat(fmt, ap);
	va_end(ap);
	if (m != NULL)
		warn_add(&job->warns, &job->nwarns, &job->cap_warns, file, line, m);
}

void ht_rep__warn(struct rep_rctx *c, uint32_t line, const char *fmt, ...)
{
	va_list ap;
	if (c->file_warns++ >= MAX_FILE_WARNINGS)
		return;		/* counted: one line at the file's end says how many */
	if (c->nwarns >= MAX_WARNINGS) {
		c->dropped++;
		return;
	}
	va_start(ap, fmt);
	char *m = vformat(fmt, ap);
	va_end(ap);
	if (m != NULL)
		warn_add(&c->warns, &c->nwarns, &c->cap, c->file, line, m);
}

/* The one warning past the per-file cap, saying how many were left out. */
void ht_rep__warn_more(struct rep_rctx *c, const char *fmt, unsigned n)
{
	char *m = NULL;
	if (asprintf(&m, fmt, n) >= 0)
		warn_add(&c->warns, &c->nwarns, &c->cap, c->file, 0, m);
}

/* ---- lines -------------------------------------------------------------------- */

const char *ht_rep__line_at(struct rep_rctx *c, const struct rep_loc *loc, size_t *n)
{
	return ht_rep_line_in(c->buf, c->len, loc, n);
}

json_t *ht_rep__parse_at(struct rep_rctx *c, const struct rep_loc *loc)
{
	size_t n;
	const char *s = ht_rep__line_at(c, loc, &n);
	if (s == NULL)
		return NULL;
	json_t *o = json_loadb(s, n, 0, NULL);
	if (o != NULL && !json_is_object(o)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- jansson's memory while reading -------------------------------------------------
 *
 * A parsed line lives only until the next one: while a reading thread
 * parses, jansson allocates from that thread's scratch block, and frees
 * are no-ops there; the block is reused for the next line. Outside reading
 * (and for what does not fit the block) jansson gets malloc and free as
 * always: the functions are process-wide, the blocks per thread. Profiling
 * 16,384 rank files showed a fifth of the parse time in malloc and free.
 */

#define SCRATCH (256u << 10)

static __thread char *scratch;
static __thread size_t scratch_used;
static __thread bool scratch_on;

static __thread bool scratch_spilled;	/* a value of the line outside the block */

void *ht_rep__j_malloc(size_t n)
{
	if (scratch_on) {
		n = (n + 15) & ~(size_t)15;
		if (scratch_used + n <= SCRATCH) {
			void *p = scratch + scratch_used;
			scratch_used += n;
			return p;
		}
		scratch_spilled = true;
	}
	return malloc(n);
}

void ht_rep__j_free(void *p)
{
	if (scratch != NULL && (char *)p >= scratch && (char *)p < scratch + SCRATCH)
		return;
	free(p);
}

bool ht_rep__scratch_set(bool on)
{
	bool was = scratch_on;
	scratch_on = on && scratch != NULL;
	return was;
}

size_t ht_rep__scratch_mark(void)
{
	return scratch_used;
}

void ht_rep__scratch_release(size_t mark)
{
	if (mark <= scratch_used)
		scratch_used = mark;
	if (mark == 0)
		scratch_spilled = false;
}

bool ht_rep__scratch_whole(void)
{
	return scratch_on && !scratch_spilled;
}

void ht_rep__scratch_begin(void)
{
	if (scratch == NULL)
		scratch = malloc(SCRATCH);
	scratch_used = 0;
	scratch_on = scratch != NULL;
}

void ht_rep__scratch_end(void)
{
	scratch_on = false;
	free(scratch);
	scratch = NULL;
}

size_t ht_rep__read_fd(int fd, char *buf, size_t size)
{
	size_t got = 0;
	while (got < size) {
		ssize_t r = read(fd, buf + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}
