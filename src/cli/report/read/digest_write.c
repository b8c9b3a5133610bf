// SPDX-License-Identifier: MIT
/*
 * digest_write.c: what the reader found in a set of trace files, as one
 * digest (doc/trace-format.md, "Digests"): one JSON line that holds the
 * file names, the process records member for member (digest.h), the
 * reader's warnings with their file and line, the unknown event types
 * counted, and the lines the records point to (the lines evidence may
 * quote), each once, keyed by file and line. A stack (a dump's frames) is
 * written once and named by its index. `hangtrace report` reads it back
 * (digest_read.c) as if it had read the files.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "read/evidence.h"

/* ---- a table of texts, each once ----------------------------------------------- */

struct texts {
	struct rep_ttab tab;
	json_t *arr;		/* the texts, in order */
	size_t n;
};

struct text_ent {
	struct rep_tkey key;	/* first */
	size_t index;
};

/* The index of text s (n bytes) in t, added when new. */
static size_t text_index(struct texts *t, struct rep_arena *a, const char *s, size_t n,
			 json_t *val)
{
	uint64_t h = ht_rep_hash(s, n);
	if (t->tab.cap != 0) {
		struct rep_tkey *k = *ht_rep__ttab_slot(&t->tab, s, n, h);
		if (k != NULL) {
			json_decref(val);
			return ((struct text_ent *)k)->index;
		}
	}
	if ((t->tab.n + 1) * 2 > t->tab.cap && !ht_rep__ttab_grow(&t->tab, 256))
		abort();
	struct text_ent *e = ht_rep_alloc(a, sizeof(*e));
	e->key = (struct rep_tkey){ ht_rep_strndup(a, s, n), (uint32_t)n, h };
	e->index = t->n++;
	*ht_rep__ttab_slot(&t->tab, s, n, h) = &e->key;
	t->tab.n++;
	json_array_append_new(t->arr, val);
	return e->index;
}

struct wctx {
	struct rep_job *job;
	struct rep_arena a;	/* the tables' keys */
	struct texts lines;	/* quoted lines */
	struct texts stacks;	/* frames arrays */
	uint32_t file;		/* the record's file */
	bool unquoted;		/* the locations being written are never quoted */
};

/*
 * Which lines are kept: those a rule may quote (rules/, through
 * ht_rep_verdict_evidence) or the brief reads (the header), which are the
 * lines of every location of a record but these: a call's, a phase's
 * other than the begin of the current phase and the end of cuda_init, and
 * a dump's other than the latest dump's (its stall line, its main
 * thread's, its dump_end). A rule that quotes one of those must be said
 * here too (tests/report/digest.sh compares every fixture).
 */

/* ---- a quoted line, as evidence reads it ---------------------------------------- */

/* Value v (n bytes, longer than max) cut to about max bytes and closed:
 * an open string quoted, open arrays and objects closed; never in a UTF-8
 * character or an escape. */
static void cut_value(struct rep_buf *b, const char *v, size_t n, size_t max)
{
	char closers[64];
	int depth = 0;
	bool in_str = false;
	size_t cut = max < n ? max : n, i = 0, esc = 0;

	while (cut > 0 && ((unsigned char)v[cut] & 0xc0) == 0x80)
		cut--;
	while (i < cut) {
		char ch = v[i];
		if (in_str) {
			if (ch == '\\') {
				esc = i;
				i += i + 1 < n && v[i + 1] == 'u' ? 6 : 2;
				continue;
			}
			if (ch == '"')
				in_str = false;
			i++;
			continue;
		}
		if (ch == '"')
			in_str = true;
		else if ((ch == '{' || ch == '[') && depth < (int)sizeof(closers))
			closers[depth++] = ch == '{' ? '}' : ']';
		else if ((ch == '}' || ch == ']') && depth > 0)
			depth--;
		i++;
	}
	if (i > cut)		/* an escape across the cut: cut before it */
		cut = esc;
	ht_rep_buf_addn(b, v, cut);
	if (in_str)
		ht_rep_buf_add(b, "\"");
	while (depth > 0)
		ht_rep_buf_addn(b, &closers[--depth], 1);
}

/*
 * The members of a line that its quotes can show, by its type: a header's
 * are those the rules quote (read/evidence.c's default for a header,
 * rules/verdicts_gpu.c's fork keys) and its environment (the brief reads
 * it, render/brief.c), kept whole: the brief parses it. A thread line is
 * quoted by rules/verdicts_dataloader.c's keys. Of any other line every
 * member is kept but ts and mono, which no quote shows.
 */
static const char *const header_members[] = { "t", "host", "pid", "ppid", "rank", "world_size",
					      "local_rank", "launcher", "fork_parent",
					      "cuda_inherited", "env", NULL };
static const char *const thread_members[] = { "t", "dump", "tid", "state", "python", NULL };

static bool named(const struct rep_member *m, const char *const *names)
{
	for (size_t i = 0; names[i] != NULL; i++)
		if (strlen(names[i]) == m->klen && memcmp(m->key, names[i], m->klen) == 0)
			return true;
	return false;
}

/* The line as the digest keeps it: its members that a quote can show, in
 * their order, each value cut to REP_DIGEST_VALUE_MAX (but a header's). A
 * line that is no object is kept whole. */
static char *quote_form(const char *text, size_t *len)
{
	struct rep_member m[REP_MAX_MEMBERS];
	size_t n = ht_rep_members(text, m, REP_MAX_MEMBERS);
	if (n == 0) {
		*len = strlen(text);
		return strdup(text);
	}
	const char *const *keep = NULL;
	for (size_t i = 0; i < n && keep == NULL; i++)
		if (m[i].klen == 1 && m[i].key[0] == 't') {
			if (m[i].vlen == 8 && memcmp(m[i].val, "\"header\"", 8) == 0)
				keep = header_members;
			else if (m[i].vlen == 8 && memcmp(m[i].val, "\"thread\"", 8) == 0)
				keep = thread_members;
			break;
		}
	static const char *const times[] = { "ts", "mono", NULL };
	struct rep_buf b = { 0 };
	bool first = true;
	ht_rep_buf_add(&b, "{");
	for (size_t i = 0; i < n; i++) {
		if (keep != NULL ? !named(&m[i], keep) : named(&m[i], times))
			continue;
		if (!first)
			ht_rep_buf_add(&b, ",");
		first = false;
		ht_rep_buf_addn(&b, m[i].key - 1, m[i].klen + 2);
		ht_rep_buf_add(&b, ":");
		if (m[i].vlen > REP_DIGEST_VALUE_MAX && keep != header_members)
			cut_value(&b, m[i].val, m[i].vlen, REP_DIGEST_VALUE_MAX);
		else
			ht_rep_buf_addn(&b, m[i].val, m[i].vlen);
	}
	ht_rep_buf_add(&b, "}");
	*len = b.n;
	return b.s;
}

/* A string; one that is not UTF-8 (a file name) with its bytes as they are. */
static json_t *str_value(const char *s)
{
	json_t *v = json_string(s);
	return v != NULL ? v : json_string_nocheck(s);
}

/* ---- members --------------------------------------------------------------------- */

static void put_num(json_t *o, const char *k, double v)
{
	if (isnan(v))
		return;
	if (isinf(v))
		json_object_set_new(o, k, json_string(v > 0 ? "inf" : "-inf"));
	else
		json_object_set_new(o, k, json_real(v));
}

static void put_str(json_t *o, const char *k, const char *s)
{
	if (s != NULL)
		json_object_set_new(o, k, str_value(s));
}

/* A location: [line, text] (text -1: the line could not be read, or is one
 * the report never quotes), with its file third when it is not the
 * record's. */
static json_t *loc_value(struct wctx *w, const struct rep_loc *l)
{
	json_int_t text = -1;
	char *s = w->unquoted ? NULL : ht_rep_line_text(w->job, l);
	if (s != NULL) {
		size_t n;
		char *q = quote_form(s, &n);
		if (q != NULL) {
			json_t *v = json_stringn(q, n);
			if (v == NULL)
				v = json_stringn_nocheck(q, n);
			text = (json_int_t)text_index(&w->lines, &w->a, q, n, v);
		}
		free(q);
		free(s);
	}
	json_t *a = json_pack("[II]", (json_int_t)l->line, text);
	if (l->file != w->file)
		json_array_append_new(a, json_integer(l->file));
	return a;
}

/* The value of a member, or NULL when it holds its type's unknown. */
static json_t *field_value(struct wctx *w, const char *at, unsigned type)
{
	switch (type) {
	case FT_I64: {
		int64_t v;
		memcpy(&v, at, sizeof(v));
		return v != REP_UNKNOWN ? json_integer(v) : NULL;
	}
	case FT_INT: {
		int v;
		memcpy(&v, at, sizeof(v));
		return json_integer(v);
	}
	case FT_U32: {
		uint32_t v;
		memcpy(&v, at, sizeof(v));
		return v != 0 ? json_integer(v) : NULL;
	}
	case FT_U64: {
		uint64_t v;
		memcpy(&v, at, sizeof(v));
		return v != 0 ? json_integer((json_int_t)v) : NULL;
	}
	case FT_DBL: {
		double v;
		memcpy(&v, at, sizeof(v));
		if (isnan(v))
			return NULL;
		return isinf(v) ? json_string(v > 0 ? "inf" : "-inf") : json_real(v);
	}
	case FT_STR: {
		const char *v;
		memcpy(&v, at, sizeof(v));
		return v != NULL ? str_value(v) : NULL;
	}
	case FT_BOOL:
		return *(const bool *)at ? json_true() : NULL;
	case FT_CHAR:
		return *at != 0 ? json_integer(*at) : NULL;
	case FT_LOC: {
		struct rep_loc l;
		memcpy(&l, at, sizeof(l));
		return rep_has_loc(&l) ? loc_value(w, &l) : NULL;
	}
	default:
		return NULL;
	}
}

/* Members from to to of table t of the record at base, each that holds
 * a value, onto m as its index and its value. */
static void put_range(struct wctx *w, json_t *m, const void *base, int t, size_t from, size_t to)
{
	const struct rep_fd *fd = rep_dg_tabs[t].fd;
	for (size_t i = from; i < to; i++) {
		json_t *v = field_value(w, (const char *)base + fd[i].off, fd[i].type);
		if (v != NULL) {
			json_array_append_new(m, json_integer((json_int_t)i));
			json_array_append_new(m, v);
		}
	}
}

/* The members of table t of the record at base: [index, value, ...]. */
static json_t *fields(struct wctx *w, const void *base, int t)
{
	json_t *m = json_array();
	put_range(w, m, base, t, 0, rep_dg_tabs[t].n);
	return m;
}

/* The same as member "m" of o (a record with more than its members). */
static void put_fields(struct wctx *w, json_t *o, const void *base, int t)
{
	json_object_set_new(o, "m", fields(w, base, t));
}

/* An array of n records of size sz of table t, each its members. */
static void put_records(struct wctx *w, json_t *o, const char *k, const void *v, size_t n,
			size_t sz, int t)
{
	if (n == 0)
		return;
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, fields(w, (const char *)v + i * sz, t));
	json_object_set_new(o, k, a);
}

/* The index of a frames array in the table of stacks. */
static json_int_t stack_index(struct wctx *w, const char *const *fr, size_t n)
{
	struct rep_buf key = { 0 };
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		ht_rep_buf_add(&key, fr[i]);
		ht_rep_buf_addn(&key, "\n", 1);
		json_array_append_new(a, str_value(fr[i]));
	}
	size_t ix = text_index(&w->stacks, &w->a, key.s != NULL ? key.s : "", key.n, a);
	ht_rep_buf_free(&key);
	return (json_int_t)ix;
}

static json_t *dump_value(struct wctx *w, const struct rep_dump *d, bool last)
{
	json_t *o = json_object();
	w->unquoted = !last;
	put_fields(w, o, d, DG_DUMP);
	w->unquoted = false;
	if (d->frames != NULL)
		json_object_set_new(o, "frames", json_integer(stack_index(w, d->frames, d->nframes)));
	if (d->py != NULL)
		json_object_set_new(o, "py", json_integer(stack_index(w, d->py, d->npy)));
	return o;
}

static json_t *checkfacts_value(struct wctx *w, const struct rep_checkfacts *f)
{
	json_t *o = json_object();
	put_fields(w, o, f, DG_CHECKFACTS);
	if (f->n > 0) {
		json_t *a = json_array();
		for (size_t i = 0; i < f->n; i++) {
			const struct rep_chkline *l = &f->lines[i];
			json_t *e = json_object();
			put_fields(w, e, l, DG_CHKLINE);
			if (l->ranks != NULL) {
				json_t *r = json_array();
				for (size_t k = 0; k < l->nranks; k++)
					json_array_append_new(r, json_integer(l->ranks[k]));
				json_object_set_new(e, "ranks", r);
			}
			json_array_append_new(a, e);
		}
		json_object_set_new(o, "lines", a);
	}
	put_records(w, o, "probs", f->probs, f->nprobs, sizeof(*f->probs), DG_IBPROB);
	return o;
}

static json_t *buildlock_value(struct wctx *w, const struct rep_buildlock *b)
{
	json_t *o = json_object();
	put_fields(w, o, b, DG_BUILDLOCK);
	json_t *a = json_array();
	for (size_t i = 0; i < b->nlocks; i++) {
		json_t *e = json_object();
		put_str(e, "path", b->locks[i].path);
		put_num(e, "age", b->locks[i].age);
		json_array_append_new(a, e);
	}
	json_object_set_new(o, "locks", a);
	a = json_array();
	for (size_t i = 0; i < b->nbuilders; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "pid", json_integer(b->builders[i].pid));
		put_str(e, "comm", b->builders[i].comm);
		put_num(e, "age", b->builders[i].age);
		json_array_append_new(a, e);
	}
	json_object_set_new(o, "builders", a);
	return o;
}

static json_t *proc_value(struct wctx *w, const struct rep_proc *p)
{
	json_t *o = json_object();
	w->file = p->file;
	json_object_set_new(o, "file", json_integer(p->file));
	put_fields(w, o, p, DG_PROC);
	json_t *ph = json_array();
	for (int i = 0; i < HT_PHASE_COUNT; i++) {
		json_t *e = json_array();
		/* Quoted: the begin of the current phase, the end of cuda_init. */
		size_t n = rep_dg_tabs[DG_PHASE].n;
		w->unquoted = i != p->cur_phase;
		put_range(w, e, &p->ph[i], DG_PHASE, 0, n - 1);
		w->unquoted = i != HT_PHASE_CUDA_INIT;
		put_range(w, e, &p->ph[i], DG_PHASE, n - 1, n);
		w->unquoted = false;
		json_array_append_new(ph, e);
	}
	json_object_set_new(o, "ph", ph);
	json_t *ver = json_array();
	for (int i = 0; i < REP_VER_COUNT; i++)
		json_array_append_new(ver, fields(w, &p->ver[i], DG_VERSION));
	json_object_set_new(o, "ver", ver);
	put_records(w, o, "conn", p->conn, p->nconn, sizeof(*p->conn), DG_CONNECT);
	put_records(w, o, "listen", p->listen, p->nlisten, sizeof(*p->listen), DG_LISTEN);
	put_records(w, o, "bind_fail", p->bind_fail, p->bind_fail != NULL, sizeof(*p->bind_fail),
		    DG_BINDFAIL);
	put_records(w, o, "store", p->store, p->store != NULL, sizeof(*p->store), DG_STORE);
	put_records(w, o, "res", p->res, p->nres, sizeof(*p->res), DG_RESOLVE);
	put_records(w, o, "cerr", p->cerr, p->ncerr, sizeof(*p->cerr), DG_CUDA_ERR);
	put_records(w, o, "comms", p->comms, p->ncomms, sizeof(*p->comms), DG_COMM);
	put_records(w, o, "ring", p->ring, p->nring, sizeof(*p->ring), DG_COLL);
	w->unquoted = true;	/* (no rule quotes a call line) */
	put_records(w, o, "calls", p->calls, p->ncalls, sizeof(*p->calls), DG_CALL);
	w->unquoted = false;
	if (p->nwarns > 0) {
		json_t *a = json_array();
		for (size_t i = 0; i < p->nwarns; i++)
			json_array_append_new(a, str_value(p->warns[i]));
		json_object_set_new(o, "warns", a);
	}
	if (p->ndumps > 0) {
		json_t *a = json_array();
		for (size_t i = 0; i < p->ndumps; i++)
			json_array_append_new(a, dump_value(w, &p->dumps[i], i + 1 == p->ndumps));
		json_object_set_new(o, "dumps", a);
	}
	if (p->chk != NULL)
		json_object_set_new(o, "chk", checkfacts_value(w, p->chk));
	if (p->blk != NULL)
		json_object_set_new(o, "blk", buildlock_value(w, p->blk));
	return o;
}

int ht_rep_digest_write(struct rep_job *job, FILE *f)
{
	struct wctx w = { .job = job };
	w.lines.arr = json_array();
	w.stacks.arr = json_array();
	json_t *root = json_object();
	json_object_set_new(root, "digest", json_string(HT_DIGEST_FORMAT));
	json_object_set_new(root, "version", json_string(HT_VERSION));
	json_t *files = json_array();
	for (size_t i = 0; i < job->nfiles; i++)
		json_array_append_new(files, str_value(job->files[i].name));
	json_object_set_new(root, "files", files);
	json_t *members = json_object();
	for (int t = 0; t < DG_NTABLES; t++) {
		json_t *names = json_array();
		for (size_t i = 0; i < rep_dg_tabs[t].n; i++)
			json_array_append_new(names, json_string(rep_dg_tabs[t].fd[i].name));
		json_object_set_new(members, rep_dg_tabs[t].name, names);
	}
	json_object_set_new(root, "members", members);
	json_t *procs = json_array();
	for (size_t i = 0; i < job->procs.n; i++)
		json_array_append_new(procs, proc_value(&w, job->procs.v[i]));
	json_t *warns = json_array();
	for (size_t i = 0; i < job->nwarns; i++) {
		const struct rep_warning *x = &job->warns[i];
		json_array_append_new(warns, json_pack("[IIo]", (json_int_t)x->file,
						       (json_int_t)x->line, str_value(x->msg)));
	}
	json_t *unk = json_array();
	for (size_t i = 0; job->dg != NULL && i < job->dg->nunk; i++) {
		const struct rep_unknown *u = &job->dg->unk[i];
		json_array_append_new(unk, json_pack("[sIII]", u->type, (json_int_t)u->file,
						     (json_int_t)u->line, (json_int_t)u->count));
	}
	json_object_set_new(root, "warnings", warns);
	json_object_set_new(root, "unknown", unk);
	json_object_set_new(root, "warnings_dropped", json_integer((json_int_t)job->warns_dropped));
	json_object_set_new(root, "stacks", w.stacks.arr);
	json_object_set_new(root, "texts", w.lines.arr);
	json_object_set_new(root, "procs", procs);
	int rc = json_dumpf(root, f, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (rc == 0 && fputc('\n', f) == EOF)
		rc = -1;
	json_decref(root);
	free(w.lines.tab.slot);
	free(w.stacks.tab.slot);
	ht_rep_arena_free(&w.a);
	return rc == 0 ? 0 : -1;
}
