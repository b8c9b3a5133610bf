// SPDX-License-Identifier: MIT
/*
 * verdicts_store.c: stale_store (SPEC section 8). PyTorch's FileStore
 * (init_method="file:///path") keeps the store in one file, which it
 * removes only when every rank ends cleanly. A file left by an earlier run
 * that was killed makes the ranks of the next read dead peers' addresses,
 * or wait in the store's barrier for ever. The library writes how the file
 * was when each rank first locked it (the "store" line, hooks/net/store.c):
 * one that had content before the job's first rank started is that
 * earlier run's.
 */
#include <math.h>
#include <string.h>

#include "rules/rules.h"

void ht_rep_rules_stale_store(struct rep_job *job)
{
	double first = INFINITY;
	for (size_t i = 0; i < job->mains.n; i++) {
		const struct rep_proc *p = job->mains.v[i];
		if (p->ts0 < first)
			first = p->ts0;
	}
	/* The oldest view of a file that had content before the job began
	 * (a second of slack for clocks and the first rank's own writes). */
	const struct rep_proc *stale = NULL;
	for (size_t i = 0; i < job->mains.n; i++) {
		const struct rep_proc *p = job->mains.v[i];
		const struct rep_store *s = rep_rare(p)->store;
		if (s != NULL && s->size > 0 && s->mtime < first - 1.0 &&
		    (stale == NULL || s->mtime < rep_rare(stale)->store->mtime))
			stale = p;
	}
	if (stale == NULL)
		return;
	const struct rep_store *s = rep_rare(stale)->store;
	/* A job that ran to its end despite it was not hurt by it. */
	struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_STALE_STORE,
						   job->stuck || job->failed ? REP_ERROR : REP_WARNING);
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (rep_rare(p)->store != NULL && strcmp(rep_rare(p)->store->path, s->path) == 0)
			ht_rep_blame(job, v, p);
	}
	ht_rep_verdict_evidence(job, v, &s->loc, NULL);
	v->t = s->mtime;
	v->summary = ht_rep_printf(&job->a, "the file store %s existed before the job's first "
				   "rank started: %lld bytes, last written %s before it; %s "
				   "read a previous run's peers from it", s->path,
				   (long long)s->size, ht_rep_duration(job, first - s->mtime),
				   ht_rep_ranks_phrase(job, v->ranks, v->nranks));
	v->advice = ht_rep_printf(&job->a, "Remove it before the next start: rm %s. FileStore "
				  "removes its file only when every rank ends cleanly, so a run "
				  "that was killed leaves it; name a new one each run (with the "
				  "job id, $SLURM_JOB_ID, in the path).", s->path);
}
