// SPDX-License-Identifier: MIT
/*
 * verdicts_workers.c: dataloader_worker_died (SPEC section 8): a forked
 * worker of a rank (a DataLoader worker: forked from the rank's main
 * process and never exec'd, SPEC section 4) was killed by a signal or
 * exited with an error, and its rank failed or waits. The rank's own end
 * then follows from it (rank_exited says `because`).
 */
#include <math.h>
#include <string.h>

#include "rules.h"

static bool worker_of(const struct rep_proc *q, const struct rep_proc *main)
{
	return q->relevant != NULL && strcmp(q->relevant, "fork") == 0 && q->nexec == 0 &&
	       q->parent == main;
}

static bool died(const struct rep_proc *q)
{
	return !q->killed && ((q->end == REP_SIGNALED && !(q->exit_after_dump && q->stalled)) ||
			      q->end == REP_VANISHED ||
			      (q->end == REP_EXITED && q->exit_status != 0));
}

void ht_rep_rules_workers(struct rep_job *job)
{
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (!p->failed && !rep_waited(p))
			continue;
		struct rep_proc *first = NULL;
		size_t n = 0;
		for (size_t k = 0; k < p->rel.n; k++) {
			struct rep_proc *q = p->rel.v[k];
			if (!worker_of(q, p) || !died(q))
				continue;
			double t = q->have_exit ? q->exit_ts : q->last_ts;
			if (first == NULL || t < (first->have_exit ? first->exit_ts : first->last_ts))
				first = q;
			n++;
		}
		if (first == NULL)
			continue;
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_DATALOADER_WORKER_DIED,
							   REP_ERROR);
		ht_rep_blame(job, v, p);
		v->t = first->have_exit ? first->exit_ts : first->last_ts;
		if (first->have_exit)
			ht_rep_verdict_evidence(job, v, &first->exit_loc, NULL);
		const char *how = first->end == REP_VANISHED ? "vanished (SIGKILL, the OOM killer?)" :
				  first->end == REP_SIGNALED ?
				  ht_rep_printf(&job->a, "was killed by %s", first->exit_signal) :
				  ht_rep_printf(&job->a, "exited with status %lld",
						(long long)first->exit_status);
		const char *then = p->failed ? (p->end == REP_SIGNALED ?
						ht_rep_printf(&job->a, "; rank %lld then died of %s",
							      (long long)p->rank, p->exit_signal) :
						ht_rep_printf(&job->a, "; rank %lld then exited with "
							      "status %lld", (long long)p->rank,
							      (long long)p->exit_status)) :
				   ht_rep_printf(&job->a, "; rank %lld waits for it", (long long)p->rank);
		v->summary = ht_rep_printf(&job->a, "rank %lld's DataLoader worker (pid %lld%s) %s%s",
					   (long long)p->rank, (long long)first->pid,
					   n > 1 ? ht_rep_printf(&job->a, ", and %zu more", n - 1) : "",
					   how, then);
		bool bus = first->exit_signal != NULL && strcmp(first->exit_signal, "SIGBUS") == 0;
		v->advice = bus ?
			"SIGBUS in a DataLoader worker is shared memory running out: enlarge /dev/shm "
			"(docker --shm-size, a bigger tmpfs) or use fewer workers." :
			"The worker died under the rank: the OOM killer (dmesg on its host), a crash in "
			"the dataset code (run with num_workers=0 to see the exception), or shared "
			"memory (/dev/shm) running out. Fix that, and the rank goes on.";
	}
}
