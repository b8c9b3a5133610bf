// SPDX-License-Identifier: MIT
/*
 * verdicts_dataloader.c: a rank's first batch (SPEC section 8).
 *
 * dataloader_worker_died: a worker of the rank (model/workers.c) ended by a
 * signal, with a status other than 0, or without an exit record, and its
 * rank waits or failed after it: PyTorch's main process notices within
 * MP_STATUS_CHECK_INTERVAL (5 s, torch/utils/data/_utils/__init__.py) and
 * raises "DataLoader worker (pid(s) ...) exited unexpectedly", so the
 * rank's own exit follows from the worker's. SIGBUS there is shared memory:
 * the worker writes its batch into a file of /dev/shm that cannot grow.
 *
 * dataloader_stalled: the rank's main thread waits for a batch (the wait
 * chain under _try_get_data, or the pin-memory thread's queue) while a
 * worker is alive and stuck: in the same place across its dumps and not
 * idle in index_queue.get. The default timeout=0 waits for it forever.
 */
#include <math.h>
#include <string.h>

#include "model/workers.h"
#include "rules/dataloader.h"
#include "rules/rules.h"

static const char *const keep_thread[] = { "dump", "tid", "state", "python", NULL };

void ht_rep_follows(struct rep_job *job, int64_t r, const struct rep_verdict *cause)
{
	for (size_t i = 0; i < job->nverdicts; i++) {
		struct rep_verdict *v = job->verdicts[i];
		if (v == cause || v->because != NULL || !ht_rep_verdict_may_follow(v->code))
			continue;
		if (ht_rep_verdict_has(v, r))
			v->because = cause;
	}
}

/* The rank waits for its batch, waited until it gave up, or failed. */
static bool rank_hurt(const struct rep_proc *m)
{
	return rep_waited(m) || m->stalled || m->failed ||
	       (m->end == REP_EXITED && m->exit_status != 0) || m->end == REP_SIGNALED;
}

static const char *died_advice(const struct rep_worker *w)
{
	const char *sig = w->p->exit_signal;
	if (w->state == REP_WK_KILLED && sig != NULL && strcmp(sig, "SIGBUS") == 0)
		return "SIGBUS in a DataLoader worker is shared memory running out: the worker "
		       "maps its batch into a file of /dev/shm that the filesystem cannot back. "
		       "Give the container more shared memory (docker run --shm-size=8g or "
		       "--ipc=host; on Kubernetes an emptyDir with medium: Memory at /dev/shm), "
		       "or lower num_workers, batch size or prefetch_factor.";
	if (w->state == REP_WK_VANISHED)
		return "It was killed without a word: the OOM killer (look for 'Killed process' "
		       "in dmesg or the node's journal), a cgroup memory limit, or a SIGKILL from "
		       "a person or a tool. Each worker holds a copy of the dataset's state and "
		       "prefetch_factor batches: lower num_workers or the memory per worker, or "
		       "raise the job's memory limit.";
	if (w->state == REP_WK_KILLED)
		return "It crashed in native code (a decoder, a C extension, a library that is "
		       "not fork-safe): run with num_workers=0 to get the crash in the main "
		       "process, or use the spawn start method (DataLoader("
		       "multiprocessing_context='spawn')).";
	return "The worker ended itself with an error status (os._exit, sys.exit in a "
	       "worker_init_fn, or a library that exits): its own output says why; run with "
	       "num_workers=0 to see the error in the main process.";
}

static void worker_died(struct rep_job *job)
{
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *m = job->mains.v[i];
		if (rep_rare(m)->workers == NULL || rep_rare(m)->workers->nbad == 0 || !rank_hurt(m))
			continue;
		/* The first worker to end badly. */
		const struct rep_worker *w = NULL;
		for (size_t k = 0; k < rep_rare(m)->workers->n; k++) {
			const struct rep_worker *x = &rep_rare(m)->workers->v[k];
			if (x->bad_end && (w == NULL || x->end_ts < w->end_ts))
				w = x;
		}
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_DATALOADER_WORKER_DIED,
							   REP_ERROR);
		ht_rep_blame(job, v, m);
		v->t = w->end_ts;
		const struct rep_proc *hfp = m->h != NULL ? m->h->hf : NULL;
		const struct rep_hostfacts *hf = hfp != NULL ? rep_hf(hfp) : NULL;
		bool sigbus = w->state == REP_WK_KILLED && w->p->exit_signal != NULL &&
			      strcmp(w->p->exit_signal, "SIGBUS") == 0;
		const char *shm = "";
		if (sigbus && hf != NULL && hf->shm_total != REP_UNKNOWN)
			shm = ht_rep_printf(&job->a, ": out of shared memory (/dev/shm on host %s is "
					    "%lld MiB%s)", rep_id(m)->host, (long long)(hf->shm_total >> 20),
					    hfp->hf_shm_free != REP_UNKNOWN ?
					    ht_rep_printf(&job->a, ", %lld MiB free",
							  (long long)(hfp->hf_shm_free >> 20)) : "");
		else if (sigbus)
			shm = ": out of shared memory (/dev/shm)";
		const char *then;
		if (m->end == REP_EXITED)
			then = ht_rep_printf(&job->a, "; rank %lld then exited with status %lld",
					     (long long)m->rank, (long long)m->exit_status);
		else if (m->end == REP_SIGNALED)
			then = ht_rep_printf(&job->a, "; rank %lld then ended by %s",
					     (long long)m->rank, m->exit_signal);
		else if (m->end == REP_VANISHED)
			then = ht_rep_printf(&job->a, "; rank %lld then vanished", (long long)m->rank);
		else
			then = ht_rep_printf(&job->a, "; rank %lld waits for its batch",
					     (long long)m->rank);
		size_t others = rep_rare(m)->workers->nbad - 1;
		v->summary = ht_rep_printf(&job->a, "rank %lld's DataLoader worker (pid %lld on %s) "
					   "%s%s%s%s", (long long)m->rank, (long long)w->p->pid,
					   rep_id(m)->host, w->doing, shm, then,
					   others > 0 ? ht_rep_printf(&job->a, " (%zu more worker%s "
								      "ended badly)", others,
								      others == 1 ? "" : "s") : "");
		if (w->p->have_exit)
			ht_rep_verdict_evidence(job, v, &w->p->exit_loc, NULL);
		else
			ht_rep_verdict_note(job, v, "%s: the trace of pid %lld ends without an exit "
					    "record", job->files[w->p->file].name, (long long)w->p->pid);
		if (sigbus && hf != NULL)
			ht_rep_verdict_evidence(job, v, &hfp->hf_loc, ht_rep_keep_host);
		if (m->have_exit)
			ht_rep_verdict_evidence(job, v, &m->exit_loc, NULL);
		else if (m->last_dump != NULL)
			ht_rep_verdict_evidence(job, v, &m->last_dump->loc, ht_rep_keep_stall);
		v->advice = died_advice(w);
		ht_rep_follows(job, m->rank, v);
	}
}

static const char *stalled_advice(struct rep_job *job, const struct rep_proc *m,
				  const struct rep_worker *w)
{
	const struct rep_hostfacts *hf = m->h != NULL && m->h->hf != NULL ? rep_hf(m->h->hf) : NULL;
	const char *many = "";
	if (hf != NULL && hf->cpus != REP_UNKNOWN && hf->cpus > 0 &&
	    (int64_t)rep_rare(m)->workers->n * (int64_t)(m->h->mains.n > 0 ? m->h->mains.n : 1) > hf->cpus)
		many = ht_rep_printf(&job->a, " %zu workers per rank on a host of %lld CPUs is "
				     "more than it can run: lower num_workers.", rep_rare(m)->workers->n,
				     (long long)hf->cpus);
	if (w->lock_wait)
		return ht_rep_printf(&job->a, "A lock taken before the fork: the worker waits on "
				     "its copy of a lock that another thread of the main process "
				     "held when the worker was forked, and no thread of the worker "
				     "will ever release it. Create locks and threads (loggers, "
				     "prefetchers, clients) after the DataLoader's workers have "
				     "started, take no such lock in __getitem__ or collate_fn, or "
				     "start the workers with spawn (DataLoader(multiprocessing_"
				     "context='spawn')).%s", many);
	if (w->sig != NULL && w->sig->kind != HT_SIG_WORKER)
		return ht_rep_printf(&job->a, "A dataset or collate_fn call that blocks (%s): give "
				     "it a timeout, or run with num_workers=0 to reproduce it in the "
				     "main process; DataLoader(timeout=S) makes the rank fail "
				     "instead of waiting forever.%s", w->sig->words, many);
	return ht_rep_printf(&job->a, "The worker does not move: see where it is (a dataset "
			     "__getitem__ or collate_fn that blocks or loops). Run with "
			     "num_workers=0 to reproduce it in the main process; "
			     "DataLoader(timeout=S) makes the rank fail instead of waiting "
			     "forever.%s", many);
}

static void dataloader_stalled(struct rep_job *job)
{
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *m = job->mains.v[i];
		if (rep_rare(m)->workers == NULL || m->sig == NULL || m->sig->kind != HT_SIG_DATALOADER ||
		    !(rep_waited(m) || m->stalled))
			continue;
		const struct rep_worker *w = NULL;
		for (size_t k = 0; k < rep_rare(m)->workers->n && w == NULL; k++) {
			const struct rep_worker *x = &rep_rare(m)->workers->v[k];
			if (x->state == REP_WK_STUCK || (x->state == REP_WK_BUSY && x->lock_wait))
				w = x;
		}
		if (w == NULL || rep_rare(m)->workers->nbad > 0)
			continue;	/* a dead worker is the cause: worker_died */
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_DATALOADER_STALLED,
							   REP_ERROR);
		ht_rep_blame(job, v, m);
		v->t = m->last_dump != NULL ? m->last_dump->ts : NAN;
		const struct rep_dump *d0 = NULL, *d1 = w->p->last_dump;
		for (size_t k = 0; k < w->p->ndumps && d0 == NULL; k++)
			if (w->p->dumps[k].epoch == w->p->epoch && w->p->dumps[k].have_main)
				d0 = &w->p->dumps[k];
		const char *across = d0 != NULL && d1 != NULL && d0 != d1 ?
				     ht_rep_printf(&job->a, "; the same stack in dumps %.0f s apart",
						   d1->ts - d0->ts) : "; one dump of it";
		v->summary = ht_rep_printf(&job->a, "rank %lld is %s, and its DataLoader worker pid "
					   "%lld on %s is %s%s",
					   (long long)m->rank, m->sig->words, (long long)w->p->pid,
					   rep_id(m)->host, w->doing, across);
		if (d1 != NULL)
			ht_rep_verdict_evidence(job, v, &d1->main_loc, keep_thread);
		if (m->last_dump != NULL)
			ht_rep_verdict_evidence(job, v, &m->last_dump->loc, ht_rep_keep_stall);
		v->advice = stalled_advice(job, m, w);
		ht_rep_follows(job, m->rank, v);
	}
}

void ht_rep_rules_dataloader(struct rep_job *job)
{
	worker_died(job);
	dataloader_stalled(job);
}
