// SPDX-License-Identifier: MIT
/*
 * stacks.c: stacks of stalled ranks merged in the manner of LLNL STAT: the
 * main thread of every stalled rank, cleaned (frames of libhangtrace.so and
 * the signal trampoline our dump ran on dropped, Python frames spliced in
 * where the interpreter's own frames begin, offsets removed so ranks that
 * wait in the same function match, C++ names demangled), identical stacks
 * printed once with the ranks that share them, the odd one out first.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "model/ranges.h"
#include "model/stacks.h"

#define MAX_FRAMES 256
#define NAME_MAX_LEN 200

/* ---- one frame ---------------------------------------------------------------- */

/* The module of "function (module+0xoff)" as a pointer into f and its length. */
static const char *frame_module(const char *f, size_t *len)
{
	const char *open = strrchr(f, '(');
	if (open == NULL)
		return NULL;
	const char *m = open + 1;
	const char *end = m;
	while (*end != '\0' && *end != '+' && *end != ')')
		end++;
	*len = (size_t)(end - m);
	return m;
}

static bool module_is(const char *f, const char *prefix)
{
	size_t n;
	const char *m = frame_module(f, &n);
	size_t k = strlen(prefix);
	return m != NULL && n >= k && memcmp(m, prefix, k) == 0;
}

static bool is_ours(const char *f)
{
	return module_is(f, "libhangtrace.so");
}

static bool is_libc(const char *f)
{
	return module_is(f, "libc.so") || module_is(f, "libc-") || module_is(f, "libpthread");
}

static bool is_interpreter(const char *f)
{
	return module_is(f, "python") || module_is(f, "libpython");
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* __cxa_demangle from the C++ runtime, when one can be loaded. */
static demangle_fn demangler(void)
{
	static demangle_fn fn;
	static bool tried;
	if (!tried) {
		tried = true;
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (h != NULL)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	return fn;
}

/* "function (module+0x1f)" -> "function (module)", demangled; Python
 * frames "function (file.py:12)" are kept as they are. */
static const char *clean_frame(struct rep_arena *a, const char *f)
{
	const char *open = strrchr(f, '(');
	size_t fn_len = open != NULL && open > f ? (size_t)(open - f - 1) : strlen(f);
	size_t mlen = 0;
	const char *m = open != NULL ? frame_module(f, &mlen) : NULL;
	char *name = NULL;

	if (fn_len > 2 && f[0] == '_' && f[1] == 'Z') {
		demangle_fn d = demangler();
		char *mangled = strndup(f, fn_len);
		int status = -1;
		if (d != NULL && mangled != NULL)
			name = d(mangled, NULL, NULL, &status);
		free(mangled);
		if (status != 0) {
			free(name);
			name = NULL;
		}
	}
	const char *fn = name != NULL ? name : f;
	size_t fl = name != NULL ? strlen(name) : fn_len;
	const char *cut = fl > NAME_MAX_LEN ? "..." : "";
	if (fl > NAME_MAX_LEN)
		fl = rep_utf8_cut(fn, NAME_MAX_LEN);
	const char *r;
	if (m != NULL && strchr(open, '+') != NULL)
		r = ht_rep_printf(a, "%.*s%s (%.*s)", (int)fl, fn, cut, (int)mlen, m);
	else if (name != NULL || *cut != '\0')
		r = ht_rep_printf(a, "%.*s%s%s", (int)fl, fn, cut,
				  open != NULL && open > f ? open - 1 : "");
	else
		r = ht_rep_strdup(a, f);
	free(name);
	return r;
}

size_t ht_rep_clean_frames(struct rep_job *job, const char *const *native, size_t nn,
			   const char *const *python, size_t np, const char **out, size_t max)
{
	size_t k = 0, start = 0;

	/* Our own frames, and the libc frames above the signal trampoline the
	 * dump ran on, are not the application's. */
	for (size_t i = 0; i < nn && i < 16; i++) {
		if (strncmp(native[i], "__restore_rt", 12) == 0) {
			bool above = true;
			for (size_t j = 0; j < i; j++)
				above &= is_ours(native[j]) || is_libc(native[j]);
			if (above)
				start = i + 1;
			break;
		}
	}
	for (size_t i = start; i < nn && k < max; i++) {
		if (is_ours(native[i]))
			continue;
		if (np > 0 && is_interpreter(native[i]))
			break;	/* from here on the Python frames say it better */
		out[k++] = clean_frame(&job->a, native[i]);
	}
	for (size_t i = 0; i < np && k < max; i++)
		out[k++] = python[i];
	return k;
}

static bool is_python_frame(const char *f)
{
	const char *open = strrchr(f, '(');
	return open != NULL && strstr(open, ".py:") != NULL;
}

const char *ht_rep_top_frame(const struct rep_group *g)
{
	for (size_t i = 0; i < g->nframes; i++)
		if (is_python_frame(g->frames[i]))
			return g->frames[i];
	for (size_t i = 0; i < g->nframes; i++)
		if (!is_libc(g->frames[i]) && !module_is(g->frames[i], "ld-linux") &&
		    !module_is(g->frames[i], "linux-vdso"))
			return g->frames[i];
	return g->nframes > 0 ? g->frames[0] : "(no frames)";
}

/* A Python frame of the job's own code: not an installed package, not
 * the standard library, not the import machinery. */
static bool is_own_python(const char *f)
{
	static const char *const lib[] = { "/site-packages/", "/dist-packages/", "/lib/python",
					   "<frozen ", "<string>" };
	if (!is_python_frame(f))
		return false;
	for (size_t i = 0; i < sizeof(lib) / sizeof(lib[0]); i++)
		if (strstr(strrchr(f, '('), lib[i]) != NULL)
			return false;
	return true;
}

const char *ht_rep_own_frame(const struct rep_group *g)
{
	for (size_t i = 0; i < g->nframes; i++)
		if (is_own_python(g->frames[i]))
			return g->frames[i];
	return ht_rep_top_frame(g);
}

const char *ht_rep_dump_top_frame(struct rep_job *job, const struct rep_dump *d)
{
	if (d == NULL)
		return NULL;
	const struct rep_dstack *st = rep_dst(d);
	if (st->npy > 0)
		return st->py[0];
	for (uint32_t i = 0; i < st->nframes; i++) {
		const char *f = st->frames[i];
		if (!is_ours(f) && !is_libc(f) && !module_is(f, "ld-linux") &&
		    !module_is(f, "linux-vdso") && strncmp(f, "__restore_rt", 12) != 0)
			return clean_frame(&job->a, f);
	}
	return NULL;
}

/* ---- interning and grouping ------------------------------------------------------ */

struct table {
	void **slot;
	size_t cap, n;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static void table_grow(struct table *t, uint64_t (*hash)(const void *))
{
	size_t cap = t->cap != 0 ? t->cap * 2 : 1024;
	void **s = calloc(cap, sizeof(*s));
	if (s == NULL)
		abort();
	for (size_t i = 0; i < t->cap; i++) {
		if (t->slot[i] == NULL)
			continue;
		size_t k = hash(t->slot[i]) & (cap - 1);
		while (s[k] != NULL)
			k = (k + 1) & (cap - 1);
		s[k] = t->slot[i];
	}
	free(t->slot);
	t->slot = s;
	t->cap = cap;
}

static uint64_t hash_str_v(const void *p) { return hash_str(p); }

static const char *intern(struct table *t, struct rep_arena *a, const char *s)
{
	if ((t->n + 1) * 2 > t->cap)
		table_grow(t, hash_str_v);
	size_t k = hash_str(s) & (t->cap - 1);
	while (t->slot[k] != NULL) {
		if (strcmp(t->slot[k], s) == 0)
			return t->slot[k];
		k = (k + 1) & (t->cap - 1);
	}
	t->slot[k] = ht_rep_strdup(a, s);
	t->n++;
	return t->slot[k];
}

static uint64_t hash_stack(const char *const *f, size_t n)
{
	uint64_t h = 0x84222325cbf29ce4ull ^ n;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint64_t)(uintptr_t)f[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t hash_group(const void *p)
{
	const struct rep_group *g = p;
	return hash_stack(g->frames, g->nframes);
}

static struct rep_group *find_group(struct table *t, struct rep_job *job, const char **f,
				    size_t n)
{
	if ((t->n + 1) * 2 > t->cap)
		table_grow(t, hash_group);
	size_t k = hash_stack(f, n) & (t->cap - 1);
	while (t->slot[k] != NULL) {
		struct rep_group *g = t->slot[k];
		if (g->nframes == n && memcmp(g->frames, f, n * sizeof(*f)) == 0)
			return g;
		k = (k + 1) & (t->cap - 1);
	}
	struct rep_group *g = ht_rep_alloc(&job->a, sizeof(*g));
	g->frames = ht_rep_alloc(&job->a, (n + 1) * sizeof(*f));
	memcpy(g->frames, f, n * sizeof(*f));
	g->nframes = n;
	g->phase = -1;
	g->work = -1;
	g->min_rank = INT64_MAX;
	t->slot[k] = g;
	t->n++;
	return g;
}

/* The group of a dump's frames, by the frames' arrays: the reader keeps
 * one copy of a thread line's frames for every rank that shares them
 * (read/dumps.c), so most ranks find their group here without cleaning,
 * demangling and interning the same frames again. */
#define MEMO_SLOTS 1024

struct memo {
	const char **frames, **py;
	size_t nframes, npy;
	struct rep_group *g;
};

static struct memo *memo_slot(struct memo *m, const struct rep_dump *d)
{
	const struct rep_dstack *st = rep_dst(d);
	uint64_t h = ((uint64_t)(uintptr_t)st->frames * 0x9e3779b97f4a7c15ull) ^
		     ((uint64_t)(uintptr_t)st->py * 0xc2b2ae3d27d4eb4full) ^ st->nframes ^
		     (st->npy << 16);
	return &m[(h ^ (h >> 31)) & (MEMO_SLOTS - 1)];
}

static void add_proc(struct rep_job *job, struct table *frames, struct table *groups,
		     struct memo *memo, struct rep_proc *p)
{
	const char *raw[MAX_FRAMES];
	const struct rep_dump *d = p->last_dump;

	if (d == NULL || !d->have_main)
		return;
	struct memo *m = memo_slot(memo, d);
	const struct rep_dstack *st = rep_dst(d);
	struct rep_group *g = m->g;
	if (g == NULL || m->frames != st->frames ||
	    m->py != st->py || m->nframes != st->nframes || m->npy != st->npy) {
		size_t n = ht_rep_clean_frames(job, st->frames, st->nframes, st->py, st->npy, raw,
					       MAX_FRAMES);
		for (size_t i = 0; i < n; i++)
			raw[i] = intern(frames, &job->a, raw[i]);
		g = find_group(groups, job, raw, n);
		*m = (struct memo){ st->frames, st->py,
				    st->nframes, st->npy, g };
	}
	ht_rep_vec_push(&g->procs, p);
	p->group = g;
}

static int cmp_proc_rank(const void *a, const void *b)
{
	const struct rep_proc *x = *(struct rep_proc *const *)a, *y = *(struct rep_proc *const *)b;
	int64_t rx = x->rank == REP_UNKNOWN || !x->is_main ? INT64_MAX : x->rank;
	int64_t ry = y->rank == REP_UNKNOWN || !y->is_main ? INT64_MAX : y->rank;
	return rx < ry ? -1 : rx > ry;
}

static void finish_group(struct rep_job *job, struct rep_group *g, bool ranked)
{
	size_t nb = 0, nw = 0;
	int counts[HT_PHASE_COUNT] = { 0 };

	rep_sort(g->procs.v, g->procs.n, sizeof(void *), cmp_proc_rank);
	g->ranks = ht_rep_alloc(&job->a, (g->procs.n + 1) * sizeof(*g->ranks));
	for (size_t i = 0; i < g->procs.n; i++) {
		struct rep_proc *p = g->procs.v[i];
		if (ranked && p->rank != REP_UNKNOWN)
			g->ranks[g->nranks++] = p->rank;
		if (p->cur_phase >= 0)
			counts[p->cur_phase]++;
		nb += p->work == 0;
		nw += p->work == 1;
	}
	g->nranks = ht_rep_ranks_sort(g->ranks, g->nranks);
	g->min_rank = g->nranks > 0 ? g->ranks[0] : INT64_MAX;
	for (int i = 0; i < HT_PHASE_COUNT; i++)
		if (counts[i] > 0 && (g->phase < 0 || counts[i] > counts[g->phase]))
			g->phase = i;
	if (nb + nw > 0) {
		g->work = nw > nb ? 1 : 0;
		for (size_t i = 0; i < g->procs.n; i++) {
			struct rep_proc *p = g->procs.v[i];
			if (p->work == g->work) {
				g->work_why = ht_rep_work_why(job, p);
				break;
			}
		}
	} else if (g->procs.n > 0) {
		g->work_why = ht_rep_work_why(job, g->procs.v[0]);
	}
}

static int cmp_group(const void *a, const void *b)
{
	const struct rep_group *x = *(struct rep_group *const *)a, *y = *(struct rep_group *const *)b;
	if (x->procs.n != y->procs.n)
		return x->procs.n < y->procs.n ? -1 : 1;
	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	return x->min_rank < y->min_rank ? -1 : x->min_rank > y->min_rank;
}

static void stacks_sort(struct rep_job *job)
{
	rep_sort(job->groups, job->ngroups, sizeof(*job->groups), cmp_group);
	for (size_t i = 0; i < job->ngroups; i++)
		job->groups[i]->index = i;
}

void ht_rep_stacks(struct rep_job *job)
{
	struct table frames = { 0 }, groups = { 0 };
	struct rep_vec *lists[2] = { &job->mains, &job->unranked };
	struct memo *memo = calloc(MEMO_SLOTS, sizeof(*memo));

	if (memo == NULL)
		abort();
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			struct rep_proc *p = lists[l]->v[i];
			REP_AHEAD_P(lists[l]->v, lists[l]->n, i, stalled);
			REP_AHEAD_P(lists[l]->v, lists[l]->n, i, last_dump);
			REP_AHEAD_IN(lists[l]->v, lists[l]->n, i, last_dump);
			if (p->stalled)
				add_proc(job, &frames, &groups, memo, p);
		}
	free(memo);
	job->groups = calloc(groups.n + 1, sizeof(*job->groups));
	if (job->groups == NULL)
		abort();
	for (size_t i = 0; i < groups.cap; i++)
		if (groups.slot[i] != NULL)
			job->groups[job->ngroups++] = groups.slot[i];
	for (size_t i = 0; i < job->ngroups; i++)
		finish_group(job, job->groups[i], true);
	free(frames.slot);
	free(groups.slot);
	stacks_sort(job);
}

/* ---- more mains, after the stalled ones (the ranks the rules blame) ------------------------------------------------------ */

static void table_put(struct table *t, void *v, uint64_t (*hash)(const void *))
{
	if ((t->n + 1) * 2 > t->cap)
		table_grow(t, hash);
	size_t k = hash(v) & (t->cap - 1);
	while (t->slot[k] != NULL) {
		if (t->slot[k] == v)
			return;
		k = (k + 1) & (t->cap - 1);
	}
	t->slot[k] = v;
	t->n++;
}

/* A main to add: in no group yet, and its latest dump has the main
 * thread's stack. */
static bool may_add(const struct rep_proc *p)
{
	return p != NULL && p->group == NULL && p->last_dump != NULL && p->last_dump->have_main;
}

/* A rank added that was not stalled: the library found it working at its
 * latest look (what it does, when its stack signature says). */
static void added_work(struct rep_job *job, struct rep_proc *p)
{
	if (p->work >= 0 || !p->slow)
		return;
	p->work = 1;
	p->work_why = p->doing != NULL ?
		ht_rep_printf(&job->a, "working: %s, moving at the library's latest look", p->doing) :
		"working: moving at the library's latest look past its deadline";
}

void ht_rep_stacks_add(struct rep_job *job, struct rep_proc *const *procs, size_t n)
{
	struct table frames = { 0 }, groups = { 0 };
	struct rep_vec added = { 0 };
	struct memo *memo = NULL;

	{
		for (size_t i = 0; i < n; i++) {
			struct rep_proc *p = procs[i];
			if (!may_add(p))
				continue;
			if (memo == NULL) {
				/* The groups so far, and their interned frames. */
				memo = calloc(MEMO_SLOTS, sizeof(*memo));
				if (memo == NULL)
					abort();
				for (size_t g = 0; g < job->ngroups; g++) {
					struct rep_group *e = job->groups[g];
					for (size_t k = 0; k < e->nframes; k++)
						table_put(&frames, (void *)e->frames[k], hash_str_v);
					table_put(&groups, e, hash_group);
				}
			}
			added_work(job, p);
			add_proc(job, &frames, &groups, memo, p);
			ht_rep_vec_push(&added, p->group);
		}
	}
	free(memo);
	if (added.n == 0) {
		free(frames.slot);
		free(groups.slot);
		return;
	}
	struct rep_group **all = realloc(job->groups, (groups.n + 1) * sizeof(*all));
	if (all == NULL)
		abort();
	job->groups = all;
	job->ngroups = 0;
	for (size_t i = 0; i < groups.cap; i++)
		if (groups.slot[i] != NULL)
			job->groups[job->ngroups++] = groups.slot[i];
	/* The groups that gained a rank are summed up again. */
	for (size_t i = 0; i < added.n; i++) {
		struct rep_group *g = added.v[i];
		if (g->min_rank == INT64_MIN)
			continue;
		g->nranks = 0;
		g->phase = -1;
		g->work = -1;
		g->work_why = NULL;
		g->min_rank = INT64_MIN;	/* marks it done */
	}
	for (size_t i = 0; i < added.n; i++) {
		struct rep_group *g = added.v[i];
		if (g->min_rank == INT64_MIN)
			finish_group(job, g, true);
	}
	ht_rep_vec_free(&added);
	free(frames.slot);
	free(groups.slot);
	stacks_sort(job);
}

void ht_rep_stacks_free(struct rep_job *job)
{
	for (size_t i = 0; i < job->ngroups; i++)
		ht_rep_vec_free(&job->groups[i]->procs);
	free(job->groups);
	job->groups = NULL;
	job->ngroups = 0;
}
