// SPDX-License-Identifier: MIT
/*
 * digest_read.c: digests (digest_write.c, doc/trace-format.md "Digests")
 * as input of the report: a file of one or more digests, one a line, is
 * known by its first bytes. Its files join the job's (in name order with
 * the others, folder by folder, as one folder's listing is: the same job
 * whichever way its files are split and in whatever order they are
 * given), its records join those read from trace files as the reader
 * made them, and its quoted lines are made when evidence quotes them
 * (ht_rep__digest_line), as from the files themselves. The digests are
 * read on several threads, each on its own, then added in the order given.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"

/* ---- finding digests ----------------------------------------------------------------- */

bool ht_rep_is_digest(const char *path)
{
	struct stat st;
	char head[sizeof(HT_DIGEST_PREFIX) - 1];
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char part[sizeof(HT_DIGEST_PART_PREFIX) - 1];
	ssize_t n = read(fd, part, sizeof(part));
	close(fd);
	memcpy(head, part, sizeof(head));
	return (n >= (ssize_t)sizeof(head) && memcmp(head, HT_DIGEST_PREFIX, sizeof(head)) == 0) ||
	       (n == (ssize_t)sizeof(part) && memcmp(part, HT_DIGEST_PART_PREFIX, sizeof(part)) == 0);
}

void ht_rep_digest_says(const char *path, char *out, size_t n)
{
	char head[128] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, head, sizeof(head) - 1) : -1;
	if (fd >= 0)
		close(fd);
	const char *v = got > (ssize_t)sizeof(HT_DIGEST_PREFIX) ? head + sizeof(HT_DIGEST_PREFIX) - 1
								 : NULL;
	size_t len = 0;
	if (v != NULL && *v == '"') {
		v++;
		while (v[len] != '\0' && v[len] != '"' && (unsigned char)v[len] >= 0x20 &&
		       len + 1 < n)
			len++;
	}
	snprintf(out, n, "%.*s", (int)len, len > 0 ? v : "");
	if (len == 0 || v[len] != '"')
		snprintf(out, n, "?");
}

/* ---- digests in parts ----------------------------------------------------------------- */

struct part_set {
	char *id;
	size_t n, have;
	char **data;		/* malloc'd pieces, NULL until seen */
	size_t *len;
};

struct parts {
	struct part_set *v;
	size_t n;
};

/* Keeps one part line; returns the digest's whole text (malloc'd, *len)
 * once its last piece is in, else NULL. false in *ok: not a part line. */
static char *part_line(struct parts *ps, const char *s, size_t n, size_t *len, bool *ok)
{
	json_t *o = json_loadb(s, n, 0, NULL);
	const char *id = json_string_value(json_object_get(o, "digest_part"));
	json_t *jd = json_object_get(o, "data");
	json_int_t i = json_integer_value(json_object_get(o, "i"));
	json_int_t total = json_integer_value(json_object_get(o, "n"));
	*ok = id != NULL && json_is_string(jd) && total > 0 && total < (1 << 24) && i >= 0 && i < total;
	if (!*ok) {
		json_decref(o);
		return NULL;
	}
	struct part_set *p = NULL;
	for (size_t k = 0; k < ps->n && p == NULL; k++)
		if (strcmp(ps->v[k].id, id) == 0)
			p = &ps->v[k];
	if (p == NULL) {
		struct part_set *v = realloc(ps->v, (ps->n + 1) * sizeof(*v));
		if (v == NULL)
			abort();
		ps->v = v;
		p = &v[ps->n++];
		p->id = strdup(id);
		p->n = (size_t)total;
		p->have = 0;
		p->data = calloc(p->n, sizeof(*p->data));
		p->len = calloc(p->n, sizeof(*p->len));
		if (p->id == NULL || p->data == NULL || p->len == NULL)
			abort();
	}
	if ((size_t)total != p->n || p->data[i] != NULL) {
		json_decref(o);
		return NULL;		/* a piece twice, or of another cut: the first kept */
	}
	p->len[i] = json_string_length(jd);
	p->data[i] = malloc(p->len[i] + 1);
	if (p->data[i] == NULL)
		abort();
	memcpy(p->data[i], json_string_value(jd), p->len[i]);
	json_decref(o);
	if (++p->have < p->n)
		return NULL;
	size_t all = 0;
	for (size_t k = 0; k < p->n; k++)
		all += p->len[k];
	char *text = malloc(all + 1);
	if (text == NULL)
		abort();
	*len = 0;
	for (size_t k = 0; k < p->n; k++) {
		memcpy(text + *len, p->data[k], p->len[k]);
		*len += p->len[k];
		free(p->data[k]);
		p->data[k] = NULL;
	}
	return text;
}

static struct rep_dgset *dgset(struct rep_job *job)
{
	if (job->dg == NULL) {
		job->dg = calloc(1, sizeof(*job->dg));	/* (its arena: the readers' records) */
		if (job->dg == NULL)
			abort();
	}
	return job->dg;
}

void ht_rep_digest_prepare(struct rep_job *job)
{
	dgset(job)->writing = true;
}

/* Keeps a digest's line (s, n bytes; own: a buffer of its own, else in the
 * block being read; xpos: its place in the file path, -1 when it cannot
 * be read there again) to be read with the others of the block. */
static void add_doc(struct rep_dgset *g, const char *path, size_t line, const char *s, size_t n,
		    char *own, int64_t xpos)
{
	if (g->n == g->cap) {
		g->cap = g->cap != 0 ? g->cap * 2 : 16;
		struct rep_dgdoc **v = realloc(g->docs, g->cap * sizeof(*v));
		if (v == NULL)
			abort();
		g->docs = v;
	}
	struct rep_dgdoc *d = calloc(1, sizeof(*d));
	if (d == NULL)
		abort();
	d->src = s;
	d->srclen = n;
	d->own = own;
	d->path = path;
	d->line = line;
	d->xpos = xpos;
	g->docs[g->n++] = d;
}

/* Digests are read a block of their file at a time, so that a file of
 * many (a job's nodes) is never held whole (a line longer than a block
 * takes as many as it needs). */
static size_t dg_block = 32u << 20;

void ht_rep__digest_block(size_t bytes)
{
	dg_block = bytes > 0 ? bytes : 32u << 20;
}

int ht_rep_add_digest(struct rep_job *job, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct rep_dgset *g = dgset(job);
	char *name = strdup(path);
	char **names = realloc(g->names, (g->nnames + 1) * sizeof(*names));
	if (name == NULL || names == NULL)
		abort();
	g->names = names;
	g->names[g->nnames++] = name;
	static const char head[] = "{\"digest\":\"" HT_DIGEST_FORMAT "\"";
	int added = 0, bad = 0;
	size_t line = 0, have = 0;	/* have: bytes of a line begun in the last block */
	struct stat st;
	/* (a pipe's lines cannot be read again: their quoted lines are kept) */
	bool again = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	int64_t at = 0;			/* the file's place of the block's first byte */
	struct parts ps = { 0 };
	/* One buffer for the blocks (its pages made once): a line begun in
	 * the last block (have bytes at carry) moved to its start. */
	char *buf = NULL;
	size_t bufcap = 0, carry = 0;
	for (bool eof = false; !eof;) {
		size_t cap = have + dg_block;
		if (cap + 1 > bufcap) {
			/* (room for the lines carried: a new buffer's pages are made
			 * again, 32 MiB each block) */
			bufcap = cap + 1 + (have > 0 ? 0 : dg_block / 8);
			char *b = malloc(bufcap);
			if (b == NULL)
				abort();
			if (have > 0)
				memcpy(b, buf + carry, have);
			free(buf);
			buf = b;
		} else if (have > 0) {
			memmove(buf, buf + carry, have);
		}
		size_t got = have + ht_rep__read_fd(fd, buf + have, cap - have);
		eof = got < cap;
		size_t end = got;	/* the complete lines of the block */
		if (!eof) {
			const char *nl = memrchr(buf, '\n', got);
			end = nl != NULL ? (size_t)(nl - buf) + 1 : 0;
		}
		have = got - end;
		carry = end;
		int64_t next = at + (int64_t)end;
		for (size_t off = 0; off < end;) {
			const char *s = buf + off, *nl = memchr(s, '\n', end - off);
			size_t n = nl != NULL ? (size_t)(nl - s) : end - off;
			off += n + (nl != NULL);
			line++;
			if (n == 0)
				continue;
			char *whole = NULL;
			size_t wlen = 0;
			if (n >= sizeof(HT_DIGEST_PART_PREFIX) - 1 &&
			    memcmp(s, HT_DIGEST_PART_PREFIX, sizeof(HT_DIGEST_PART_PREFIX) - 1) == 0) {
				bool ok;
				whole = part_line(&ps, s, n, &wlen, &ok);
				if (!ok)
					bad++;
				if (whole == NULL)
					continue;
				s = whole;
				n = wlen;
			}
			/* Known by the format its first member names; read below with
			 * the others of the block (on several threads). */
			if (n > sizeof(head) - 1 && memcmp(s, head, sizeof(head) - 1) == 0 &&
			    (s[sizeof(head) - 1] == ',' || s[sizeof(head) - 1] == '}')) {
				add_doc(g, name, line, s, n, whole,
					whole == NULL && again ? at + (s - buf) : -1);
				added++;
			} else {
				bad++;
				free(whole);
			}
		}
		ht_rep_digest_load(job);	/* (done with the block) */
		at = next;
	}
	close(fd);
	free(buf);
	for (size_t k = 0; k < ps.n; k++) {
		if (ps.v[k].have < ps.v[k].n) {
			warnx("%s: digest %s: %zu of its %zu parts, not read", path, ps.v[k].id,
			      ps.v[k].have, ps.v[k].n);
			bad++;
		}
		for (size_t i = 0; i < ps.v[k].n; i++)
			free(ps.v[k].data[i]);
		free(ps.v[k].data);
		free(ps.v[k].len);
		free(ps.v[k].id);
	}
	free(ps.v);
	if (added == 0 && bad > 0)
		return -EINVAL;
	return added;
}

/* ---- the files' order ------------------------------------------------------------------ */

/* Names compared folder by folder ("a/x" before "a.b", as a listing of
 * the folder above them takes them), then by where they were given. */
static int cmp_name(const char *a, const char *b)
{
	for (;;) {
		size_t la = strcspn(a, "/"), lb = strcspn(b, "/");
		int c = memcmp(a, b, la < lb ? la : lb);
		if (c != 0)
			return c;
		if (la != lb)
			return la < lb ? -1 : 1;
		a += la;
		b += lb;
		if (*a == '\0' || *b == '\0')
			return (*a != '\0') - (*b != '\0');
		a++;
		b++;
	}
}

/* A file's name and where it was given, beside it: names without a '/'
 * compare as strcmp does (a sort of a million reads no file record). */
struct fname {
	const char *name;
	bool slash;
	size_t i;
};

static int cmp_file(const void *x, const void *y)
{
	const struct fname *a = x, *b = y;
	int c = a->slash || b->slash ? cmp_name(a->name, b->name) : strcmp(a->name, b->name);
	return c != 0 ? c : a->i < b->i ? -1 : a->i > b->i;
}

/* The locations of the members of table t of the record at base, and
 * of n such records, into the files' new places. */
static void remap_locs(void *base, int t, const uint32_t *to, uint32_t nf)
{
	size_t n;
	const size_t *off = ht_dg_locs(t, &n);
	for (size_t i = 0; base != NULL && i < n; i++) {
		if (t == DG_PROC && (off[i] & FD_RARE) && ((struct rep_proc *)base)->rare == NULL)
			continue;	/* (none: ht_rep_rare_none's) */
		struct rep_loc *l = (struct rep_loc *)ht_dg_at(base, off[i]);
		if (l->file < nf)
			l->file = to[l->file];
	}
}

static void remap_all(void *v, size_t n, size_t sz, int t, const uint32_t *to, uint32_t nf)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		remap_locs((char *)v + i * sz, t, to, nf);
}

/* A record read from a digest, into the files' new places. */
static void remap_proc(struct rep_proc *p, const uint32_t *to, uint32_t nf)
{
	if (p->file < nf)
		p->file = to[p->file];
	remap_locs(p, DG_PROC, to, nf);
	/* (its phases' lines are in its file: rep_ph_loc) */
	for (int k = 0; k < REP_VER_COUNT; k++)
		if (p->ver_loc[k].file < nf)
			p->ver_loc[k].file = to[p->ver_loc[k].file];
	remap_all(p->conn, p->nconn, sizeof(*p->conn), DG_CONNECT, to, nf);
	const struct rep_rare *r = rep_rare(p);	/* (its arrays: none's are empty) */
	remap_all(r->listen, r->nlisten, sizeof(*r->listen), DG_LISTEN, to, nf);
	remap_all(r->bind_fail, 1, sizeof(*r->bind_fail), DG_BINDFAIL, to, nf);
	remap_all(r->store, 1, sizeof(*r->store), DG_STORE, to, nf);
	remap_all(r->res, r->nres, sizeof(*r->res), DG_RESOLVE, to, nf);
	remap_all(r->cerr, r->ncerr, sizeof(*r->cerr), DG_CUDA_ERR, to, nf);
	remap_all(p->comms, p->ncomms, sizeof(*p->comms), DG_COMM, to, nf);
	remap_all(p->calls, p->ncalls, sizeof(*p->calls), DG_CALL, to, nf);
	remap_all(p->dumps, p->ndumps, sizeof(*p->dumps), DG_DUMP, to, nf);
	if (r->chk != NULL) {
		remap_locs(r->chk, DG_CHECKFACTS, to, nf);
		remap_all(r->chk->lines, r->chk->n, sizeof(*r->chk->lines), DG_CHKLINE, to, nf);
	}
	remap_all(r->blk, 1, sizeof(*r->blk), DG_BUILDLOCK, to, nf);
}

/* The records of digests k0 .. k1 (from record i0 of the set) into the
 * files' new places. */
struct remap_part {
	const struct rep_dgset *g;
	const uint32_t *to;
	size_t k0, k1, i0;
};

static void *remap_docs(void *arg)
{
	const struct remap_part *r = arg;
	size_t i = r->i0;
	for (size_t k = r->k0; k < r->k1; k++) {
		const struct rep_dgdoc *d = r->g->docs[k];
		for (size_t e = i + d->nadded; i < e && i < r->g->procs.n; i++)
			remap_proc(r->g->procs.v[i], r->to + d->fbase, d->nfiles);
	}
	return NULL;
}

/* The reading threads' arenas into the set's, once every digest is read. */
static void arenas_take(struct rep_dgset *g)
{
	for (size_t t = 0; t < g->nta; t++)
		ht_rep_arena_take(&g->a, &g->ta[t]);
	free(g->ta);
	g->ta = NULL;
	g->nta = 0;
}

void ht_rep__digest_order(struct rep_job *job)
{
	ht_rep_digest_load(job);
	arenas_take(job->dg);
	size_t n = job->nfiles;
	struct fname *ix = malloc((n + 1) * sizeof(*ix));
	uint32_t *to = malloc((n + 1) * sizeof(*to));
	struct rep_file *f = malloc((n + 1) * sizeof(*f));
	if (ix == NULL || to == NULL || f == NULL)
		abort();
	for (size_t i = 0; i < n; i++)
		ix[i] = (struct fname){ job->files[i].name, strchr(job->files[i].name, '/') != NULL, i };
	rep_sort(ix, n, sizeof(*ix), cmp_file);
	for (size_t i = 0; i < n; i++) {
		f[i] = job->files[ix[i].i];
		to[ix[i].i] = (uint32_t)i;
	}
	memcpy(job->files, f, n * sizeof(*f));
	struct rep_dgset *g = job->dg;
	/* The records of each digest, in the order added, its file k job file
	 * fbase + k until now; once placed, the job's. On two threads: a
	 * million records are more than a second's walk through memory. */
	size_t i = 0;
	if (!g->placed) {
		struct remap_part part[2] = { { g, to, 0, 0, 0 }, { g, to, g->n, g->n, 0 } };
		size_t half = g->procs.n / 2;
		for (size_t k = 0; k < g->n; k++) {
			if (i >= half && part[1].k0 == g->n) {
				part[0].k1 = part[1].k0 = k;
				part[1].i0 = i;
			}
			i += g->docs[k]->nadded;
		}
		if (part[1].k0 == g->n)
			part[0].k1 = g->n;
		pthread_t th;
		bool two = part[1].k0 < g->n && g->procs.n >= 65536 && job->nthreads != 1 &&
			   pthread_create(&th, NULL, remap_docs, &part[1]) == 0;
		remap_docs(&part[0]);
		if (two)
			pthread_join(th, NULL);
		else
			remap_docs(&part[1]);
	}
	g->placed = true;
	for (; i < g->procs.n; i++)
		remap_proc(g->procs.v[i], to, (uint32_t)n);
	for (size_t i = 0; i < job->nwarns; i++)	/* the digests' */
		if (job->warns[i].file < n)
			job->warns[i].file = to[job->warns[i].file];
	for (size_t i = 0; i < g->npend; i++)
		if (g->pend[i].file < n)
			g->pend[i].file = to[g->pend[i].file];
	free(ix);
	free(to);
	free(f);
}

/* ---- records ------------------------------------------------------------------------------ */

#define BASES 16	/* as digest_write.c: a record's base is one of the last BASES */
/* The place of a quoted line that was not kept (past any digest's) */
#define NOT_READ UINT32_MAX

/* A record as read: what later ones are read against (digest_write.c). */
struct rproc {
	struct rep_dgslab a;	/* first: what clearing keeps */
	struct rep_dval *proc;
	struct rep_dval *ph[HT_PHASE_COUNT], *ver[REP_VER_COUNT];
	struct rep_dval **arr[DA_N];
	size_t narr[DA_N];
	json_int_t *stk;	/* its dumps' stacks: frames and py of each, -1 none */
	bool bad;		/* a member list of it, or of its base, could not be read */
};

#define STACK_TABS 64

/* The stacks a reading thread made: one array for the frames of one text,
 * whatever the digest (as the raw reader shares them: the graph knows a
 * stack by its pointers, read/dumps.c). */
struct stacktab {
	struct stackslot {
		uint64_t h;
		const char **fr;
		uint32_t n;
	} *slot;
	size_t n, cap;
	/* The digests' tables of stacks made, by their packed text: the nodes
	 * of a job run the same programs and stop in the same places, so most
	 * digests' tables are the same text (made once, not unpacked again). */
	struct tabslot {
		uint64_t h;
		char *text;	/* the packed text (LEN, then the base-64) */
		size_t len;
		const char ***stacks;
		uint32_t *nstack;
		size_t n;
	} tabs[STACK_TABS];
	size_t ntabs;
};

struct dctx {
	struct rep_dgdoc *d;
	struct stacktab *st;
	struct rep_dgunpack *un;	/* the reading thread's */
	struct rep_arena *a;		/* strings, shared structs, the rest */
	struct rep_arena *recs;		/* the process records, one after another */
	struct rep_arena *arrs;		/* their phases, dumps, inits, connections, calls */
	uint32_t file;			/* the record's file (the digest's index) */
	const char ***stacks;		/* the digest's table of stacks, made once */
	uint32_t *nstack;
	size_t nstacks;
	struct rproc ring[BASES + 1];	/* the record read and its bases */
	size_t nread;
	struct rproc *cur;
	struct rep_shared ids;		/* the idents its records made, to share */
	struct rep_shared cudas;	/* and their cuInits */
	struct rep_shared hfs;		/* and their host facts */
	struct rep_shared dsts;	/* and their dumps' stacks */
	struct rep_shared vers;	/* and their versions */
	struct rep_shared cids;	/* and their communicators */
	struct rep_shared cds;		/* and where their connections went */
	struct rep_shared cws;		/* and their calls' names and results */
	struct rep_dstack dst;		/* the dump read last: its stack's members */
};

/* Makes r ready for another record, its memory kept (free: given back). */
static void rproc_clear(struct rproc *r, bool free_)
{
	ht_dg_slab_end(&r->a, free_);
	memset((char *)r + sizeof(r->a), 0, sizeof(*r) - sizeof(r->a));	/* (a first) */
}

/* A file of the digest, by its index there (the job's once it is added:
 * ht_rep__digest_parse moves every location there). */
static uint32_t file_of(struct dctx *c, json_int_t k)
{
	return k >= 0 && (uint64_t)k < c->d->nfiles ? (uint32_t)k : UINT32_MAX;
}

static const char *str_of(struct dctx *c, json_t *v)
{
	return json_is_string(v) ? ht_rep_intern(c->a, json_string_value(v), json_string_length(v))
				 : NULL;
}

static double num_of(json_t *v)
{
	if (json_is_number(v))
		return json_number_value(v);
	const char *s = json_string_value(v);
	if (s != NULL && strcmp(s, "inf") == 0)
		return INFINITY;
	if (s != NULL && strcmp(s, "-inf") == 0)
		return -INFINITY;
	return NAN;
}

/* Member f of table t from its token v, against its base's value bv; cur
 * holds the record's members read so far (a mono time's wall time among
 * them). A token not of the member's type gives none. */
static struct rep_dval dval_from(struct dctx *c, int t, int f, const struct rep_dgtok *v,
				 const struct rep_dval *bv, const struct rep_dval *cur,
				 const struct rep_dval *b, const int *pairs)
{
	struct rep_dval x = { .k = DV_NONE };
	unsigned type = rep_dg_tabs[t].fd[f].type;
	switch (type) {
	case FT_I64:
	case FT_INT:
	case FT_U32:
	case FT_CHAR:
		if (v->k != DT_INT)
			break;
		x.k = DV_INT;
		x.i = bv->k == DV_INT ? (int64_t)((uint64_t)bv->i + (uint64_t)v->i) : v->i;
		break;
	case FT_U64:
		if (v->k == DT_INT) {
			x.k = DV_U64;
			x.i = v->i;
		}
		break;
	case FT_DBL:
		if (v->k == DT_INT) {
			int p = pairs[f];
			uint64_t n = (uint64_t)v->i;
			if (p >= 0 && b != NULL && cur[p].k == DV_MICRO && b[p].k == DV_MICRO &&
			    bv->k == DV_MICRO)
				n += (uint64_t)bv->i + ((uint64_t)cur[p].i - (uint64_t)b[p].i);
			else if (bv->k == DV_MICRO)
				n += (uint64_t)bv->i;
			x.k = DV_MICRO;
			x.i = (int64_t)n;
		} else if (v->k == DT_REAL && !isnan(v->d)) {
			x.d = v->d;
			x.k = ht_dg_micros(x.d, &x.i) ? DV_MICRO : DV_REAL;
		}
		break;
	case FT_STR:
		if (v->k == DT_STR) {
			x.k = DV_STR;
			x.s = ht_rep_intern(c->a, v->s, v->len);
		}
		break;
	case FT_BOOL:
		x.k = v->k == DT_TRUE ? DV_TRUE : DV_NONE;
		break;
	case FT_LOC:
		if (v->k == DT_LOC && v->i > 0 && v->i <= UINT32_MAX) {
			x.k = DV_LOC;
			x.i = v->i;
			/* (a text past the lines a record may quote is none; a file
			 * past the digest's, none) */
			x.text = v->text >= -1 && v->text < DV_TEXT_MAX ? (int32_t)v->text : -1;
			x.file = v->file >= -1 && v->file < INT32_MAX ? (int32_t)v->file : INT32_MAX;
		}
		break;
	default:
		break;
	}
	return x;
}

/* Members of table t of the record being read that could not be read:
 * the record is damaged, and so is every record read against it (said
 * once a digest is read, ht_rep_digest_load; they are left out); out,
 * its base's values, as they are. */
static struct rep_dval *bad_members(struct dctx *c, int t, struct rep_dval *out)
{
	if (!c->cur->bad && c->d->nbad == 0) {
		c->d->bad_rec = c->nread;
		c->d->bad_tab = rep_dg_tabs[t].name;
	}
	c->cur->bad = true;
	return out;
}

/* The members ("MASK:VALUES") at *pp (not past end; NULL: none given) of
 * a record of table t written against b (NULL: none): all its members,
 * those not given as b's; *pp after them. *ok false when they cannot be
 * read (the record is damaged: bad_members). */
static struct rep_dval *read_delta(struct dctx *c, int t, const char **pp, const char *end,
				   const struct rep_dval *b, bool *ok)
{
	static const struct rep_dval none = { .k = DV_NONE };
	size_t n = rep_dg_tabs[t].n;
	struct rep_dval *out = ht_dg_slab_alloc(&c->cur->a, n * sizeof(*out));
	if (b != NULL)
		memcpy(out, b, n * sizeof(*out));
	else
		for (size_t i = 0; i < n; i++)
			out[i] = none;
	*ok = true;
	if (pp == NULL)
		return out;	/* (none given: all its base's) */
	/* Bit f of MASK gives the f-th member of digest.h's table (a format's
	 * tables only grow at their ends: one past ours is passed over). */
	const char *s = *pp, *colon = memchr(s, ':', (size_t)(end - s));
	uint16_t pos[DG_MAX_MEMBERS];
	size_t nv = 0;
	if (colon == NULL || (colon > s && !ht_dg_mask_read(s, (size_t)(colon - s), n, pos, &nv))) {
		*ok = false;
		return bad_members(c, t, out);
	}
	if (colon == s)
		memset(pos, 0, n * sizeof(*pos));
	/* (ours first: a later format's members have the higher bits) */
	struct rep_dgtok tok[DG_MAX_MEMBERS], skip;
	const char *p = colon + 1;
	for (size_t k = 0; k < nv; k++)
		if (!ht_dg_tok_get(&p, end, k < DG_MAX_MEMBERS ? &tok[k] : &skip)) {
			*ok = false;
			return bad_members(c, t, out);
		}
	*pp = p;
	const int *pairs = ht_dg_pairs(t);
	uint16_t given[DG_MAX_MEMBERS];
	size_t ng = 0;
	for (size_t f = 0; f < n; f++)
		if (pos[f] != 0)
			given[ng++] = (uint16_t)f;
	for (int pass = 0; pass < 2; pass++)	/* mono times after their wall times */
		for (size_t k = 0; k < ng; k++) {
			size_t f = given[k];
			if ((pairs[f] >= 0) != (pass == 1))
				continue;
			out[f] = dval_from(c, t, (int)f, &tok[pos[f] - 1], b != NULL ? &b[f] : &none,
					   out, b, pairs);
		}
	return out;
}

/* Where a location finds line j of record k when it is quoted: both in
 * its 31 bits, or the index of the pair in d->xloc. */
static uint32_t text_place(struct rep_dgdoc *d, size_t k, uint32_t j)
{
	if (k < (REP_DG_XLOC >> REP_DG_LINE_BITS) && j < (1u << REP_DG_LINE_BITS))
		return (uint32_t)k << REP_DG_LINE_BITS | j;
	if (k > UINT32_MAX || d->nxloc >= REP_DG_XLOC - 1)
		return NOT_READ;
	if (d->nxloc == d->capxloc) {
		d->capxloc = d->capxloc ? d->capxloc * 2 : 64;
		d->xloc = realloc(d->xloc, d->capxloc * sizeof(*d->xloc));
		if (d->xloc == NULL)
			abort();
	}
	d->xloc[d->nxloc] = (uint64_t)k << 32 | j;
	return REP_DG_XLOC | d->nxloc++;
}

/* A member's value into the record at `at`. */
static void set_field(struct dctx *c, char *at, unsigned type, const struct rep_dval *v)
{
	switch (type) {
	case FT_I64: {
		int64_t x = v->k == DV_INT ? v->i : REP_UNKNOWN;
		memcpy(at, &x, sizeof(x));
		break;
	}
	case FT_INT: {
		int x = v->k == DV_INT ? (int)v->i : 0;
		memcpy(at, &x, sizeof(x));
		break;
	}
	case FT_U32: {
		uint32_t x = v->k == DV_INT ? (uint32_t)v->i : 0;
		memcpy(at, &x, sizeof(x));
		break;
	}
	case FT_U64: {
		uint64_t x = v->k == DV_U64 ? (uint64_t)v->i : 0;
		memcpy(at, &x, sizeof(x));
		break;
	}
	case FT_DBL: {
		double x = v->k == DV_MICRO ? (double)v->i / 1e6 : v->k == DV_REAL ? v->d : NAN;
		memcpy(at, &x, sizeof(x));
		break;
	}
	case FT_STR:
		memcpy(at, v->k == DV_STR ? &v->s : &(const char *){ NULL }, sizeof(v->s));
		break;
	case FT_BOOL:
		*(bool *)at = v->k == DV_TRUE;
		break;
	case FT_CHAR:
		*at = v->k == DV_INT ? (char)v->i : 0;
		break;
	case FT_LOC: {
		struct rep_loc l = REP_NOLOC;
		if (v->k == DV_LOC) {
			l.file = v->file >= 0 ? file_of(c, v->file) : c->file;
			l.line = (uint32_t)v->i;
			/* (the line is made when it is quoted: ht_rep__digest_line) */
			l.off = v->text >= 0 ? text_place(c->d, c->nread, (uint32_t)v->text) : NOT_READ;
		}
		memcpy(at, &l, sizeof(l));
		break;
	}
	default:
		break;
	}
}

/* A record of table t (its members at *pp, as read_delta, against b)
 * into base; its values in *keep. False when they cannot be read. */
static bool get_fields(struct dctx *c, const char **pp, const char *end, void *base, int t,
		       const struct rep_dval *b, struct rep_dval **keep)
{
	bool ok;
	struct rep_dval *v = read_delta(c, t, pp, end, b, &ok);
	const struct rep_fd *fd = rep_dg_tabs[t].fd;
	/* A process's rare members: kept when one is not ht_rep_rare_none's */
	struct rep_rare r;
	struct rep_ident id = { 0 };	/* and its ident and cuInit, shared when the same */
	struct rep_cudainit ci = ht_rep_cuda_none;
	struct rep_hostfacts hf = { 0 };
	struct rep_commid cid;
	struct rep_conndest cd;
	struct rep_callwhat cw;
	if (t == DG_PROC)
		memcpy(&r, &ht_rep_rare_none, sizeof(r));
	if (t == DG_DUMP)	/* (a dump's stack: shared by get_array, with its frames) */
		c->dst = ht_rep_dst_none;
	for (size_t i = 0; i < rep_dg_tabs[t].n; i++) {
		/* (a marked member into the struct its marker names: ht_dg_at) */
		char *in = base;
		switch (fd[i].off & FD_MARKS) {
		case FD_RARE: in = (char *)&r; break;
		case FD_ID: in = (char *)&id; break;
		case FD_CUDA: in = (char *)&ci; break;
		case FD_HF: in = (char *)&hf; break;
		case FD_DST: in = (char *)&c->dst; break;
		case FD_CID: in = (char *)&cid; break;
		case FD_CD: in = (char *)&cd; break;
		case FD_CW: in = (char *)&cw; break;
		default: break;
		}
		set_field(c, in + (fd[i].off & ~FD_MARKS), fd[i].type, &v[i]);
	}
	if (t == DG_PROC && memcmp(&r, &ht_rep_rare_none, REP_RARE_FIELDS) != 0)
		memcpy(ht_rep_rare_w(c->a, base), &r, REP_RARE_FIELDS);
	if (t == DG_PROC) {
		((struct rep_proc *)base)->id = ht_rep_id_share(c->a, &c->ids, &id);
		((struct rep_proc *)base)->cuda_init = ht_rep_cuda_share(c->a, &c->cudas, &ci);
		((struct rep_proc *)base)->hf = ht_rep_hf_share(c->a, &c->hfs, &hf);
	}
	if (t == DG_COMM)
		((struct rep_comm *)base)->id = ht_rep_cid_share(c->a, &c->cids, &cid);
	if (t == DG_CONNECT)
		((struct rep_connect *)base)->to = ht_rep_cd_share(c->a, &c->cds, &cd);
	if (t == DG_CALL)
		((struct rep_call *)base)->what = ht_rep_cw_share(c->a, &c->cws, &cw);
	if (keep != NULL)
		*keep = v;
	return ok;
}

/* A record of table t without a base whose members are the JSON string m
 * ("" or absent: none given), into base. */
static void get_fields_json(struct dctx *c, json_t *m, void *base, int t)
{
	const char *s = json_string_value(m), *end = s != NULL ? s + json_string_length(m) : NULL;
	bool given = s != NULL && s < end;
	if (!get_fields(c, given ? &s : NULL, end, base, t, NULL, NULL) || s != end)
		bad_members(c, t, NULL);
}

/* A stack's frames as read: each where it is, and its length. */
struct frames {
	const char **s;
	size_t *len;
	size_t n, cap;
};

static void frames_add(struct frames *f, const char *s, size_t len)
{
	if (f->n == f->cap) {
		f->cap = f->cap != 0 ? f->cap * 2 : 64;
		f->s = realloc(f->s, f->cap * sizeof(*f->s));
		f->len = realloc(f->len, f->cap * sizeof(*f->len));
		if (f->s == NULL || f->len == NULL)
			abort();
	}
	f->s[f->n] = s;
	f->len[f->n++] = len;
}

/* The frames fr: the thread's array of them. */
static const char **stack_of(struct dctx *c, const struct frames *fr, uint32_t *count)
{
	struct stacktab *t = c->st;
	size_t n = fr->n;
	uint64_t h = n;
	for (size_t k = 0; k < n; k++)
		h = (h ^ ht_rep_hash(fr->s[k], fr->len[k])) * 0x100000001b3ull;
	if (2 * (t->n + 1) > t->cap) {
		struct stacktab g = { .cap = t->cap != 0 ? t->cap * 2 : 64 };
		g.slot = calloc(g.cap, sizeof(*g.slot));
		if (g.slot == NULL)
			abort();
		for (size_t i = 0; i < t->cap; i++) {
			if (t->slot[i].fr == NULL)
				continue;
			size_t j = t->slot[i].h & (g.cap - 1);
			while (g.slot[j].fr != NULL)
				j = (j + 1) & (g.cap - 1);
			g.slot[j] = t->slot[i];
		}
		free(t->slot);
		t->slot = g.slot;
		t->cap = g.cap;
	}
	size_t i = h & (t->cap - 1);
	for (; t->slot[i].fr != NULL; i = (i + 1) & (t->cap - 1)) {
		struct stackslot *e = &t->slot[i];
		if (e->h != h || e->n != n)
			continue;
		size_t k = 0;
		for (; k < n; k++)
			if (strlen(e->fr[k]) != fr->len[k] || memcmp(e->fr[k], fr->s[k], fr->len[k]) != 0)
				break;
		if (k == n) {
			*count = e->n;
			return e->fr;
		}
	}
	const char **v = ht_rep_alloc(c->a, (n + 1) * sizeof(*v));
	for (size_t k = 0; k < n; k++)
		v[k] = ht_rep_intern(c->a, fr->s[k], fr->len[k]);
	t->slot[i] = (struct stackslot){ h, v, (uint32_t)n };
	t->n++;
	*count = (uint32_t)n;
	return v;
}

static void add_stack(struct dctx *c, struct frames *fr, size_t *cap)
{
	if (c->nstacks == *cap) {
		*cap = *cap != 0 ? *cap * 2 : 16;
		const char ***v = ht_rep_alloc(c->a, *cap * sizeof(*v));
		uint32_t *n = ht_rep_alloc(c->a, *cap * sizeof(*n));
		if (c->nstacks > 0) {
			memcpy(v, c->stacks, c->nstacks * sizeof(*v));
			memcpy(n, c->nstack, c->nstacks * sizeof(*n));
		}
		c->stacks = v;
		c->nstack = n;
	}
	c->stacks[c->nstacks] = stack_of(c, fr, &c->nstack[c->nstacks]);
	c->nstacks++;
	fr->n = 0;
}

/* The digest's table of stacks, its member "stacks" at *pp (not past end):
 * [LEN,"TEXT"] packed, the text each stack's count of frames and each
 * frame a string token; *pp after it. False when it is not that. */
static bool make_stacks(struct dctx *c, const char **pp, const char *end)
{
	const char *p = *pp, *b64, *t;
	size_t blen, len, cap = 0;
	char *own;
	int64_t n = 0;
	if (p >= end || *p++ != '[')
		return false;
	for (; p < end && *p >= '0' && *p <= '9' && n < INT32_MAX; p++)
		n = n * 10 + (*p - '0');
	if (p >= end || *p++ != ',' || !ht_dg_jstr(&p, end, &b64, &blen, &own))
		return false;
	if (p >= end || *p != ']') {
		free(own);
		return false;
	}
	*pp = p + 1;
	/* A table made before from the same text: taken as it is. */
	struct stacktab *st = c->st;
	uint64_t h = ht_rep_hash(b64, blen) ^ (uint64_t)n;
	for (size_t i = 0; i < st->ntabs; i++) {
		struct tabslot *e = &st->tabs[i];
		if (e->h == h && e->len == blen + 8 && memcmp(e->text, &n, 8) == 0 &&
		    memcmp(e->text + 8, b64, blen) == 0) {
			c->stacks = e->stacks;
			c->nstack = e->nstack;
			c->nstacks = e->n;
			free(own);
			return true;
		}
	}
	t = ht_dg_unpack_raw(n, b64, blen, c->un, &len);
	if (t == NULL) {
		free(own);
		return false;
	}
	struct frames fr = { 0 };
	const char *e = t + len;
	while (t < e) {
		struct rep_dgtok k;
		int64_t m;
		if (!ht_dg_vlq_get(&t, e, &m) || m < 0 || m > e - t)
			break;
		for (int64_t i = 0; i < m && ht_dg_tok_get(&t, e, &k) && k.k == DT_STR; i++)
			frames_add(&fr, k.s, k.len);
		if (fr.n != (size_t)m)
			break;
		add_stack(c, &fr, &cap);
	}
	free(fr.s);
	free(fr.len);
	/* (the stacks read until one could not be) */
	bool whole = t == e;
	if (whole) {
		/* (kept; when the cache is full, in the place its hash names) */
		struct tabslot *slot = &st->tabs[st->ntabs < STACK_TABS ? st->ntabs++ :
						 h % STACK_TABS];
		char *text = realloc(slot->text, blen + 8);
		if (text == NULL)
			abort();
		memcpy(text, &n, 8);
		memcpy(text + 8, b64, blen);
		*slot = (struct tabslot){ h, text, blen + 8, c->stacks, c->nstack, c->nstacks };
	}
	free(own);
	return whole;
}

static void get_stack(struct dctx *c, json_int_t i, const char ***fr, uint32_t *n)
{
	if (i < 0 || (size_t)i >= c->nstacks)
		return;
	*fr = c->stacks[i];
	*n = c->nstack[i];
}

static struct rep_checkfacts *get_checkfacts(struct dctx *c, json_t *o)
{
	struct rep_checkfacts *f = ht_rep_alloc(c->a, sizeof(*f));
	get_fields_json(c, json_object_get(o, "m"), f, DG_CHECKFACTS);
	json_t *lines = json_object_get(o, "lines");
	f->n = json_array_size(lines);
	if (f->n > 0)
		f->lines = ht_rep_alloc(c->a, f->n * sizeof(*f->lines));
	for (size_t i = 0; i < f->n; i++) {
		json_t *e = json_array_get(lines, i);
		struct rep_chkline *l = &f->lines[i];
		get_fields_json(c, json_object_get(e, "m"), l, DG_CHKLINE);
		json_t *rk = json_object_get(e, "ranks");
		if (json_is_array(rk)) {
			l->nranks = json_array_size(rk);
			l->ranks = ht_rep_alloc(c->a, (l->nranks + 1) * sizeof(*l->ranks));
			for (size_t k = 0; k < l->nranks; k++)
				l->ranks[k] = json_integer_value(json_array_get(rk, k));
		}
	}
	json_t *probs = json_object_get(o, "probs");
	f->nprobs = json_array_size(probs);
	if (f->nprobs > 0)
		f->probs = ht_rep_alloc(c->a, f->nprobs * sizeof(*f->probs));
	for (size_t i = 0; i < f->nprobs; i++)
		get_fields_json(c, json_array_get(probs, i), &f->probs[i], DG_IBPROB);
	return f;
}

static struct rep_buildlock *get_buildlock(struct dctx *c, json_t *o)
{
	struct rep_buildlock *b = ht_rep_alloc(c->a, sizeof(*b));
	get_fields_json(c, json_object_get(o, "m"), b, DG_BUILDLOCK);
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(o, "locks"), i, e) {
		if (b->nlocks == REP_MAX_LOCKS)
			break;
		b->locks[b->nlocks].path = str_of(c, json_object_get(e, "path"));
		b->locks[b->nlocks++].age = num_of(json_object_get(e, "age"));
	}
	json_array_foreach(json_object_get(o, "builders"), i, e) {
		if (b->nbuilders == REP_MAX_BUILDERS)
			break;
		b->builders[b->nbuilders].pid = json_integer_value(json_object_get(e, "pid"));
		b->builders[b->nbuilders].comm = str_of(c, json_object_get(e, "comm"));
		b->builders[b->nbuilders++].age = num_of(json_object_get(e, "age"));
	}
	return b;
}

/* Adds a quoted line (s, n bytes): whole (base -1), or a delta (its JSON
 * text) of line base. Returns its index. */
static uint32_t text_add(struct rep_dgdoc *d, const char *s, size_t n, int64_t base)
{
	if (d->len + n + 1 > d->cap) {
		d->cap = (d->len + n + 1) * 2;
		d->buf = realloc(d->buf, d->cap);
		if (d->buf == NULL)
			abort();
	}
	if (d->ntexts == d->captexts) {
		d->captexts = d->captexts != 0 ? d->captexts * 2 : 64;
		d->off = realloc(d->off, d->captexts * sizeof(*d->off));
		d->tlen = realloc(d->tlen, d->captexts * sizeof(*d->tlen));
		d->base = realloc(d->base, d->captexts * sizeof(*d->base));
		if (d->off == NULL || d->tlen == NULL || d->base == NULL)
			abort();
	}
	d->off[d->ntexts] = d->len;
	d->tlen[d->ntexts] = (uint32_t)n;
	d->base[d->ntexts] = base;
	memcpy(d->buf + d->len, s, n);
	d->len += n;
	return (uint32_t)d->ntexts++;
}

/* Line j of record k of d, or -1. */
static int64_t text_of(const struct rep_dgdoc *d, size_t k, json_int_t j)
{
	return j >= 0 && (uint64_t)j < d->count[k] ? (int64_t)d->first[k] + j : -1;
}

/* Record k's quoted lines (its entry of "x"): each whole, or as it
 * changes a line ([D]: the base's line at the same place; [D, J]: the
 * base's line J; [D, -1 - J]: its own line J), D the change's JSON text,
 * kept as it is: a line is made when it is quoted. */
static void get_texts(struct rep_dgdoc *d, size_t k, json_t *x)
{
	size_t n = json_array_size(x), kb = d->dist[k] != 0 && d->dist[k] <= k ? k - d->dist[k] : k;
	d->first[k] = (uint32_t)d->ntexts;
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(x, i), *c = json_array_get(e, 0);
		if (json_is_string(e)) {
			text_add(d, json_string_value(e), json_string_length(e), -1);
			continue;
		}
		int64_t base = -1;
		json_int_t j = json_array_size(e) == 1 ? (json_int_t)i
							: json_integer_value(json_array_get(e, 1));
		if (j >= 0 && kb != k)
			base = text_of(d, kb, j);
		else if (j < 0 && j >= -(json_int_t)i)
			base = (int64_t)d->first[k] + (-1 - j);
		/* (a line that cannot be made is not readable; the change kept as
		 * its text until the line is quoted) */
		char *t = json_is_array(c) && base >= 0 ? json_dumps(c, JSON_COMPACT) : NULL;
		if (t != NULL)
			text_add(d, t, strlen(t), base);
		else
			text_add(d, "", 0, -2);
		free(t);
	}
	d->count[k] = (uint32_t)n;
}

/* Makes every quoted line of d, once: reads its member "x" again (from
 * its file, else its copy). */
static bool make_texts(struct rep_dgdoc *d)
{
	if (d->made || d->unmade)
		return d->made;
	d->unmade = true;
	char *t = d->xcopy;
	if (t == NULL && d->xpos >= 0) {
		int fd = open(d->path, O_RDONLY | O_CLOEXEC);
		t = fd >= 0 ? malloc(d->xlen + 1) : NULL;
		if (t != NULL && pread(fd, t, d->xlen, (off_t)(d->xpos + (int64_t)d->xat)) !=
					 (ssize_t)d->xlen) {
			free(t);
			t = NULL;
		}
		if (fd >= 0)
			close(fd);
	}
	json_t *doc = NULL;
	if (t != NULL && d->xlen > 5 && memcmp(t, ",\"x\":", 5) == 0 && t[d->xlen - 1] == '}') {
		t[0] = '{';	/* {"x":[...]} */
		doc = json_loadb(t, d->xlen, 0, NULL);
		t[0] = ',';
	}
	bool read = t != NULL;
	if (t != d->xcopy)
		free(t);
	json_t *x = ht_dg_unpack(json_object_get(doc, "x"), NULL);
	json_decref(doc);
	if (!json_is_array(x) || json_array_size(x) != d->nrecs) {
		warnx("%s: line %zu: the digest's quoted lines could not be read (%s)", d->path,
		      d->line, read ? "its member \"x\" is damaged, or the file changed since"
				    : "the file cannot be read again");
		json_decref(x);
		return false;
	}
	d->first = calloc(d->nrecs + 1, sizeof(*d->first));
	d->count = calloc(d->nrecs + 1, sizeof(*d->count));
	if (d->first == NULL || d->count == NULL)
		abort();
	for (size_t k = 0; k < d->nrecs; k++)
		get_texts(d, k, json_array_get(x, k));
	json_decref(x);
	d->made = true;
	d->unmade = false;
	return true;
}

/* Record j of array a is read against the base's j-th, else this record's
 * previous one (as digest_write.c writes it). */
static const struct rep_dval *elem_base(const struct rproc *b, const struct rproc *r, int a,
					size_t j)
{
	if (b != NULL && j < b->narr[a])
		return b->arr[a][j];
	return j > 0 ? r->arr[a][j - 1] : NULL;
}

/* n records of table t (size bytes each, from recs) whose lists follow
 * each other at *pp (NULL: none given), against the base's (b, NULL:
 * none); their values in keep. False when one cannot be read. */
static bool get_lists(struct dctx *c, const char **pp, const char *end, void *recs, size_t size,
		      int n, int t, struct rep_dval *const *b, struct rep_dval **keep)
{
	bool ok = true;
	for (int i = 0; ok && i < n; i++)
		ok = get_fields(c, pp, end, (char *)recs + (size_t)i * size, t,
				b != NULL ? b[i] : NULL, &keep[i]);
	return ok;
}

/* A record's phases (at *pp, as get_lists; pp NULL: its base's) into p:
 * only those begun, ended or errored are kept (rep_ph, model.h). */
static bool get_phases(struct dctx *c, const char **pp, const char *end, struct rep_proc *p,
		       struct rep_dval *const *b, struct rep_dval **keep)
{
	struct rep_phase_rec all[HT_PHASE_COUNT];
	memset(all, 0, sizeof(all));
	bool ok = get_lists(c, pp, end, all, sizeof(*all), HT_PHASE_COUNT, DG_PHASE, b, keep);
	unsigned has = 0;
	int n = 0;
	for (int i = 0; i < HT_PHASE_COUNT; i++)
		if (all[i].ph.begun || all[i].ph.ended || all[i].ph.errored) {
			has |= 1u << i;
			n++;
		}
	p->ph_has = (uint8_t)has;
	p->ph_dense = false;
	p->ph = n > 0 ? ht_rep_alloc(c->arrs, (size_t)n * sizeof(*p->ph)) : NULL;
	/* (a phase's lines are its record's file's, as the writer writes
	 * them: their numbers and places are kept) */
	for (int i = 0, k = 0; i < HT_PHASE_COUNT; i++)
		if (has & 1u << i) {
			struct rep_phase *ph = &p->ph[k++];
			*ph = all[i].ph;
			ph->begin_line = all[i].begin.line;
			ph->begin_off = all[i].begin.off;
			ph->end_line = all[i].end.line;
			ph->end_off = all[i].end.off;
		}
	return ok;
}

/* A record's versions (at *pp, as get_lists; pp NULL: its base's) into p. */
static bool get_versions(struct dctx *c, const char **pp, const char *end, struct rep_proc *p,
			 struct rep_dval *const *b, struct rep_dval **keep)
{
	struct rep_version v[REP_VER_COUNT];
	bool ok = get_lists(c, pp, end, v, sizeof(*v), REP_VER_COUNT, DG_VERSION, b, keep);
	struct rep_versions s;
	for (int k = 0; k < REP_VER_COUNT; k++) {
		s.value[k] = v[k].value;
		s.provider[k] = v[k].provider;
		p->ver_loc[k] = v[k].loc;
	}
	p->vers = ht_rep_vers_share(c->a, &c->vers, &s);
	return ok;
}

/* A record's section that holds a JSON value (its string token's text):
 * parsed, NULL when it cannot be. */
static json_t *json_section(const char **p, const char *end)
{
	struct rep_dgtok k;
	if (!ht_dg_tok_get(p, end, &k) || k.k != DT_STR)
		return NULL;
	return json_loadb(k.s, k.len, 0, NULL);
}

/* Array a of record r (of p; its base b), its count and its records at
 * *p (not past end): false when they cannot be read. */
static bool get_array(struct dctx *c, struct rep_proc *p, struct rproc *r,
		      const struct rproc *b, int a, const char **pp, const char *end)
{
	int64_t n;
	if (!ht_dg_vlq_get(pp, end, &n) || n < 0 || n > end - *pp)
		return false;
	if (n == 0)
		return true;
	size_t sz = rep_dg_arrs[a].size;
	char *v = ht_rep_alloc(c->arrs, (size_t)n * sz);
	r->arr[a] = ht_dg_slab_alloc(&r->a, (size_t)n * sizeof(*r->arr[a]));
	if (a == DA_DUMPS)
		r->stk = ht_dg_slab_alloc(&r->a, 2 * (size_t)n * sizeof(*r->stk));
	r->narr[a] = 0;
	ht_dg_arr_set(c->a, p, a, v, 0);
	for (size_t j = 0; j < (size_t)n; j++) {
		if (!get_fields(c, pp, end, v + j * sz, rep_dg_arrs[a].table, elem_base(b, r, a, j),
				&r->arr[a][j]))
			return false;
		r->narr[a] = j + 1;
		ht_dg_arr_set(c->a, p, a, v, j + 1);
		if (a != DA_DUMPS)
			continue;
		/* its stacks: '*' frames, '*' py; left out, the base's */
		struct rep_dump *d = (struct rep_dump *)(v + j * sz);
		json_int_t st[2];
		ht_dg_stack_base(b != NULL ? b->stk : NULL, b != NULL ? b->narr[a] : 0, r->stk, j,
				 &st[0], &st[1]);
		for (int k = 0; k < 2 && *pp < end && **pp == '*'; k++) {
			int64_t i;
			(*pp)++;
			if (!ht_dg_vlq_get(pp, end, &i))
				return false;
			st[k] = i;
		}
		r->stk[2 * j] = st[0];
		r->stk[2 * j + 1] = st[1];
		get_stack(c, st[0], &c->dst.frames, &c->dst.nframes);
		get_stack(c, st[1], &c->dst.py, &c->dst.npy);
		d->st = ht_rep_dst_share(c->a, &c->dsts, &c->dst);
	}
	return true;
}

/* A process record (s, n bytes: doc/trace-format.md, "Records"). */
static struct rep_proc *get_proc(struct dctx *c, const char *s, size_t n)
{
	const char *p = s, *end = s + n;
	int64_t f = -1, dist = 1;
	size_t avail = c->nread < BASES ? c->nread : BASES;
	/* Its file, one of the digest's, first; its base, one of the records
	 * before it: else it is damaged (read against none, left out). */
	bool ok = p < end && *p++ == 'F' && ht_dg_vlq_get(&p, end, &f) && f >= 0 &&
		  (uint64_t)f < c->d->nfiles;
	if (ok && p < end && *p == 'B')
		ok = (p++, ht_dg_vlq_get(&p, end, &dist)) && dist >= 1 && (size_t)dist <= avail;
	if (!ok)
		dist = 0;
	struct rproc *r = &c->ring[c->nread % (BASES + 1)];
	const struct rproc *b = NULL;
	if (dist >= 1 && (size_t)dist <= avail)
		b = &c->ring[(c->nread - (size_t)dist) % (BASES + 1)];
	rproc_clear(r, false);
	c->cur = r;
	r->bad = b != NULL && b->bad;
	struct rep_proc *pr = ht_rep_alloc(c->recs, sizeof(*pr));
	pr->file = c->file = file_of(c, f);
	c->d->dist[c->nread] = b != NULL ? (uint8_t)dist : 0;
	bool m = false, ph = false, ver = false;
	const char *what = ok ? "proc" : "file and base";
	while (ok && p < end) {
		char tag = *p++;
		switch (tag) {
		case 'M':
			ok = get_fields(c, &p, end, pr, DG_PROC, b != NULL ? b->proc : NULL, &r->proc);
			m = true;
			break;
		case 'P':
			ok = get_phases(c, &p, end, pr, b != NULL ? b->ph : NULL, r->ph);
			ph = true;
			break;
		case 'V':
			ok = get_versions(c, &p, end, pr, b != NULL ? b->ver : NULL, r->ver);
			ver = true;
			break;
		case '[': {
			int64_t a;
			ok = ht_dg_vlq_get(&p, end, &a) && a >= 0;
			if (ok && a >= DA_N)
				p = end;	/* (a later format's array: passed over with the rest) */
			else if (ok && !(ok = get_array(c, pr, r, b, (int)a, &p, end)))
				what = rep_dg_tabs[rep_dg_arrs[a].table].name;
			break;
		}
		case 'W': {
			int64_t k;
			struct rep_dgtok t;
			ok = ht_dg_vlq_get(&p, end, &k) && k >= 0 && k <= end - p;
			if (ok && k > 0) {
				struct rep_rare *rr = ht_rep_rare_w(c->a, pr);
				rr->warns = ht_rep_alloc(c->a, (size_t)k * sizeof(*rr->warns));
				for (rr->nwarns = 0; ok && rr->nwarns < (size_t)k; rr->nwarns++)
					if ((ok = ht_dg_tok_get(&p, end, &t) && t.k == DT_STR))
						rr->warns[rr->nwarns] = ht_rep_intern(c->a, t.s, t.len);
			}
			what = "warns";
			break;
		}
		case 'H':
		case 'K': {
			json_t *o = json_section(&p, end);
			if (json_is_object(o) && tag == 'H')
				ht_rep_rare_w(c->a, pr)->chk = get_checkfacts(c, o);
			else if (json_is_object(o))
				ht_rep_rare_w(c->a, pr)->blk = get_buildlock(c, o);
			ok = o != NULL;
			what = tag == 'H' ? "chk" : "blk";
			json_decref(o);
			break;
		}
		default:	/* (a later format's section: passed over with the rest) */
			p = end;
			break;
		}
	}
	if (!ok)
		bad_members(c, DG_PROC, NULL);
	if (!ok && c->d->bad_rec == c->nread && strcmp(c->d->bad_tab, "proc") == 0)
		c->d->bad_tab = what;
	/* (what is not given: its base's) */
	if (!m)
		get_fields(c, NULL, end, pr, DG_PROC, b != NULL ? b->proc : NULL, &r->proc);
	if (!ph)
		get_phases(c, NULL, end, pr, b != NULL ? b->ph : NULL, r->ph);
	if (!ver)
		get_versions(c, NULL, end, pr, b != NULL ? b->ver : NULL, r->ver);
	pr->work = -1;		/* as the reader leaves it (parse.c) */
	/* What the reader of trace files makes sure of, made sure of here
	 * too (a digest's values read but out of range: not the writer's) */
	if (rep_id(pr)->host == NULL)
		ht_rep_ident_w(c->a, pr)->host = "?";
	if (!(rep_id(pr)->timeout > 0))
		ht_rep_ident_w(c->a, pr)->timeout = 300;
	if (pr->rank != REP_UNKNOWN && pr->rank < 0)
		pr->rank = REP_UNKNOWN;
	if (pr->cur_phase < -1 || pr->cur_phase >= HT_PHASE_COUNT)
		pr->cur_phase = -1;
	for (size_t i = 0; i < pr->ndumps; i++)
		if (pr->dumps[i].phase < -1 || pr->dumps[i].phase >= HT_PHASE_COUNT)
			pr->dumps[i].phase = -1;
	c->nread++;
	if (r->bad) {
		c->d->nbad++;
		return NULL;
	}
	return pr;
}

/* Adds unknown event type `type` (count lines, first at file:line) to
 * the n of unk (room for cap). */
static void add_unknown(struct rep_unknown *unk, size_t *n, size_t cap, const char *type,
			uint32_t file, uint32_t line, size_t count)
{
	size_t j = 0;
	while (j < *n && strcmp(unk[j].type, type) != 0)
		j++;
	if (j == *n && *n < cap) {
		struct rep_unknown *u = &unk[(*n)++];
		snprintf(u->type, sizeof(u->type), "%s", type);
		u->file = file;
		u->line = line;
		u->count = count;
	} else if (j < *n) {
		unk[j].count += count;
		if (file < unk[j].file || (file == unk[j].file && line < unk[j].line)) {
			unk[j].file = file;
			unk[j].line = line;
		}
	}
}

/* Reads one digest (its line, d->src) into d: its files' names, records
 * (in the arena a, their files the digest's own), warnings, unknown event
 * types and quoted lines. On the reading thread: touches nothing shared. */
/* A digest parsed whole into the thread's scratch block goes with the
 * block (jansson's memory while reading, rctx.c); else it is freed. */
static void doc_free(json_t *doc)
{
	if (!ht_rep__scratch_whole())
		json_decref(doc);
	ht_rep__scratch_release(0);
}

/* Where the members "stacks" (*pat) and "x" of a digest's line s (n
 * bytes) begin, as its members "pat" and "xat" say: "stacks", then
 * "procs", after the other members, "x" after them, before the last '}';
 * 0: nowhere. */
static size_t xat_of(const char *s, size_t n, size_t *xlen, size_t *pat)
{
	static const char head[] = "{\"digest\":\"" HT_DIGEST_FORMAT "\",\"xat\":";
	static const char phead[] = ",\"pat\":";
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (n <= sizeof(head) || memcmp(s, head, sizeof(head) - 1) != 0 || s[n - 1] != '}')
		return 0;
	size_t at = 0, i = sizeof(head) - 1, j;
	for (; i < n && s[i] >= '0' && s[i] <= '9' && at < n; i++)
		at = at * 10 + (size_t)(s[i] - '0');
	if (i == sizeof(head) - 1 || i + sizeof(phead) > n ||
	    memcmp(s + i, phead, sizeof(phead) - 1) != 0)
		return 0;
	*pat = 0;
	for (i += sizeof(phead) - 1, j = i; i < n && s[i] >= '0' && s[i] <= '9' && *pat < n; i++)
		*pat = *pat * 10 + (size_t)(s[i] - '0');
	if (i == j || at <= i || at + 5 >= n || memcmp(s + at, ",\"x\":", 5) != 0 || *pat <= i ||
	    *pat + 11 > at || memcmp(s + *pat, ",\"stacks\":", 10) != 0 || s[at - 1] != ']')
		return 0;
	*xlen = n - at;
	return at;
}

/* The records of d: the JSON strings of its member "procs" from p to its
 * closing ']' (end - 1), each read where it is (ht_dg_jstr). */
static bool get_procs(struct dctx *c, const char *p, const char *end)
{
	struct rep_dgdoc *d = c->d;
	size_t cap = 0;
	while (p < end - 1) {
		const char *s;
		size_t len;
		char *own;
		if (!ht_dg_jstr(&p, end - 1, &s, &len, &own))
			return false;
		if (c->nread + 1 >= cap) {
			cap = cap != 0 ? cap * 2 : 16;
			d->dist = realloc(d->dist, cap * sizeof(*d->dist));
			if (d->dist == NULL)
				abort();
		}
		struct rep_proc *pr = get_proc(c, s, len);
		free(own);
		if (pr != NULL)
			ht_rep_vec_push(&d->procs, pr);
		if (p < end - 1 && *p++ != ',')
			return false;
	}
	return p == end - 1;
}

static void parse_doc(struct rep_dgdoc *d, struct rep_arena *a, struct stacktab *st,
		      struct rep_dgunpack *un)
{
	json_error_t je;
	/* What comes before "x" (its place in "xat"), read without the
	 * quoted lines, which are read again when one is quoted: the members
	 * before the records ("pat") parsed, the records read where they are. */
	size_t pat;
	d->xat = xat_of(d->src, d->srclen, &d->xlen, &pat);
	if (d->xat == 0) {
		d->why = strdup("no members \"xat\" and \"pat\" that say where its members "
				"\"x\" and \"stacks\" are");
		return;
	}
	if (d->xpos < 0) {
		d->xcopy = malloc(d->xlen);
		if (d->xcopy == NULL)
			abort();
		memcpy(d->xcopy, d->src + d->xat, d->xlen);
	}
	char *src = (char *)d->src;	/* (the block's or own: the reader's) */
	src[pat] = '}';
	json_t *doc = json_loadb(src, pat + 1, 0, &je);
	src[pat] = ',';
	json_t *files = json_object_get(doc, "files");
	const char *fmt = json_string_value(json_object_get(doc, "digest"));
	if (doc == NULL || fmt == NULL || strcmp(fmt, HT_DIGEST_FORMAT) != 0 ||
	    !json_is_array(files)) {
		if (asprintf(&d->why, "%s", doc == NULL ? je.text : "not a digest of its format") < 0)
			d->why = NULL;
		doc_free(doc);
		return;
	}
	d->nfiles = (uint32_t)json_array_size(files);
	d->names = calloc(d->nfiles + 1, sizeof(*d->names));
	if (d->names == NULL)
		abort();
	for (uint32_t k = 0; k < d->nfiles; k++) {
		const char *name = json_string_value(json_array_get(files, k));
		d->names[k] = strdup(name != NULL ? name : "?");
		if (d->names[k] == NULL)
			abort();
	}
	struct dctx c = { .d = d, .st = st, .un = un, .a = a, .recs = a + 1, .arrs = a + 2 };
	/* The stacks, then the records; stacks that cannot be read are said
	 * (the records read without them). */
	const char *p = src + pat + 10, *rec = NULL;
	d->stacks_bad = !make_stacks(&c, &p, src + d->xat);
	if (!d->stacks_bad || (p = memmem(src + pat, d->xat - pat, ",\"procs\":[", 10)) != NULL)
		rec = p;
	size_t k;
	json_t *e;
	bool procs_ok = rec != NULL && (size_t)(src + d->xat - rec) >= 11 &&
			memcmp(rec, ",\"procs\":[", 10) == 0 && get_procs(&c, rec + 10, src + d->xat);
	for (size_t i = 0; i < BASES + 1; i++)
		rproc_clear(&c.ring[i], true);
	d->nrecs = c.nread;
	if (!procs_ok) {
		if (asprintf(&d->why, "its member \"procs\" is not an array of strings (at record "
			     "%zu)", c.nread) < 0)
			d->why = NULL;
		doc_free(doc);
		return;
	}
	json_array_foreach(json_object_get(doc, "warnings"), k, e) {
		const char *msg = json_string_value(json_array_get(e, 2));
		if (msg == NULL)
			continue;
		d->warns = realloc(d->warns, (d->nwarns + 1) * sizeof(*d->warns));
		if (d->warns == NULL)
			abort();
		d->warns[d->nwarns++] = (struct rep_warning){
			file_of(&c, json_integer_value(json_array_get(e, 0))),
			(uint32_t)json_integer_value(json_array_get(e, 1)), strdup(msg) };
	}
	json_array_foreach(json_object_get(doc, "unknown"), k, e) {
		const char *type = json_string_value(json_array_get(e, 0));
		if (type == NULL)
			continue;
		d->unk = realloc(d->unk, (d->nunk + 1) * sizeof(*d->unk));
		if (d->unk == NULL)
			abort();
		struct rep_unknown *u = &d->unk[d->nunk++];
		snprintf(u->type, sizeof(u->type), "%s", type);
		u->file = file_of(&c, json_integer_value(json_array_get(e, 1)));
		u->line = (uint32_t)json_integer_value(json_array_get(e, 2));
		u->count = (size_t)json_integer_value(json_array_get(e, 3));
	}
	d->dropped = (size_t)json_integer_value(json_object_get(doc, "warnings_dropped"));
	d->ok = true;
	doc_free(doc);
}

/* ---- reading the digests, on several threads ----------------------------------------------- */

/* A reading thread's arenas: what it reads (strings, shared structs), its
 * process records and their phases and arrays (dctx). The passes of the
 * model and the rules go over a million records one by one, each for a
 * member or two: records that lie one after another, with nothing of
 * another kind between them, are read ahead by the processor (0.7-1 s of
 * the merge of 131,072 node digests). */
#define TA_EACH 3

struct dgworker {
	pthread_t th;
	struct rep_dgset *g;
	size_t first, step;
	struct rep_arena *a;	/* the set's (ta), kept for the next block: TA_EACH of them */
	struct stacktab st;
	struct rep_dgunpack un;
};

static void *dg_work(void *arg)
{
	struct dgworker *w = arg;
	ht_rep__scratch_begin();
	for (size_t i = w->g->nparsed + w->first; i < w->g->n; i += w->step)
		parse_doc(w->g->docs[i], w->a, &w->st, &w->un);
	ht_dg_unpack_free(&w->un);
	ht_rep__scratch_end();
	return NULL;
}

/* Reads the digests given, then adds them to the job in the order given:
 * their files (each line made when it is quoted, ht_rep__digest_line),
 * records, warnings and unknown event types. */
void ht_rep_digest_load(struct rep_job *job)
{
	struct rep_dgset *g = job->dg;
	if (g == NULL || g->nparsed == g->n)
		return;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = job->nthreads > 0 ? (size_t)job->nthreads : cpus > 8 ? 8 : cpus < 1 ? 1 : (size_t)cpus;
	if (n > (g->n - g->nparsed) / 4 + 1)
		n = (g->n - g->nparsed) / 4 + 1;
	struct dgworker *w = calloc(n, sizeof(*w));
	if (w == NULL)
		abort();
	/* (the threads' arenas kept from block to block: each block's would
	 * leave the end of its last chunk unused) */
	if (TA_EACH * n > g->nta) {
		struct rep_arena *a = realloc(g->ta, TA_EACH * n * sizeof(*a));
		if (a == NULL)
			abort();
		memset(a + g->nta, 0, (TA_EACH * n - g->nta) * sizeof(*a));
		g->ta = a;
		g->nta = TA_EACH * n;
	}
	size_t started = 0;
	json_set_alloc_funcs(ht_rep__j_malloc, ht_rep__j_free);	/* (as ht_rep_read) */
	for (size_t t = 0; t < n; t++) {
		w[t] = (struct dgworker){ .g = g, .first = t, .step = n, .a = &g->ta[TA_EACH * t] };
		ht_rep_intern_on(w[t].a);
	}
	for (size_t t = 1; t < n; t++) {
		if (pthread_create(&w[t].th, NULL, dg_work, &w[t]) != 0)
			break;
		started = t;
	}
	/* (the threads that could not start: their digests read here) */
	for (size_t t = started + 1; t < n; t++)
		dg_work(&w[t]);
	dg_work(&w[0]);
	for (size_t t = 1; t <= started; t++)
		pthread_join(w[t].th, NULL);
	for (size_t t = 0; t < n; t++) {
		ht_rep_intern_off(w[t].a);
		free(w[t].st.slot);
		for (size_t i = 0; i < w[t].st.ntabs; i++)
			free(w[t].st.tabs[i].text);
	}
	free(w);
	for (size_t i = g->nparsed; i < g->n; i++) {
		struct rep_dgdoc *d = g->docs[i];
		if (!d->ok) {
			warnx("%s: line %zu: a digest that could not be read (%s)", d->path, d->line,
			      d->why != NULL ? d->why : "?");
			continue;
		}
		if (d->stacks_bad)
			warnx("%s: line %zu: the digest's stacks could not be read (its member "
			      "\"stacks\" is damaged): its dumps go without their frames", d->path,
			      d->line);
		if (d->nbad > 0)
			warnx("%s: line %zu: %zu record%s of the digest could not be read (the "
			      "first: record %zu, whose %s members are damaged; a record written "
			      "against a damaged one is damaged too): left out", d->path, d->line,
			      d->nbad, d->nbad == 1 ? "" : "s", d->bad_rec, d->bad_tab);
		d->map = calloc(d->nfiles + 1, sizeof(*d->map));
		if (d->map == NULL)
			abort();
		for (uint32_t k = 0; k < d->nfiles; k++) {
			d->map[k] = (uint32_t)job->nfiles;
			ht_rep_add_buffer(job, d->names[k], NULL, 0);
			job->files[job->nfiles - 1].digest = true;
			job->files[job->nfiles - 1].dgdoc = d;
		}
		/* (their files put in their places when the job's files are in
		 * order: ht_rep__digest_order) */
		d->fbase = d->nfiles > 0 ? d->map[0] : 0;
		d->nadded = d->procs.n;
		for (size_t k = 0; k < d->procs.n; k++)
			ht_rep_vec_push(&g->procs, d->procs.v[k]);
		ht_rep_vec_free(&d->procs);
		for (size_t k = 0; k < d->nwarns; k++)
			ht_rep__warn_take(job, d->warns[k].file < d->nfiles ? d->map[d->warns[k].file]
									  : UINT32_MAX,
					  d->warns[k].line, d->warns[k].msg);
		free(d->warns);
		d->warns = NULL;
		for (size_t k = 0; k < d->nunk; k++) {
			if (g->npend == g->cap_pend) {
				g->cap_pend = g->cap_pend != 0 ? g->cap_pend * 2 : 16;
				struct rep_unknown *u = realloc(g->pend, g->cap_pend * sizeof(*u));
				if (u == NULL)
					abort();
				g->pend = u;
			}
			g->pend[g->npend] = d->unk[k];
			if (d->unk[k].file < d->nfiles)
				g->pend[g->npend].file = d->map[d->unk[k].file];
			g->npend++;
		}
		free(d->unk);
		d->unk = NULL;
		job->warns_dropped += d->dropped;
		/* (the job has its own copies of the names; the map is used) */
		for (uint32_t k = 0; k < d->nfiles; k++)
			free(d->names[k]);
		free(d->names);
		d->names = NULL;
		free(d->map);
		d->map = NULL;
	}
	/* The lines read: what a quote needs of them is in their digests now. */
	for (size_t i = g->nparsed; i < g->n; i++) {
		free(g->docs[i]->own);
		g->docs[i]->own = NULL;
		g->docs[i]->src = NULL;
	}
	g->nparsed = g->n;
}

void ht_rep__digest_take(struct rep_job *job, struct rep_unknown *unk, size_t *nunk, size_t cap)
{
	struct rep_dgset *g = job->dg;
	if (job->procs.n == 0) {	/* (a million records: not copied) */
		ht_rep_vec_free(&job->procs);
		job->procs = g->procs;
		g->procs = (struct rep_vec){ 0 };
	} else {
		for (size_t i = 0; i < g->procs.n; i++)
			ht_rep_vec_push(&job->procs, g->procs.v[i]);
		ht_rep_vec_free(&g->procs);
	}
	for (size_t i = 0; i < g->npend; i++)
		add_unknown(unk, nunk, cap, g->pend[i].type, g->pend[i].file, g->pend[i].line,
			    g->pend[i].count);
	g->npend = 0;
	ht_rep_intern_off(&g->a);
	ht_rep_arena_take(&job->a, &g->a);
}

/* ---- a quoted line, made when it is quoted ------------------------------------------------------ */

/* Quoted line i of d (its index among all of d's lines). */
static char *line_at(const struct rep_dgdoc *d, uint64_t i, size_t *len)
{
	if (i >= d->ntexts || d->base[i] == -2)
		return NULL;
	const char *s = d->buf + d->off[i];
	if (d->base[i] < 0) {
		char *t = malloc((size_t)d->tlen[i] + 1);
		if (t == NULL)
			return NULL;
		memcpy(t, s, d->tlen[i]);
		t[d->tlen[i]] = '\0';
		*len = d->tlen[i];
		return t;
	}
	size_t bl;
	char *b = line_at(d, (uint64_t)d->base[i], &bl);	/* (an earlier line) */
	json_t *delta = b != NULL ? json_loadb(s, d->tlen[i], 0, NULL) : NULL;
	char *t = delta != NULL ? ht_dg_text_apply(b, delta, len) : NULL;
	json_decref(delta);
	free(b);
	return t;
}

char *ht_rep__digest_line(struct rep_dgdoc *d, uint32_t off, size_t *len)
{
	uint64_t k = (off & ~REP_DG_XLOC) >> REP_DG_LINE_BITS, j = off & ((1u << REP_DG_LINE_BITS) - 1);
	if (off == NOT_READ)
		return NULL;
	if (off & REP_DG_XLOC) {
		if ((off & ~REP_DG_XLOC) >= d->nxloc)
			return NULL;
		k = d->xloc[off & ~REP_DG_XLOC] >> 32;
		j = d->xloc[off & ~REP_DG_XLOC] & UINT32_MAX;
	}
	if (k >= d->nrecs || !make_texts(d))
		return NULL;
	char *t = j < d->count[k] ? line_at(d, d->first[k] + j, len) : NULL;
	if (t == NULL && !d->unquoted) {
		d->unquoted = true;
		warnx("%s: line %zu: a quoted line of the digest could not be made (line %" PRIu64
		      " of record %" PRIu64 "): the evidence goes without it", d->path, d->line, j, k);
	}
	return t;
}

void ht_rep__digest_free(struct rep_job *job)
{
	struct rep_dgset *g = job->dg;
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n; i++) {
		struct rep_dgdoc *d = g->docs[i];
		for (uint32_t k = 0; d->names != NULL && k < d->nfiles; k++)
			free(d->names[k]);
		free(d->names);
		free(d->map);
		free(d->buf);
		free(d->off);
		free(d->tlen);
		free(d->base);
		free(d->first);
		free(d->count);
		free(d->xloc);
		free(d->dist);
		free(d->xcopy);
		free(d->why);
		free(d->own);
		free(d);
	}
	free(g->docs);
	for (size_t i = 0; i < g->nnames; i++)
		free(g->names[i]);
	free(g->names);
	free(g->pend);
	ht_rep_vec_free(&g->procs);
	arenas_take(g);
	ht_rep_intern_off(&g->a);
	ht_rep_arena_free(&g->a);
	free(g);
	job->dg = NULL;
}
