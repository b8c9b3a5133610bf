// SPDX-License-Identifier: MIT
/*
 * mains.c: each rank's main process (SPEC section 4), for model.c: the
 * launcher kind that numbers the job's ranks, the one process per rank and
 * host that is the rank (the one that made CUDA or NCCL calls, else the
 * deepest holding the identity that lives on; restarts told from
 * duplicates by time), and every other process placed under it as a
 * wrapper, helper or child.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/mains.h"
#include "model/model.h"

/* ---- ranks ----------------------------------------------------------------------- */

static const char *const kind_order[] = { "hangtrace", "torchrun", "env", "openmpi",
					  "pmix", "pmi", "slurm", "unknown" };

static int kind_rank(const char *k)
{
	for (size_t i = 0; i < REP_ARRAY_SIZE(kind_order); i++)
		if (strcmp(kind_order[i], k) == 0)
			return (int)i;
	return (int)REP_ARRAY_SIZE(kind_order);
}

bool ht_rep__real_kind(const struct rep_proc *p)
{
	return rep_id(p)->id_kind != NULL && strcmp(rep_id(p)->id_kind, "nccl") != 0;
}

void ht_rep__pick_kind(struct rep_job *job)
{
	struct { const char *k; size_t gpu, all; } t[16];
	size_t nt = 0;

	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *p = job->procs.v[i];
		REP_AHEAD_P(job->procs.v, job->procs.n, i, outer);
		REP_AHEAD_P(job->procs.v, job->procs.n, i, id);
		if (p->outer || !ht_rep__real_kind(p))
			continue;
		size_t j = 0;
		while (j < nt && strcmp(t[j].k, rep_id(p)->id_kind) != 0)
			j++;
		if (j == nt) {
			if (nt == REP_ARRAY_SIZE(t))
				continue;
			t[nt++] = (typeof(t[0])){ rep_id(p)->id_kind, 0, 0 };
		}
		t[j].all++;
		t[j].gpu += p->gpu;
	}
	const char *best = NULL;
	size_t bg = 0, ba = 0;
	for (size_t j = 0; j < nt; j++)
		if (best == NULL || t[j].gpu > bg || (t[j].gpu == bg && t[j].all > ba) ||
		    (t[j].gpu == bg && t[j].all == ba && kind_rank(t[j].k) < kind_rank(best))) {
			best = t[j].k;
			bg = t[j].gpu;
			ba = t[j].all;
		}
	job->kind = best != NULL ? best : "nccl";
}

bool ht_rep__in_numbering(const struct rep_job *job, const struct rep_proc *p)
{
	return p->rank != REP_UNKNOWN && !p->outer && rep_id(p)->id_kind != NULL &&
	       (strcmp(rep_id(p)->id_kind, "nccl") == 0 || strcmp(rep_id(p)->id_kind, job->kind) == 0);
}

/* The topmost ancestor of p that still holds p's rank in the numbering. */
static struct rep_proc *tree_top(const struct rep_job *job, struct rep_proc *p)
{
	struct rep_proc *t = p;
	while (t->parent != NULL && ht_rep__in_numbering(job, t->parent) && t->parent->rank == p->rank)
		t = t->parent;
	return t;
}

static int main_score(const struct rep_proc *p)
{
	if (p->gpu)
		return ht_rep__fork_worker(p) ? 2 : 3;
	return ht_rep__fork_worker(p) ? 0 : 1;
}

/* A helper of anc: a process below it (a `which`, a compiler, a probe
 * subprocess holding the rank's identity) that ended while anc went on
 * writing lines for more than a second after: never the rank's main, and
 * its exit status is not the rank's (SPEC section 4). */
static bool helper_of(const struct rep_proc *p, const struct rep_proc *anc)
{
	if (p->end == REP_RUNNING || !isfinite(ht_rep_end_time(p)))
		return false;
	bool below = false;
	for (const struct rep_proc *q = p->parent; q != NULL && !below; q = q->parent)
		below = q == anc;
	return below && anc->last_ev_ts > ht_rep_end_time(p) + 1.0;
}

/* Better main of one rank's tree: see SPEC section 4. */
static bool better_main(const struct rep_proc *a, const struct rep_proc *b)
{
	if (helper_of(a, b))
		return false;
	if (helper_of(b, a))
		return true;
	int sa = main_score(a), sb = main_score(b);
	if (sa != sb)
		return sa > sb;
	if (sa >= 2 && a->cur_phase != b->cur_phase)
		return a->cur_phase > b->cur_phase;
	/* A helper still running (ninja or a compiler that extension loading
	 * runs, tests/dataloader/buildlock.sh) is deeper than the rank but
	 * has not left launch: the one further on is the rank. */
	if (sa < 2 && a->cur_phase != b->cur_phase &&
	    (a->cur_phase > HT_PHASE_LAUNCH || b->cur_phase > HT_PHASE_LAUNCH))
		return a->cur_phase > b->cur_phase;
	if (sa < 2 && a->depth != b->depth)
		return a->depth > b->depth;
	return a->ts0 > b->ts0;
}

/* (its rank copied: a sort of a million compares ranks without reading
 * the records) */
struct cand {
	int64_t rank;
	struct rep_proc *p, *top;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	int c = rep_id(x->p)->host == rep_id(y->p)->host ? 0 : strcmp(rep_id(x->p)->host, rep_id(y->p)->host);
	if (c != 0)
		return c;
	if (x->top != y->top)
		return x->top->ts0 < y->top->ts0 ? -1 : x->top->ts0 > y->top->ts0 ? 1 :
		       x->top < y->top ? -1 : 1;
	return 0;
}

int ht_rep__cmp_main(const void *a, const void *b)
{
	const struct rep_proc *x = *(struct rep_proc *const *)a, *y = *(struct rep_proc *const *)b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->ts0 < y->ts0 ? -1 : x->ts0 > y->ts0;
}

double ht_rep_end_time(const struct rep_proc *p)
{
	return p->have_exit ? p->exit_ts : p->end == REP_VANISHED ? p->last_ts : INFINITY;
}


void ht_rep__choose_mains(struct rep_job *job)
{
	size_t n = 0;
	struct cand *c = calloc(job->procs.n + 1, sizeof(*c));
	if (c == NULL)
		abort();
	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *p = job->procs.v[i];
		REP_AHEAD_P(job->procs.v, job->procs.n, i, rank);
		REP_AHEAD_P(job->procs.v, job->procs.n, i, outer);
		REP_AHEAD_P(job->procs.v, job->procs.n, i, id);
		REP_AHEAD_P(job->procs.v, job->procs.n, i, parent);
		if (ht_rep__in_numbering(job, p))
			c[n++] = (struct cand){ p->rank, p, tree_top(job, p) };
		else if (p->rank != REP_UNKNOWN && !p->outer)
			ht_rep_vec_push(&job->others, p);
	}
	rep_sort(c, n, sizeof(*c), cmp_cand);
	struct rep_vec mains = { 0 };
	for (size_t i = 0; i < n;) {
		size_t j = i;
		struct rep_proc *best = c[i].p;
		if (i + REP_AHEAD < n)
			__builtin_prefetch(&c[i + REP_AHEAD].p->is_main);
		while (j < n && cmp_cand(&c[i], &c[j]) == 0) {
			if (better_main(c[j].p, best))
				best = c[j].p;
			j++;
		}
		best->is_main = true;
		for (size_t k = i; k < j; k++)
			if (c[k].p != best)
				c[k].p->main = best;
		ht_rep_vec_push(&mains, best);
		i = j;
	}
	free(c);
	/* One rank, several trees: a restart when one ended before the next
	 * began, else duplicates. Across hosts (or boots) by wall clocks, so
	 * only roughly (1 s); on one host exactly: a process that ended a
	 * moment after another of its rank began ran beside it. */
	rep_sort(mains.v, mains.n, sizeof(void *), ht_rep__cmp_main);
	for (size_t i = 0; i < mains.n; i++) {
		struct rep_proc *p = mains.v[i];
		REP_AHEAD_P(mains.v, mains.n, i, rank);
		bool superseded = false;
		for (size_t k = i + 1; k < mains.n; k++) {
			struct rep_proc *q = mains.v[k];
			if (q->rank != p->rank)
				break;
			bool here = strcmp(rep_id(p)->host, rep_id(q)->host) == 0 && rep_id(p)->boot_id != NULL &&
				    rep_id(q)->boot_id != NULL && strcmp(rep_id(p)->boot_id, rep_id(q)->boot_id) == 0;
			if (q->is_main && ht_rep_end_time(p) <= q->ts0 + (here ? 0 : 1)) {
				superseded = true;
				p->main = q;
				break;
			}
		}
		if (superseded)
			p->is_main = false;
		else
			ht_rep_vec_push(&job->mains, p);
	}
	ht_rep_vec_free(&mains);
}

/* Processes without a rank in the numbering: children of a rank's tree,
 * launcher wrappers, or processes of their own (a single CUDA program). */
void ht_rep__place_others(struct rep_job *job)
{
	size_t n = job->procs.n;
	struct rep_proc **s = malloc((n + 1) * sizeof(*s));
	if (s == NULL)
		abort();
	/* By depth, each depth in the job's order (a counting sort: as a
	 * stable sort leaves them) */
	int top = 0;
	for (size_t i = 0; i < n; i++)
		top = ((struct rep_proc *)job->procs.v[i])->depth > top ?
			      ((struct rep_proc *)job->procs.v[i])->depth : top;
	size_t *at = calloc((size_t)top + 2, sizeof(*at));
	if (at == NULL)
		abort();
	for (size_t i = 0; i < n; i++)
		at[((struct rep_proc *)job->procs.v[i])->depth + 1]++;
	for (int d = 1; d <= top + 1; d++)
		at[d] += at[d - 1];
	for (size_t i = 0; i < n; i++)
		s[at[((struct rep_proc *)job->procs.v[i])->depth]++] = job->procs.v[i];
	free(at);
	for (size_t i = 0; i < n; i++) {
		struct rep_proc *p = s[i];
		if (p->is_main || p->main != NULL)
			continue;
		if (p->parent != NULL && (p->parent->is_main || p->parent->main != NULL)) {
			p->main = p->parent->is_main ? p->parent : p->parent->main;
			continue;
		}
		if (p->rank == REP_UNKNOWN && !p->outer) {
			p->is_main = true;
			ht_rep_vec_push(&job->unranked, p);
		}
	}
	/* A wrapper is shown with the first main below it. */
	for (size_t i = n; i-- > 0;) {
		struct rep_proc *p = s[i];
		if (p->parent != NULL && p->parent->main == NULL && !p->parent->is_main)
			p->parent->main = p->is_main ? p : p->main;
	}
	free(s);
}
