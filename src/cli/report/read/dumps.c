// SPDX-License-Identifier: MIT
/*
 * dumps.c: the dump lines (thread, dump_end), the bulk of a stalled job's
 * traces. The reader only notes where they are; when a process record
 * closes, the lines that matter are parsed here: the main thread's line
 * and dump_end of the current episode's first and latest dumps (whether
 * the process works or is blocked), and the latest dump's collective ring.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

#define MAX_FRAMES 256

/* ---- the lazily parsed dump lines ----------------------------------------------- */

/* FNV-1a over a frame without its "+0x..." offset. */
static uint64_t hash_frame(uint64_t h, const char *s)
{
	const char *plus = strstr(s, "+0x");
	for (const char *q = s; *q != '\0'; q++) {
		if (q == plus) {
			while (*q != '\0' && *q != ')')
				q++;
			if (*q == '\0')
				break;
		}
		h = (h ^ (unsigned char)*q) * 0x100000001b3ull;
	}
	return (h ^ 0xff) * 0x100000001b3ull;
}

static uint32_t frames_of(struct rep_rctx *c, json_t *arr, uint64_t *h, const char ***out,
			  bool keep)
{
	size_t i, n = json_array_size(arr);
	json_t *v;

	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	if (keep && n > 0)
		*out = ht_rep_alloc(&c->a, n * sizeof(**out));
	uint32_t k = 0;
	json_array_foreach(arr, i, v) {
		const char *s = json_string_value(v);
		if (s == NULL || k >= n)
			continue;
		*h = hash_frame(*h, s);
		if (keep)
			(*out)[k] = ht_rep_strndup(&c->a, s, json_string_length(v));
		k++;
	}
	return k;
}

/* ---- thread lines ------------------------------------------------------------------
 *
 * A dump writes one thread line per thread, and a job of thousands of
 * ranks waiting in one place writes the same frames thousands of times.
 * A main thread's line is therefore cut where its "frames" member begins
 * (the first `,"frames":[` of the line: an unescaped quote cannot occur
 * inside a JSON string, so the sequence is the member itself): the short
 * head (dump, tid, state, cpu...) is parsed each time, the tail (frames,
 * python, wchan...) once per distinct text and then looked up. Both halves
 * are parsed by jansson as objects of their own; anything unexpected falls
 * back to parsing the whole line.
 */

#define MAX_HEAD 4096
#define MAX_TAILS 65536

/* The frames part of a thread line, "frames":[...]...} (n bytes). */
static struct rep_tail *tail_of(struct rep_rctx *c, const char *s, size_t n)
{
	struct rep_ttab *t = &c->cache;
	uint64_t h = ht_rep_hash(s, n);
	if (t->cap != 0) {
		struct rep_tkey *k = *ht_rep__ttab_slot(t, s, n, h);
		if (k != NULL)
			return (struct rep_tail *)k;	/* its first member */
	}
	char *obj = malloc(n + 1);
	if (obj == NULL)
		return NULL;
	obj[0] = '{';
	memcpy(obj + 1, s, n);
	json_t *o = json_loadb(obj, n + 1, 0, NULL);
	free(obj);
	if (!json_is_object(o)) {
		json_decref(o);
		return NULL;
	}
	struct rep_tail *x = ht_rep_alloc(&c->a, sizeof(*x));
	uint64_t sh = 0xcbf29ce484222325ull;
	json_t *fr = json_object_get(o, "frames");
	json_t *py = json_object_get(o, "python");
	x->st.nframes = json_is_array(fr) ? frames_of(c, fr, &sh, &x->st.frames, true) : 0;
	x->st.npy = json_is_array(py) ? frames_of(c, py, &sh, &x->st.py, true) : 0;
	x->st.stack_hash = sh;
	x->st.wchan = ht_rep__str(&c->a, o, "wchan");
	x->st.syscall = ht_rep__str(&c->a, o, "syscall");
	json_decref(o);
	if (t->n < MAX_TAILS && ((t->n + 1) * 2 <= t->cap || ht_rep__ttab_grow(t, 256))) {
		x->key = (struct rep_tkey){ ht_rep_strndup(&c->a, s, n), (uint32_t)n, h };
		*ht_rep__ttab_slot(t, s, n, h) = &x->key;
		t->n++;
	}
	return x;
}

/* Head fields of a thread line into d; false when it is not p's main thread. */
/* The thread line's members read (o), of type t. */
static bool thread_head(struct rep_proc *p, struct rep_dump *d, json_t *o, const char *t)
{
	int main = ht_rep__bool(o, "main");
	if (t == NULL || strcmp(t, "thread") != 0 ||
	    (main == 0 || (main < 0 && ht_rep__int(o, "tid") != p->pid)))
		return false;
	d->have_main = true;
	d->cpu = ht_rep__num(o, "cpu");
	d->answered = ht_rep__bool(o, "answered") != 0;
	const char *st = json_string_value(json_object_get(o, "state"));
	d->state = st != NULL ? st[0] : '?';
	return true;
}

/* The head of a thread line (n bytes) into buf, without its times: the
 * library writes {"t":"thread","ts":A,"mono":B,"dump":... and the stage
 * reads neither A nor B (a dump's time is its stall line's). They are
 * left out only when both are plain numbers' characters; else the head
 * is copied whole. Returns the length in buf. */
static size_t skip_times(const char *s, size_t n, char *buf)
{
	static const char pre[] = "{\"t\":\"thread\",\"ts\":", mono[] = ",\"mono\":";
	size_t k = sizeof(pre) - 1, m = 0;
	if (n > k && memcmp(s, pre, k) == 0) {
		const char *e = s + k, *end = s + n;
		for (int field = 0; field < 2 && e < end; field++) {
			const char *v = e;
			while (e < end && ((*e >= '0' && *e <= '9') || *e == '.' || *e == '-' ||
					   *e == '+' || *e == 'e' || *e == 'E'))
				e++;
			if (e == v)
				break;
			if (field == 0) {
				if ((size_t)(end - e) < sizeof(mono) - 1 ||
				    memcmp(e, mono, sizeof(mono) - 1) != 0)
					break;
				e += sizeof(mono) - 1;
			} else if (e < end && *e == ',') {
				m = (size_t)(e - s);	/* the comma of the member after mono */
			}
		}
	}
	if (m == 0) {
		memcpy(buf, s, n);
		return n;
	}
	static const char t[] = "{\"t\":\"thread\"";
	memcpy(buf, t, sizeof(t) - 1);
	memcpy(buf + sizeof(t) - 1, s + m, n - m);
	return sizeof(t) - 1 + n - m;
}

static void parse_main(struct rep_rctx *c, struct rep_proc *p, struct rep_dump *d)
{
	const struct rep_loc *l = &d->main_loc;
	size_t len;
	const char *s = ht_rep__line_at(c, l, &len);
	if (s == NULL)
		return;
	const char *cut = memmem(s, len, ",\"frames\":[", 11);
	if (cut != NULL && (size_t)(cut - s) < MAX_HEAD) {
		static const char t[] = "{\"t\":\"thread\",";
		char head[MAX_HEAD + 2];
		size_t hn = skip_times(s, (size_t)(cut - s), head);
		head[hn] = '}';
		/* Its members after the times, the repeated ones parsed once. */
		json_t *o = hn < (size_t)(cut - s) ?
			    ht_rep__members_parse(c, head + sizeof(t) - 1, hn + 2 - sizeof(t),
						  REP_MEMBERS_NO_TID) :
			    json_loadb(head, hn + 1, 0, NULL);
		if (json_is_object(o)) {
			const char *type = json_string_value(json_object_get(o, "t"));
			bool ok = thread_head(p, d, o, hn < (size_t)(cut - s) ? "thread" : type);
			json_decref(o);
			if (!ok)
				return;
			struct rep_tail *x = tail_of(c, cut + 1, len - (size_t)(cut + 1 - s));
			if (x != NULL) {
				d->st = &x->st;	/* (kept in c->a, for the dumps of its text) */
				return;
			}
		} else {
			json_decref(o);
		}
	}
	/* The whole line, the slow way. */
	json_t *o = ht_rep__parse_at(c, l);
	if (o == NULL || !thread_head(p, d, o, json_string_value(json_object_get(o, "t")))) {
		json_decref(o);
		return;
	}
	struct rep_dstack x = { 0 };
	uint64_t sh = 0xcbf29ce484222325ull;
	json_t *fr = json_object_get(o, "frames");
	json_t *py = json_object_get(o, "python");
	x.nframes = json_is_array(fr) ? frames_of(c, fr, &sh, &x.frames, true) : 0;
	x.npy = json_is_array(py) ? frames_of(c, py, &sh, &x.py, true) : 0;
	x.stack_hash = sh;
	x.wchan = ht_rep__str(&c->a, o, "wchan");
	x.syscall = ht_rep__str(&c->a, o, "syscall");
	d->st = ht_rep_dst_share(&c->a, &c->dsts, &x);
	json_decref(o);
}

static void parse_end(struct rep_rctx *c, struct rep_proc *p, struct rep_dump *d, bool last)
{
	const struct rep_loc *l = &d->end_loc;
	json_t *o = NULL, *whole = NULL, *own = NULL;
	struct rep_head hd;
	size_t len;
	const char *s = ht_rep__line_at(c, l, &len);
	if (s != NULL)
		o = ht_rep__split_parse(c, s, len, &hd, &own);
	if (o == NULL)
		o = whole = ht_rep__parse_at(c, l);
	if (o == NULL)
		return;
	json_t *io = json_object_get(o, "io");
	int64_t r = ht_rep__int(io, "rchar"), w = ht_rep__int(io, "wchar");
	if (r != REP_UNKNOWN && w != REP_UNKNOWN)
		d->io = r + w;
	int64_t un = ht_rep__int(o, "unanswered");
	d->unanswered = un > 0 ? (uint32_t)un : 0;
	if (last) {
		const char *py_status = ht_rep__str(&c->a, o, "python");
		if (py_status != NULL) {
			struct rep_dstack v = *rep_dst(d);
			v.py_status = py_status;
			d->st = ht_rep_dst_share(&c->a, &c->dsts, &v);
		}
		p->colls_total = ht_rep__int(o, "collectives_total");
		json_t *ring = json_object_get(o, "collectives");
		size_t n = json_array_size(ring);
		size_t from = n > REP_MAX_RING ? n - REP_MAX_RING : 0;
		if (n > from) {
			p->ring = ht_rep_alloc(&c->a, (n - from) * sizeof(*p->ring));
			for (size_t i = from; i < n; i++) {
				json_t *e = json_array_get(ring, i);
				if (json_is_object(e))
					ht_rep__coll_fields(&c->a, e, &p->ring[p->nring++]);
			}
		}
	}
	json_decref(whole);
	json_decref(own);
}

/* The main thread's native frames were taken (it answered the dump). */
static bool unwound(const struct rep_dump *d)
{
	return d->have_main && d->answered && rep_dst(d)->nframes > 0;
}

static bool same_python(const struct rep_dump *a, const struct rep_dump *b)
{
	const struct rep_dstack *x = rep_dst(a), *y = rep_dst(b);
	if (x->npy == 0 || x->npy != y->npy)
		return false;
	for (uint32_t k = 0; k < x->npy; k++)
		if (strcmp(x->py[k], y->py[k]) != 0)
			return false;
	return true;
}

/*
 * A main thread that did not answer a dump (a family spared it from the
 * signal, or it did not answer in time on a loaded host) has its Python
 * frames and no native ones. When its Python frames are those of another
 * dump of the episode that did unwind it, it was where that dump saw it
 * (a spinning MPI_Barrier under one Python line): it takes those native
 * frames, so that neither its place nor "working: its stack changed" rests
 * on frames that were never taken. Otherwise it keeps what it has.
 */
static void fill_unanswered(struct rep_rctx *c, struct rep_proc *p, size_t first, size_t last)
{
	struct rep_dump *f = &p->dumps[first], *l = &p->dumps[last];
	bool fu = f->have_main && !unwound(f), lu = l->have_main && !unwound(l);
	if (first == last || (!fu && !lu))
		return;
	for (size_t i = first + 1; i < last; i++) {
		struct rep_dump *d = &p->dumps[i];
		if (d->epoch == p->epoch && rep_has_loc(&d->main_loc)) {
			size_t mark = ht_rep__scratch_mark();
			parse_main(c, p, d);
			ht_rep__scratch_release(mark);
		}
	}
	struct rep_dump *want[2] = { fu ? f : NULL, lu ? l : NULL };
	for (int w = 0; w < 2; w++) {
		struct rep_dump *u = want[w];
		if (u == NULL)
			continue;
		/* The nearest unwound dump of the episode, first looking back. */
		size_t at = (size_t)(u - p->dumps);
		struct rep_dump *src = NULL;
		for (size_t i = at; i-- > first && src == NULL;)
			if (p->dumps[i].epoch == p->epoch && unwound(&p->dumps[i]))
				src = &p->dumps[i];
		for (size_t i = at + 1; i <= last && src == NULL; i++)
			if (p->dumps[i].epoch == p->epoch && unwound(&p->dumps[i]))
				src = &p->dumps[i];
		if (src != NULL && same_python(u, src)) {
			struct rep_dstack v = *rep_dst(u);
			v.frames = rep_dst(src)->frames;
			v.nframes = rep_dst(src)->nframes;
			v.stack_hash = rep_dst(src)->stack_hash;
			u->st = ht_rep_dst_share(&c->a, &c->dsts, &v);
			u->frames_of = src->no;
		}
	}
}

void ht_rep__proc_end(struct rep_rctx *c)
{
	struct rep_proc *p = c->p;

	if (p == NULL)
		return;
	/* The last dump is the last whole one: a dump cut short (the process
	 * ended in it, or says it was cut) is dropped when one before it is. */
	while (p->ndumps > 1 && (!rep_has_loc(&p->dumps[p->ndumps - 1].end_loc) ||
				 p->dumps[p->ndumps - 1].cut))
		p->ndumps--;
	/* Only the dumps after the last phase transition (the current
	 * episode) say whether the process is stalled and whether it works:
	 * its first and its latest dump are compared. */
	size_t mark = ht_rep__scratch_mark();
	size_t first = p->ndumps;
	for (size_t i = 0; i < p->ndumps; i++)
		if (p->dumps[i].epoch == p->epoch) {
			first = i;
			break;
		}
	for (size_t i = 0; i < p->ndumps; i++) {
		struct rep_dump *d = &p->dumps[i];
		bool last = i + 1 == p->ndumps;
		if (i != first && !last)
			continue;
		if (rep_has_loc(&d->main_loc))
			parse_main(c, p, d);
		ht_rep__scratch_release(mark);
		if (rep_has_loc(&d->end_loc))
			parse_end(c, p, d, last);
		ht_rep__scratch_release(mark);
	}
	if (first < p->ndumps)
		fill_unanswered(c, p, first, p->ndumps - 1);
	c->p = NULL;
	c->open_dump = -1;
}
