// SPDX-License-Identifier: MIT
/*
 * verdict.c: making a verdict (rules/verdict.h, rules/verdicts.h): each
 * code's priority and usual severity from HT_VERDICT_MAP, the constructor,
 * the ranks it blames, its evidence lines (at most 8, then a count) and
 * notes, and its finish once every rule has run.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/checkfacts.h"
#include "rules.h"
#include "rules/dataloader.h"

#define MAX_EVIDENCE 8

/* Each code's priority and usual severity: the columns of HT_VERDICT_MAP
 * (include/hangtrace.h). Errors always come before warnings. */
static const struct {
	int prio;
	enum rep_severity sev;
	bool effect;
} code_info[HT_VERDICT_COUNT] = {
#define XX(id, name, prio, sev, role) [HT_VERDICT_##id] = { prio, REP_##sev, \
							 sizeof(#role) == sizeof("EFFECT") },
	HT_VERDICT_MAP(XX)
#undef XX
};

int ht_rep_verdict_prio(enum ht_verdict_code c)
{
	return (unsigned)c < HT_VERDICT_COUNT ? code_info[c].prio : 99;
}

bool ht_rep_verdict_may_follow(enum ht_verdict_code c)
{
	return (unsigned)c < HT_VERDICT_COUNT && code_info[c].effect;
}

struct rep_verdict *ht_rep_verdict_new(struct rep_job *job, enum ht_verdict_code code,
				       enum rep_severity sev)
{
	struct rep_verdict *v = ht_rep_alloc(&job->a, sizeof(*v));
	v->code = code;
	v->sev = sev;
	v->prio = ht_rep_verdict_prio(code);
	v->t = INFINITY;
	v->follows_rank = REP_UNKNOWN;
	if (job->nverdicts == job->cap_verdicts) {
		job->cap_verdicts = job->cap_verdicts != 0 ? job->cap_verdicts * 2 : 16;
		struct rep_verdict **n = realloc(job->verdicts, job->cap_verdicts * sizeof(*n));
		if (n == NULL)
			abort();
		job->verdicts = n;
	}
	job->verdicts[job->nverdicts++] = v;
	return v;
}

void ht_rep_verdict_rank(struct rep_job *job, struct rep_verdict *v, int64_t rank)
{
	if (rank == REP_UNKNOWN || rank < 0)
		return;
	if (v->nranks == v->cap_ranks) {
		size_t cap = v->cap_ranks != 0 ? v->cap_ranks * 2 : 8;
		int64_t *r = ht_rep_alloc(&job->a, cap * sizeof(*r));
		if (v->nranks > 0)
			memcpy(r, v->ranks, v->nranks * sizeof(*r));
		v->ranks = r;
		v->cap_ranks = cap;
	}
	v->ranks[v->nranks++] = rank;
}

static void add_evidence(struct rep_job *job, struct rep_verdict *v, char *s, bool force)
{
	if (s == NULL)
		return;
	if (v->nevidence >= MAX_EVIDENCE && !force) {
		v->more++;
		return;
	}
	if (v->nevidence == v->cap_evidence) {
		v->cap_evidence = MAX_EVIDENCE + 1;
		char **e = ht_rep_alloc(&job->a, v->cap_evidence * sizeof(*e));
		if (v->nevidence > 0)
			memcpy(e, v->evidence, v->nevidence * sizeof(*e));
		v->evidence = e;
	}
	/* The same line twice says nothing more. */
	for (size_t i = 0; i < v->nevidence; i++)
		if (strcmp(v->evidence[i], s) == 0)
			return;
	v->evidence[v->nevidence++] = s;
}

void ht_rep_verdict_evidence(struct rep_job *job, struct rep_verdict *v,
			     const struct rep_loc *loc, const char *const *keep)
{
	if (!rep_has_loc(loc))
		return;
	if (v->nevidence >= MAX_EVIDENCE) {
		v->more++;
		return;
	}
	add_evidence(job, v, ht_rep_evidence(job, loc, keep, 320), false);
}

void ht_rep_verdict_note(struct rep_job *job, struct rep_verdict *v, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	add_evidence(job, v, ht_rep_strdup(&job->a, buf), false);
}

void ht_rep_blame(struct rep_job *job, struct rep_verdict *v, struct rep_proc *p)
{
	struct rep_proc *m = ht_rep_main_of(p);
	if (m->is_main && m->rank != REP_UNKNOWN && !m->outer)
		ht_rep_verdict_rank(job, v, m->rank);
	if (v->sev == REP_ERROR)
		m->blamed = true;
}

bool ht_rep_verdict_has(const struct rep_verdict *v, int64_t r)
{
	return ht_rep_ranks_hold(v->ranks, v->nranks, r, false);	/* sorted only once finished */
}

bool ht_rep_has_error(const struct rep_job *job)
{
	for (size_t i = 0; i < job->nverdicts; i++)
		if (job->verdicts[i]->sev == REP_ERROR)
			return true;
	return false;
}

void ht_rep_verdict_finish(struct rep_job *job, struct rep_verdict *v)
{
	v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
	if (v->more > 0)
		add_evidence(job, v, ht_rep_printf(&job->a, "... and %zu more", v->more), true);
	if (v->summary == NULL)
		v->summary = "";
	if (v->advice == NULL)
		v->advice = "";
}
