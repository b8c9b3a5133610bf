// SPDX-License-Identifier: MIT
/*
 * reader.c: reads a job's trace files (found by files.c). Every line is a
 * JSON object parsed with jansson (Debian's libjansson: small, a plain C
 * API, strict RFC 8259 parsing with line/column errors, in Debian since
 * 2009 and already a build dependency of the command). Files are read by
 * a few threads, one file at a time each. The bulk of a trace,
 * the thread lines of dumps, is not parsed as it streams by: a cheap look
 * at the line's start (every line begins {"t":"<type>") says what it is,
 * and only the lines the report needs are parsed when the process record
 * closes. A line that does not parse, a truncated last line, a file that
 * is not a trace: a warning naming the file and line, never an abort.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "evidence.h"
#include "reader.h"

#define MAX_FILE_WARNINGS 20	/* as rctx.c */
#define FRESH_SECS 5	/* a file changed this recently may be mid-write */

/* ---- the job ------------------------------------------------------------------ */

void ht_rep_job_init(struct rep_job *job)
{
	memset(job, 0, sizeof(*job));
	job->world_size = -1;
	job->ws_loc = REP_NOLOC;
}

void ht_rep_read_free(struct rep_job *job)
{
	ht_rep_close_dirs(job);
	for (size_t i = 0; i < job->nfiles; i++) {
		free(job->files[i].path);
		free(job->files[i].name);
	}
	free(job->files);
	job->files = NULL;
	for (size_t i = 0; i < job->nwarns; i++)
		free(job->warns[i].msg);
	free(job->warns);
	job->warns = NULL;
	ht_rep_vec_free(&job->procs);
	ht_rep__digest_free(job);
	ht_rep__far_free(job);
	ht_rep_arena_free(&job->a);
}

static bool peek_type(const char *s, size_t n, char *type, size_t cap);

/* True when a line looks like a header: by its start when the library
 * wrote it, else parsed to be sure. */
static bool starts_header(const char *s, size_t n)
{
	char type[32];
	if (peek_type(s, n, type, sizeof(type)))
		return strcmp(type, "header") == 0;
	json_t *o = json_loadb(s, n, 0, NULL);
	const char *t = json_string_value(json_object_get(o, "t"));
	bool r = t != NULL && strcmp(t, "header") == 0;
	json_decref(o);
	return r;
}

/* ---- lines -------------------------------------------------------------------- */

/* The event type from the line's start, {"t":"<type>", without parsing;
 * false when the line does not start that way (then it is parsed). */
static bool peek_type(const char *s, size_t n, char *type, size_t cap)
{
	static const char pre[] = "{\"t\":\"";
	if (n < sizeof(pre) || memcmp(s, pre, sizeof(pre) - 1) != 0)
		return false;
	size_t i = sizeof(pre) - 1, k = 0;
	while (i < n && s[i] != '"' && s[i] != '\\' && k + 1 < cap)
		type[k++] = s[i++];
	type[k] = '\0';
	return i < n && s[i] == '"';
}

/* True when a thread line says "main": true (spaces allowed). A frame
 * cannot fake it: quotes inside strings are escaped. */
static bool says_main(const char *s, size_t n)
{
	const char *end = s + n;
	for (const char *p = s; (p = memmem(p, (size_t)(end - p), "\"main\"", 6)) != NULL; p += 6) {
		const char *q = p + 6;
		while (q < end && (*q == ' ' || *q == ':'))
			q++;
		if (end - q >= 4 && memcmp(q, "true", 4) == 0)
			return true;
	}
	return false;
}

static void note_unknown(struct rep_rctx *c, const char *type, uint32_t line)
{
	for (size_t i = 0; i < c->nunknown; i++)
		if (strcmp(c->unknown[i].type, type) == 0) {
			c->unknown[i].count++;
			return;
		}
	if (c->nunknown < REP_ARRAY_SIZE(c->unknown)) {
		struct rep_unknown *u = &c->unknown[c->nunknown++];
		snprintf(u->type, sizeof(u->type), "%s", type);
		u->file = c->file;
		u->line = line;
		u->count = 1;
	}
}

/* The first place of key (k > 1 bytes) in s..end, or NULL: memchr on its
 * second byte (after a quote: a rarer one), then a compare (memmem took
 * four instructions a byte on the dump_end lines). */
static const char *find(const char *s, const char *end, const char *key, size_t k)
{
	for (const char *p = s + 1; p < end; p++) {
		p = memchr(p, key[1], (size_t)(end - p));
		if (p == NULL || (size_t)(end - p) < k - 1)
			return NULL;
		if (p[-1] == key[0] && memcmp(p + 1, key + 2, k - 2) == 0)
			return p - 1;
	}
	return NULL;
}

/* True when the line has key (quoted) with value val (NULL: any). */
static bool has_key(const char *s, size_t n, const char *key, const char *val)
{
	const char *end = s + n;
	size_t k = strlen(key);
	for (const char *p = s; (p = find(p, end, key, k)) != NULL; p += k) {
		const char *q = p + k;
		while (q < end && (*q == ' ' || *q == ':'))
			q++;
		if (val == NULL || ((size_t)(end - q) >= strlen(val) && memcmp(q, val, strlen(val)) == 0))
			return true;
	}
	return false;
}

/* A dump line (thread, dump_end; s, n bytes): only its place is noted. */
static void dump_line(struct rep_rctx *c, bool end, const struct rep_loc *loc, const char *s,
		      size_t n)
{
	struct rep_proc *p = c->p;
	if (p == NULL || c->open_dump < 0 || (size_t)c->open_dump >= p->ndumps)
		return;
	struct rep_dump *d = &p->dumps[c->open_dump];
	if (end) {
		d->end_loc = *loc;
		d->cut = has_key(s, n, "\"cut\"", NULL);
		d->undeclared = has_key(s, n, "\"declared\"", "false");
		c->open_dump = -1;
		return;
	}
	d->nthreads++;
	if (!d->main_seen && says_main(s, n)) {
		d->main_loc = *loc;
		d->main_seen = true;
	} else if (d->nthreads == 1) {
		d->main_loc = *loc;	/* a fallback, checked when parsed */
	}
}

static void one_event(struct rep_rctx *c, const struct rep_loc *loc, const struct rep_head *hd,
		      json_t *o, const char *s, size_t n);

/* Line loc, s (n bytes, without its newline and trailing blanks). */
static void one_line(struct rep_rctx *c, const struct rep_loc *loc, const char *s, size_t n,
		     bool last_no_nl)
{
	char type[32];
	bool peeked = peek_type(s, n, type, sizeof(type));

	if (peeked && c->p != NULL && strcmp(type, "thread") == 0) {
		if (!last_no_nl) {
			dump_line(c, false, loc, s, n);
			return;
		}
	} else if (peeked && c->p != NULL && strcmp(type, "dump_end") == 0 && !last_no_nl) {
		dump_line(c, true, loc, s, n);
		return;
	}
	/* A tail seen before: only the head is parsed (lines.c); a new one
	 * member by member (members.c). */
	json_t *ev = NULL, *own = NULL;
	struct rep_head hd;
	if (peeked)
		ev = ht_rep__split_parse(c, s, n, &hd, &own);
	if (ev != NULL) {
		one_event(c, loc, &hd, ev, s, n);
		/* Made in the scratch block, holding no kept member: it goes
		 * with the block, as a line parsed whole (below). */
		if (!ht_rep__scratch_whole() || c->shared != 0)
			json_decref(own);
		c->shared = 0;
		ht_rep__scratch_release(0);
		return;
	}
	json_error_t e;
	json_t *o = json_loadb(s, n, 0, &e);
	if (o == NULL) {
		/* Still being written: the file changed seconds ago and its last
		 * whole line is recent too (fixtures and old traces are not). */
		bool live = last_no_nl && c->fresh && c->p != NULL && !isnan(c->p->last_ts) &&
			    (double)time(NULL) - c->p->last_ts < 60;
		if (live)
			ht_rep__warn(c, loc->line, "incomplete last line (the file is being "
				     "written), ignored");
		else if (last_no_nl)
			ht_rep__warn(c, loc->line, "truncated last line (the process was killed "
				     "while writing it), ignored");
		else
			ht_rep__warn(c, loc->line, "not JSON (%s at column %d), ignored", e.text,
				     e.column);
		if (last_no_nl && !live && c->p != NULL)
			c->p->truncated = true;
		return;
	}
	if (!json_is_object(o)) {
		ht_rep__warn(c, loc->line, "not a JSON object, ignored");
	} else {
		hd.t = json_string_value(json_object_get(o, "t"));
		hd.ts = ht_rep__num(o, "ts");
		hd.mono = ht_rep__num(o, "mono");
		hd.tid = ht_rep__int(o, "tid");
		one_event(c, loc, &hd, o, s, n);
	}
	/* A line parsed whole into the scratch block goes with the block (its
	 * values hold no other memory): no walk over it to free nothing. */
	if (!ht_rep__scratch_whole())
		json_decref(o);
	ht_rep__scratch_release(0);	/* nothing parsed is alive now */
}

/* One event line: hd has its type and times, o its members (all of them
 * when the line was parsed whole, those after the tid when not). */
static void one_event(struct rep_rctx *c, const struct rep_loc *loc, const struct rep_head *hd,
		      json_t *o, const char *s, size_t n)
{
	const char *t = hd->t;
	if (t == NULL) {
		ht_rep__warn(c, loc->line, "no event type (\"t\"), ignored");
		return;
	}
	int type_id = ht_event_from_name(t);
	double ts = hd->ts, mono = hd->mono;
	c->tid = hd->tid;
	if (type_id == HT_EV_HEADER) {
		const char *fmt = json_string_value(json_object_get(o, "format"));
		if (fmt == NULL || strncmp(fmt, "hangtrace/", 10) != 0) {
			ht_rep__warn(c, loc->line, "header of format '%s', not hangtrace/1: "
				     "the record is skipped", fmt != NULL ? fmt : "?");
			ht_rep__proc_end(c);
			return;
		}
		if (strcmp(fmt, HT_TRACE_FORMAT) != 0)
			ht_rep__warn(c, loc->line, "format '%s' is newer than this report "
				     "(hangtrace/1): read as hangtrace/1", fmt);
		ht_rep__proc_end(c);
		ht_rep__header(c, o, loc, ts, mono);
		return;
	}
	if (c->p == NULL)
		return;		/* after a skipped record: up to the next header */
	if (!isnan(ts) && !(ts <= c->p->last_ts))
		c->p->last_ts = ts;
	if (!isnan(ts) && type_id != HT_EV_EXIT && !(ts <= c->p->last_ev_ts))
		c->p->last_ev_ts = ts;
	if (!isnan(mono) && !(mono <= c->p->last_mono))
		c->p->last_mono = mono;
	c->p->lines++;
	if (type_id < 0) {
		note_unknown(c, t, loc->line);
	} else if (type_id == HT_EV_THREAD || type_id == HT_EV_DUMP_END) {
		dump_line(c, type_id == HT_EV_DUMP_END, loc, s, n);
	} else {
		ht_rep__event(c, o, type_id, loc, ts, mono);
		if (type_id == HT_EV_EXIT)
			c->open_dump = -1;
	}
}

static void read_buffer(struct rep_rctx *c)
{
	uint32_t line = 0;
	size_t off = 0;

	c->p = NULL;
	c->open_dump = -1;
	c->not_trace = false;
	c->file_warns = 0;
	while (off < c->len) {
		const char *s = c->buf + off;
		const char *nl = memchr(s, '\n', c->len - off);
		size_t n = nl != NULL ? (size_t)(nl - s) : c->len - off;
		line++;
		size_t k = ht_rep_line_len(s, n, NULL);
		if (k == 0 && nl == NULL)
			break;
		if (line == 1 && !starts_header(s, k)) {
			ht_rep__warn(c, 1, "not a hangtrace trace (line 1 is not a header), skipped");
			c->not_trace = true;
			return;
		}
		if (k == 0) {
			ht_rep__warn(c, line, "empty line, ignored");
		} else if (k > REP_LOC_MAX_LEN || off >> REP_LOC_OFF_BITS != 0) {
			ht_rep__warn(c, line, k > REP_LOC_MAX_LEN ? "line longer than 16 MiB, ignored"
							   : "line past the file's first TiB, ignored");
		} else {
			struct rep_loc loc = { c->file, line,
					       off < REP_LOC_FAR ? (uint32_t)off : REP_LOC_FAR };
			one_line(c, &loc, s, k, nl == NULL);
		}
		off += n + (nl != NULL ? 1 : 0);
	}
	if (line == 0)
		ht_rep__warn(c, 0, "empty file: no trace in it");
	ht_rep__proc_end(c);
}

static void read_file(struct rep_rctx *c, uint32_t idx)
{
	struct rep_file *f = &c->job->files[idx];
	size_t before = c->procs.n;

	c->file = idx;
	c->fresh = false;
	if (f->dup || f->digest)
		return;		/* read once; a digest's records are taken as they are */
	if (f->path == NULL) {
		c->buf = f->mem;
		c->len = f->mem != NULL ? f->memlen : 0;
		read_buffer(c);
		goto check;
	}
	/* read(2) into the thread's buffer: cheaper than mapping thousands of
	 * small files (each munmap in a threaded process costs a TLB shootdown). */
	int fd = f->dir >= 0 ? openat(c->job->dirfds[f->dir], f->base, O_RDONLY | O_CLOEXEC)
			     : open(f->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		else if (!f->known && stat(f->path, &st) == 0)
			fd = 0;		/* (its identity all the same: to warn once) */
		if (fd >= 0 && !f->known) {
			f->dev = (uint64_t)st.st_dev;
			f->ino = (uint64_t)st.st_ino;
			f->known = true;
		}
		ht_rep__warn(c, 0, "cannot read: %s", strerror(e));
		return;
	}
	/* Who the file is, when the listing did not look (files.c): a file
	 * named twice is found after reading (ht_rep_read). */
	f->dev = (uint64_t)st.st_dev;
	f->ino = (uint64_t)st.st_ino;
	f->known = true;
	if (st.st_size == 0) {
		close(fd);
		ht_rep__warn(c, 0, "empty file: no trace in it");
		return;
	}
	/* Written in the last seconds: a cut last line may still be written. */
	c->fresh = time(NULL) - st.st_mtime < FRESH_SECS;
	size_t size = (size_t)st.st_size;
	if (size > c->iocap) {
		char *nb = realloc(c->iobuf, size);
		if (nb == NULL) {
			close(fd);
			ht_rep__warn(c, 0, "cannot read: too big (%zu bytes)", size);
			return;
		}
		c->iobuf = nb;
		c->iocap = size;
	}
	size_t got = ht_rep__read_fd(fd, c->iobuf, size);
	close(fd);
	c->buf = c->iobuf;
	c->len = got;		/* a file still being written: what is there */
	read_buffer(c);
check:
	if (c->procs.n == before && c->len > 0 && !c->not_trace)
		ht_rep__warn(c, 0, "no hangtrace/1 process record in it");
	if (c->file_warns > MAX_FILE_WARNINGS)
		ht_rep__warn_more(c, "%u more warnings about this file not shown",
				   c->file_warns - MAX_FILE_WARNINGS);
	c->buf = NULL;
	c->len = 0;
}

/* ---- threads ---------------------------------------------------------------------- */

struct pool {
	struct rep_job *job;
	uint32_t next;		/* the next file to read (atomic) */
};

struct worker {
	struct pool *pool;
	struct rep_rctx c;
	pthread_t th;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct pool *pl = w->pool;
	ht_rep__scratch_begin();
	for (;;) {
		/* One file at a time: files are of very different sizes. */
		uint32_t i = __atomic_fetch_add(&pl->next, 1, __ATOMIC_RELAXED);
		if (i >= pl->job->nfiles)
			break;
		read_file(&w->c, i);
	}
	ht_rep__scratch_end();
	return NULL;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct rep_proc *x = *(struct rep_proc *const *)a, *y = *(struct rep_proc *const *)b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->hdr.line < y->hdr.line ? -1 : x->hdr.line > y->hdr.line;
}

static int cmp_warn(const void *a, const void *b)
{
	const struct rep_warning *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->msg, y->msg);
}

static int pick_threads(const struct rep_job *job)
{
	if (job->nthreads > 0)
		return job->nthreads;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = cpus > 8 ? 8 : cpus < 1 ? 1 : (int)cpus;
	if ((size_t)n > job->nfiles / 32 + 1)
		n = (int)(job->nfiles / 32 + 1);
	return n;
}

static int cmp_inode(const void *a, const void *b, void *arg)
{
	const struct rep_job *job = arg;
	const struct rep_file *x = &job->files[*(const size_t *)a];
	const struct rep_file *y = &job->files[*(const size_t *)b];
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* A file named twice (a folder and a file in it, two paths to one place)
 * is read once: the later names are skipped with a warning. Returns how
 * many were found that were not skipped yet. */
static size_t dedupe(struct rep_job *job)
{
	size_t n = 0, found = 0, *ix = malloc((job->nfiles + 1) * sizeof(*ix));
	if (ix == NULL)
		abort();
	for (size_t i = 0; i < job->nfiles; i++)
		if (job->files[i].path != NULL && job->files[i].known)
			ix[n++] = i;
	if (n > 1)
		qsort_r(ix, n, sizeof(*ix), cmp_inode, job);
	for (size_t i = 1; i < n; i++) {
		struct rep_file *a = &job->files[ix[i - 1]], *b = &job->files[ix[i]];
		if (a->dev == b->dev && a->ino == b->ino) {
			b->dup = true;
			found++;
			ht_rep_warn(job, (uint32_t)ix[i], 0, "the same file as %s: read once", a->name);
		}
	}
	free(ix);
	return found;
}

/* What identifies a process: host, boot, pid, start (and its copy's
 * lines), beside its record (a sort of a million reads no record). */
struct identity {
	const char *host, *boot_id;
	int64_t pid, start_ticks;
	uint32_t lines;
	struct rep_proc *p;
};

static int cmp_identity_host(const void *a, const void *b)
{
	const struct identity *x = a, *y = b;
	return x->host == y->host ? 0 : strcmp(x->host, y->host);
}

/* Orders records by what identifies a process: host, boot, pid, start. */
static int cmp_identity(const void *a, const void *b)
{
	const struct identity *x = a, *y = b;
	int c = cmp_identity_host(x, y);
	if (c == 0 && x->boot_id != y->boot_id)
		c = strcmp(x->boot_id, y->boot_id);
	if (c == 0)
		c = x->pid < y->pid ? -1 : x->pid > y->pid;
	if (c == 0)
		c = x->start_ticks < y->start_ticks ? -1 : x->start_ticks > y->start_ticks;
	if (c == 0)	/* the longer copy first: it is the one kept */
		c = x->lines > y->lines ? -1 : x->lines < y->lines;
	return c;
}

static bool same_process(const struct rep_proc *x, const struct rep_proc *y)
{
	return rep_id(x)->host != NULL && rep_id(y)->host != NULL && rep_id(x)->boot_id != NULL && rep_id(y)->boot_id != NULL &&
	       x->pid != REP_UNKNOWN && x->start_ticks != REP_UNKNOWN &&
	       strcmp(rep_id(x)->host, rep_id(y)->host) == 0 && strcmp(rep_id(x)->boot_id, rep_id(y)->boot_id) == 0 &&
	       x->pid == y->pid && x->start_ticks == y->start_ticks;
}

/*
 * The same process in two files (a node's folder given twice under other
 * names, a copy of a trace): one record, read once. Identity is the host,
 * the boot, the pid and the start time, which no two processes share; the
 * copy with more lines is kept, the other named in a warning.
 */
static void drop_copies(struct rep_job *job)
{
	size_t n = job->procs.n;
	struct rep_proc **s = malloc((n + 1) * sizeof(*s));
	struct identity *k = malloc((n + 1) * sizeof(*k));
	if (s == NULL || k == NULL || n < 2) {
		free(s);
		free(k);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rep_proc *p = job->procs.v[i];
		k[i] = (struct identity){ rep_id(p)->host != NULL ? rep_id(p)->host : "",
					  rep_id(p)->boot_id != NULL ? rep_id(p)->boot_id : "", p->pid,
					  p->start_ticks, p->lines, job->procs.v[i] };
	}
	rep_sort_grouped(k, n, sizeof(*k), cmp_identity_host, cmp_identity);
	for (size_t i = 0; i < n; i++)
		s[i] = k[i].p;
	free(k);
	bool dropped = false;
	for (size_t i = 1; i < n; i++) {
		size_t k = i - 1;
		while (k > 0 && s[k] == NULL)
			k--;
		if (s[k] == NULL || !same_process(s[k], s[i]))
			continue;
		ht_rep_warn(job, s[i]->file, 0,
			    "the same process as %s (host %s, pid %lld, same start): read once",
			    job->files[s[k]->file].name, rep_id(s[i])->host, (long long)s[i]->pid);
		s[i]->dropped = true;
		s[i] = NULL;
		dropped = true;
	}
	free(s);
	if (!dropped)
		return;
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		struct rep_proc *p = job->procs.v[i];
		if (!p->dropped)
			job->procs.v[kept++] = p;
	}
	job->procs.n = kept;
}

/* Reads every file not skipped on the workers' threads. */
static void read_all(struct rep_job *job, struct worker *w, int n)
{
	struct pool pl = { .job = job, .next = 0 };
	memset(w, 0, (size_t)n * sizeof(*w));
	for (int i = 0; i < n; i++) {
		w[i].pool = &pl;
		w[i].c.job = job;
		ht_rep_intern_on(&w[i].c.a);
		w[i].c.open_dump = -1;
	}
	/* The first worker is this thread; the others, when any, are started. */
	int started = 0;
	for (int i = 1; i < n; i++)
		if (pthread_create(&w[i].th, NULL, work, &w[i]) == 0)
			started = i;
		else
			break;
	work(&w[0]);
	for (int i = 1; i <= started; i++)
		pthread_join(w[i].th, NULL);
}

static void worker_free(struct rep_rctx *c)
{
	free(c->warns);
	free(c->iobuf);
	free(c->cache.slot);
	ht_rep__lines_free(&c->lines);
	ht_rep__members_free(&c->members);
	ht_rep_vec_free(&c->procs);
	ht_rep_intern_off(&c->a);
}

size_t ht_rep_read(struct rep_job *job)
{
	int n = pick_threads(job);
	struct worker *w = calloc((size_t)n, sizeof(*w));

	if (w == NULL)
		abort();
	if (job->dg != NULL)
		ht_rep__digest_order(job);
	json_set_alloc_funcs(ht_rep__j_malloc, ht_rep__j_free);
	read_all(job, w, n);
	/* A file named twice is known once read (files.c looks no file up):
	 * then everything is read again without the later names, as if they
	 * had been skipped from the start (rare: a folder given twice). */
	if (dedupe(job) > 0) {
		for (int i = 0; i < n; i++) {
			struct rep_rctx *c = &w[i].c;
			for (size_t k = 0; k < c->nwarns; k++)
				free(c->warns[k].msg);
			worker_free(c);
			ht_rep_arena_free(&c->a);
		}
		read_all(job, w, n);
	}
	ht_rep_close_dirs(job);

	struct rep_unknown unk[64];
	size_t nunk = 0;
	for (int i = 0; i < n; i++) {
		struct rep_rctx *c = &w[i].c;
		for (size_t k = 0; k < c->procs.n; k++)
			ht_rep_vec_push(&job->procs, c->procs.v[k]);
		for (size_t k = 0; k < c->nwarns; k++)
			ht_rep__warn_take(job, c->warns[k].file, c->warns[k].line, c->warns[k].msg);
		for (size_t k = 0; k < c->nunknown; k++) {
			size_t j = 0;
			while (j < nunk && strcmp(unk[j].type, c->unknown[k].type) != 0)
				j++;
			if (j == nunk && nunk < REP_ARRAY_SIZE(unk))
				unk[nunk++] = c->unknown[k];
			else if (j < nunk) {
				unk[j].count += c->unknown[k].count;
				if (c->unknown[k].file < unk[j].file) {
					unk[j].file = c->unknown[k].file;
					unk[j].line = c->unknown[k].line;
				}
			}
		}
		job->warns_dropped += c->dropped;
		worker_free(c);
		ht_rep_arena_take(&job->a, &c->a);
	}
	free(w);
	if (job->dg != NULL)
		ht_rep__digest_take(job, unk, &nunk, REP_ARRAY_SIZE(unk));
	if (job->dg != NULL && job->dg->writing) {
		/* For a digest: counted across digests by the report. */
		memcpy(job->dg->unk, unk, nunk * sizeof(*unk));
		job->dg->nunk = nunk;
		nunk = 0;
	}
	for (size_t j = 0; j < nunk; j++)
		ht_rep_warn(job, unk[j].file, unk[j].line,
			    "unknown event type '%s' ignored (%zu line%s in all)", unk[j].type,
			    unk[j].count, unk[j].count == 1 ? "" : "s");
	rep_sort(job->procs.v, job->procs.n, sizeof(void *), cmp_proc);
	drop_copies(job);
	if (job->nwarns > 0)
		rep_sort(job->warns, job->nwarns, sizeof(*job->warns), cmp_warn);
	return job->procs.n;
}
