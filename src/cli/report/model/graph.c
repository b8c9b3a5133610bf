// SPDX-License-Identifier: MIT
/*
 * graph.c: who waits for whom (SPEC section 8). A rank that stalled (or
 * waited, then gave up) is placed by its latest dump's stack signature
 * (include/signatures.def), else by its call in flight or its phase:
 *
 * - at a store or coordinator (the c10d TCPStore, JAX's coordination
 *   service, a rendezvous phase): it waits for the rank that listens on
 *   the endpoint it connects to; with nobody listening, for rank 0 (which
 *   hosts the store in torch.distributed's env:// and tcp:// init, the
 *   coordination service in jax.distributed, the NCCL root), unless its
 *   endpoint is not the one the job uses (a wrong port or address): then
 *   it waits for that endpoint, and nobody will ever answer;
 * - at a collective, barrier or bootstrap (gloo, MPI, NCCL): it waits for
 *   the ranks that are not at such a wait (the laggards: missing, ended,
 *   doing something else, waiting for the store);
 * - at its DataLoader or a file lock: it waits for its workers or the lock;
 * - anywhere else (loading a checkpoint, compiling, sleeping): it waits
 *   for nobody, and says what it does.
 *
 * A rank at the end of such a chain is a root: a cause. The rules name it
 * first, and the verdicts about the ranks waiting for it say `because`.
 */
#include <stdlib.h>
#include <string.h>

#include "model/graph.h"
#include "model/stacks.h"

/* ---- stack signatures, once per distinct stack --------------------------- */

struct sig_slot {
	const char *const *frames, *const *py;
	const struct ht_sig *sig;
	bool used;
};

struct sig_cache {
	struct sig_slot *slot;
	size_t cap;
};

static const struct ht_sig *stack_sig(struct sig_cache *c, const struct rep_dump *d)
{
	if (d == NULL)
		return NULL;
	const struct rep_dstack *st = rep_dst(d);
	if (st->nframes == 0 && st->npy == 0)
		return NULL;
	/* Frames of one text are shared between records (read/dumps.c): the
	 * pointers name the stack. */
	uintptr_t h = ((uintptr_t)st->frames * 0x9e3779b97f4a7c15ull) ^ (uintptr_t)st->py;
	size_t i = (size_t)(h ^ (h >> 29)) & (c->cap - 1);
	for (size_t probes = 0; probes < c->cap; probes++, i = (i + 1) & (c->cap - 1)) {
		struct sig_slot *s = &c->slot[i];
		if (!s->used) {
			s->used = true;
			s->frames = (const char *const *)st->frames;
			s->py = (const char *const *)st->py;
			s->sig = ht_sig_match_stack((const char *const *)st->py, st->npy,
						    (const char *const *)st->frames, st->nframes);
			return s->sig;
		}
		if (s->frames == (const char *const *)st->frames && s->py == (const char *const *)st->py)
			return s->sig;
	}
	return ht_sig_match_stack((const char *const *)st->py, st->npy,
				  (const char *const *)st->frames, st->nframes);
}

/* ---- ranks ---------------------------------------------------------------- */

struct rep_proc *ht_rep_rank_main(const struct rep_job *job, int64_t r)
{
	if (r < 0 || (size_t)r >= job->nby_rank)
		return NULL;
	return job->by_rank[r];
}

bool ht_rep_rank_is_root(const struct rep_job *job, int64_t r)
{
	if (r < 0 || (size_t)r >= job->nby_rank)
		return false;
	struct rep_proc *p = job->by_rank[r];
	return p == NULL || p->root;
}

static void index_ranks(struct rep_job *job)
{
	int64_t ws = job->world_size;
	for (size_t i = 0; i < job->mains.n; i++) {
		REP_AHEAD_P(job->mains.v, job->mains.n, i, rank);
		int64_t r = ((struct rep_proc *)job->mains.v[i])->rank;
		if (r >= ws && r < REP_MAX_WORLD)
			ws = r + 1;
	}
	if (ws <= 0)
		return;
	job->nby_rank = (size_t)ws;
	job->by_rank = ht_rep_alloc(&job->a, job->nby_rank * sizeof(*job->by_rank));
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		REP_AHEAD_P(job->mains.v, job->mains.n, i, rank);
		if (p->rank >= 0 && (size_t)p->rank < job->nby_rank && job->by_rank[p->rank] == NULL)
			job->by_rank[p->rank] = p;	/* duplicates: the first */
	}
}

/* ---- what a rank waits at --------------------------------------------------- */

enum wait_class { W_NONE, W_STORE, W_PEERS, W_LOCAL };

/* Killed while waiting, or waits now, or waited and gave up. */
static bool waits(const struct rep_proc *p)
{
	return rep_waited(p) || (p->stalled && p->end == REP_SIGNALED);
}

static enum wait_class classify(const struct rep_proc *p)
{
	if (p->sig != NULL) {
		switch (p->sig->kind) {
		case HT_SIG_STORE:
		case HT_SIG_COORDINATOR:
			return W_STORE;
		case HT_SIG_BOOTSTRAP:
		case HT_SIG_COLLECTIVE:
		case HT_SIG_BARRIER:
			return W_PEERS;
		case HT_SIG_DATALOADER:
		case HT_SIG_FILE_LOCK:
			return W_LOCAL;
		default:
			return W_NONE;	/* an activity, or a wait of its own (sleep, a queue) */
		}
	}
	const char *call = p->last_dump != NULL ? p->last_dump->call : NULL;
	if (call != NULL && strncmp(call, "nccl", 4) == 0)
		return W_PEERS;
	/* By phase: only while the phase is still open (a rendezvous that
	 * ended is no wait at the store). */
	if (p->cur_phase < 0 || rep_ph(p, p->cur_phase)->ended)
		return W_NONE;
	switch (p->cur_phase) {
	case HT_PHASE_RENDEZVOUS:
		return W_STORE;
	case HT_PHASE_NCCL_ID:
	case HT_PHASE_NCCL_INIT:
	case HT_PHASE_FIRST_COLLECTIVE:
		return W_PEERS;
	default:
		return W_NONE;
	}
}

static const char *doing_of(struct rep_job *job, const struct rep_proc *p)
{
	if (p->sig != NULL)
		return p->sig->words;
	const char *call = p->last_dump != NULL ? p->last_dump->call : NULL;
	if (call != NULL)
		return ht_rep_printf(&job->a, "blocked in %s (%s)", call,
				     ht_rep_phase_name(p->cur_phase));
	if (p->group != NULL)
		return ht_rep_printf(&job->a, "in %s", ht_rep_top_frame(p->group));
	const char *top = ht_rep_dump_top_frame(job, p->last_dump);
	if (top != NULL)
		return ht_rep_printf(&job->a, "in %s", top);
	return ht_rep_printf(&job->a, "in %s", ht_rep_phase_name(p->cur_phase));
}

/* ---- endpoints ------------------------------------------------------------------- */

static bool role_endpoint(const char *role)
{
	return role != NULL && (strcmp(role, "rendezvous") == 0 ||
				strcmp(role, "jax_coordinator") == 0);
}

static const char *port_of(const char *addr)
{
	const char *c = addr != NULL ? strrchr(addr, ':') : NULL;
	return c != NULL && c[1] != '\0' ? c + 1 : NULL;
}

static int cmp_str(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	return x == y ? 0 : strcmp(x, y);	/* (interned: mostly the same pointer) */
}

/* The endpoint most mains connect to with a rendezvous role, or that a
 * main listens on and others connect to (a coordinator address given as
 * an argument has role other). */
static const char *job_endpoint(struct rep_job *job)
{
	size_t n = 0, cap = job->mains.n + 1;
	const char **d = malloc(cap * sizeof(*d));
	if (d == NULL)
		abort();
	for (size_t i = 0; i < job->mains.n; i++) {
		const struct rep_proc *p = job->mains.v[i];
		REP_AHEAD_P(job->mains.v, job->mains.n, i, nconn);
		REP_AHEAD_P(job->mains.v, job->mains.n, i, conn);
		REP_AHEAD_IN(job->mains.v, job->mains.n, i, conn);
		const char *best = NULL;
		for (size_t k = 0; k < p->nconn && best == NULL; k++)
			if (role_endpoint(rep_cd(&p->conn[k])->role))
				best = rep_cd(&p->conn[k])->dest;
		for (size_t k = 0; k < p->nconn && best == NULL; k++)
			if (strcmp(rep_cd(&p->conn[k])->result, "ok") == 0)
				best = rep_cd(&p->conn[k])->dest;
		if (best != NULL)
			d[n++] = best;
	}
	rep_sort(d, n, sizeof(*d), cmp_str);
	const char *best = NULL;
	size_t best_n = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && strcmp(d[j], d[i]) == 0)
			j++;
		if (j - i > best_n) {
			best_n = j - i;
			best = d[i];
		}
		i = j;
	}
	free(d);
	return best_n >= 2 || (best != NULL && job->mains.n <= 2) ? best : NULL;
}

/* The main listening on dest's port, or NULL. */
static struct rep_proc *listener(const struct rep_job *job, const char *dest)
{
	const char *port = port_of(dest);
	if (port == NULL)
		return NULL;
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		for (size_t k = 0; k < rep_rare(p)->nlisten; k++) {
			const char *lp = port_of(rep_rare(p)->listen[k].addr);
			if (lp != NULL && strcmp(lp, port) == 0)
				return p;
		}
	}
	return NULL;
}

/* The endpoint p tries to reach: its latest connect that never
 * succeeded, else its rendezvous connect, else the job's. */
static const char *endpoint_of(const struct rep_job *job, const struct rep_proc *p)
{
	const char *fail = NULL, *role = NULL;
	double t = -1;
	for (size_t k = 0; k < p->nconn; k++) {
		const struct rep_connect *c = &p->conn[k];
		if (strcmp(rep_cd(c)->result, "ok") != 0 && c->ts > t) {
			bool reached = false;
			for (size_t j = 0; j < p->nconn && !reached; j++)
				reached = strcmp(rep_cd(&p->conn[j])->dest, rep_cd(c)->dest) == 0 &&
					  strcmp(rep_cd(&p->conn[j])->result, "ok") == 0;
			if (!reached) {
				fail = rep_cd(c)->dest;
				t = c->ts;
			}
		}
		if (role == NULL && role_endpoint(rep_cd(c)->role))
			role = rep_cd(c)->dest;
	}
	return fail != NULL ? fail : role != NULL ? role : job->endpoint;
}

/* ---- the graph --------------------------------------------------------------------- */

/* Returns true when p hosts the endpoint it waits at (it listens there):
 * it then waits for the ranks that never arrive (see host_waits). */
static bool wait_store(struct rep_job *job, struct rep_proc *p, const int64_t *zero)
{
	const char *e = endpoint_of(job, p);
	struct rep_proc *l = e != NULL ? listener(job, e) : NULL;
	if (l == p)
		return true;
	if (l != NULL) {
		if (l->rank != REP_UNKNOWN && l->rank >= 0) {
			p->waits_for = ht_rep_alloc(&job->a, sizeof(int64_t));
			*(int64_t *)p->waits_for = l->rank;
			p->nwaits_for = 1;
		} else {
			p->waits_on = ht_rep_printf(&job->a, "%s (pid %lld on %s)", e,
						    (long long)l->pid, rep_id(l)->host);
		}
		return false;
	}
	/* Nobody listens. On the job's endpoint: rank 0 has not opened it
	 * yet. Anywhere else (another port or address): nobody ever will. */
	bool common = e == NULL || job->endpoint == NULL || strcmp(e, job->endpoint) == 0;
	if (common && p->rank != 0 && job->nby_rank > 0) {
		p->waits_for = zero;
		p->nwaits_for = 1;
		/* Refused there: rank 0 has not opened it yet. (Connected: the
		 * store is up, an agent's say, and they wait for rank 0 in it.) */
		struct rep_proc *r0 = job->by_rank[0];
		bool refused = false;
		for (size_t k = 0; k < p->nconn && !refused && e != NULL; k++)
			refused = strcmp(rep_cd(&p->conn[k])->dest, e) == 0 &&
				  strcmp(rep_cd(&p->conn[k])->result, "ok") != 0;
		for (size_t k = 0; k < p->nconn && refused; k++)
			refused = !(strcmp(rep_cd(&p->conn[k])->dest, e) == 0 &&
				    strcmp(rep_cd(&p->conn[k])->result, "ok") == 0);
		if (r0 != NULL && r0->store_at == NULL && refused)
			r0->store_at = e;
		return false;
	}
	if (e != NULL)
		p->waits_on = e;
	return false;
}

/* The host of a store or coordinator waits for the ranks that never
 * reach it: missing, ended, or waiting at another endpoint. */
static void host_waits(struct rep_job *job, struct rep_proc *p)
{
	size_t n = 0;
	for (size_t r = 0; r < job->nby_rank; r++) {
		const struct rep_proc *q = job->by_rank[r];
		n += q == NULL || q->waits_on != NULL || (q != p && q->have_exit && !q->killed);
	}
	if (n == 0)
		return;
	int64_t *w = ht_rep_alloc(&job->a, n * sizeof(*w));
	size_t k = 0;
	for (size_t r = 0; r < job->nby_rank; r++) {
		const struct rep_proc *q = job->by_rank[r];
		if (q == NULL || q->waits_on != NULL || (q != p && q->have_exit && !q->killed))
			w[k++] = (int64_t)r;
	}
	p->waits_for = w;
	p->nwaits_for = k;
}

void ht_rep_graph(struct rep_job *job)
{
	index_ranks(job);
	job->endpoint = job_endpoint(job);
	struct sig_cache cache = { NULL, 1024 };
	while (cache.cap < 2 * job->mains.n)
		cache.cap *= 2;
	cache.slot = calloc(cache.cap, sizeof(*cache.slot));
	if (cache.slot == NULL)
		abort();
	int64_t *zero = ht_rep_alloc(&job->a, sizeof(*zero));

	/* What each waiting rank does, and at which kind of wait. */
	enum wait_class *cls = calloc(job->mains.n + 1, sizeof(*cls));
	if (cls == NULL)
		abort();
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		REP_AHEAD_STATE(job->mains.v, job->mains.n, i);
		REP_AHEAD_P(job->mains.v, job->mains.n, i, last_dump);
		REP_AHEAD_IN(job->mains.v, job->mains.n, i, last_dump);
		/* Also a rank dumped but not declared stalled (it works past
		 * the deadline, or worked until it was killed): what it does,
		 * should others wait for it. */
		bool dumped = p->last_dump != NULL && p->last_dump->epoch == p->epoch &&
			      (p->end == REP_RUNNING || p->killed);
		if (!waits(p) && !p->stalled && !dumped)
			continue;
		p->sig = stack_sig(&cache, p->last_dump);
		p->doing = doing_of(job, p);
		cls[i] = classify(p);
		p->at_wait = cls[i] == W_STORE || cls[i] == W_PEERS;
		/* Stalled, then ended by itself: it gave up waiting only if it
		 * waited (a wait of the table, a call in flight, an open phase
		 * of waiting). Stalled at its own work (a sleep, a loop: no wait)
		 * and then failed, it is a failure of its own, and the ranks at
		 * the barrier wait for it (tests/e2e/jobs.sh, mpi4py rank 1
		 * raises after a sleep). */
		if (p->gave_up && cls[i] == W_NONE && !(p->sig != NULL && ht_sig_kind_is_wait(p->sig->kind)) &&
		    (p->last_dump == NULL || p->last_dump->call == NULL))
			p->gave_up = false;
	}
	for (size_t i = 0; i < job->unranked.n; i++) {
		struct rep_proc *p = job->unranked.v[i];
		if (p->stalled) {
			p->sig = stack_sig(&cache, p->last_dump);
			p->doing = doing_of(job, p);
		}
	}
	/* A rank's workers that were dumped: what they do (ranks[].workers). */
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		for (size_t k = 0; k < rep_rel(p)->n; k++) {
			struct rep_proc *q = rep_rel(p)->v[k];
			if (q->parent == p && q->last_dump != NULL && rep_id(q)->relevant != NULL &&
			    strcmp(rep_id(q)->relevant, "fork") == 0) {
				q->sig = stack_sig(&cache, q->last_dump);
				q->doing = doing_of(job, q);
			}
		}
	}
	free(cache.slot);

	/* The laggards: ranks of the world not waiting at a collective,
	 * barrier or bootstrap. */
	size_t npeers = 0;
	for (size_t i = 0; i < job->mains.n; i++)
		npeers += cls[i] == W_PEERS && waits(job->mains.v[i]);
	if (npeers > 0 && job->nby_rank > 0) {
		int64_t *lag = ht_rep_alloc(&job->a, job->nby_rank * sizeof(*lag));
		size_t n = 0;
		for (size_t r = 0; r < job->nby_rank; r++) {
			struct rep_proc *q = job->by_rank[r];
			if (q == NULL) {
				lag[n++] = (int64_t)r;
				continue;
			}
			if (waits(q) && classify(q) == W_PEERS)
				continue;
			lag[n++] = (int64_t)r;	/* missing, ended, elsewhere */
		}
		job->laggards = lag;
		job->nlaggards = n;
	}

	/* Edges. */
	struct rep_proc **hosts = malloc((job->mains.n + 1) * sizeof(*hosts));
	size_t nhosts = 0;
	if (hosts == NULL)
		abort();
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		REP_AHEAD_STATE(job->mains.v, job->mains.n, i);
		if (!waits(p))
			continue;
		switch (cls[i]) {
		case W_STORE:
			if (wait_store(job, p, zero))
				hosts[nhosts++] = p;
			break;
		case W_PEERS:
			p->waits_for = job->laggards;
			p->nwaits_for = job->nlaggards;
			break;
		case W_LOCAL: {
			size_t workers = 0;
			const char *first = NULL;
			for (size_t k = 0; k < rep_rel(p)->n; k++) {
				struct rep_proc *q = rep_rel(p)->v[k];
				if (q->parent == p && rep_id(q)->relevant != NULL &&
				    strcmp(rep_id(q)->relevant, "fork") == 0 && q->nexec == 0) {
					if (first == NULL)
						first = ht_rep_printf(&job->a, "%lld", (long long)q->pid);
					workers++;
				}
			}
			if (p->sig != NULL && p->sig->kind == HT_SIG_FILE_LOCK)
				p->waits_on = "a build lock";
			else if (workers > 0)
				p->waits_on = ht_rep_printf(&job->a, "its DataLoader worker%s (pid %s%s)",
							    workers > 1 ? "s" : "", first,
							    workers > 1 ? ", ..." : "");
			else
				p->waits_on = "its DataLoader workers";
			break;
		}
		default:
			break;
		}
	}
	free(cls);
	for (size_t i = 0; i < nhosts; i++)
		host_waits(job, hosts[i]);
	free(hosts);

	/* Roots: a waiting or failed rank that waits for no rank; a rank
	 * others wait for that waits for none (doing something else,
	 * ended). */
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		REP_AHEAD_P(job->mains.v, job->mains.n, i, nwaits_for);
		for (size_t k = 0; k < p->nwaits_for; k++) {
			struct rep_proc *q = ht_rep_rank_main(job, p->waits_for[k]);
			if (q != NULL)
				q->awaited = true;
			if (p->waits_for == job->laggards)
				break;	/* shared: marked once below */
		}
	}
	for (size_t k = 0; k < job->nlaggards; k++) {
		struct rep_proc *q = ht_rep_rank_main(job, job->laggards[k]);
		if (q != NULL)
			q->awaited = true;
	}
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (p->nwaits_for > 0)
			continue;
		p->root = waits(p) || p->awaited || p->failed || p->stalled;
	}
}

/* ---- reach -------------------------------------------------------------------------- */

size_t ht_rep_roots_of(const struct rep_job *job, const int64_t *r, size_t n, uint8_t *out)
{
	size_t cap = 64, top = 0, found = 0;
	int64_t *stack = malloc(cap * sizeof(*stack));
	uint8_t *seen = calloc(job->nby_rank / 8 + 1, 1);
	bool lag_done = false;
	if (stack == NULL || seen == NULL)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (r[i] < 0 || (size_t)r[i] >= job->nby_rank)
			continue;
		if (top == cap)
			stack = realloc(stack, (cap *= 2) * sizeof(*stack));
		if (stack == NULL)
			abort();
		stack[top++] = r[i];
	}
	while (top > 0) {
		int64_t x = stack[--top];
		if (seen[x / 8] & (1u << (x % 8)))
			continue;
		seen[x / 8] |= (uint8_t)(1u << (x % 8));
		struct rep_proc *p = job->by_rank[x];
		if (p == NULL || p->root) {
			if (!(out[x / 8] & (1u << (x % 8))))
				found++;
			out[x / 8] |= (uint8_t)(1u << (x % 8));
			continue;
		}
		if (p->waits_for == job->laggards) {
			if (lag_done)
				continue;
			lag_done = true;
		}
		for (size_t k = 0; k < p->nwaits_for; k++) {
			int64_t y = p->waits_for[k];
			if (y < 0 || (size_t)y >= job->nby_rank || (seen[y / 8] & (1u << (y % 8))))
				continue;
			if (top == cap)
				stack = realloc(stack, (cap *= 2) * sizeof(*stack));
			if (stack == NULL)
				abort();
			stack[top++] = y;
		}
	}
	free(stack);
	free(seen);
	return found;
}
