// SPDX-License-Identifier: MIT
/*
 * verdicts.c: runs the rule families in their order (a rule that another
 * follows from runs first; the plain stall, what is left, near the end)
 * and finishes what they found; rules/order.c then orders it (most likely
 * root cause first). The shared parts are verdict.c (making a verdict)
 * and phrases.c (saying things).
 */
#include <stdlib.h>

#include "read/checkfacts.h"
#include "rules.h"
#include "rules/dataloader.h"

void ht_rep_verdicts(struct rep_job *job)
{
	ht_rep_rules_port_in_use(job);	/* before rank_exited: it follows from it */
	ht_rep_rules_cuda_init_hang(job);	/* before straggler: it names it */
	ht_rep_rules_stale_store(job);	/* before rank_exited: it follows from it */
	ht_rep_rules_ranks(job);
	ht_rep_rules_net(job);
	ht_rep_rules_gpu(job);
	ht_rep_rules_nccl(job);
	ht_rep_rules_check(job);	/* check runs and ib facts (verdicts_check.c) */
	ht_rep_rules_dataloader(job);
	ht_rep_rules_buildlock(job);
	ht_rep_rules_stalled(job);
	ht_rep_rules_buildlock_slow(job);
	ht_rep_rules_degraded(job);
	for (size_t i = 0; i < job->nverdicts; i++)
		ht_rep_verdict_finish(job, job->verdicts[i]);
}

void ht_rep_verdicts_free(struct rep_job *job)
{
	free(job->verdicts);	/* the verdicts themselves live in the arena */
	job->verdicts = NULL;
	job->nverdicts = job->cap_verdicts = 0;
}
