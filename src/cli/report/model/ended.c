// SPDX-License-Identifier: MIT
/*
 * ended.c: how the job ended (SPEC section 8, job.ended): running,
 * completed, killed or failed; and, for a killed job, its ranks judged as
 * they were while it hung, so that the report after a scheduler's kill and
 * the report while the job hung agree on the first verdict.
 */
#include <math.h>
#include <string.h>

#include "model/model.h"

/* A signal a scheduler or a person ends a job with. */
static bool kill_signal(const char *s)
{
	return s != NULL && (strcmp(s, "SIGTERM") == 0 || strcmp(s, "SIGKILL") == 0 ||
			     strcmp(s, "SIGINT") == 0 || strcmp(s, "SIGHUP") == 0);
}

/* When p got the signal it died of: its dump at SIGTERM, else its end. */
static double signalled_at(const struct rep_proc *p)
{
	for (size_t i = p->ndumps; i-- > 0;)
		if (p->dumps[i].reason != NULL && strcmp(p->dumps[i].reason, "sigterm") == 0)
			return p->dumps[i].ts;
	return ht_rep_end_time(p);
}

/* p ended badly by itself (an error status, a fatal signal, an abort that
 * chained a fatal signal): the kind of end after which mpirun, srun or
 * torchrun kill the job's other ranks. Its end time in *at. */
static bool failed_end(const struct rep_proc *p, double *at)
{
	if (p->end == REP_EXITED && p->exit_status != 0) {
		*at = ht_rep_end_time(p);
		return true;
	}
	if (p->end == REP_SIGNALED && !kill_signal(p->exit_signal)) {
		*at = ht_rep_end_time(p);
		return true;
	}
	if (rep_rare(p)->signal != NULL && !kill_signal(p->rare->signal)) {
		*at = p->last_ts;	/* the chained signal is its last line */
		return true;
	}
	return false;
}

/* A launcher tearing the job down: a rank that died of SIGTERM after its
 * own SIGTERM dump, within 5 s after another rank ended badly (mpirun
 * kills every rank when one aborts or exits non-zero: tests/frameworks/
 * mpi_c.sh, where the library aborts a rank declared stalled), was killed
 * because of that end: judged as it was when it got the signal (its dump
 * says where), not blamed for its own end. */
static void torn_down(struct rep_job *job)
{
	double first = INFINITY;
	for (size_t i = 0; i < job->mains.n; i++) {
		double at;
		if (failed_end(job->mains.v[i], &at) && at < first)
			first = at;
	}
	if (isinf(first))
		return;
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (p->end != REP_SIGNALED || p->exit_signal == NULL ||
		    strcmp(p->exit_signal, "SIGTERM") != 0 || !p->exit_after_dump)
			continue;
		double t = signalled_at(p);
		if (t >= first && t < first + 5.0) {
			p->killed = true;
			p->stalled = p->open_stall && !p->slow;
			p->waiting = p->stalled;
			p->gave_up = false;
		}
	}
}

/* job.ended (SPEC section 8): running while a main runs; completed when
 * every main ended with status 0; killed when every main still alive at
 * the first kill ended within a second of it, most of them by a kill
 * signal (a time limit, a cancel, `timeout`; a rank whose blocking call
 * the signal interrupted may end with an error status first: PyTorch
 * 1.13's TCPStore turns EINTR into an exception); else failed. The killed
 * ranks are then judged as they were while the job hung: stalled where
 * their last stall was open and no look found them working, not failed, not blamed for their end (rules
 * read p->killed). */
void ht_rep_job_ended(struct rep_job *job)
{
	struct rep_vec *lists[2] = { &job->mains, &job->unranked };
	bool running = false, all_zero = true;
	double first_kill = INFINITY;
	const char *sig = NULL;
	size_t n = 0;
	torn_down(job);
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			struct rep_proc *p = lists[l]->v[i];
			n++;
			running |= p->end == REP_RUNNING;
			all_zero &= p->end == REP_EXITED && p->exit_status == 0;
			if (p->end == REP_SIGNALED && kill_signal(p->exit_signal) &&
			    signalled_at(p) < first_kill) {
				first_kill = signalled_at(p);
				sig = p->exit_signal;
			}
		}
	if (n == 0 || running) {
		job->ended = REP_JOB_RUNNING;
		return;
	}
	if (all_zero) {
		job->ended = REP_JOB_COMPLETED;
		return;
	}
	job->ended = REP_JOB_FAILED;
	if (sig == NULL)
		return;
	size_t live = 0, by_signal = 0;
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			struct rep_proc *p = lists[l]->v[i];
			double t = ht_rep_end_time(p);
			if (t < first_kill)
				continue;	/* it ended by itself before the kill */
			if (t > first_kill + 1.0 || p->end == REP_VANISHED)
				return;
			live++;
			by_signal += p->end == REP_SIGNALED && kill_signal(p->exit_signal);
		}
	if (live == 0 || 2 * by_signal <= live)
		return;
	job->ended = REP_JOB_KILLED;
	job->ended_signal = sig;
	job->ended_at = first_kill;
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			struct rep_proc *p = lists[l]->v[i];
			if (ht_rep_end_time(p) < first_kill)
				continue;
			p->killed = true;
			p->stalled = p->open_stall && !p->slow;
			p->waiting = p->stalled;
			p->gave_up = false;
			for (size_t k = 0; k < rep_rel(p)->n; k++) {
				struct rep_proc *q = rep_rel(p)->v[k];
				if (q->end != REP_RUNNING && ht_rep_end_time(q) >= first_kill)
					q->killed = true;
			}
		}
}
