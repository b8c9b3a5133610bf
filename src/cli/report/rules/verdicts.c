// SPDX-License-Identifier: MIT
/*
 * verdicts.c: runs the rule families, orders what they found (most likely
 * root cause first: a misconfiguration before the rank it stalls, a rank
 * missing, dead or behind before the ranks waiting for it, the plain stall
 * last), and holds the helpers the rules share. The generic `stalled`
 * verdict lives here because it is what is left when no rule explains a
 * stall.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/checkfacts.h"
#include "rules.h"
#include "rules/dataloader.h"

#define MAX_EVIDENCE 8
#define MAX_STALL_VERDICTS 6	/* stack groups with a verdict each; the rest in one */

const char *const ht_rep_keep_stall[] = { "dump", "reason", "phase", "phase_age", "n",
					  "calls", NULL };
const char *const ht_rep_keep_dump_end[] = { "dump", "threads", "io", "collectives_total", NULL };
const char *const ht_rep_keep_host[] = { "hostname", "nccl_socket_ifname", "nccl_ifname_match",
					 "gloo_socket_ifname", "gloo_ifname_match", "shm_total",
					 "shm_free", NULL };

/* Each code's priority and usual severity: the columns of HT_VERDICT_MAP
 * (include/hangtrace.h). Errors always come before warnings. */
static const struct {
	int prio;
	enum rep_severity sev;
	bool effect;
} code_info[HT_VERDICT_COUNT] = {
#define XX(id, name, prio, sev, role) [HT_VERDICT_##id] = { prio, REP_##sev, \
							 sizeof(#role) == sizeof("EFFECT") },
	HT_VERDICT_MAP(XX)
#undef XX
};

int ht_rep_verdict_prio(enum ht_verdict_code c)
{
	return (unsigned)c < HT_VERDICT_COUNT ? code_info[c].prio : 99;
}

bool ht_rep_verdict_may_follow(enum ht_verdict_code c)
{
	return (unsigned)c < HT_VERDICT_COUNT && code_info[c].effect;
}

enum rep_severity ht_rep_verdict_sev(enum ht_verdict_code c)
{
	return (unsigned)c < HT_VERDICT_COUNT ? code_info[c].sev : REP_ERROR;
}

struct rep_verdict *ht_rep_verdict_new(struct rep_job *job, enum ht_verdict_code code,
				       enum rep_severity sev)
{
	struct rep_verdict *v = ht_rep_alloc(&job->a, sizeof(*v));
	v->code = code;
	v->sev = sev;
	v->prio = ht_rep_verdict_prio(code);
	v->t = INFINITY;
	v->follows_rank = REP_UNKNOWN;
	if (job->nverdicts == job->cap_verdicts) {
		job->cap_verdicts = job->cap_verdicts != 0 ? job->cap_verdicts * 2 : 16;
		struct rep_verdict **n = realloc(job->verdicts, job->cap_verdicts * sizeof(*n));
		if (n == NULL)
			abort();
		job->verdicts = n;
	}
	job->verdicts[job->nverdicts++] = v;
	return v;
}

void ht_rep_verdict_rank(struct rep_job *job, struct rep_verdict *v, int64_t rank)
{
	if (rank == REP_UNKNOWN || rank < 0)
		return;
	if (v->nranks == v->cap_ranks) {
		size_t cap = v->cap_ranks != 0 ? v->cap_ranks * 2 : 8;
		int64_t *r = ht_rep_alloc(&job->a, cap * sizeof(*r));
		if (v->nranks > 0)
			memcpy(r, v->ranks, v->nranks * sizeof(*r));
		v->ranks = r;
		v->cap_ranks = cap;
	}
	v->ranks[v->nranks++] = rank;
}

static void add_evidence(struct rep_job *job, struct rep_verdict *v, char *s, bool force)
{
	if (s == NULL)
		return;
	if (v->nevidence >= MAX_EVIDENCE && !force) {
		v->more++;
		return;
	}
	if (v->nevidence == v->cap_evidence) {
		v->cap_evidence = MAX_EVIDENCE + 1;
		char **e = ht_rep_alloc(&job->a, v->cap_evidence * sizeof(*e));
		if (v->nevidence > 0)
			memcpy(e, v->evidence, v->nevidence * sizeof(*e));
		v->evidence = e;
	}
	/* The same line twice says nothing more. */
	for (size_t i = 0; i < v->nevidence; i++)
		if (strcmp(v->evidence[i], s) == 0)
			return;
	v->evidence[v->nevidence++] = s;
}

void ht_rep_verdict_evidence(struct rep_job *job, struct rep_verdict *v,
			     const struct rep_loc *loc, const char *const *keep)
{
	if (!rep_has_loc(loc))
		return;
	if (v->nevidence >= MAX_EVIDENCE) {
		v->more++;
		return;
	}
	add_evidence(job, v, ht_rep_evidence(job, loc, keep, 320), false);
}

void ht_rep_verdict_note(struct rep_job *job, struct rep_verdict *v, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	add_evidence(job, v, ht_rep_strdup(&job->a, buf), false);
}

void ht_rep_blame(struct rep_job *job, struct rep_verdict *v, struct rep_proc *p)
{
	struct rep_proc *m = ht_rep_main_of(p);
	if (m->is_main && m->rank != REP_UNKNOWN && !m->outer)
		ht_rep_verdict_rank(job, v, m->rank);
	if (v->sev == REP_ERROR)
		m->blamed = true;
}

bool ht_rep_verdict_has(const struct rep_verdict *v, int64_t r)
{
	for (size_t i = 0; i < v->nranks; i++)
		if (v->ranks[i] == r)
			return true;
	return false;
}

bool ht_rep_has_error(const struct rep_job *job)
{
	for (size_t i = 0; i < job->nverdicts; i++)
		if (job->verdicts[i]->sev == REP_ERROR)
			return true;
	return false;
}

/* ---- helpers for the rules ---------------------------------------------------------- */

const char *ht_rep_ranks_phrase(struct rep_job *job, const int64_t *r, size_t n)
{
	if (n == 1)
		return ht_rep_printf(&job->a, "rank %lld", (long long)r[0]);
	char buf[REP_LIST_MAX + 1];
	ht_rep_ranges(r, n, buf, sizeof(buf));
	return ht_rep_printf(&job->a, "ranks %s", buf);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
	return x < y ? -1 : x > y;
}

void ht_rep_hosts_add(struct rep_host **set, size_t *n, size_t cap, struct rep_host *h)
{
	for (size_t i = 0; i < *n; i++)
		if (set[i] == h)
			return;
	if (*n < cap)
		set[(*n)++] = h;
}

const char *ht_rep_hosts_phrase(struct rep_job *job, struct rep_host *const *h, size_t n)
{
	/* Distinct hosts, named in the order given, at most three. */
	struct rep_host **u = malloc((n + 1) * sizeof(*u));
	size_t nu = 0;
	if (u == NULL)
		abort();
	memcpy(u, h, n * sizeof(*u));
	rep_sort(u, n, sizeof(*u), cmp_ptr);
	for (size_t i = 0; i < n; i++)
		if (nu == 0 || u[nu - 1] != u[i])
			u[nu++] = u[i];
	struct rep_buf b = { 0 };
	size_t shown = 0;
	for (size_t i = 0; i < n && shown < 3; i++) {
		bool dup = false;
		for (size_t k = 0; k < i && !dup; k++)
			dup = h[k] == h[i];
		if (dup)
			continue;
		ht_rep_buf_printf(&b, "%s%s", shown > 0 ? "," : "", h[i]->name);
		shown++;
	}
	if (nu > shown)
		ht_rep_buf_printf(&b, " (+%zu more)", nu - shown);
	const char *r = ht_rep_printf(&job->a, "host%s %s", nu > 1 ? "s" : "",
				      b.s != NULL ? b.s : "?");
	free(u);
	ht_rep_buf_free(&b);
	return r;
}

static int cmp_rank(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* True when sorted ranks r[0..n) hold x. */
static bool holds(const int64_t *r, size_t n, int64_t x)
{
	return n > 0 && bsearch(&x, r, n, sizeof(*r), cmp_rank) != NULL;
}

const char *ht_rep_waiters(struct rep_job *job, const struct rep_verdict *v,
			   struct rep_proc **who)
{
	size_t count[HT_PHASE_COUNT + 1] = { 0 };
	size_t total = 0, nb = v != NULL ? v->nranks : 0;
	int64_t *blamed = nb > 0 ? malloc(nb * sizeof(*blamed)) : NULL;
	if (nb > 0 && blamed == NULL)
		abort();
	if (nb > 0) {
		memcpy(blamed, v->ranks, nb * sizeof(*blamed));
		nb = ht_rep_ranks_sort(blamed, nb);
	}
	*who = NULL;
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (!rep_waited(p) || holds(blamed, nb, p->rank))
			continue;
		count[p->cur_phase + 1]++;
		total++;
	}
	if (total == 0) {
		free(blamed);
		return NULL;
	}
	int best = 0;
	for (int i = 1; i <= HT_PHASE_COUNT; i++)
		if (count[i] > count[best])
			best = i;
	int64_t *r = malloc(total * sizeof(*r));
	size_t n = 0;
	if (r == NULL)
		abort();
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (!rep_waited(p) || holds(blamed, nb, p->rank))
			continue;
		if (p->cur_phase + 1 == best) {
			if (*who == NULL)
				*who = p;
			r[n++] = p->rank;
		}
	}
	free(blamed);
	n = ht_rep_ranks_sort(r, n);
	const char *what = *who != NULL && (*who)->at_wait ? (*who)->doing : NULL;
	const char *s = ht_rep_printf(&job->a, "%s %s in %s%s%s%s", ht_rep_ranks_phrase(job, r, n),
				      n == 1 ? "waits" : "wait", ht_rep_phase_name(best - 1),
				      what != NULL ? ", " : "", what != NULL ? what : "",
				      total > n ? ht_rep_printf(&job->a, " (%zu more wait elsewhere)",
								total - n) : "");
	free(r);
	return s;
}

void ht_rep_evidence_waiter(struct rep_job *job, struct rep_verdict *v)
{
	struct rep_proc *w;
	if (ht_rep_waiters(job, v, &w) != NULL && w->last_dump != NULL)
		ht_rep_verdict_evidence(job, v, &w->last_dump->loc, ht_rep_keep_stall);
}

void *ht_rep_list_push(struct rep_list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap != 0 ? l->cap * 2 : 16;
		void *v = realloc(l->v, cap * l->size);
		if (v == NULL)
			abort();
		l->v = v;
		l->cap = cap;
	}
	void *item = rep_list_at(l, l->n++);
	memset(item, 0, l->size);
	return item;
}

void ht_rep_list_sort(struct rep_list *l, int (*cmp)(const void *, const void *))
{
	rep_sort(l->v, l->n, l->size, cmp);
}

size_t ht_rep_list_run(const struct rep_list *l, size_t i,
		       bool (*same)(const void *first, const void *other))
{
	size_t j = i + 1;
	while (j < l->n && same(rep_list_at(l, i), rep_list_at(l, j)))
		j++;
	return j;
}

void ht_rep_list_free(struct rep_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

const char *ht_rep_cuda_version(struct rep_job *job, int64_t v)
{
	if (v == REP_UNKNOWN)
		return "?";
	return ht_rep_printf(&job->a, "%lld.%lld", (long long)(v / 1000), (long long)(v % 1000 / 10));
}

const char *ht_rep_nccl_version(struct rep_job *job, int64_t v)
{
	if (v == REP_UNKNOWN)
		return "?";
	/* NCCL_VERSION_CODE: major*10000+minor*100+patch since 2.9, before
	 * that major*1000+minor*100+patch. */
	if (v >= 10000)
		return ht_rep_printf(&job->a, "%lld.%lld.%lld", (long long)(v / 10000),
				     (long long)(v % 10000 / 100), (long long)(v % 100));
	return ht_rep_printf(&job->a, "%lld.%lld.%lld", (long long)(v / 1000),
			     (long long)(v % 1000 / 100), (long long)(v % 100));
}

const char *ht_rep_port(const char *addr)
{
	const char *c = addr != NULL ? strrchr(addr, ':') : NULL;
	return c != NULL && c[1] != '\0' ? c + 1 : NULL;
}

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
	return ph >= 0 && p->ph[ph].begun ? p->ph[ph].ts : p->ts0;
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

void ht_rep_verdicts(struct rep_job *job)
{
	ht_rep_rules_port_in_use(job);	/* before rank_exited: it follows from it */
	ht_rep_rules_cuda_init_hang(job);	/* before straggler: it names it */
	ht_rep_rules_stale_store(job);	/* before rank_exited: it follows from it */
	ht_rep_rules_ranks(job);
	ht_rep_rules_net(job);
	ht_rep_rules_gpu(job);
	ht_rep_rules_nccl(job);
	ht_rep_rules_check(job);	/* check runs and ib facts (verdicts_check.c) */
	ht_rep_rules_dataloader(job);
	ht_rep_rules_buildlock(job);
	ht_rep_rules_stalled(job);
	ht_rep_rules_buildlock_slow(job);
	ht_rep_rules_degraded(job);
	for (size_t i = 0; i < job->nverdicts; i++) {
		struct rep_verdict *v = job->verdicts[i];
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		if (v->more > 0)
			add_evidence(job, v, ht_rep_printf(&job->a, "... and %zu more", v->more), true);
		if (v->summary == NULL)
			v->summary = "";
		if (v->advice == NULL)
			v->advice = "";
	}
}

void ht_rep_verdicts_free(struct rep_job *job)
{
	free(job->verdicts);	/* the verdicts themselves live in the arena */
	job->verdicts = NULL;
	job->nverdicts = job->cap_verdicts = 0;
}
