// SPDX-License-Identifier: MIT
/*
 * verdicts_ranks.c: the rules about which ranks are there and how far they
 * got: missing_rank (never wrote a trace), rank_exited (present and gone
 * while others wait), straggler (present, alive, in an earlier phase than
 * the ranks waiting), world_size_mismatch and duplicate_rank.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

/* ---- missing_rank ------------------------------------------------------------------ */

/* The host whose ranks surround r (its ranks run below and above r). */

/* The line that began p's current phase, as evidence of v. */
static void phase_evidence(struct rep_job *job, struct rep_verdict *v, const struct rep_proc *p)
{
	struct rep_loc l = rep_ph_begin(p, p->cur_phase);
	ht_rep_verdict_evidence(job, v, &l, NULL);
}
static struct rep_host *host_around(struct rep_job *job, int64_t r)
{
	for (size_t i = 0; i < job->nhosts; i++) {
		struct rep_host *h = job->hosts[i];
		if (h->mains.n < 2)
			continue;
		int64_t lo = ((struct rep_proc *)h->mains.v[0])->rank;
		int64_t hi = ((struct rep_proc *)h->mains.v[h->mains.n - 1])->rank;
		if (lo < r && r < hi && hi - lo < (int64_t)h->mains.n + 8)
			return h;
	}
	return NULL;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* Ranks per host most hosts run (0 when unclear). */
static size_t usual_per_host(const struct rep_job *job)
{
	size_t *m = malloc((job->nhosts + 1) * sizeof(*m)), n = 0;
	size_t best = 0, best_n = 0;
	if (m == NULL)
		abort();
	for (size_t i = 0; i < job->nhosts; i++)
		if (job->hosts[i]->mains.n > 0)
			m[n++] = job->hosts[i]->mains.n;
	rep_sort(m, n, sizeof(*m), cmp_size);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && m[j] == m[i])
			j++;
		if (j - i > best_n) {
			best_n = j - i;
			best = m[i];
		}
		i = j;
	}
	free(m);
	return best;
}

static void missing_rank(struct rep_job *job)
{
	if (job->nmissing == 0)
		return;
	struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_MISSING_RANK,
						   job->stuck ? REP_ERROR : REP_WARNING);
	for (size_t i = 0; i < job->nmissing; i++)
		ht_rep_verdict_rank(job, v, job->missing[i]);
	struct rep_proc *w;
	const char *waiters = ht_rep_waiters(job, v, &w);
	const char *who = ht_rep_ranks_phrase(job, job->missing, job->nmissing);
	if (job->nmissing > 1)
		who = ht_rep_printf(&job->a, "%s (%zu of %lld)", who, job->nmissing,
				    (long long)job->world_size);
	v->summary = ht_rep_printf(&job->a, "%s never wrote a trace%s%s", who,
				   waiters != NULL ? ", while " : "", waiters != NULL ? waiters : "");
	ht_rep_verdict_note(job, v, "world size %lld, from %s", (long long)job->world_size,
			    job->ws_source != NULL ? job->ws_source : "?");
	ht_rep_verdict_evidence(job, v, &job->ws_loc, NULL);

	/* Where the missing ranks should have run. */
	size_t per = usual_per_host(job);
	int notes = 0, runs = 0;
	for (size_t i = 0; i < job->nmissing && notes < 3 && runs++ < 16; i++) {
		size_t j = i;
		while (j + 1 < job->nmissing && job->missing[j + 1] == job->missing[j] + 1)
			j++;
		size_t len = j - i + 1;
		struct rep_host *h = host_around(job, job->missing[i]);
		if (h != NULL) {
			ht_rep_verdict_note(job, v, "%s would run on host %s, which runs the ranks "
					    "around it", ht_rep_ranks_phrase(job, &job->missing[i], len),
					    h->name);
			notes++;
		} else if (per > 1 && len % per == 0) {
			ht_rep_verdict_note(job, v, "%s are %s worth of ranks (%zu per host): %s "
					    "whose ranks never started",
					    ht_rep_ranks_phrase(job, &job->missing[i], len),
					    len / per == 1 ? "a whole host's" :
					    ht_rep_printf(&job->a, "%zu whole hosts'", len / per), per,
					    len / per == 1 ? "a node" : "nodes");
			notes++;
		}
		i = j;
	}
	/* A launcher process on a host without ranks: the ranks did not start there. */
	for (size_t i = 0; i < job->others.n && notes < 5; i++) {
		struct rep_proc *p = job->others.v[i];
		if (p->h == NULL || p->h->mains.n > 0)
			continue;
		ht_rep_verdict_note(job, v, "host %s has a launcher process (pid %lld, %s rank %lld, "
				    "%s, in %s) but no rank of the job", rep_id(p)->host, (long long)p->pid,
				    rep_id(p)->id_kind, (long long)p->rank, rep_id(p)->cmd != NULL ? rep_id(p)->cmd : "?",
				    ht_rep_phase_name(p->cur_phase));
		notes++;
	}
	if (w != NULL && w->last_dump != NULL)
		ht_rep_verdict_evidence(job, v, &w->last_dump->loc, ht_rep_keep_stall);
	v->advice = "Find out why these ranks did not start or were not traced: the launcher's "
		    "log on the host that should run them (scheduler allocation, --nnodes and "
		    "--nproc-per-node, srun -n, mpirun -np/-H), a node that failed, or a launch "
		    "path that lost hangtrace (a wrapper script resetting LD_PRELOAD, another "
		    "HANGTRACE_DIR: pass every node's folder to the report). If the world size is "
		    "wrong, make WORLD_SIZE match the ranks actually launched.";
}

/* ---- rank_exited ------------------------------------------------------------------- */

/* Killed while waiting (a signal after its own stall dump), or killed
 * with the whole job (job.ended killed): judged as it was before. */
static bool killed_waiting(const struct rep_proc *p)
{
	/* Killed after its own looks: blocked (stalled), or slow in startup
	 * (looks that declared nothing): the launcher ended it, it did not
	 * end by itself. */
	return p->killed || (p->end == REP_SIGNALED && p->exit_after_dump && (p->stalled || p->slow));
}

static size_t count_waiting(const struct rep_job *job)
{
	size_t n = 0;
	for (size_t i = 0; i < job->mains.n; i++)
		n += rep_waited(job->mains.v[i]);
	return n;
}

/* Some other rank waits (waiting: the number of waiting ranks). */
static bool others_wait(size_t waiting, const struct rep_proc *p)
{
	return waiting > (rep_waited(p) ? 1u : 0u);
}

static double ended_at(const struct rep_proc *p)
{
	return p->have_exit ? p->exit_ts : p->last_ts;
}

static const char *how_ended(struct rep_job *job, const struct rep_proc *p)
{
	if (p->end == REP_VANISHED)
		return p->truncated ? "vanished mid-write (killed: SIGKILL or the OOM killer?)" :
		       "vanished without an exit record (SIGKILL, the OOM killer or a lost node?)";
	if (p->end == REP_SIGNALED)
		return ht_rep_printf(&job->a, "died of %s", p->exit_signal);
	if (p->exit_status == 0)
		return "exited normally (status 0)";
	return ht_rep_printf(&job->a, "%sexited with status %lld",
			     p->gave_up ? "gave up waiting and " : "", (long long)p->exit_status);
}

static const char *exit_advice(const struct rep_proc *p)
{
	if (p->gave_up)
		return "They stalled first and then gave up (a timeout of the framework or of "
		       "NCCL ended them): the rank they waited for is the one to look at, see the "
		       "verdicts above.";
	if (p->end == REP_VANISHED || (p->exit_signal != NULL && strcmp(p->exit_signal, "SIGKILL") == 0))
		return "It was killed without a chance to say why: the OOM killer (dmesg on its host, "
		       "the job's memory use), a scheduler's hard kill, or the node going down. "
		       "Ranks that need it cannot finish: restart the job after fixing that.";
	if (p->end == REP_SIGNALED)
		return "It crashed: its own stderr, a core dump or faulthandler output shows where "
		       "(run with PYTHONFAULTHANDLER=1 for Python). Ranks that need it wait until "
		       "their timeouts.";
	if (p->exit_status == 0)
		return "It ended normally while the others still wait for it: it skipped a "
		       "collective the others issued or finished early, a code path only some ranks "
		       "take (a condition on the rank, uneven data). Make every rank issue the same "
		       "collectives.";
	return "It failed: its own stderr or log says why (an exception before or during init, "
	       "a bad argument, a missing file on that host). Ranks that need it cannot go on.";
}

struct exited {
	struct rep_proc *p;
	const char *key;
};

static int cmp_exited(const void *a, const void *b)
{
	const struct exited *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c != 0)
		return c;
	double tx = ended_at(x->p), ty = ended_at(y->p);
	return tx < ty ? -1 : tx > ty;
}

static bool same_end(const void *a, const void *b)
{
	return strcmp(((const struct exited *)a)->key, ((const struct exited *)b)->key) == 0;
}

/* Ended after the first bad end, so likely because of it (a rank that
 * raises takes its connections with it: the others' next collective fails
 * a fraction of a second later). On the first's host its own clock tells
 * 10 ms apart; across hosts wall clocks are compared, so a second. */
static bool after_first(const struct rep_proc *p, double t, double first,
			const struct rep_host *first_host)
{
	return t > first + (p->h == first_host ? 0.01 : 1.0);
}

static void rank_exited(struct rep_job *job)
{
	struct rep_list l = REP_LIST(struct exited);
	size_t nwait = count_waiting(job);
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (p->end == REP_RUNNING || killed_waiting(p))
			continue;
		bool bad = p->failed || p->end == REP_VANISHED ||
			   (p->end == REP_SIGNALED && !killed_waiting(p)) ||
			   (p->end == REP_EXITED && p->exit_status != 0);
		bool waited = others_wait(nwait, p);
		if (!bad && !waited)
			continue;	/* a normal end */
		if (p->end == REP_EXITED && p->exit_status == 0 && !waited)
			continue;
		if (p->end == REP_SIGNALED && ht_rep_steady(p) && !waited)
			continue;	/* the job was stopped after startup */
		((struct exited *)ht_rep_list_push(&l))->p = p;
	}
	struct exited *e = l.v;
	size_t n = l.n;
	/* Grouped by how and where they ended, and whether they ended with
	 * the first (a later death follows from it: its own verdict). */
	double first = INFINITY;
	const char *first_who = NULL;
	struct rep_host *first_host = NULL;
	int64_t first_rank = REP_UNKNOWN;
	for (size_t i = 0; i < n; i++)
		if (ended_at(e[i].p) < first) {
			first = ended_at(e[i].p);
			first_who = ht_rep_who(job, e[i].p);
			first_host = e[i].p->h;
			first_rank = e[i].p->rank;
		}
	for (size_t i = 0; i < n; i++) {
		struct rep_proc *p = e[i].p;
		e[i].key = ht_rep_printf(&job->a, "%d/%s/%lld/%d/%d/%d", (int)p->end,
					 p->exit_signal != NULL ? p->exit_signal : "",
					 (long long)p->exit_status, p->cur_phase, p->gave_up,
					 /* One that gave up ended on its own timeout, whenever. */
					 !p->gave_up && after_first(p, ended_at(p), first, first_host));
	}
	ht_rep_list_sort(&l, cmp_exited);
	for (size_t i = 0; i < n;) {
		size_t j = ht_rep_list_run(&l, i, same_end);
		struct rep_proc *p = e[i].p;
		bool waited = false, bad_early = false;
		for (size_t k = i; k < j; k++) {
			waited |= others_wait(nwait, e[k].p);
			bad_early |= e[k].p->failed && !ht_rep_steady(e[k].p);
		}
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_RANK_EXITED,
							   waited || bad_early ? REP_ERROR : REP_WARNING);
		double t = INFINITY;
		struct rep_host **hosts = malloc((j - i) * sizeof(*hosts));
		size_t nh = 0;
		if (hosts == NULL)
			abort();
		for (size_t k = i; k < j; k++) {
			ht_rep_blame(job, v, e[k].p);
			if (ended_at(e[k].p) < t)
				t = ended_at(e[k].p);
			if (nh == 0 || hosts[nh - 1] != e[k].p->h)
				hosts[nh++] = e[k].p->h;
			if (k < i + 3) {
				struct rep_proc *q = e[k].p;
				if (q->have_exit)
					ht_rep_verdict_evidence(job, v, &q->exit_loc, NULL);
				else if (q->last_dump != NULL)
					ht_rep_verdict_evidence(job, v, &q->last_dump->loc, ht_rep_keep_stall);
				else if (q->cur_phase >= 0)
					phase_evidence(job, v, q);
			}
		}
		v->t = t;
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		struct rep_proc *w;
		const char *waiters = ht_rep_waiters(job, v, &w);
		const char *after = "";
		/* Consequences go after every cause of a wait (collective_lag
		 * included), before the plain stall. */
		if (p->gave_up)
			v->prio += 10;	/* they waited for someone else first */
		else if (after_first(p, t, first, first_host) && first_who != NULL) {
			/* Later deaths are likely consequences of the first:
			 * they follow from what it died of (rules/order.c). */
			v->prio += 10;
			v->follows_rank = first_rank;
			bool cross = first_host != p->h;
			after = t - first < 1 ?
				ht_rep_printf(&job->a, " (%.0f ms after %s ended%s)",
					      (t - first) * 1000, first_who,
					      cross ? ", by the hosts' wall clocks" : "") :
				ht_rep_printf(&job->a, " (%.0f s after %s ended%s)", t - first,
					      first_who, cross ? ", by the hosts' wall clocks" : "");
		}
		/* A rank whose DataLoader worker died first, or that could not
		 * listen on its port, or that read a stale store: it follows from that. */
		for (size_t k = 0; k < job->nverdicts && v->follows_rank == REP_UNKNOWN; k++)
			if ((job->verdicts[k]->code == HT_VERDICT_DATALOADER_WORKER_DIED ||
			     job->verdicts[k]->code == HT_VERDICT_PORT_IN_USE ||
			     job->verdicts[k]->code == HT_VERDICT_STALE_STORE) &&
			    ht_rep_verdict_has(job->verdicts[k], v->ranks[0]))
				v->follows_rank = v->ranks[0];
		v->summary = ht_rep_printf(&job->a, "%s on %s %s in %s%s%s%s",
					   ht_rep_ranks_phrase(job, v->ranks, v->nranks),
					   ht_rep_hosts_phrase(job, hosts, nh),
					   how_ended(job, p),
					   ht_rep_phase_name(p->cur_phase), after,
					   waiters != NULL ? ", while " : "", waiters != NULL ? waiters : "");
		if (w != NULL && w->last_dump != NULL)
			ht_rep_verdict_evidence(job, v, &w->last_dump->loc, ht_rep_keep_stall);
		if (w != NULL && w->h != p->h && (job->clock_note || w->h->boot_id == NULL))
			ht_rep_verdict_note(job, v, "times of different hosts compare wall clocks, "
					    "which may disagree");
		if (p->end == REP_VANISHED && !p->truncated && p->h != NULL && p->h->now < job->now - 1)
			ht_rep_verdict_note(job, v, "gone: its watchdog would have dumped by the "
					    "newest line of another host (wall clocks compared; a "
					    "clock far behind would look the same)");
		v->advice = v->follows_rank != REP_UNKNOWN && *after != '\0' ?
			ht_rep_printf(&job->a, "They ended after %s did: a rank that dies takes its "
				      "connections with it, and the others' next collective fails "
				      "(\"Connection closed by peer\" in their logs). Look at %s "
				      "first.", first_who, first_who) :
			exit_advice(p);
		free(hosts);
		i = j;
	}
	ht_rep_list_free(&l);
}

/* ---- straggler ---------------------------------------------------------------------- */

/* Phases compared for "behind": nccl_id is only the root's, level with device. */
static int level(int phase)
{
	return phase == HT_PHASE_NCCL_ID ? HT_PHASE_DEVICE : phase;
}

static const char *straggler_advice(int phase)
{
	switch (phase) {
	case HT_PHASE_LAUNCH:
		return "It has not begun the job's distributed setup: its stack shows what it does "
		       "instead (loading a checkpoint or data, compiling, downloading, waiting on a "
		       "lock or a shared file system). The others wait for it; make that step "
		       "faster, do it after init on every rank, or raise the rendezvous/NCCL timeout "
		       "if it is only slow.";
	case HT_PHASE_RENDEZVOUS:
		return "It is still trying to reach the rendezvous: see its connects and resolves "
		       "(address, port, firewall).";
	case HT_PHASE_CUDA_INIT:
	case HT_PHASE_DEVICE:
		return "It is still initialising CUDA or binding its GPU: a driver or GPU problem on "
		       "its host (nvidia-smi, dmesg for Xid errors), or a GPU held by another "
		       "process.";
	default:
		return "It has not reached the step the others wait in: its stack shows where it is.";
	}
}

/* Still there: alive, or killed while it waited. */
static bool present(const struct rep_proc *p)
{
	return !(p->end == REP_VANISHED || (p->have_exit && !killed_waiting(p)));
}

/* A rank others wait for that waits for none: it does something else
 * (loading a checkpoint, compiling, sleeping) while they wait at a store,
 * a barrier or a collective, whatever the phases say. */
static bool behind_by_doing(const struct rep_proc *p)
{
	return present(p) && p->root && p->awaited && !p->at_wait && !p->failed;
}

static const char *age_words(struct rep_job *job, double s)
{
	return !isfinite(s) || s < 1 ? NULL : ht_rep_duration(job, s);
}

static void straggler(struct rep_job *job)
{
	/* A rank stuck in the driver's start-up is that verdict's. */
	if (!job->stuck || ht_rep_has_code(job, HT_VERDICT_CUDA_INIT_HANG))
		return;
	/* The ranks behind must still be there; the ranks ahead may have
	 * given up waiting for them since. */
	size_t population = 0;
	int lo = HT_PHASE_COUNT, hi = -1;
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (present(p) || p->gave_up)
			population++;
		if (present(p) && level(p->cur_phase) < lo)
			lo = level(p->cur_phase);
		if (rep_waited(p) && level(p->cur_phase) > hi)
			hi = level(p->cur_phase);
	}
	size_t behind = 0, doing = 0, elsewhere = 0;
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		behind += present(p) && level(p->cur_phase) == lo;
		doing += behind_by_doing(p);
		elsewhere += present(p) && p->stalled && !p->at_wait;
	}
	/* By phase, else by what the ranks do. The odd ones out: when most
	 * ranks are behind, the few ahead wait for a common cause, not for a
	 * straggler. */
	bool by_phase = hi > lo && behind * 2 <= population;
	if (!by_phase && !(doing > 0 && elsewhere * 2 <= population))
		return;
	struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_STRAGGLER, REP_ERROR);
	struct rep_proc *first = NULL;
	struct rep_host **hosts = malloc((job->mains.n + 1) * sizeof(*hosts));
	size_t nh = 0;
	if (hosts == NULL)
		abort();
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (by_phase ? !present(p) || level(p->cur_phase) != lo : !behind_by_doing(p))
			continue;
		ht_rep_blame(job, v, p);
		ht_rep_hosts_add(hosts, &nh, job->mains.n + 1, p->h);
		if (first == NULL)
			first = p;
		if (v->nevidence < 4) {
			if (p->cur_phase >= 0)
				phase_evidence(job, v, p);
			if (p->last_dump != NULL)
				ht_rep_verdict_evidence(job, v, &p->last_dump->loc, ht_rep_keep_stall);
		}
		double t = p->cur_phase >= 0 ? rep_ph(p, p->cur_phase)->ts : p->ts0;
		if (t < v->t)
			v->t = t;
	}
	v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
	struct rep_proc *w;
	const char *waiters = ht_rep_waiters(job, v, &w);
	double now = first->h != NULL ? first->h->now : job->now;	/* its own clock */
	double age = isfinite(now) && first->cur_phase >= 0 ?
		     now - rep_ph(first, first->cur_phase)->ts : NAN;
	const char *how_long = age_words(job, age);
	const char *what = first->doing;
	if (first->group != NULL && (what == NULL || strstr(what, ht_rep_top_frame(first->group)) == NULL))
		what = ht_rep_printf(&job->a, "%s%sin %s", what != NULL ? what : "",
				     what != NULL ? " " : "", ht_rep_top_frame(first->group));
	const char *who = ht_rep_ranks_phrase(job, v->ranks, v->nranks);
	const char *why = ht_rep_work_why(job, first);
	const char *since = how_long != NULL || (why != NULL && first->work == 1) ?
		ht_rep_printf(&job->a, " (%s%s%s)", how_long != NULL ? "for " : "",
			      how_long != NULL ? how_long : "",
			      why != NULL && first->work == 1 ?
			      ht_rep_printf(&job->a, "%s%s", how_long != NULL ? "; " : "",
					    why) : "") : "";
	if (what == NULL)
		what = ht_rep_printf(&job->a, "in %s", ht_rep_phase_name(first->cur_phase));
	if (first->store_at != NULL && v->nranks == 1) {
		/* It hosts the store (or coordinator) the others connect to. */
		v->summary = ht_rep_printf(&job->a, "%s has not opened the store at %s yet: it is "
					   "still %s%s; %s", who, first->store_at, what, since,
					   waiters != NULL ? waiters : "the others wait for it");
	} else if (!by_phase) {
		v->summary = ht_rep_printf(&job->a, "%s (%s) %s not where the others wait: %s %s%s; %s",
					   who, ht_rep_hosts_phrase(job, hosts, nh),
					   v->nranks == 1 ? "is" : "are", v->nranks == 1 ? "it is" :
					   "they are", what, since,
					   waiters != NULL ? waiters : "the others wait for it");
	} else {
		v->summary = ht_rep_printf(&job->a, "%s (%s) %s still in %s, %s%s, while %s",
					   who, ht_rep_hosts_phrase(job, hosts, nh),
					   v->nranks == 1 ? "is" : "are",
					   ht_rep_phase_name(first->cur_phase), what, since,
					   waiters != NULL ? waiters : "the others wait");
	}
	free(hosts);
	if (w != NULL && w->last_dump != NULL)
		ht_rep_verdict_evidence(job, v, &w->last_dump->loc, ht_rep_keep_stall);
	v->advice = straggler_advice(first->cur_phase);
	/* Found by what it does: after a rule that says more about the same
	 * rank (collective_lag: it issued fewer collectives). */
	if (!by_phase)
		v->prio += 5;
	if (first->store_at != NULL && v->nranks == 1) {
		bool jax = job->framework != NULL && strcmp(job->framework, "jax") == 0;
		v->advice = jax ?
			"Process 0 runs JAX's coordination service, which starts in "
			"jax.distributed.initialize: until it gets there, every other process waits. "
			"Call initialize first, before loading or downloading anything, on every "
			"process; or raise initialization_timeout if the work must come first." :
			"Rank 0 hosts the c10d store (MASTER_ADDR:MASTER_PORT), which opens in "
			"init_process_group: until it gets there, every other rank is refused and "
			"waits. Call init_process_group first on every rank and load the checkpoint "
			"after it (or on rank 0 after init, then broadcast), or raise the timeout "
			"given to init_process_group if the load must come first.";
	} else if (!by_phase)
		v->advice = "It is not where the others wait for it: its stack shows what it does "
			    "instead (see doing). Make every rank reach the same barrier or collective: "
			    "do slow work (a checkpoint load, a download, a compile) on every rank "
			    "before it, or raise the framework's timeout if it is only slow.";
}

/* ---- world_size_mismatch -------------------------------------------------------------- */

static void world_size_mismatch(struct rep_job *job)
{
	if (job->world_size <= 0 || job->ws_source == NULL ||
	    strcmp(job->ws_source, "the launcher's variables") != 0)
		return;
	struct rep_verdict *v = NULL;
	enum rep_severity sev = job->stuck || job->failed ? REP_ERROR : REP_WARNING;
	int64_t other = -1;
	size_t n_other = 0;
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		bool differs = rep_id(p)->world_size != REP_UNKNOWN && rep_id(p)->world_size != job->world_size;
		bool outside = p->rank >= job->world_size;
		if (!differs && !outside)
			continue;
		if (v == NULL)
			v = ht_rep_verdict_new(job, HT_VERDICT_WORLD_SIZE_MISMATCH, sev);
		ht_rep_blame(job, v, p);
		if (differs) {
			other = rep_id(p)->world_size;
			n_other++;
		}
		if (v->nevidence < 4)
			ht_rep_verdict_evidence(job, v, &p->id_loc, NULL);
		if (p->ts0 < v->t)
			v->t = p->ts0;
	}
	if (v == NULL)
		return;
	v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
	const char *who = ht_rep_ranks_phrase(job, v->ranks, v->nranks);
	if (n_other > 0)
		v->summary = ht_rep_printf(&job->a, "%s %s told world size %lld%s, most ranks %lld",
					   who, v->nranks == 1 ? "was" : "were", (long long)other,
					   n_other < v->nranks ? " (or another)" : "",
					   (long long)job->world_size);
	else
		v->summary = ht_rep_printf(&job->a, "%s %s outside the world size %lld", who,
					   v->nranks == 1 ? "is" : "are", (long long)job->world_size);
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (rep_id(p)->world_size == job->world_size) {
			ht_rep_verdict_evidence(job, v, &p->id_loc, NULL);
			break;
		}
	}
	v->advice = "Every rank must be launched with the same world size and a rank below it: "
		    "check WORLD_SIZE, --nnodes/--nproc-per-node, srun -n/--ntasks or mpirun -np on "
		    "every node; a node started with other settings (or from an older job script) "
		    "makes its ranks wait for peers that never come.";
}

/* ---- duplicate_rank -------------------------------------------------------------------- */

static void duplicate_rank(struct rep_job *job)
{
	enum rep_severity sev = job->stuck || job->failed ? REP_ERROR : REP_WARNING;
	struct rep_verdict *v = NULL;
	size_t pairs = 0;
	for (size_t i = 0; i + 1 < job->mains.n; i++) {
		struct rep_proc *a = job->mains.v[i], *b = job->mains.v[i + 1];
		if (a->rank != b->rank)
			continue;
		/* Only within one launcher kind (an agent's srun rank is not a
		 * worker's torchrun rank). */
		const char *ka = rep_id(a)->id_kind, *kb = rep_id(b)->id_kind;
		if (ka == NULL || kb == NULL || strcmp(ka, kb) != 0)
			continue;
		if (v == NULL)
			v = ht_rep_verdict_new(job, HT_VERDICT_DUPLICATE_RANK, sev);
		ht_rep_blame(job, v, a);
		if (pairs++ < 3) {
			ht_rep_verdict_evidence(job, v, &a->hdr, NULL);
			ht_rep_verdict_evidence(job, v, &b->hdr, NULL);
		}
		if (a->ts0 < v->t)
			v->t = a->ts0;
	}
	if (v == NULL)
		return;
	v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
	struct rep_proc *a = NULL, *b = NULL;
	for (size_t i = 0; i + 1 < job->mains.n && a == NULL; i++)
		if (((struct rep_proc *)job->mains.v[i])->rank == v->ranks[0]) {
			a = job->mains.v[i];
			b = job->mains.v[i + 1];
		}
	v->summary = ht_rep_printf(&job->a, "%s %s claimed by two processes (e.g. pid %lld on %s "
				   "and pid %lld on %s)", ht_rep_ranks_phrase(job, v->ranks, v->nranks),
				   v->nranks == 1 ? "is" : "are", (long long)a->pid, rep_id(a)->host,
				   (long long)b->pid, rep_id(b)->host);
	v->advice = "Two unrelated processes hold one rank: the rank is computed wrongly (RANK from "
		    "SLURM_PROCID with several tasks per node, the same --node_rank on two nodes, "
		    "a hard-coded rank), or two runs wrote into one trace folder (use a folder per "
		    "job: HANGTRACE_DIR=.../$SLURM_JOB_ID).";
}

void ht_rep_rules_ranks(struct rep_job *job)
{
	world_size_mismatch(job);
	duplicate_rank(job);
	rank_exited(job);
	missing_rank(job);
	straggler(job);
}
