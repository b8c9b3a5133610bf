// SPDX-License-Identifier: MIT
/*
 * digest_write.c: what the reader found in a set of trace files, as one
 * digest (doc/trace-format.md, "Digests"): one JSON line that holds the
 * file names, the process records member for member (digest.h), the
 * reader's warnings with their file and line, the unknown event types
 * counted, and the lines the records point to (the lines evidence may
 * quote). What the ranks of a node share is said once: a record is
 * written as the members that differ from its base (the record at the
 * same place of an earlier process, digest.h), times as microseconds
 * added, and a quoted line as the members it changes of its base's. A
 * stack (a dump's frames) is written once and named by its index.
 * `hangtrace report` reads it back (digest_read.c) as if it had read the
 * files.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "read/evidence.h"

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
 * it, render/brief.c), kept whole: the brief parses it. A thread line, a
 * stall line, a dump's end and the host line are quoted only with the
 * keys the rules give for them (rules/verdicts_dataloader.c's keep_thread,
 * rules/phrases.c's ht_rep_keep_stall, _dump_end and _host). Of any other
 * line every member is kept but ts, mono and tid, which no quote shows
 * (evidence.c). A rule that quotes more of a line must be said here too.
 */
static const char *const header_members[] = { "t", "host", "pid", "ppid", "rank", "world_size",
					      "local_rank", "launcher", "fork_parent",
					      "cuda_inherited", "env", NULL };
static const char *const thread_members[] = { "t", "dump", "tid", "state", "python", NULL };
static const char *const stall_members[] = { "t", "dump", "reason", "phase", "phase_age", "n",
					     "calls", NULL };
static const char *const dump_end_members[] = { "t", "dump", "threads", "io",
						"collectives_total", NULL };
static const char *const host_members[] = { "t", "hostname", "nccl_socket_ifname",
					    "nccl_ifname_match", "gloo_socket_ifname",
					    "gloo_ifname_match", "shm_total", "shm_free", NULL };
static const struct {
	const char *type;	/* as the line has it, quoted */
	const char *const *keep;
} quoted_members[] = {
	{ "\"header\"", header_members }, { "\"thread\"", thread_members },
	{ "\"stall\"", stall_members }, { "\"dump_end\"", dump_end_members },
	{ "\"host\"", host_members },
};

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
			for (size_t k = 0; k < sizeof(quoted_members) / sizeof(quoted_members[0]); k++)
				if (m[i].vlen == strlen(quoted_members[k].type) &&
				    memcmp(m[i].val, quoted_members[k].type, m[i].vlen) == 0)
					keep = quoted_members[k].keep;
			break;
		}
	static const char *const times[] = { "ts", "mono", "tid", NULL };
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
static json_t *strn_value(const char *s, size_t n)
{
	json_t *v = json_stringn(s, n);
	return v != NULL ? v : json_stringn_nocheck(s, n);
}

static json_t *str_value(const char *s)
{
	return strn_value(s, strlen(s));
}

/* ---- the stacks, each once --------------------------------------------------------- */

struct stack_ent {
	struct rep_tkey key;	/* first */
	size_t index;
};

struct stacks {
	struct rep_ttab tab;
	struct rep_buf text;	/* each: its count of frames, then each a string token */
	size_t n;
};

/* ---- what a later process is written against ----------------------------------- */

#define BASES 16	/* a record's base is one of the last BASES written */

/* A record as written: its members' values, and its arrays' records. */
struct wproc {
	struct rep_dgslab a;	/* first: what clearing keeps */
	const char *cmd, *exe;
	struct rep_dval *proc;
	struct rep_dval *ph[HT_PHASE_COUNT], *ver[REP_VER_COUNT];
	struct rep_dval **arr[DA_N];
	size_t narr[DA_N];
	json_int_t *stk;	/* its dumps' stacks: frames and py of each, -1 none */
	char **texts;		/* its quoted lines, in the order of their indices */
	size_t *tlen;
	unsigned char *depth;	/* how many deltas make each (0: whole) */
	size_t ntexts, cap;
};

struct wctx {
	struct rep_job *job;
	struct rep_arena a;	/* the tables' keys */
	struct stacks stacks;
	uint32_t file;		/* the record's file */
	bool unquoted;		/* the locations being written are never quoted */
	struct wproc ring[BASES + 1];	/* the record written and its bases */
	size_t nwritten;
	struct wproc *cur;	/* the record being written */
};

/* Makes r ready for another record, its memory kept (free: given back). */
static void wproc_clear(struct wproc *r, bool free_)
{
	for (size_t i = 0; i < r->ntexts; i++)
		free(r->texts[i]);
	free(r->texts);
	free(r->tlen);
	free(r->depth);
	ht_dg_slab_end(&r->a, free_);
	memset((char *)r + sizeof(r->a), 0, sizeof(*r) - sizeof(r->a));	/* (a first) */
}

/* The index of a quoted line in the current record's texts, added when new. */
static int32_t local_text(struct wctx *w, char *q, size_t n)
{
	struct wproc *r = w->cur;
	for (size_t i = 0; i < r->ntexts; i++)
		if (r->tlen[i] == n && memcmp(r->texts[i], q, n) == 0) {
			free(q);
			return (int32_t)i;
		}
	if (r->ntexts == r->cap) {
		r->cap = r->cap != 0 ? r->cap * 2 : 16;
		r->texts = realloc(r->texts, r->cap * sizeof(*r->texts));
		r->tlen = realloc(r->tlen, r->cap * sizeof(*r->tlen));
		r->depth = realloc(r->depth, r->cap * sizeof(*r->depth));
		if (r->texts == NULL || r->tlen == NULL || r->depth == NULL)
			abort();
	}
	r->texts[r->ntexts] = q;
	r->tlen[r->ntexts] = n;
	return (int32_t)r->ntexts++;
}

/* A member of the record at `at`, as the digest compares it. */
static struct rep_dval dval_of(struct wctx *w, const char *at, unsigned type)
{
	struct rep_dval v = { .k = DV_NONE };
	switch (type) {
	case FT_I64:
		memcpy(&v.i, at, sizeof(v.i));
		v.k = v.i != REP_UNKNOWN ? DV_INT : DV_NONE;
		break;
	case FT_INT: {
		int x;
		memcpy(&x, at, sizeof(x));
		v.k = DV_INT;
		v.i = x;
		break;
	}
	case FT_U32: {
		uint32_t x;
		memcpy(&x, at, sizeof(x));
		v.k = x != 0 ? DV_INT : DV_NONE;
		v.i = x;
		break;
	}
	case FT_U64: {
		uint64_t x;
		memcpy(&x, at, sizeof(x));
		v.k = x != 0 ? DV_U64 : DV_NONE;
		v.i = (int64_t)x;
		break;
	}
	case FT_DBL:
		memcpy(&v.d, at, sizeof(v.d));
		v.k = isnan(v.d) ? DV_NONE : ht_dg_micros(v.d, &v.i) ? DV_MICRO : DV_REAL;
		break;
	case FT_STR:
		memcpy(&v.s, at, sizeof(v.s));
		v.k = v.s != NULL ? DV_STR : DV_NONE;
		break;
	case FT_BOOL:
		v.k = *(const bool *)at ? DV_TRUE : DV_NONE;
		break;
	case FT_CHAR:
		v.k = *at != 0 ? DV_INT : DV_NONE;
		v.i = *at;
		break;
	case FT_LOC: {
		struct rep_loc l;
		memcpy(&l, at, sizeof(l));
		if (!rep_has_loc(&l))
			break;
		v.k = DV_LOC;
		v.i = l.line;
		v.file = l.file == w->file ? -1 : l.file < INT32_MAX ? (int32_t)l.file : INT32_MAX;
		v.text = -1;
		char *s = w->unquoted ? NULL : ht_rep_line_text(w->job, &l);
		if (s != NULL) {
			size_t n;
			char *q = quote_form(s, &n);
			int32_t k = q != NULL ? local_text(w, q, n) : -1;
			v.text = k < DV_TEXT_MAX ? k : -1;
			free(s);
		}
		break;
	}
	default:
		break;
	}
	return v;
}

/* Member i of table t as written against its base (b, or NULL). */
static struct rep_dgtok value_tok(int t, size_t i, const struct rep_dval *cur,
				  const struct rep_dval *b)
{
	static const struct rep_dval none = { .k = DV_NONE };
	const struct rep_dval *v = &cur[i], *bv = b != NULL ? &b[i] : &none;
	struct rep_dgtok k = { .k = DT_INT, .file = -1 };
	switch (v->k) {
	case DV_INT:
		k.i = bv->k == DV_INT ? (int64_t)((uint64_t)v->i - (uint64_t)bv->i) : v->i;
		break;
	case DV_U64:
		k.i = v->i;
		break;
	case DV_MICRO: {
		int p = ht_dg_pairs(t)[i];
		if (p >= 0 && b != NULL && cur[p].k == DV_MICRO && b[p].k == DV_MICRO &&
		    bv->k == DV_MICRO)
			k.i = (int64_t)((uint64_t)v->i - (uint64_t)bv->i -
					((uint64_t)cur[p].i - (uint64_t)b[p].i));
		else
			k.i = bv->k == DV_MICRO ? (int64_t)((uint64_t)v->i - (uint64_t)bv->i) : v->i;
		break;
	}
	case DV_REAL:
		k.k = DT_REAL;
		k.d = v->d;
		break;
	case DV_STR:
		k.k = DT_STR;
		k.s = v->s;
		k.len = strlen(v->s);
		break;
	case DV_TRUE:
		k.k = DT_TRUE;
		break;
	case DV_LOC:
		k.k = DT_LOC;
		k.i = v->i;
		k.text = v->text;
		k.file = v->file;
		break;
	default:
		k.k = DT_NONE;
		break;
	}
	return k;
}

/* The values of members from..to of table t of the record at base into
 * vals (room for all its members). */
static void dvals(struct wctx *w, struct rep_dval *vals, const void *rec, int t, size_t from,
		  size_t to)
{
	const struct rep_fd *fd = rep_dg_tabs[t].fd;
	for (size_t i = from; i < to; i++)
		vals[i] = dval_of(w, ht_dg_at(rec, fd[i].off), fd[i].type);
}

/* The members of vals that differ from b's (NULL: none known), onto m:
 * "MASK:VALUES" (digest.h), ":" when none does. */
static void delta_put(struct rep_buf *m, int t, const struct rep_dval *vals,
		      const struct rep_dval *b)
{
	static const struct rep_dval none = { .k = DV_NONE };
	size_t n = rep_dg_tabs[t].n;
	bool given[DG_MAX_MEMBERS] = { false };
	char mask[DG_MASK_MAX + 1];
	for (size_t i = 0; i < n; i++)
		given[i] = !ht_dg_dval_eq(&vals[i], b != NULL ? &b[i] : &none);
	/* (bits by the members' places in digest.h's tables: the reader knows
	 * the tables by the format, whose tables only grow at their ends) */
	ht_dg_mask_write(given, n, mask);
	ht_rep_buf_add(m, mask);
	ht_rep_buf_addn(m, ":", 1);
	for (size_t i = 0; i < n; i++)
		if (given[i]) {
			struct rep_dgtok k = value_tok(t, i, vals, b);
			ht_dg_tok_put(m, &k);
		}
}

/* A record of table t at rec: its values kept in the current record's
 * arena (*keep), and its members as written against b, onto m. */
static void record(struct wctx *w, struct rep_buf *m, const void *rec, int t,
		   const struct rep_dval *b, struct rep_dval **keep)
{
	struct rep_dval *vals = ht_dg_slab_alloc(&w->cur->a, rep_dg_tabs[t].n * sizeof(*vals));
	dvals(w, vals, rec, t, 0, rep_dg_tabs[t].n);
	*keep = vals;
	delta_put(m, t, vals, b);
}

/* A record of table t at rec without a base, as a JSON string (the check
 * facts' and the build lock's: "" when it gives nothing). */
static json_t *record_json(struct wctx *w, const void *rec, int t)
{
	struct rep_buf m = { 0 };
	struct rep_dval *keep;
	record(w, &m, rec, t, NULL, &keep);
	json_t *v = m.n > 1 ? strn_value(m.s, m.n) : json_string("");
	ht_rep_buf_free(&m);
	return v;
}

/* The index of a frames array in the table of stacks. */
static json_int_t stack_index(struct wctx *w, const char *const *fr, size_t n)
{
	struct rep_buf key = { 0 };
	for (size_t i = 0; i < n; i++) {
		ht_rep_buf_add(&key, fr[i]);
		ht_rep_buf_addn(&key, "\n", 1);
	}
	const char *k = key.s != NULL ? key.s : "";
	uint64_t h = ht_rep_hash(k, key.n);
	struct stacks *t = &w->stacks;
	if (t->tab.cap != 0) {
		struct rep_tkey *e = *ht_rep__ttab_slot(&t->tab, k, key.n, h);
		if (e != NULL) {
			ht_rep_buf_free(&key);
			return (json_int_t)((struct stack_ent *)e)->index;
		}
	}
	if ((t->tab.n + 1) * 2 > t->tab.cap && !ht_rep__ttab_grow(&t->tab, 256))
		abort();
	struct stack_ent *e = ht_rep_alloc(&w->a, sizeof(*e));
	e->key = (struct rep_tkey){ ht_rep_strndup(&w->a, k, key.n), (uint32_t)key.n, h };
	e->index = t->n++;
	*ht_rep__ttab_slot(&t->tab, k, key.n, h) = &e->key;
	t->tab.n++;
	ht_dg_vlq_put(&t->text, (int64_t)n);
	for (size_t i = 0; i < n; i++) {
		struct rep_dgtok k = { .k = DT_STR, .s = fr[i], .len = strlen(fr[i]) };
		ht_dg_tok_put(&t->text, &k);
	}
	ht_rep_buf_free(&key);
	return (json_int_t)e->index;
}

static json_t *checkfacts_value(struct wctx *w, const struct rep_checkfacts *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "m", record_json(w, f, DG_CHECKFACTS));
	if (f->n > 0) {
		json_t *a = json_array();
		for (size_t i = 0; i < f->n; i++) {
			const struct rep_chkline *l = &f->lines[i];
			json_t *e = json_object();
			json_object_set_new(e, "m", record_json(w, l, DG_CHKLINE));
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
	if (f->nprobs > 0) {
		json_t *a = json_array();
		for (size_t i = 0; i < f->nprobs; i++)
			json_array_append_new(a, record_json(w, &f->probs[i], DG_IBPROB));
		json_object_set_new(o, "probs", a);
	}
	return o;
}

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

static json_t *buildlock_value(struct wctx *w, const struct rep_buildlock *b)
{
	json_t *o = json_object();
	json_object_set_new(o, "m", record_json(w, b, DG_BUILDLOCK));
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

/* The base of a record: the latest of the last BASES written with the
 * same command line, else the one before it; how far back in *dist. */
static struct wproc *base_of(struct wctx *w, const struct rep_proc *p, size_t *dist)
{
	size_t avail = w->nwritten < BASES ? w->nwritten : BASES;
	for (size_t d = 1; d <= avail; d++) {
		struct wproc *r = &w->ring[(w->nwritten - d) % (BASES + 1)];
		const struct rep_ident *id = rep_id(p);
		if ((r->cmd == id->cmd || (r->cmd != NULL && id->cmd != NULL && strcmp(r->cmd, id->cmd) == 0)) &&
		    (r->exe == id->exe || (r->exe != NULL && id->exe != NULL && strcmp(r->exe, id->exe) == 0))) {
			*dist = d;
			return r;
		}
	}
	*dist = 1;
	return avail > 0 ? &w->ring[(w->nwritten - 1) % (BASES + 1)] : NULL;
}

/* Record j of array a against the base's j-th, else this record's
 * previous one. */
static const struct rep_dval *elem_base(const struct wproc *b, const struct wproc *r, int a,
					size_t j)
{
	if (b != NULL && j < b->narr[a])
		return b->arr[a][j];
	return j > 0 ? r->arr[a][j - 1] : NULL;
}

/* The length of the first member of a quoted line ({"t":"...",). */
static size_t head_len(const char *s)
{
	const char *c = strchr(s, ',');
	return c != NULL ? (size_t)(c - s) : strlen(s);
}

/* A line is made of at most this many deltas (a report quoting a line of
 * a big digest makes it at once). */
#define CHAIN 24

/* A quoted line written as a change d: [d] of the base's line at its
 * place, [d, J] of the base's line J, [d, -1 - J] of its own line J. */
static json_t *delta_entry(json_t *d, json_int_t from, bool own)
{
	json_t *e = json_array();
	json_array_append_new(e, d);
	if (from >= 0)
		json_array_append_new(e, json_integer(own ? -1 - from : from));
	return e;
}

/* Quoted line i of r: as it changes the line at the same place of its
 * base, when that is less than half the line; else as it changes the line
 * of the base or an earlier one of its own of the same type that takes
 * least; else whole. */
static json_t *text_entry(const struct wproc *b, struct wproc *r, size_t i)
{
	const char *cur = r->texts[i];
	size_t len = r->tlen[i], best = len;
	json_t *d = NULL;
	r->depth[i] = 0;
	if (b != NULL && i < b->ntexts && b->depth[i] + 1 < CHAIN) {
		d = ht_dg_text_delta(b->texts[i], cur, len, &best);
		r->depth[i] = (unsigned char)(b->depth[i] + 1);
		if (d != NULL && best * 2 < len)
			return delta_entry(d, -1, false);
		if (d == NULL)
			r->depth[i] = 0;
	}
	json_int_t from = -1;	/* the line changed: -1 the base's at i (or none) */
	bool from_own = false;	/* its own line from, else the base's */
	size_t h = head_len(cur);
	for (int own = 0; own < 2; own++) {
		const struct wproc *q = own ? r : b;
		size_t n = q == NULL ? 0 : own ? i : q->ntexts;
		for (size_t j = 0; j < n; j++) {
			if ((!own && j == i) || q->depth[j] + 1 >= CHAIN ||
			    strncmp(q->texts[j], cur, h + 1) != 0)
				continue;
			size_t sz;
			json_t *e = ht_dg_text_delta(q->texts[j], cur, len, &sz);
			if (e != NULL && sz + 12 < best) {
				json_decref(d);
				d = e;
				best = sz + 12;
				from_own = own;
				from = (json_int_t)j;
				r->depth[i] = (unsigned char)(q->depth[j] + 1);
			} else {
				json_decref(e);
			}
		}
	}
	if (d != NULL)
		return delta_entry(d, from, from_own);
	d = json_stringn(cur, len);
	return d != NULL ? d : json_stringn_nocheck(cur, len);
}

/* Section tag of a record (doc/trace-format.md, "Records"), its lists
 * (from `from` in r, n of them) kept unless none of them gives a member:
 * the reader takes them as their bases then. */
static void put_lists(struct rep_buf *r, size_t from, size_t n)
{
	if (r->n - from == 1 + n)	/* (each ":") */
		r->n = from;
}

/* A string as a token onto b. */
static void str_put(struct rep_buf *b, const char *s, size_t n)
{
	struct rep_dgtok k = { .k = DT_STR, .s = s, .len = n };
	ht_dg_tok_put(b, &k);
}

/* A JSON value as a string token of its text onto b. */
static void json_put(struct rep_buf *b, json_t *v)
{
	char *t = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (t == NULL)
		abort();
	str_put(b, t, strlen(t));
	free(t);
	json_decref(v);
}

/* Process record p as written (doc/trace-format.md, "Records"): one
 * string of sections, each a tag and what it holds; its quoted lines
 * onto xs. */
static json_t *proc_value(struct wctx *w, const struct rep_proc *p, json_t *xs)
{
	size_t dist;
	struct wproc *b = base_of(w, p, &dist);
	struct wproc *r = &w->ring[w->nwritten % (BASES + 1)];
	wproc_clear(r, false);
	w->cur = r;
	r->cmd = rep_id(p)->cmd;
	r->exe = rep_id(p)->exe;
	w->file = p->file;
	struct rep_buf o = { 0 };
	ht_rep_buf_addn(&o, "F", 1);
	ht_dg_vlq_put(&o, p->file);
	if (b != NULL && dist != 1) {
		ht_rep_buf_addn(&o, "B", 1);
		ht_dg_vlq_put(&o, (int64_t)dist);
	}
	size_t from = o.n;
	ht_rep_buf_addn(&o, "M", 1);
	record(w, &o, p, DG_PROC, b != NULL ? b->proc : NULL, &r->proc);
	put_lists(&o, from, 1);
	from = o.n;
	ht_rep_buf_addn(&o, "P", 1);
	size_t n = rep_dg_tabs[DG_PHASE].n;
	for (int i = 0; i < HT_PHASE_COUNT; i++) {
		struct rep_dval *vals = ht_dg_slab_alloc(&r->a, n * sizeof(*vals));
		struct rep_phase_rec ph = { *rep_ph(p, i), rep_ph_begin(p, i), rep_ph_end(p, i) };
		/* Quoted: the begin of the current phase, the end of cuda_init. */
		w->unquoted = i != p->cur_phase;
		dvals(w, vals, &ph, DG_PHASE, 0, n - 1);
		w->unquoted = i != HT_PHASE_CUDA_INIT;
		dvals(w, vals, &ph, DG_PHASE, n - 1, n);
		w->unquoted = false;
		r->ph[i] = vals;
		delta_put(&o, DG_PHASE, vals, b != NULL ? b->ph[i] : NULL);
	}
	put_lists(&o, from, HT_PHASE_COUNT);
	from = o.n;
	ht_rep_buf_addn(&o, "V", 1);
	for (int i = 0; i < REP_VER_COUNT; i++) {
		struct rep_version v = { rep_vers(p)->value[i], rep_vers(p)->provider[i],
					 p->ver_loc[i] };
		record(w, &o, &v, DG_VERSION, b != NULL ? b->ver[i] : NULL, &r->ver[i]);
	}
	put_lists(&o, from, REP_VER_COUNT);
	for (int a = 0; a < DA_N; a++) {
		size_t cnt;
		const char *v = ht_dg_arr(p, a, &cnt);
		if (cnt == 0)
			continue;
		int t = rep_dg_arrs[a].table;
		r->arr[a] = ht_dg_slab_alloc(&r->a, cnt * sizeof(*r->arr[a]));
		if (a == DA_DUMPS)
			r->stk = ht_dg_slab_alloc(&r->a, 2 * cnt * sizeof(*r->stk));
		ht_rep_buf_addn(&o, "[", 1);
		ht_dg_vlq_put(&o, a);
		ht_dg_vlq_put(&o, (int64_t)cnt);
		for (size_t j = 0; j < cnt; j++) {
			const void *rec = v + j * rep_dg_arrs[a].size;
			/* No rule quotes a call line, nor a dump's but the latest's. */
			w->unquoted = a == DA_CALLS || (a == DA_DUMPS && j + 1 != cnt);
			record(w, &o, rec, t, elem_base(b, r, a, j), &r->arr[a][j]);
			w->unquoted = false;
			r->narr[a] = j + 1;
			if (a != DA_DUMPS)
				continue;
			/* its stacks after '*': frames, then py, left out from the
			 * end where they are the base dump's */
			const struct rep_dstack *st = rep_dst(rec);
			json_int_t fr = st->frames != NULL ? stack_index(w, st->frames, st->nframes) : -1;
			json_int_t py = st->py != NULL ? stack_index(w, st->py, st->npy) : -1, bf, bp;
			ht_dg_stack_base(b != NULL ? b->stk : NULL, b != NULL ? b->narr[a] : 0,
					 r->stk, j, &bf, &bp);
			r->stk[2 * j] = fr;
			r->stk[2 * j + 1] = py;
			if (fr != bf || py != bp) {
				ht_rep_buf_addn(&o, "*", 1);
				ht_dg_vlq_put(&o, fr);
			}
			if (py != bp) {
				ht_rep_buf_addn(&o, "*", 1);
				ht_dg_vlq_put(&o, py);
			}
		}
	}
	if (rep_rare(p)->nwarns > 0) {
		ht_rep_buf_addn(&o, "W", 1);
		ht_dg_vlq_put(&o, (int64_t)rep_rare(p)->nwarns);
		for (size_t i = 0; i < rep_rare(p)->nwarns; i++)
			str_put(&o, rep_rare(p)->warns[i], strlen(rep_rare(p)->warns[i]));
	}
	if (rep_rare(p)->chk != NULL) {
		ht_rep_buf_addn(&o, "H", 1);
		json_put(&o, checkfacts_value(w, rep_rare(p)->chk));
	}
	if (rep_rare(p)->blk != NULL) {
		ht_rep_buf_addn(&o, "K", 1);
		json_put(&o, buildlock_value(w, rep_rare(p)->blk));
	}
	/* The quoted lines, each whole or as it changes another: in the
	 * digest's last member, "x", at the record's place. */
	json_t *x = json_array();
	for (size_t i = 0; i < r->ntexts; i++)
		json_array_append_new(x, text_entry(b, r, i));
	json_array_append_new(xs, x);
	w->nwritten++;
	json_t *v = strn_value(o.s, o.n);
	ht_rep_buf_free(&o);
	return v;
}

/* v packed (digest.h: ht_dg_pack), its reference taken; NULL when it
 * cannot be. */
static json_t *packed(json_t *v)
{
	char *t = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_t *p = t != NULL ? ht_dg_pack(t, strlen(t)) : NULL;
	free(t);
	json_decref(v);
	return p;
}

/* Writes root, then the members "stacks", "procs" and "x", its members
 * "pat" and "xat" the places of "stacks" and "x": a reader parses the
 * members before the stacks, reads the stacks and the records where they
 * are, and parses no quoted line until one is quoted. */
static int write_doc(json_t *root, json_t *stacks, json_t *procs, json_t *xs, FILE *f)
{
	static const char head[] = "{\"digest\":\"" HT_DIGEST_FORMAT "\",\"xat\":0,\"pat\":0,";
	char *s = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);	/* (0, 0) */
	char *pt = json_dumps(procs, JSON_COMPACT), *st = json_dumps(stacks, JSON_COMPACT);
	json_t *xp = packed(json_incref(xs));
	char *xt = xp != NULL ? json_dumps(xp, JSON_COMPACT) : NULL;
	json_decref(xp);
	size_t len = s != NULL ? strlen(s) : 0, h = sizeof(head) - 1;
	size_t hx = h - sizeof(",\"pat\":0,") + 1;	/* (up to xat's 0) */
	int rc = s != NULL && pt != NULL && st != NULL && xt != NULL && len > h &&
			 memcmp(s, head, h) == 0 && s[len - 1] == '}' ? 0 : -1;
	size_t pat, xat;
	ht_dg_places(len, rc != 0 ? 0 : strlen(",\"stacks\":,\"procs\":") + strlen(st) + strlen(pt),
		     &pat, &xat);
	if (rc == 0 && (fwrite(s, 1, hx - 1, f) != hx - 1 || fprintf(f, "%zu,\"pat\":%zu", xat, pat) < 0 ||
			fwrite(s + h - 1, 1, len - h, f) != len - h ||
			fputs(",\"stacks\":", f) == EOF || fputs(st, f) == EOF ||
			fputs(",\"procs\":", f) == EOF || fputs(pt, f) == EOF ||
			fputs(",\"x\":", f) == EOF || fputs(xt, f) == EOF || fputs("}\n", f) == EOF))
		rc = -1;
	free(s);
	free(pt);
	free(st);
	free(xt);
	return rc;
}

int ht_rep_digest_write(struct rep_job *job, FILE *f)
{
	struct wctx w = { .job = job };
	json_t *root = json_object();
	json_object_set_new(root, "digest", json_string(HT_DIGEST_FORMAT));
	json_object_set_new(root, "xat", json_integer(0));	/* (write_doc) */
	json_object_set_new(root, "pat", json_integer(0));
	json_object_set_new(root, "version", json_string(HT_VERSION));
	json_t *files = json_array();
	for (size_t i = 0; i < job->nfiles; i++)
		json_array_append_new(files, str_value(job->files[i].name));
	json_object_set_new(root, "files", files);
	json_t *procs = json_array(), *xs = json_array();
	for (size_t i = 0; i < job->procs.n; i++)
		json_array_append_new(procs, proc_value(&w, job->procs.v[i], xs));
	if (job->nwarns > 0) {
		json_t *warns = json_array();
		for (size_t i = 0; i < job->nwarns; i++) {
			const struct rep_warning *x = &job->warns[i];
			json_array_append_new(warns, json_pack("[IIo]", (json_int_t)x->file,
							       (json_int_t)x->line, str_value(x->msg)));
		}
		json_object_set_new(root, "warnings", warns);
	}
	if (job->dg != NULL && job->dg->nunk > 0) {
		json_t *unk = json_array();
		for (size_t i = 0; i < job->dg->nunk; i++) {
			const struct rep_unknown *u = &job->dg->unk[i];
			json_array_append_new(unk, json_pack("[sIII]", u->type, (json_int_t)u->file,
							     (json_int_t)u->line, (json_int_t)u->count));
		}
		json_object_set_new(root, "unknown", unk);
	}
	if (job->warns_dropped > 0)
		json_object_set_new(root, "warnings_dropped",
				    json_integer((json_int_t)job->warns_dropped));
	json_t *stacks = ht_dg_pack(w.stacks.text.s != NULL ? w.stacks.text.s : "", w.stacks.text.n);
	int rc = stacks != NULL ? write_doc(root, stacks, procs, xs, f) : -1;
	json_decref(stacks);
	json_decref(root);
	json_decref(procs);
	json_decref(xs);
	for (size_t i = 0; i < BASES + 1; i++)
		wproc_clear(&w.ring[i], true);
	free(w.stacks.tab.slot);
	ht_rep_buf_free(&w.stacks.text);
	ht_rep_arena_free(&w.a);
	return rc == 0 ? 0 : -1;
}
