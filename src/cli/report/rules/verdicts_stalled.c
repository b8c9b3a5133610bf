// SPDX-License-Identifier: MIT
/*
 * verdicts_stalled.c: the generic `stalled` verdict, what is left when no
 * other rule explains a stall: one per stack group (at most 6, the rest in
 * one), with the phase's advice.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/checkfacts.h"
#include "rules.h"
#include "rules/dataloader.h"

#define MAX_STALL_VERDICTS 6	/* stack groups with a verdict each; the rest in one */

/* ---- the plain stall --------------------------------------------------------------- */

static const char *stall_advice(int phase)
{
	switch (phase) {
	case HT_PHASE_LAUNCH:
		return "It stopped before any rendezvous, CUDA or NCCL step: the stack says where "
		       "(imports, reading data or a checkpoint, a compile, a lock on a shared file "
		       "system). Make that step finish, or raise HANGTRACE_TIMEOUT if it is only slow.";
	case HT_PHASE_RENDEZVOUS:
		return "It waits in the rendezvous (the store or bootstrap address): every rank must "
		       "reach it. Check MASTER_ADDR/MASTER_PORT on every host, that the server side "
		       "(rank 0 or the rendezvous host) is up, and the world size.";
	case HT_PHASE_CUDA_INIT:
		return "cuInit does not return: a driver or GPU problem on that host. Run nvidia-smi "
		       "there, look for Xid errors in dmesg, check persistence mode; a GPU being "
		       "reset or in a bad state needs attention from the administrator.";
	case HT_PHASE_DEVICE:
		return "Binding the GPU does not finish: a GPU held by another process in "
		       "exclusive-process mode, or a hung GPU. Check nvidia-smi on that host.";
	case HT_PHASE_NCCL_ID:
	case HT_PHASE_NCCL_INIT:
		return "NCCL init waits for every rank of the communicator. If all ranks are here, "
		       "the network between them is the suspect: rerun with NCCL_DEBUG=INFO "
		       "NCCL_DEBUG_SUBSYS=INIT,BOOTSTRAP,NET, check NCCL_SOCKET_IFNAME and firewalls "
		       "between hosts, and try NCCL_IB_DISABLE=1 or NCCL_P2P_DISABLE=1 to rule out "
		       "a transport.";
	case HT_PHASE_FIRST_COLLECTIVE:
		return "The first collective does not complete: peer-to-peer paths (ACS/IOMMU: try "
		       "NCCL_P2P_DISABLE=1), RDMA settings (NCCL_IB_GID_INDEX, NCCL_IB_HCA), or a "
		       "rank that did not issue the same collective.";
	case HT_PHASE_STEADY:
		return "A blocking call after startup outlasted HANGTRACE_TIMEOUT: see the stack.";
	default:
		return "See the stack group for where it waits.";
	}
}

/* The advice for a stall of p: by what it waits at, else by its phase. */
static const char *stall_advice_of(const struct rep_job *job, const struct rep_proc *p)
{
	bool jax = job->framework != NULL && strcmp(job->framework, "jax") == 0;
	if (p != NULL && p->sig != NULL && p->sig->kind == HT_SIG_COORDINATOR)
		jax = true;
	if (p != NULL && p->sig != NULL &&
	    (p->sig->kind == HT_SIG_STORE || p->sig->kind == HT_SIG_COORDINATOR)) {
		if (jax)
			return "It waits for JAX's coordination service (process 0 runs it, from "
			       "jax.distributed.initialize): every process must reach initialize with "
			       "the same coordinator_address and num_processes. Check that process 0 "
			       "is up and that no process is missing or on another port.";
		return stall_advice(HT_PHASE_RENDEZVOUS);
	}
	return stall_advice(p != NULL ? p->cur_phase : -1);
}

static double stall_since(const struct rep_proc *p)
{
	int ph = p->cur_phase;
	return ph >= 0 && rep_ph(p, ph)->begun ? rep_ph(p, ph)->ts : p->ts0;
}

/* Where a group stalled: its top frame, after what its first rank is
 * doing when the signature table or its wchan names it ("loading a
 * checkpoint (torch.load) in ..."). */
static const char *stall_where(struct rep_job *job, struct rep_group *g)
{
	const struct rep_proc *p = g->procs.n > 0 ? g->procs.v[0] : NULL;
	const char *top = ht_rep_top_frame(g);
	bool named = p != NULL && p->doing != NULL &&
		     (p->sig != NULL || strstr(p->doing, "network file system") != NULL);
	return named ? ht_rep_printf(&job->a, "%s, in %s", p->doing, top) : top;
}

static void stalled_rule(struct rep_job *job)
{
	/* With a cause found, the other stalled ranks wait for it: their
	 * stacks are in the stack groups, no verdict of their own. */
	for (size_t i = 0; i < job->nverdicts; i++)
		if (job->verdicts[i]->sev == REP_ERROR)
			return;
	size_t shown = job->ngroups < MAX_STALL_VERDICTS ? job->ngroups : MAX_STALL_VERDICTS - 1;
	for (size_t gi = 0; gi < shown; gi++) {
		struct rep_group *g = job->groups[gi];
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_STALLED, REP_ERROR);
		double since = INFINITY, age = NAN;
		for (size_t k = 0; k < g->procs.n; k++) {
			struct rep_proc *p = g->procs.v[k];
			ht_rep_blame(job, v, p);
			if (stall_since(p) < since)
				since = stall_since(p);
			/* How long, by each rank's own host's clock. */
			double a = (p->h != NULL ? p->h->now : job->now) - stall_since(p);
			if (isfinite(a) && !(a <= age))
				age = a;
			if (k < 2 && p->last_dump != NULL)
				ht_rep_verdict_evidence(job, v, &p->last_dump->loc, ht_rep_keep_stall);
		}
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		struct rep_proc *p0 = g->procs.v[0];
		const char *who = v->nranks > 0 ? ht_rep_ranks_phrase(job, v->ranks, v->nranks)
						: ht_rep_who(job, p0);
		v->summary = ht_rep_printf(&job->a, "%s stalled in %s%s, in %s%s%s", who,
					   ht_rep_phase_name(g->phase),
					   isnan(age) ? "" : ht_rep_printf(&job->a, " for %.0f s", age),
					   stall_where(job, g), g->work_why != NULL ? "; " : "",
					   g->work_why != NULL ? g->work_why : "");
		v->advice = stall_advice_of(job, g->procs.n > 0 ? g->procs.v[0] : NULL);
		v->prio += (int)gi;	/* the groups' order: odd one out first */
		v->t = since;
	}
	/* Many different stacks: the rest in one verdict. */
	if (shown < job->ngroups) {
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_STALLED, REP_ERROR);
		size_t procs = 0;
		for (size_t gi = shown; gi < job->ngroups; gi++) {
			struct rep_group *g = job->groups[gi];
			for (size_t k = 0; k < g->procs.n; k++) {
				struct rep_proc *p = g->procs.v[k];
				ht_rep_blame(job, v, p);
				if (stall_since(p) < v->t)
					v->t = stall_since(p);
				if (v->nevidence < 2 && p->last_dump != NULL)
					ht_rep_verdict_evidence(job, v, &p->last_dump->loc, ht_rep_keep_stall);
				procs++;
			}
		}
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		v->summary = ht_rep_printf(&job->a, "%s (%zu process%s) stalled in %zu other "
					   "places: see stack groups %zu to %zu",
					   v->nranks > 0 ? ht_rep_ranks_phrase(job, v->ranks, v->nranks) :
					   "processes", procs, procs == 1 ? "" : "es",
					   job->ngroups - shown, shown + 1, job->ngroups);
		v->advice = stall_advice(job->groups[shown]->phase);
		v->prio += (int)shown;
	}
	/* Stalled ranks whose main thread left no stack. */
	struct rep_verdict *v = NULL;
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (!p->stalled || p->group != NULL)
			continue;
		if (v == NULL)
			v = ht_rep_verdict_new(job, HT_VERDICT_STALLED, REP_ERROR);
		ht_rep_blame(job, v, p);
		if (v->nevidence < 2 && p->last_dump != NULL)
			ht_rep_verdict_evidence(job, v, &p->last_dump->loc, ht_rep_keep_stall);
		if (stall_since(p) < v->t)
			v->t = stall_since(p);
	}
	if (v != NULL) {
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		struct rep_proc *p0 = NULL;
		for (size_t i = 0; i < job->mains.n && p0 == NULL; i++)
			if (((struct rep_proc *)job->mains.v[i])->stalled &&
			    ((struct rep_proc *)job->mains.v[i])->group == NULL)
				p0 = job->mains.v[i];
		v->summary = ht_rep_printf(&job->a, "%s stalled in %s (no stack of the main thread "
					   "was dumped)", ht_rep_ranks_phrase(job, v->ranks, v->nranks),
					   ht_rep_phase_name(p0->cur_phase));
		v->advice = stall_advice(p0->cur_phase);
		v->prio += (int)job->ngroups;
	}
}

void ht_rep_rules_stalled(struct rep_job *job)
{
	stalled_rule(job);
}
