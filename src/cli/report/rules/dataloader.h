// SPDX-License-Identifier: MIT
/*
 * dataloader.h: the rules about a rank's first batch and its JIT build
 * (verdicts_dataloader.c, verdicts_buildlock.c): dataloader_stalled,
 * dataloader_worker_died, build_lock_wait. Run after the rank rules (whose
 * rank_exited and straggler verdicts about the same rank then name them in
 * `because`) and before the plain stall.
 */
#ifndef HT_REP_DATALOADER_H
#define HT_REP_DATALOADER_H

#include "model/model.h"

void ht_rep_rules_dataloader(struct rep_job *job);
void ht_rep_rules_buildlock(struct rep_job *job);
/* After every other rule: when a build runs and every error is an effect
 * of ranks that build or wait for that build, those errors are warnings
 * that follow from build_lock_wait (slow, not stuck). */
void ht_rep_rules_buildlock_slow(struct rep_job *job);
/* Marks the effect verdicts (role EFFECT: rank_exited, straggler, stalled)
 * already made about rank r as following from cause. */
void ht_rep_follows(struct rep_job *job, int64_t r, const struct rep_verdict *cause);

#endif
