// SPDX-License-Identifier: MIT
/*
 * verdicts_buildlock.c: build_lock_wait (SPEC section 8). A rank whose
 * main thread waits in the build lock's loop (FileBaton.wait under
 * torch.utils.cpp_extension's _jit_compile, PyTorch 1.13; DeepSpeed's op
 * builder reaches it through cpp_extension.load) waits for a file to go
 * away. The library's build_lock line (src/core/buildlock.c) says which
 * lock files exist there, how old they are, and whether a build runs on
 * the host: none, and the lock was left by a build that was killed (it is
 * never removed: every later load waits forever); one, and it is only slow.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/graph.h"

#include "model/workers.h"
#include "read/buildlock.h"
#include "rules/dataloader.h"
#include "rules/rules.h"

static const char *const keep_lock[] = { "root", "via", "locks", "builders", NULL };

static const char *age_words(struct rep_job *job, double s)
{
	return isnan(s) ? "of unknown age" :
			  ht_rep_printf(&job->a, "%s old", ht_rep_duration(job, s));
}

/* The lock it most likely waits on: the oldest. */
static size_t oldest(const struct rep_buildlock *b)
{
	size_t k = 0;
	for (size_t i = 1; i < b->nlocks; i++)
		if (b->locks[i].age > b->locks[k].age)
			k = i;
	return k;
}

static void build_lock_wait(struct rep_job *job, struct rep_proc *m)
{
	const struct rep_buildlock *b = rep_rare(m)->blk;
	bool building = b != NULL && b->nbuilders > 0;
	struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_BUILD_LOCK_WAIT,
						   building ? REP_WARNING : REP_ERROR);
	ht_rep_blame(job, v, m);
	v->t = m->last_dump != NULL ? m->last_dump->ts : NAN;
	if (b == NULL || b->nlocks == 0) {
		v->summary = ht_rep_printf(&job->a, "rank %lld on %s waits for a JIT build lock "
					   "(%s); %s", (long long)m->rank, rep_id(m)->host, m->sig->words,
					   b == NULL ? "no lock file was recorded (a library "
					   "without build_lock lines)" :
					   ht_rep_printf(&job->a, "no lock file found under %s",
							 b->root != NULL ? b->root : "?"));
		v->advice = "Find the extension's build folder (TORCH_EXTENSIONS_DIR/<name>, by "
			    "default ~/.cache/torch_extensions/py<ver>_<cpu|cuXY>/<name>) and remove "
			    "its lock file if no build runs on this host.";
	} else {
		size_t k = oldest(b);
		const char *path = b->locks[k].path;
		const char *more = b->nlocks + b->more_locks > 1 ?
				   ht_rep_printf(&job->a, " (%zu lock files there)",
						 b->nlocks + b->more_locks) : "";
		if (building) {
			v->summary = ht_rep_printf(&job->a, "rank %lld on %s waits for the build lock "
						   "%s (%s)%s while a build runs on the host (pid "
						   "%lld %s, for %.0f s): it is slow, not stuck",
						   (long long)m->rank, rep_id(m)->host, path,
						   age_words(job, b->locks[k].age), more,
						   (long long)b->builders[0].pid,
						   b->builders[0].comm != NULL ? b->builders[0].comm : "?",
						   isnan(b->builders[0].age) ? 0.0 : b->builders[0].age);
			v->advice = "Another process builds the extension: this rank goes on when "
				    "it is done. To avoid the wait on every start, build it once "
				    "before the job, or raise HANGTRACE_TIMEOUT past the build time.";
		} else {
			v->summary = ht_rep_printf(&job->a, "rank %lld on %s waits for the build lock "
						   "%s (%s)%s and no build runs on the host: a stale "
						   "lock, left by a build that was killed",
						   (long long)m->rank, rep_id(m)->host, path,
						   age_words(job, b->locks[k].age), more);
			v->advice = ht_rep_printf(&job->a, "Remove it: rm -f '%s' (and rerun). It was "
						  "left by a build that was killed (a time limit, the "
						  "OOM killer, a cgroup pids limit, Ctrl-C) and is "
						  "never removed by itself. With several ranks per "
						  "host, build the extension once before the job, or "
						  "give each job its own TORCH_EXTENSIONS_DIR.", path);
		}
		ht_rep_verdict_evidence(job, v, &b->loc, keep_lock);
	}
	if (m->last_dump != NULL)
		ht_rep_verdict_evidence(job, v, &m->last_dump->loc, ht_rep_keep_stall);
	if (!building)
		ht_rep_follows(job, m->rank, v);
}

/* A rank that waits for a live build, or builds (its stack compiles). */
static bool slow_for_build(const struct rep_proc *m)
{
	if (m == NULL || m->sig == NULL)
		return false;
	if (m->sig->kind == HT_SIG_COMPILE)
		return true;
	const struct rep_buildlock *blk = rep_rare(m)->blk;
	return m->sig->kind == HT_SIG_FILE_LOCK && blk != NULL && blk->nbuilders > 0;
}

void ht_rep_rules_buildlock_slow(struct rep_job *job)
{
	const struct rep_verdict *live = NULL;
	for (size_t i = 0; i < job->nverdicts && live == NULL; i++)
		if (job->verdicts[i]->code == HT_VERDICT_BUILD_LOCK_WAIT &&
		    job->verdicts[i]->sev == REP_WARNING)
			live = job->verdicts[i];
	if (live == NULL || job->nby_rank == 0)
		return;
	/* Only when every error is an effect whose chain of waits ends at
	 * ranks that build or wait for the build: a job that is slow, not
	 * stuck. Any other error keeps every verdict as it is. */
	size_t nbits = job->nby_rank;
	uint8_t *bits = calloc(nbits / 8 + 1, 1);
	if (bits == NULL)
		abort();
	bool all = true;
	for (size_t i = 0; i < job->nverdicts && all; i++) {
		const struct rep_verdict *v = job->verdicts[i];
		if (v->sev != REP_ERROR)
			continue;
		if (!ht_rep_verdict_may_follow(v->code) || v->code == HT_VERDICT_RANK_EXITED ||
		    v->nranks == 0) {
			all = false;
			break;
		}
		memset(bits, 0, nbits / 8 + 1);
		ht_rep_roots_of(job, v->ranks, v->nranks, bits);
		for (size_t r = 0; r < nbits && all; r++)
			if (bits[r / 8] & (1u << (r % 8)))
				all = slow_for_build(ht_rep_rank_main(job, (int64_t)r));
	}
	free(bits);
	if (!all)
		return;
	for (size_t i = 0; i < job->nverdicts; i++) {
		struct rep_verdict *v = job->verdicts[i];
		if (v->sev != REP_ERROR)
			continue;
		v->sev = REP_WARNING;
		if (v->because == NULL)
			v->because = live;
	}
}

void ht_rep_rules_buildlock(struct rep_job *job)
{
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *m = job->mains.v[i];
		if (m->sig == NULL || m->sig->kind != HT_SIG_FILE_LOCK ||
		    !(rep_waited(m) || m->stalled))
			continue;
		build_lock_wait(job, m);
	}
}
