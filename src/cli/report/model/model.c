// SPDX-License-Identifier: MIT
/*
 * model.c: from process records to a job (SPEC sections 4 and 8): process
 * trees per host by parent pid, each rank's main process (the one that made
 * CUDA or NCCL calls, else the deepest holding the identity), restarts told
 * from duplicates by time, the world size, the missing ranks, and each
 * rank's state: stalled, exited, killed while waiting, vanished, working or
 * blocked. Times within a process are its own monotonic clock; across
 * processes the wall clock, which hosts may disagree on (noted).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/mains.h"
#include "model/model.h"
#include "procfs.h"
#include "model/ranges.h"
#include "model/stacks.h"

#define CLOCK_SPREAD_NOTE 600.0	/* s between hosts' first lines worth a note */

const char *ht_rep_phase_name(int p)
{
	const char *n = ht_phase_name(p);
	return n != NULL ? n : "none";
}

const struct rep_phase ht_rep_phase_none;

struct rep_phase *ht_rep_ph_w(struct rep_arena *a, struct rep_proc *p, int i)
{
	if (!p->ph_dense) {
		struct rep_phase *all = ht_rep_alloc(a, HT_PHASE_COUNT * sizeof(*all));
		for (int k = 0; k < HT_PHASE_COUNT; k++)
			all[k] = *rep_ph(p, k);
		p->ph = all;
		p->ph_dense = true;
	}
	return &p->ph[i];
}

const struct rep_rare ht_rep_rare_none = {
	.nccl_id = { .result = REP_UNKNOWN, .loc = REP_NOLOC },
	.fork_parent = REP_UNKNOWN,
	.cuda_fork_loc = REP_NOLOC,
	.fork_cuda_loc = REP_NOLOC,
	.degraded_loc = REP_NOLOC,
};

const struct rep_vec ht_rep_vec_none;

const struct rep_ident ht_rep_id_none = { .pid_ns = REP_UNKNOWN, .world_size = REP_UNKNOWN };
const struct rep_cudainit ht_rep_cuda_none = { .result = REP_UNKNOWN,
					       .driver_version = REP_UNKNOWN,
					       .runtime_version = REP_UNKNOWN,
					       .device_count = REP_UNKNOWN,
					       .stub = -1 };

const struct rep_hostfacts ht_rep_hf_none;

/* What the readers share between processes: v (n bytes), one of the last
 * that last holds for which same() holds, else a copy made in a (into the
 * slot after last->next); NULL when it is none. */
static const void *share(struct rep_arena *a, struct rep_shared *last, const void *v, size_t n,
			 bool (*same)(const void *, const void *), const void *none)
{
	if (same(v, none))
		return NULL;
	for (unsigned i = 0; i < REP_SHARED_LAST; i++)
		if (last->v[i] != NULL && same(last->v[i], v))
			return last->v[i];
	void *c = ht_rep_alloc(a, n);
	memcpy(c, v, n);
	last->v[last->next++ % REP_SHARED_LAST] = c;
	return c;
}

static bool hf_same(const void *x, const void *y)
{
	const struct rep_hostfacts *a = x, *b = y;
	return a->have == b->have && a->nccl_match == b->nccl_match &&
	       a->gloo_match == b->gloo_match && a->ifaces == b->ifaces &&
	       a->nccl_ifname == b->nccl_ifname && a->gloo_ifname == b->gloo_ifname &&
	       a->shm_total == b->shm_total && a->cpus == b->cpus;
}

static bool cuda_same(const void *x, const void *y)
{
	const struct rep_cudainit *a = x, *b = y;
	return a->via == b->via && a->error == b->error && a->libcuda == b->libcuda &&
	       a->result == b->result && a->driver_version == b->driver_version &&
	       a->runtime_version == b->runtime_version && a->device_count == b->device_count &&
	       a->stub == b->stub;
}

const struct rep_versions ht_rep_vers_none = {
	.value = { [0 ... REP_VER_COUNT - 1] = REP_UNKNOWN },
};

static bool vers_same(const void *x, const void *y)
{
	const struct rep_versions *a = x, *b = y;
	for (int k = 0; k < REP_VER_COUNT; k++)
		if (a->value[k] != b->value[k] || a->provider[k] != b->provider[k])
			return false;
	return true;
}

void ht_rep_ver_set(struct rep_arena *a, struct rep_shared *last, struct rep_proc *p, int k,
		    int64_t value, const char *provider, const struct rep_loc *loc)
{
	struct rep_versions v = *rep_vers(p);
	v.value[k] = value;
	v.provider[k] = provider;
	p->vers = ht_rep_vers_share(a, last, &v);
	p->ver_loc[k] = *loc;
}

const struct rep_commid ht_rep_cid_none = { .nranks = REP_UNKNOWN, .color = REP_UNKNOWN };

static bool cid_same(const void *x, const void *y)
{
	const struct rep_commid *a = x, *b = y;
	return a->fn == b->fn && a->root == b->root && a->id_hash == b->id_hash &&
	       a->commid == b->commid && a->parent == b->parent && a->comm_name == b->comm_name &&
	       a->nranks == b->nranks && a->color == b->color && a->error == b->error &&
	       a->last_error == b->last_error;
}

const struct rep_conndest ht_rep_cd_none;

static bool cd_same(const void *x, const void *y)
{
	const struct rep_conndest *a = x, *b = y;
	return a->dest == b->dest && a->role == b->role && a->result == b->result &&
	       a->error == b->error && a->tcp_state == b->tcp_state && a->err == b->err &&
	       a->probe == b->probe;
}

const struct rep_callwhat ht_rep_cw_none = { .result = REP_UNKNOWN };

static bool cw_same(const void *x, const void *y)
{
	const struct rep_callwhat *a = x, *b = y;
	return a->name == b->name && a->result == b->result;
}

const struct rep_dstack ht_rep_dst_none;

static bool dst_same(const void *x, const void *y)
{
	const struct rep_dstack *a = x, *b = y;
	return a->frames == b->frames && a->py == b->py && a->nframes == b->nframes &&
	       a->npy == b->npy && a->stack_hash == b->stack_hash && a->wchan == b->wchan &&
	       a->syscall == b->syscall && a->py_status == b->py_status;
}

_Static_assert(offsetof(struct rep_ident, timeout) + sizeof(double) == sizeof(struct rep_ident),
	       "struct rep_ident has no padding: memcmp compares it");

static bool id_same(const void *x, const void *y)
{
	return memcmp(x, y, sizeof(struct rep_ident)) == 0;	/* (no padding) */
}

/* ht_rep_NAME_share, for each kind of REP_SHARED_KINDS (model.h). */
#define REP_SHARED_DEF(T, NAME, R, M)						\
	const struct T *ht_rep_##NAME##_share(struct rep_arena *a, struct rep_shared *last, \
					      const struct T *v)			\
	{									\
		return share(a, last, v, sizeof(*v), NAME##_same, &ht_rep_##NAME##_none); \
	}
REP_SHARED_KINDS(REP_SHARED_DEF)

struct rep_ident *ht_rep_ident_w(struct rep_arena *a, struct rep_proc *p)
{
	struct rep_ident *n = ht_rep_alloc(a, sizeof(*n));
	*n = *rep_id(p);
	p->id = n;
	return n;
}

struct rep_rare *ht_rep_rare_w(struct rep_arena *a, struct rep_proc *p)
{
	if (p->rare == NULL) {
		p->rare = ht_rep_alloc(a, sizeof(*p->rare));
		memcpy(p->rare, &ht_rep_rare_none, sizeof(*p->rare));
	}
	return p->rare;
}

struct rep_proc *ht_rep_main_of(struct rep_proc *p)
{
	int guard = 0;
	while (!p->is_main && p->main != NULL && guard++ < 64)
		p = p->main;
	return p;
}

bool ht_rep_steady(const struct rep_proc *p)
{
	return rep_ph(p, HT_PHASE_STEADY)->begun;
}

const char *ht_rep_who(struct rep_job *job, const struct rep_proc *p)
{
	const char *kind = rep_id(p)->id_kind;
	if (p->rank != REP_UNKNOWN && (p->is_main || (p->main != NULL && p->main->rank == p->rank)) &&
	    !p->outer && kind != NULL &&
	    (job->kind == NULL || strcmp(kind, "nccl") == 0 || strcmp(kind, job->kind) == 0))
		return ht_rep_printf(&job->a, "rank %lld", (long long)p->rank);
	if (p->rank != REP_UNKNOWN && kind != NULL)
		return ht_rep_printf(&job->a, "pid %lld on %s (%s rank %lld)", (long long)p->pid,
				     rep_id(p)->host, kind, (long long)p->rank);
	return ht_rep_printf(&job->a, "pid %lld on %s", (long long)p->pid, rep_id(p)->host);
}

/* ---- per process ------------------------------------------------------------- */

static bool gpu_active(const struct rep_proc *p)
{
	if (rep_id(p)->relevant != NULL && (strcmp(rep_id(p)->relevant, "cuda") == 0 || strcmp(rep_id(p)->relevant, "nccl") == 0))
		return true;
	for (int i = HT_PHASE_CUDA_INIT; i < HT_PHASE_COUNT; i++)
		if (rep_ph(p, i)->begun)
			return true;
	return p->ncomms > 0 || rep_vers(p)->value[REP_VER_DRIVER] != REP_UNKNOWN ||
	       rep_vers(p)->value[REP_VER_NCCL] != REP_UNKNOWN || rep_rare(p)->ncerr > 0;
}

/* A DataLoader-style worker: forked from a traced process and never exec'd. */
bool ht_rep__fork_worker(const struct rep_proc *p)
{
	return rep_id(p)->relevant != NULL && strcmp(rep_id(p)->relevant, "fork") == 0 && p->nexec == 0;
}

/* Wall time of the process's last phase transition. */
static double last_transition(const struct rep_proc *p)
{
	double t = p->ts0;
	for (int i = 0; i < HT_PHASE_COUNT; i++) {
		const struct rep_phase *r = rep_ph(p, i);
		if (r->begun && r->ts > t)
			t = r->ts;
		if ((r->ended || r->errored) && r->end_ts > t)
			t = r->end_ts;
	}
	return t;
}

/* No exit record: alive, or gone without a word (SIGKILL, OOM killer)?
 * Gone when its last line was cut, or when its watchdog would have
 * written a dump by now (seen from the newest line of the job) and did not. */
static bool vanished(const struct rep_proc *p, double now)
{
	if (p->truncated)
		return true;
	if (ht_rep_steady(p) || isnan(now))
		return false;
	int64_t n = 0;
	for (size_t i = 0; i < p->ndumps; i++)
		if (p->dumps[i].epoch == p->epoch && p->dumps[i].n > n)
			n = p->dumps[i].n;
	if (n >= 3)
		return false;
	double expect = last_transition(p) + rep_id(p)->timeout * (n == 0 ? 1 : n == 1 ? 2 : 4);
	double slack = rep_id(p)->timeout * 0.1 > 5 ? rep_id(p)->timeout * 0.1 : 5;
	return now > expect + slack && now > p->last_ts + slack;
}

/* The report's own machine: its boot id and pid namespace. */
struct here {
	char boot[40];
	int64_t ns;
};

static void here_init(struct here *h)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
	ht_boot_id(h->boot);
	h->ns = 0;
	if (n > 5 && memcmp(link, "pid:[", 5) == 0) {
		link[n] = '\0';
		h->ns = strtoll(link + 5, NULL, 10);
	}
}

/* A process of this machine and pid namespace that no longer runs: its
 * pid is gone, or now names a process started at another time, or a
 * zombie. Known at once, where the watchdog's silence takes a deadline. */
static bool gone_here(const struct here *h, const struct rep_proc *p)
{
	if (h->ns <= 0 || h->boot[0] == '\0' || rep_id(p)->boot_id == NULL || rep_id(p)->pid_ns != h->ns ||
	    strcmp(rep_id(p)->boot_id, h->boot) != 0 || p->pid <= 0 || p->start_ticks == REP_UNKNOWN)
		return false;
	char path[48];
	struct ht_stat st;
	snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)p->pid);
	if (!ht_read_stat(path, &st))
		return errno == ENOENT || errno == ESRCH;
	return (int64_t)st.start_ticks != p->start_ticks || st.state == 'Z' || st.state == 'X';
}

static void end_state(const struct here *h, struct rep_proc *p, double now)
{
	if (p->have_exit)
		p->end = p->exit_signal != NULL ? REP_SIGNALED : REP_EXITED;
	else
		/* A chained fatal signal (an abort on stall) ended it where it
		 * waited: judged by that line (ended.c), as before. */
		p->end = (gone_here(h, p) && rep_rare(p)->signal == NULL) || vanished(p, now) ?
			 REP_VANISHED : REP_RUNNING;
	if (p->ndumps == 0)
		return;
	struct rep_dump *d = &p->dumps[p->ndumps - 1];
	p->last_dump = d;
	/* Stalled: the latest dump was taken in the current episode, and no
	 * transition, return of the stalled call or exit followed it (a kill
	 * after the dump leaves it stalled: it died waiting). */
	bool st = d->epoch == p->epoch && p->last_call_end_stalled < d->loc.line;
	if (ht_rep_steady(p) && (d->reason == NULL || strcmp(d->reason, "timeout") != 0))
		p->open_stall = false;
	else
		p->open_stall = st;
	if (p->have_exit && p->exit_loc.line > d->loc.line &&
	    !(p->exit_signal != NULL && p->exit_after_dump)) {
		/* It ended by itself where it stalled: a timeout gave up. */
		p->gave_up = st && !ht_rep_steady(p);
		st = false;
	}
	if (ht_rep_steady(p) && (d->reason == NULL || strcmp(d->reason, "timeout") != 0))
		st = false;	/* a healthy rank dumped on demand */
	/* A look at a rank that works past its deadline is evidence, not a
	 * stall: the library declared none (dump_end "declared": false). A
	 * later dump of the same episode that declares one counts. */
	bool looked = false, declared = false;
	for (size_t i = 0; i < p->ndumps; i++) {
		const struct rep_dump *e = &p->dumps[i];
		if (e->epoch != p->epoch || e->reason == NULL || strcmp(e->reason, "timeout") != 0)
			continue;
		looked |= e->undeclared;
		declared |= !e->undeclared;
	}
	if (looked && !declared) {
		st = false;
		p->slow = true;
	}
	p->stalled = st;
	p->waiting = st && (p->end == REP_RUNNING || p->end == REP_SIGNALED);
}

/* The dumps of p's latest stall with the main thread's stack: the first
 * and the last (NULL: none). */
static void work_span(const struct rep_proc *p, const struct rep_dump **first,
		      const struct rep_dump **last)
{
	*first = *last = NULL;
	for (size_t i = 0; i < p->ndumps; i++) {
		const struct rep_dump *d = &p->dumps[i];
		if (d->epoch != p->epoch || !d->have_main)
			continue;
		if (*first == NULL)
			*first = d;
		*last = d;
	}
}

/* Whether p worked between the first and the last dump of its stall;
 * why, in words, when text (else p->work_why is left to
 * ht_rep_work_why, which most processes never need: a million printf
 * calls at a million ranks). */
static void work_state(struct rep_job *job, struct rep_proc *p, bool text)
{
	const struct rep_dump *first, *last;
	work_span(p, &first, &last);
	if (last == NULL) {
		p->work_why = "no stack of the main thread";
		return;
	}
	if (first == last) {
		p->work_why = last->state == 'R' ? "running when dumped (one dump: cannot tell more)" :
			      last->state == 'D' ? "in uninterruptible I/O when dumped (one dump)" :
			      "one dump: cannot tell working from blocked";
		if (last->state == 'D')
			p->work = 1;
		return;
	}
	double wall = last->ts - first->ts;
	double cpu = last->cpu - first->cpu;
	int64_t io = first->io >= 0 && last->io >= 0 ? last->io - first->io : -1;
	bool moved = rep_dst(first)->stack_hash != rep_dst(last)->stack_hash;
	p->progressed = moved || io >= (1 << 20);
	p->why_later = !text;
	if (moved) {
		p->work = 1;
		if (text)
			p->work_why = ht_rep_printf(&job->a, "working: its stack changed between "
						    "dumps %.0f s apart", wall);
	} else if (io >= (1 << 20)) {
		p->work = 1;
		if (text)
			p->work_why = ht_rep_printf(&job->a, "working: %.1f %s of I/O in %.0f s, "
						    "same stack",
						    io >= (1LL << 30) ? (double)io / (1LL << 30) :
						    (double)io / (1 << 20),
						    io >= (1LL << 30) ? "GiB" : "MiB", wall);
	} else if (cpu > 0.2 * wall && cpu > 0.5) {
		p->work = 1;
		if (text)
			p->work_why = ht_rep_printf(&job->a, "busy: CPU +%.1f s in %.0f s with the "
						    "same stack (a loop or a spin-wait)", cpu, wall);
	} else {
		p->work = 0;
		if (text)
			p->work_why = ht_rep_printf(&job->a, "blocked: same stack, CPU +%.2f s%s in "
						    "%.0f s", isnan(cpu) ? 0.0 : cpu,
						    io >= 0 ? " and no I/O" : "", wall);
	}
}

const char *ht_rep_work_why(struct rep_job *job, struct rep_proc *p)
{
	if (p->why_later) {
		work_state(job, p, true);	/* (the same dumps: the same state) */
		p->why_later = false;
	}
	return p->work_why;
}

/* ---- trees ---------------------------------------------------------------------- */

/* What processes are sorted by to find their parents, beside them (a
 * sort of a million reads no record). */
struct host_pid {
	const char *host;
	int64_t pid;
	double ts0;
	struct rep_proc *p;
};

static int cmp_host(const void *a, const void *b)
{
	const struct host_pid *x = a, *y = b;
	return x->host == y->host ? 0 : strcmp(x->host, y->host);
}

static int cmp_host_pid(const void *a, const void *b)
{
	const struct host_pid *x = a, *y = b;
	int c = cmp_host(x, y);
	if (c != 0)
		return c;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->ts0 < y->ts0 ? -1 : x->ts0 > y->ts0;
}

static bool same_boot(const struct rep_proc *a, const struct rep_proc *b)
{
	return rep_id(a)->boot_id == NULL || rep_id(b)->boot_id == NULL || rep_id(a)->boot_id == rep_id(b)->boot_id ||
	       strcmp(rep_id(a)->boot_id, rep_id(b)->boot_id) == 0;
}

static void link_parents(struct rep_proc **s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rep_proc *p = s[i];
		REP_AHEAD_P(s, n, i, rare);
		REP_AHEAD_P(s, n, i, ppid);
		int64_t fp = rep_rare(p)->fork_parent;
		int64_t want = fp != REP_UNKNOWN ? fp : p->ppid;
		if (want == REP_UNKNOWN || want == p->pid)
			continue;
		/* Binary search for the first record of (host, want). */
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int c = strcmp(rep_id(s[mid])->host, rep_id(p)->host);
			if (c < 0 || (c == 0 && s[mid]->pid < want))
				lo = mid + 1;
			else
				hi = mid;
		}
		struct rep_proc *best = NULL;
		for (size_t k = lo; k < n && s[k]->pid == want && strcmp(rep_id(s[k])->host, rep_id(p)->host) == 0; k++)
			if (same_boot(s[k], p) && !(s[k]->ts0 > p->ts0 + 1))
				best = s[k];	/* the latest that started before the child */
		p->parent = best;
	}
	for (size_t i = 0; i < n; i++) {
		int d = 0;
		REP_AHEAD_P(s, n, i, parent);
		for (struct rep_proc *q = s[i]->parent; q != NULL && d < 64; q = q->parent)
			d++;
		s[i]->depth = d;
		if (d >= 64)
			s[i]->parent = NULL;	/* a cycle through reused pids */
	}
}

/* ---- the job ------------------------------------------------------------------------ */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The size of a communicator larger than the launcher's world that each
 * main in it joined once, as its own rank, and more than one did: the
 * launcher started fewer processes than the program's world needs (mpirun
 * -np 3 of a 4-rank job). 0 when there is none; where it began in *loc. */
static int64_t larger_world(const struct rep_job *job, int64_t launcher, struct rep_loc *loc)
{
	int64_t size = 0;
	for (size_t i = 0; i < job->mains.n; i++) {
		const struct rep_proc *p = job->mains.v[i];
		for (size_t k = 0; k < p->ncomms; k++) {
			int64_t n = rep_cid(&p->comms[k])->nranks;
			if (n > launcher && n > size && n <= REP_MAX_WORLD) {
				size = n;
				*loc = p->comms[k].begin;
			}
		}
	}
	size_t holders = 0;
	for (size_t i = 0; i < job->mains.n && size > 0; i++) {
		const struct rep_proc *p = job->mains.v[i];
		size_t held = 0;
		for (size_t k = 0; k < p->ncomms; k++) {
			if (rep_cid(&p->comms[k])->nranks != size)
				continue;
			if (p->comms[k].rank != p->rank || ++held > 1)
				return 0;	/* GPUs per process, not processes */
		}
		holders += held;
	}
	return holders > 1 ? size : 0;
}

static void world_size(struct rep_job *job)
{
	/* The launcher's value most ranks agree on, else the largest
	 * communicator, else one past the highest rank seen. */
	int64_t best = -1;
	struct rep_loc loc = REP_NOLOC;
	int64_t *v = malloc((job->mains.n + 1) * sizeof(*v));
	size_t n = 0;
	if (v == NULL)
		abort();
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		int64_t ws = rep_id(p)->world_size;
		if (ws != REP_UNKNOWN && ws > 0 && ws <= REP_MAX_WORLD)
			v[n++] = ws;
	}
	rep_sort(v, n, sizeof(*v), cmp_i64);
	size_t best_n = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && v[j] == v[i])
			j++;
		if (j - i >= best_n) {	/* ties: the larger value */
			best_n = j - i;
			best = v[i];
		}
		i = j;
	}
	free(v);
	if (best > 0) {
		for (size_t i = 0; i < job->mains.n; i++) {
			struct rep_proc *p = job->mains.v[i];
			if (rep_id(p)->world_size == best) {
				loc = p->id_loc;
				break;
			}
		}
		job->world_size = best;
		job->ws_loc = loc;
		job->ws_source = "the launcher's variables";
		int64_t comm = larger_world(job, best, &loc);
		if (comm > 0) {
			job->world_size = comm;
			job->ws_loc = loc;
			job->ws_source = ht_rep_printf(&job->a, "the ranks' communicator; the "
						       "launcher's variables say %lld", (long long)best);
		}
		return;
	}
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		for (size_t k = 0; k < p->ncomms; k++) {
			int64_t n = rep_cid(&p->comms[k])->nranks;
			if (n > best && n <= REP_MAX_WORLD) {
				best = n;
				loc = p->comms[k].begin;
			}
		}
	}
	if (best > 0) {
		job->world_size = best;
		job->ws_loc = loc;
		job->ws_source = "the largest communicator";
		return;
	}
	if (job->mains.n > 0) {
		struct rep_proc *p = job->mains.v[job->mains.n - 1];
		if (p->rank < REP_MAX_WORLD) {
			job->world_size = p->rank + 1;
			job->ws_source = "the highest rank seen (no world size recorded)";
		}
	}
}

static void missing(struct rep_job *job)
{
	if (job->world_size <= 0)
		return;
	size_t cap = 64, n = 0;
	int64_t *m = malloc(cap * sizeof(*m));
	size_t k = 0;
	for (int64_t r = 0; r < job->world_size && m != NULL; r++) {
		while (k < job->mains.n && ((struct rep_proc *)job->mains.v[k])->rank < r)
			k++;
		if (k < job->mains.n && ((struct rep_proc *)job->mains.v[k])->rank == r)
			continue;
		if (n == cap) {
			cap *= 2;
			int64_t *nm = realloc(m, cap * sizeof(*m));
			if (nm == NULL)
				break;
			m = nm;
		}
		m[n++] = r;
	}
	if (m != NULL && n > 0) {
		job->missing = ht_rep_alloc(&job->a, n * sizeof(*m));
		memcpy(job->missing, m, n * sizeof(*m));
		job->nmissing = n;
	}
	free(m);
}

static void hosts(struct rep_job *job, struct rep_proc **s, size_t n)
{
	size_t cap = 16;
	job->hosts = malloc(cap * sizeof(*job->hosts));
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && strcmp(rep_id(s[j])->host, rep_id(s[i])->host) == 0)
			j++;
		struct rep_host *h = ht_rep_alloc(&job->a, sizeof(*h));
		h->name = rep_id(s[i])->host;
		h->boot_id = rep_id(s[i])->boot_id;
		h->first_ts = INFINITY;
		h->now = -INFINITY;
		ht_rep_vec_reserve(&h->procs, j - i);	/* (131,072 hosts: no slack) */
		ht_rep_vec_reserve(&h->mains, j - i);
		for (size_t k = i; k < j; k++) {
			struct rep_proc *p = s[k];
			REP_AHEAD_ALL(s, n, k);
			if (p->last_ts > h->now)
				h->now = p->last_ts;
			p->h = h;
			ht_rep_vec_push(&h->procs, p);
			if (p->is_main && p->rank != REP_UNKNOWN && !p->outer &&
			    ht_rep__in_numbering(job, p))
				ht_rep_vec_push(&h->mains, p);
			if (rep_hf(p)->have && (h->hf == NULL || p->is_main))
				h->hf = p;
			if (p->ts0 < h->first_ts)
				h->first_ts = p->ts0;
		}
		rep_sort(h->mains.v, h->mains.n, sizeof(void *), ht_rep__cmp_main);
		if (job->nhosts == cap) {
			cap *= 2;
			job->hosts = realloc(job->hosts, cap * sizeof(*job->hosts));
		}
		if (job->hosts == NULL)
			abort();
		job->hosts[job->nhosts++] = h;
		i = j;
	}
	if (job->nhosts > 1) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < job->nhosts; i++) {
			if (job->hosts[i]->first_ts < lo)
				lo = job->hosts[i]->first_ts;
			if (job->hosts[i]->first_ts > hi)
				hi = job->hosts[i]->first_ts;
		}
		job->clock_note = hi - lo > CLOCK_SPREAD_NOTE;
	}
}

static const char *framework(struct rep_job *job)
{
	size_t votes[5] = { 0 };
	const char *names[5] = { "deepspeed", "horovod", "jax", "pytorch", "python" };
	bool native = false;
	size_t n = job->mains.n + job->unranked.n;
	for (size_t i = 0; i < n; i++) {
		struct rep_proc *p = i < job->mains.n ? job->mains.v[i] :
				     job->unranked.v[i - job->mains.n];
		REP_AHEAD_P(job->mains.v, job->mains.n, i, id);
		REP_AHEAD_P(job->mains.v, job->mains.n, i, nconn);
		/* From what every record has (command line, environment,
		 * connect roles), never from a dump's frames: the label must
		 * not change with whether a dump happened. */
		const char *f = rep_id(p)->fw_hint;
		for (size_t k = 0; f == NULL && k < p->nconn; k++) {
			const char *role = rep_cd(&p->conn[k])->role;
			if (role != NULL && strcmp(role, "jax_coordinator") == 0)
				f = "jax";
		}
		if (f == NULL && rep_id(p)->master_addr != NULL && rep_id(p)->exe != NULL &&
		    strstr(rep_id(p)->exe, "python") != NULL)
			f = "pytorch";	/* MASTER_ADDR: torch.distributed's env:// */
		if (f == NULL && rep_id(p)->exe != NULL && strstr(rep_id(p)->exe, "python") != NULL)
			f = "python";
		if (f == NULL) {
			native = true;
			continue;
		}
		for (size_t j = 0; j < 5; j++)
			if (strcmp(names[j], f) == 0)
				votes[j]++;
	}
	/* The most specific framework any rank shows. */
	for (size_t j = 0; j < 5; j++)
		if (votes[j] > 0)
			return names[j];
	return native ? "native" : NULL;
}

void ht_rep_model(struct rep_job *job)
{
	size_t n = job->procs.n;
	struct rep_proc **s = malloc((n + 1) * sizeof(*s));
	if (s == NULL)
		abort();
	memcpy(s, job->procs.v, n * sizeof(*s));
	struct here here;
	here_init(&here);
	job->t0 = INFINITY;
	job->now = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		REP_AHEAD_P(s, n, i, ts0);
		if (s[i]->ts0 < job->t0)
			job->t0 = s[i]->ts0;
		if (s[i]->last_ts > job->now)
			job->now = s[i]->last_ts;
	}
	if (isinf(job->now))
		job->now = NAN;
	for (size_t i = 0; i < n; i++) {
		REP_AHEAD_ALL(s, n, i);
		REP_AHEAD_IN(s, n, i, dumps);
		REP_AHEAD_IN(s, n, i, ph);
		s[i]->gpu = gpu_active(s[i]);
		end_state(&here, s[i], job->now);
		if (s[i]->stalled || s[i]->gave_up)
			work_state(job, s[i], false);
		/* A rank whose stack or I/O moved between the dumps of that
		 * stall was slow, not waiting (a long import, then a crash):
		 * its end is no timeout giving up. */
		if (s[i]->gave_up && s[i]->progressed)
			s[i]->gave_up = false;
	}
	struct host_pid *k = malloc((n + 1) * sizeof(*k));
	if (k == NULL)
		abort();
	for (size_t i = 0; i < n; i++) {
		REP_AHEAD_P(s, n, i, id);
		REP_AHEAD_P(s, n, i, ts0);
		k[i] = (struct host_pid){ rep_id(s[i])->host, s[i]->pid, s[i]->ts0, s[i] };
	}
	rep_sort_grouped(k, n, sizeof(*k), cmp_host, cmp_host_pid);
	for (size_t i = 0; i < n; i++)
		s[i] = k[i].p;
	free(k);
	link_parents(s, n);

	/* A launcher wrapper (a torchrun agent under srun) holds an identity
	 * of another kind than the ranks below it: not a rank of the job. */
	for (size_t i = 0; i < n; i++) {
		REP_AHEAD_P(s, n, i, id);
		REP_AHEAD_P(s, n, i, parent);
		if (!ht_rep__real_kind(s[i]))
			continue;
		for (struct rep_proc *q = s[i]->parent; q != NULL; q = q->parent)
			if (ht_rep__real_kind(q) && strcmp(rep_id(q)->id_kind, rep_id(s[i])->id_kind) != 0)
				q->outer = true;
	}
	ht_rep__pick_kind(job);
	ht_rep__choose_mains(job);
	ht_rep__place_others(job);
	world_size(job);
	missing(job);
	hosts(job, s, n);
	free(s);
	for (size_t i = 0; i < job->procs.n && job->job_id == NULL; i++)
		job->job_id = rep_id((struct rep_proc *)job->procs.v[i])->job;	/* the first given */
	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *p = job->procs.v[i];
		REP_AHEAD_P(job->procs.v, job->procs.n, i, is_main);
		REP_AHEAD_P(job->procs.v, job->procs.n, i, main);
		if (!p->is_main && p->main != NULL) {
			struct rep_proc *m = ht_rep_main_of(p);
			if (m->rel == NULL)
				m->rel = ht_rep_alloc(&job->a, sizeof(*m->rel));
			ht_rep_vec_push(m->rel, p);
		}
	}
	ht_rep_job_ended(job);
	/* Failed: ended badly before steady (a rank stopped after startup,
	 * say by the scheduler at the end of its time, is not a startup
	 * failure; rank_exited still names it when others wait for it). */
	struct rep_vec *lists[2] = { &job->mains, &job->unranked };
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			struct rep_proc *p = lists[l]->v[i];
			REP_AHEAD_ALL(lists[l]->v, lists[l]->n, i);
			p->failed = !ht_rep_steady(p) && !p->killed &&
				    (p->end == REP_VANISHED ||
				     (p->end == REP_SIGNALED &&
				      !(p->exit_after_dump && (p->stalled || p->slow))) ||
				     (p->end == REP_EXITED && p->exit_status != 0));
			job->stuck |= rep_waited(p);
			job->failed |= p->failed;
		}
	job->framework = framework(job);
}

void ht_rep_model_free(struct rep_job *job)
{
	for (size_t i = 0; i < job->nhosts; i++) {
		ht_rep_vec_free(&job->hosts[i]->procs);
		ht_rep_vec_free(&job->hosts[i]->mains);
	}
	free(job->hosts);
	job->hosts = NULL;
	job->nhosts = 0;
	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *p = job->procs.v[i];
		if (p->rel != NULL)
			ht_rep_vec_free(p->rel);
		p->rel = NULL;
	}
	ht_rep_vec_free(&job->mains);
	ht_rep_vec_free(&job->unranked);
	ht_rep_vec_free(&job->others);
}

double ht_rep_job_secs(const struct rep_job *job, const struct rep_proc *p, double mono,
		       double ts)
{
	double t;
	if (!isnan(mono) && !isnan(p->mono0) && !isnan(p->ts0))
		t = p->ts0 + (mono - p->mono0);
	else
		t = ts;
	if (isnan(t) || isnan(job->t0))
		return 0;
	return t < job->t0 ? 0 : t - job->t0;
}

double ht_rep_end_secs(const struct rep_job *job, const struct rep_proc *p)
{
	if (p->have_exit)
		return ht_rep_job_secs(job, p, NAN, p->exit_ts);
	if (p->end == REP_VANISHED)
		return ht_rep_job_secs(job, p, p->last_mono, p->last_ts);
	return ht_rep_job_secs(job, p, NAN, job->now);
}

size_t ht_rep_phase_ranks(const struct rep_job *job, int ph, int64_t *ranks, size_t *stalled,
			  size_t *ended)
{
	size_t n = 0, st = 0, en = 0;
	for (size_t i = 0; i < job->mains.n; i++) {
		const struct rep_proc *p = job->mains.v[i];
		REP_AHEAD_P(job->mains.v, job->mains.n, i, cur_phase);
		REP_AHEAD_P(job->mains.v, job->mains.n, i, stalled);
		if (p->cur_phase != ph)
			continue;
		ranks[n++] = p->rank;
		st += p->stalled;
		en += p->end != REP_RUNNING && !p->waiting;
	}
	*stalled = st;
	*ended = en;
	return n;
}
