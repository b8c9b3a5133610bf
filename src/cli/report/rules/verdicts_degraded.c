// SPDX-License-Identifier: MIT
/*
 * verdicts_degraded.c: tracing_degraded (SPEC section 8), a warning naming
 * the ranks on which part of the library could not work (no watchdog
 * thread, no signal handlers: the warning line with "degraded" that
 * src/core/degraded.c writes), so their stalls go unseen.
 */
#include <string.h>

#include "rules.h"

void ht_rep_rules_degraded(struct rep_job *job)
{
	struct rep_verdict *v = NULL;
	const char *what = NULL, *msg = NULL;
	bool calls = true;	/* every such rank still watched in its hooked calls */
	size_t n = 0;

	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *p = job->procs.v[i];
		const struct rep_rare *r = rep_rare(p);
		if (r->degraded == NULL)
			continue;
		if (v == NULL)
			v = ht_rep_verdict_new(job, HT_VERDICT_TRACING_DEGRADED, REP_WARNING);
		ht_rep_blame(job, v, p);
		calls = calls && r->degraded_calls;
		if (n++ < 3)
			ht_rep_verdict_evidence(job, v, &r->degraded_loc, NULL);
		if (what == NULL) {
			what = r->degraded;
			msg = r->degraded_msg;
		}
	}
	if (v == NULL)
		return;
	v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
	/* The library's msg reads "not watched: why" (src/core/state.c). */
	v->summary = ht_rep_printf(&job->a, "%s %s",
				   v->nranks > 0 ? ht_rep_ranks_phrase(job, v->ranks, v->nranks) :
				   "some processes", msg != NULL ? msg : "not watched (see the trace)");
	v->advice = strcmp(what, "watchdog") == 0 && calls ?
		    "The library could not start its watchdog thread there (the thread or process "
		    "limit, ulimit -u or a cgroup's pids.max, was reached): raise the limit; until "
		    "then only a hooked blocking call (connect, NCCL, CUDA) that outlives the "
		    "deadline is dumped, declared and aborted there, from a timer of its own "
		    "thread; a phase that outlives it with no such call in flight (a barrier, a "
		    "store wait) is not, though SIGTERM still dumps their stacks." :
		    strcmp(what, "watchdog") == 0 ?
		    "The library could not start its watchdog thread there (the thread or process "
		    "limit, ulimit -u or a cgroup's pids.max, was reached): raise the limit; until "
		    "then a stall of these ranks is not dumped or aborted, though SIGTERM still "
		    "dumps their stacks." :
		    "Part of the library's machinery could not work there (see the evidence): its "
		    "stalls may go unseen.";
}
