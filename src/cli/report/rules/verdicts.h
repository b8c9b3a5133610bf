// SPDX-License-Identifier: MIT
/*
 * verdicts.h: the rule runner (verdicts.c) and what the rule files
 * (verdicts_*.c) use to build verdicts.
 */
#ifndef HT_REP_VERDICTS_H
#define HT_REP_VERDICTS_H

#include "model/model.h"
#include "rules/verdict.h"

/* Runs every rule and orders the verdicts, most likely root cause first. */
void ht_rep_verdicts(struct rep_job *job);
bool ht_rep_has_error(const struct rep_job *job);
/* Frees what ht_rep_verdicts made. */
void ht_rep_verdicts_free(struct rep_job *job);

/* A code's priority and usual severity (the columns of HT_VERDICT_MAP). */
int ht_rep_verdict_prio(enum ht_verdict_code c);
/* May the code follow from another verdict (column role EFFECT)? */
bool ht_rep_verdict_may_follow(enum ht_verdict_code c);

/* For the rule files: a verdict under construction. */
struct rep_verdict *ht_rep_verdict_new(struct rep_job *job, enum ht_verdict_code code,
				       enum rep_severity sev);
void ht_rep_verdict_rank(struct rep_job *job, struct rep_verdict *v, int64_t rank);
void ht_rep_verdict_evidence(struct rep_job *job, struct rep_verdict *v,
			     const struct rep_loc *loc, const char *const *keep);
void ht_rep_verdict_note(struct rep_job *job, struct rep_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Once every rule has run: ranks sorted, the evidence left out counted,
 * no NULL summary or advice. */
void ht_rep_verdict_finish(struct rep_job *job, struct rep_verdict *v);
void ht_rep_blame(struct rep_job *job, struct rep_verdict *v, struct rep_proc *p);

/* Rule families (verdicts_*.c); each adds verdicts to job. */
void ht_rep_rules_ranks(struct rep_job *job);	/* missing, exited, straggler, ws, dup */
/* port_in_use (verdicts_net.c): a rank could not bind its rendezvous port. */
void ht_rep_rules_port_in_use(struct rep_job *job);
/* cuda_init_hang (verdicts_cudahang.c): a rank stuck in cuInit or its GPU's bind. */
void ht_rep_rules_cuda_init_hang(struct rep_job *job);
/* After the verdicts are ordered: the blamed ranks' own stacks added to the
 * groups, and the groups holding one first (stacks.c). */
void ht_rep_rules_stacks(struct rep_job *job);
/* The verdicts of failed checks and of the "ib" facts, every job
 * (verdicts_check.c). */
void ht_rep_rules_check(struct rep_job *job);
/* stale_store (verdicts_store.c): a FileStore file left by an earlier run. */
void ht_rep_rules_stale_store(struct rep_job *job);
/* True when job has a verdict of that code. */
bool ht_rep_has_code(const struct rep_job *job, enum ht_verdict_code code);
void ht_rep_rules_net(struct rep_job *job);	/* rendezvous, loopback, ifname, shm */
void ht_rep_rules_gpu(struct rep_job *job);	/* cuda, devices, fork, versions */
/* duplicate_gpu, visible_devices_inconsistent, too_many_local_ranks (verdicts_devices.c);
 * run by ht_rep_rules_gpu. */
void ht_rep_rules_devices(struct rep_job *job);
void ht_rep_rules_nccl(struct rep_job *job);	/* ids, init errors, collectives */
void ht_rep_rules_stalled(struct rep_job *job);	/* the generic stall */
void ht_rep_rules_degraded(struct rep_job *job);	/* ranks the library could not watch */

#endif
