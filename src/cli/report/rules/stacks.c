// SPDX-License-Identifier: MIT
/*
 * stacks.c: the stack groups after the rules (SPEC section 8). Every rank
 * an error verdict blames shows its own main thread, from its latest dump
 * whatever its state (the straggler loading a checkpoint, the coordinator
 * still importing), and the groups holding a blamed rank come first; a
 * warning blames no one. The model merged the stalled ranks' stacks
 * before the rules (model/stacks.c); this adds to them and orders them.
 */
#include <stdlib.h>

#include "rules/rules.h"

static void add_blamed(struct rep_job *job)
{
	struct rep_vec add = { 0 };
	for (size_t v = 0; v < job->nverdicts; v++) {
		const struct rep_verdict *x = job->verdicts[v];
		if (x->sev != REP_ERROR)
			continue;
		for (size_t i = 0; i < x->nranks; i++) {
			int64_t r = x->ranks[i];
			if (r >= 0 && (size_t)r < job->nby_rank && job->by_rank[r] != NULL)
				ht_rep_vec_push(&add, job->by_rank[r]);
		}
	}
	if (add.n > 0)
		ht_rep_stacks_add(job, (struct rep_proc *const *)add.v, add.n);
	ht_rep_vec_free(&add);
}

static int cmp_blamed_first(const void *a, const void *b)
{
	const struct rep_group *x = *(struct rep_group *const *)a, *y = *(struct rep_group *const *)b;
	if (x->any_blamed != y->any_blamed)
		return x->any_blamed ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;	/* the model's order */
}

void ht_rep_rules_stacks(struct rep_job *job)
{
	add_blamed(job);
	for (size_t i = 0; i < job->ngroups; i++) {
		struct rep_group *g = job->groups[i];
		g->blamed = g->procs.n > 0;
		g->any_blamed = false;
		for (size_t k = 0; k < g->procs.n; k++) {
			bool b = ((struct rep_proc *)g->procs.v[k])->blamed;
			g->blamed &= b;
			g->any_blamed |= b;
		}
	}
	rep_sort(job->groups, job->ngroups, sizeof(*job->groups), cmp_blamed_first);
	for (size_t i = 0; i < job->ngroups; i++)
		job->groups[i]->index = i;
}
