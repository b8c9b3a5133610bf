// SPDX-License-Identifier: MIT
/*
 * verdicts_cudahang.c: cuda_init_hang (SPEC section 8). A rank declared
 * stalled inside the driver's start-up calls (cuInit, or binding its GPU:
 * cuDevicePrimaryCtxRetain, cuCtxCreate) that never return: a GPU that
 * fell off the bus, an Xid, a driver in a bad state, persistence mode off
 * on a slow node. The others wait for it in the rendezvous or in NCCL's
 * init; the cause is on that host, not in the job.
 */
#include <math.h>
#include <string.h>

#include "rules/rules.h"

static const char *const init_calls[] = { "cuInit", "cuDevicePrimaryCtxRetain", "cuCtxCreate",
					  "cuCtxCreate_v2", "cuCtxCreate_v3", "cuCtxCreate_v4" };

/* The driver call p's latest dump found in flight, when it is one of
 * those; its call record in *c (NULL when none is kept). */
static const char *hung_in(const struct rep_proc *p, const struct rep_call **c)
{
	const struct rep_dump *d = p->last_dump;
	*c = NULL;
	if (d == NULL || d->call == NULL)
		return NULL;
	for (size_t i = 0; i < REP_ARRAY_SIZE(init_calls); i++) {
		if (strcmp(d->call, init_calls[i]) != 0)
			continue;
		for (size_t k = p->ncalls; k-- > 0;) {
			const char *name = rep_cw(&p->calls[k])->name;
			if (!p->calls[k].ended && name != NULL && strcmp(name, d->call) == 0) {
				*c = &p->calls[k];
				break;
			}
		}
		return init_calls[i];
	}
	return NULL;
}

/* The GPU it was going to take: its local rank through CUDA_VISIBLE_DEVICES. */
static const char *device_words(struct rep_job *job, const struct rep_proc *p)
{
	if (p->local_rank == REP_UNKNOWN)
		return "its GPU";
	if (rep_id(p)->cvd != NULL && *rep_id(p)->cvd != '\0')
		return ht_rep_printf(&job->a, "GPU %lld of CUDA_VISIBLE_DEVICES=%s",
				     (long long)p->local_rank, rep_id(p)->cvd);
	return ht_rep_printf(&job->a, "GPU %lld (its LOCAL_RANK)", (long long)p->local_rank);
}

void ht_rep_rules_cuda_init_hang(struct rep_job *job)
{
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		REP_AHEAD_P(job->mains.v, job->mains.n, i, end);
		REP_AHEAD_P(job->mains.v, job->mains.n, i, stalled);
		REP_AHEAD_P(job->mains.v, job->mains.n, i, last_dump);
		REP_AHEAD_IN_AT(job->mains.v, job->mains.n, i, last_dump, struct rep_dump, call);
		const struct rep_call *c;
		/* Still there, or killed there (by the job's end, after its dump). */
		bool there = p->end == REP_RUNNING || p->killed ||
			     (p->end == REP_SIGNALED && p->exit_after_dump);
		const char *fn = p->stalled && there ? hung_in(p, &c) : NULL;
		if (fn == NULL)
			continue;
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_CUDA_INIT_HANG, REP_ERROR);
		ht_rep_blame(job, v, p);
		double now = p->h != NULL && !isnan(p->h->now) ? p->h->now : job->now;
		double age = c != NULL && !isnan(now) ? now - c->ts : p->last_dump->phase_age;
		if (c != NULL)
			ht_rep_verdict_evidence(job, v, &c->loc, NULL);
		ht_rep_verdict_evidence(job, v, &p->last_dump->loc, ht_rep_keep_stall);
		struct rep_proc *w;
		const char *waiters = ht_rep_waiters(job, v, &w);
		if (w != NULL && w->last_dump != NULL)
			ht_rep_verdict_evidence(job, v, &w->last_dump->loc, ht_rep_keep_stall);
		v->t = c != NULL ? c->ts : p->last_dump->ts;
		v->summary = ht_rep_printf(&job->a, "%s on host %s has been in %s for %.0f s, taking "
					   "%s: the driver does not return%s%s",
					   ht_rep_who(job, p), rep_id(p)->host, fn, age, device_words(job, p),
					   waiters != NULL ? "; " : "", waiters != NULL ? waiters : "");
		v->advice = ht_rep_printf(&job->a, "The GPU or its driver on %s is in a bad state: "
					  "run nvidia-smi there (a GPU missing, or in an error "
					  "state), look for Xid errors in dmesg, check that "
					  "persistence mode is on (nvidia-smi -pm 1). Drain the "
					  "node and restart the job without it.", rep_id(p)->host);
	}
}

bool ht_rep_has_code(const struct rep_job *job, enum ht_verdict_code code)
{
	for (size_t i = 0; i < job->nverdicts; i++)
		if (job->verdicts[i]->code == code)
			return true;
	return false;
}
