// SPDX-License-Identifier: MIT
/*
 * order.c: the order of the verdicts (SPEC section 8: the first error
 * verdict is the root cause). First by what the verdicts say alone:
 * errors before warnings, then each code's priority (HT_VERDICT_MAP), the
 * earliest time, the lowest rank. Then by who waits for whom
 * (model/graph.c): a verdict of a kind that may be an effect (role EFFECT)
 * whose ranks are none of them at the end of a chain of waits follows from
 * the first verdict that blames a rank its ranks wait for: it names that
 * one in `because` and comes right after it, as does a verdict a rule
 * tied to a rank (a later death after the first). Only an error is a
 * cause; a job whose ranks all ended with status 0 has no error verdict.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/graph.h"
#include "model/ranges.h"
#include "rules/order.h"
#include "rules/verdicts.h"

static int cmp_verdict(const void *a, const void *b)
{
	const struct rep_verdict *x = *(struct rep_verdict *const *)a;
	const struct rep_verdict *y = *(struct rep_verdict *const *)b;
	if (x->sev != y->sev)
		return x->sev < y->sev ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	if (x->t != y->t && !(isnan(x->t) && isnan(y->t)))
		return x->t < y->t || isnan(y->t) ? -1 : 1;
	int64_t rx = x->nranks > 0 ? x->ranks[0] : INT64_MAX;
	int64_t ry = y->nranks > 0 ? y->ranks[0] : INT64_MAX;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

static bool blames(const struct rep_verdict *v, int64_t r)
{
	return ht_rep_ranks_hold(v->ranks, v->nranks, r, true);	/* sorted when finished */
}

static bool blames_any(const struct rep_verdict *v, const uint8_t *bits, size_t nbits)
{
	for (size_t i = 0; i < v->nranks; i++) {
		int64_t r = v->ranks[i];
		if (r >= 0 && (size_t)r < nbits && (bits[r / 8] & (1u << (r % 8))))
			return true;
	}
	return false;
}

/* The verdict at the start of v's chain of because. */
static const struct rep_verdict *root_of(const struct rep_verdict *v, size_t guard)
{
	while (v->because != NULL && guard-- > 0)
		v = v->because;
	return v;
}

static int depth_of(const struct rep_verdict *v, size_t guard)
{
	int d = 0;
	while (v->because != NULL && guard-- > 0) {
		v = v->because;
		d++;
	}
	return d;
}

static int cmp_final(const void *a, const void *b)
{
	const struct rep_verdict *x = *(struct rep_verdict *const *)a;
	const struct rep_verdict *y = *(struct rep_verdict *const *)b;
	const struct rep_verdict *rx = root_of(x, 64), *ry = root_of(y, 64);
	if (rx->order != ry->order)
		return rx->order < ry->order ? -1 : 1;
	int dx = depth_of(x, 64), dy = depth_of(y, 64);
	if (dx != dy)
		return dx < dy ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* True when following u's chain reaches v (u then cannot follow... v
 * cannot follow u without a cycle). */
static bool reaches(const struct rep_verdict *u, const struct rep_verdict *v)
{
	for (size_t guard = 0; u != NULL && guard < 64; guard++, u = u->because)
		if (u == v)
			return true;
	return false;
}

/* The job's severity policy, after the causes are linked (only an error is
 * a cause): a job whose ranks all ended with status 0 has no error
 * verdict; what the rules found is kept as warnings (risks that did not
 * stop it). A rule's own rule for its code (an error only when the job is
 * stuck or failed) is the rule's, beside the code (rules/verdicts_*.c,
 * doc/report.md's table). */
static void severity_policy(struct rep_job *job)
{
	if (job->ended != REP_JOB_COMPLETED)
		return;
	for (size_t i = 0; i < job->nverdicts; i++)
		job->verdicts[i]->sev = REP_WARNING;
}

void ht_rep_order(struct rep_job *job)
{
	size_t n = job->nverdicts;
	struct rep_verdict **vs = job->verdicts;
	rep_sort(vs, n, sizeof(*vs), cmp_verdict);
	for (size_t i = 0; i < n; i++)
		vs[i]->order = i;

	size_t nbits = job->nby_rank;
	uint8_t *bits = nbits > 0 ? malloc(nbits / 8 + 1) : NULL;
	for (size_t i = 0; i < n; i++) {
		struct rep_verdict *v = vs[i];
		if (v->because != NULL || !ht_rep_verdict_may_follow(v->code))
			continue;
		if (v->follows_rank != REP_UNKNOWN) {
			for (size_t k = 0; k < n; k++)
				if (vs[k] != v && vs[k]->sev == REP_ERROR && blames(vs[k], v->follows_rank) &&
				    !reaches(vs[k], v)) {
					v->because = vs[k];
					break;
				}
			if (v->because != NULL)
				continue;
		}
		if (bits == NULL || v->nranks == 0)
			continue;
		bool root = false;
		for (size_t k = 0; k < v->nranks && !root; k++)
			root = ht_rep_rank_is_root(job, v->ranks[k]) ||
			       ht_rep_rank_main(job, v->ranks[k]) == NULL;
		if (root)
			continue;
		memset(bits, 0, nbits / 8 + 1);
		if (ht_rep_roots_of(job, v->ranks, v->nranks, bits) == 0)
			continue;
		for (size_t k = 0; k < n; k++)
			if (vs[k] != v && vs[k]->sev == REP_ERROR && blames_any(vs[k], bits, nbits) &&
			    !reaches(vs[k], v)) {
				v->because = vs[k];
				break;
			}
	}
	free(bits);

	severity_policy(job);
	/* Each chain after its root. */
	rep_sort(vs, n, sizeof(*vs), cmp_final);
	for (size_t i = 0; i < n; i++)
		vs[i]->order = i;
}
