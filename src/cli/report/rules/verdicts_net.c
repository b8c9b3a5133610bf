// SPDX-License-Identifier: MIT
/*
 * verdicts_net.c: the rules about getting ranks talking and the host they
 * run on: rendezvous_unreachable (refused, timed out, unreachable, a name
 * that does not resolve), master_addr_loopback, socket_ifname_missing and
 * shm_too_small. Launcher processes count here too: a torchrun agent that
 * cannot reach the rendezvous host explains ranks that never started.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

#define SHM_BOUND (1LL << 30)	/* /dev/shm below 1 GiB: DataLoader and NCCL suffer */

static bool rendezvous_role(const char *role)
{
	return role == NULL || strcmp(role, "rendezvous") == 0 ||
	       strcmp(role, "nccl_bootstrap") == 0 || strcmp(role, "jax_coordinator") == 0;
}

/* refused, timeout (SYN_SENT probes too), unreachable, error; NULL: not a failure. */
static const char *failure_class(const struct rep_connect *c)
{
	const char *r = rep_cd(c)->result, *tcp = rep_cd(c)->tcp_state;
	if (strcmp(r, "refused") == 0 || strcmp(r, "timeout") == 0 ||
	    strcmp(r, "unreachable") == 0 || strcmp(r, "error") == 0)
		return r;
	if (strcmp(r, "pending") == 0 && tcp != NULL && strcmp(tcp, "SYN_SENT") == 0)
		return "timeout";
	return NULL;
}

/* Same host part ("10.0.0.1" of "10.0.0.1:29500"). */
static bool same_addr(const char *a, const char *b)
{
	const char *pa = strrchr(a, ':'), *pb = strrchr(b, ':');
	return pa != NULL && pb != NULL && pa - a == pb - b && strncmp(a, b, (size_t)(pa - a)) == 0;
}

/* A connect of role other that is still a rendezvous: a coordinator
 * address given as an argument (jax.distributed.initialize(
 * coordinator_address=...), init_method="tcp://..."). Its destination is
 * the endpoint most ranks use (model/graph.c), or the same address with
 * another port (a wrong port), or a port a rank of the job listens on. */
static bool endpoint_like(const struct rep_job *job, const struct rep_proc *p, const char *dest)
{
	/* Only for a rank that waits at a store or coordinator: the other
	 * connects of a job (Open MPI's, a data loader's) are no rendezvous. */
	if (!p->is_main || p->sig == NULL ||
	    (p->sig->kind != HT_SIG_STORE && p->sig->kind != HT_SIG_COORDINATOR))
		return false;
	if (job->endpoint != NULL && (strcmp(dest, job->endpoint) == 0 || same_addr(dest, job->endpoint)))
		return true;
	const char *port = ht_rep_port(dest);
	for (size_t i = 0; i < job->mains.n && port != NULL; i++) {
		const struct rep_proc *q = job->mains.v[i];
		for (size_t k = 0; k < rep_rare(q)->nlisten; k++) {
			const char *lp = ht_rep_port(rep_rare(q)->listen[k].addr);
			if (lp != NULL && strcmp(lp, port) == 0)
				return true;
		}
	}
	return false;
}

static bool reached(const struct rep_proc *p, const char *dest)
{
	for (size_t i = 0; i < p->nconn; i++) {
		const struct rep_conndest *d = rep_cd(&p->conn[i]);
		if (strcmp(d->dest, dest) == 0 && strcmp(d->result, "ok") == 0)
			return true;
	}
	return false;
}

struct fail {
	struct rep_proc *p;
	const struct rep_connect *c;
	const char *cls;
};

static int cmp_fail(const void *a, const void *b)
{
	const struct fail *x = a, *y = b;
	int c = strcmp(rep_cd(x->c)->dest, rep_cd(y->c)->dest);
	if (c == 0)
		c = strcmp(x->cls, y->cls);
	if (c == 0)
		c = x->p->rank < y->p->rank ? -1 : x->p->rank > y->p->rank;
	return c;
}

static const char *connect_advice(const struct rep_job *job, const char *cls, const char *role)
{
	bool jax = (role != NULL && strcmp(role, "jax_coordinator") == 0) ||
		   (job->framework != NULL && strcmp(job->framework, "jax") == 0);
	if (jax && strcmp(cls, "refused") == 0)
		return "Nobody listens there: JAX's coordination service runs in process 0, which "
		       "opens it in jax.distributed.initialize. Check that process 0 started and got "
		       "there, and that every process passes the same coordinator_address (host:port, "
		       "or JAX_COORDINATOR_ADDRESS) and num_processes; a process given another port "
		       "waits for a service that never comes.";
	if (jax)
		return "Packets to JAX's coordinator get no answer: a wrong coordinator_address host, "
		       "a firewall between the hosts, or no route. Try `nc -vz HOST PORT` from an "
		       "affected host.";
	if (strcmp(cls, "refused") == 0)
		return "Nobody listens there: the server side is not up (yet), has exited, or "
		       "listens on another port or address. For torchrun/c10d the store runs in "
		       "rank 0 or the agent on the rendezvous host: check it started and is alive, "
		       "that MASTER_PORT (--rdzv-endpoint) is the same everywhere, and that it did "
		       "not bind only to 127.0.0.1.";
	if (strcmp(cls, "timeout") == 0)
		return "Packets get no answer: a firewall or security group drops them, the address "
		       "is wrong (MASTER_ADDR), or there is no route between the hosts. Try "
		       "`nc -vz ADDR PORT` from an affected host and open the port range between "
		       "the nodes.";
	if (strcmp(cls, "unreachable") == 0)
		return "There is no route to that address from the affected hosts: a wrong address "
		       "or subnet, or an interface that is down. Use an address on the network the "
		       "hosts share.";
	return "The connection failed: see the errno on the evidence lines.";
}

static const char *class_words(const char *cls)
{
	if (strcmp(cls, "refused") == 0)
		return "connection refused";
	if (strcmp(cls, "timeout") == 0)
		return "no answer (timed out)";
	if (strcmp(cls, "unreachable") == 0)
		return "unreachable";
	return "connect failed";
}

static const char *who_list(struct rep_job *job, struct rep_verdict *v, struct fail *f, size_t n)
{
	if (v->nranks > 0 && v->nranks == n)
		return ht_rep_ranks_phrase(job, v->ranks, v->nranks);
	struct rep_buf b = { 0 };
	if (v->nranks > 0)
		ht_rep_buf_printf(&b, "%s and ", ht_rep_ranks_phrase(job, v->ranks, v->nranks));
	size_t shown = 0, others = 0;
	for (size_t i = 0; i < n; i++) {
		struct rep_proc *m = ht_rep_main_of(f[i].p);
		if (m->is_main && m->rank != REP_UNKNOWN && !m->outer)
			continue;
		if (shown < 2)
			ht_rep_buf_printf(&b, "%s%s", shown > 0 ? ", " : "", ht_rep_who(job, f[i].p));
		else
			others++;
		shown++;
	}
	if (others > 0)
		ht_rep_buf_printf(&b, " and %zu more processes", others);
	const char *r = ht_rep_strdup(&job->a, b.s != NULL ? b.s : "?");
	ht_rep_buf_free(&b);
	return r;
}

/* Who listens on dest's port: the line and a sentence. */
static void listeners(struct rep_job *job, struct rep_verdict *v, const char *dest)
{
	const char *port = ht_rep_port(dest);
	size_t found = 0;
	if (port == NULL)
		return;
	for (size_t i = 0; i < job->procs.n && found < 2; i++) {
		struct rep_proc *p = job->procs.v[i];
		for (size_t k = 0; k < rep_rare(p)->nlisten; k++) {
			const char *lp = ht_rep_port(rep_rare(p)->listen[k].addr);
			if (lp == NULL || strcmp(lp, port) != 0)
				continue;
			found++;
			ht_rep_verdict_note(job, v, "%s listens on %s%s", ht_rep_who(job, p),
					    rep_rare(p)->listen[k].addr,
					    p->have_exit ? " but has exited" :
					    p->end == REP_VANISHED ? " but has vanished" : "");
			ht_rep_verdict_evidence(job, v, &rep_rare(p)->listen[k].loc, NULL);
			break;
		}
	}
	if (found == 0)
		ht_rep_verdict_note(job, v, "no traced process listens on port %s", port);
}

/* One destination, one kind of failure: one verdict. */
static bool same_fail(const void *a, const void *b)
{
	const struct fail *x = a, *y = b;
	return strcmp(rep_cd(x->c)->dest, rep_cd(y->c)->dest) == 0 && strcmp(x->cls, y->cls) == 0;
}

static void unreachable(struct rep_job *job)
{
	struct rep_list l = REP_LIST(struct fail);
	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *p = job->procs.v[i];
		REP_AHEAD_P(job->procs.v, job->procs.n, i, nconn);
		REP_AHEAD_P(job->procs.v, job->procs.n, i, conn);
		REP_AHEAD_IN(job->procs.v, job->procs.n, i, conn);
		for (size_t k = 0; k < p->nconn; k++) {
			const struct rep_connect *c = &p->conn[k];
			const char *cls = failure_class(c);
			if (cls == NULL || reached(p, rep_cd(c)->dest) ||
			    !(rendezvous_role(rep_cd(c)->role) || endpoint_like(job, p, rep_cd(c)->dest)))
				continue;
			*(struct fail *)ht_rep_list_push(&l) = (struct fail){ p, c, cls };
		}
	}
	ht_rep_list_sort(&l, cmp_fail);
	struct fail *f = l.v;
	size_t n = l.n;
	enum rep_severity sev = job->stuck || job->failed ? REP_ERROR : REP_WARNING;
	for (size_t i = 0; i < n;) {
		size_t j = ht_rep_list_run(&l, i, same_fail);
		int64_t total = 0, most = 0;
		double span = 0;
		/* A process still trying while the job is otherwise healthy is
		 * a warning; anything stuck or failed makes it the likely cause. */
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_RENDEZVOUS_UNREACHABLE, sev);
		for (size_t k = i; k < j; k++) {
			ht_rep_blame(job, v, f[k].p);
			total += f[k].c->count;
			if (f[k].c->count > most)
				most = f[k].c->count;
			if (isfinite(f[k].c->last - f[k].c->first) && f[k].c->last - f[k].c->first > span)
				span = f[k].c->last - f[k].c->first;
			if (k < i + 3)
				ht_rep_verdict_evidence(job, v, &f[k].c->loc, NULL);
			if (f[k].c->ts < v->t)
				v->t = f[k].c->ts;
		}
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		const struct rep_connect *c = f[i].c;
		bool jax = (rep_cd(c)->role != NULL && strcmp(rep_cd(c)->role, "jax_coordinator") == 0) ||
			   (job->framework != NULL && strcmp(job->framework, "jax") == 0);
		const char *role = rep_cd(c)->role != NULL && strcmp(rep_cd(c)->role, "nccl_bootstrap") == 0 ?
				   "the NCCL bootstrap root" : jax ? "the JAX coordinator" :
				   "the rendezvous";
		v->summary = ht_rep_printf(&job->a, "%s cannot reach %s at %s: %s (%lld attempt%s%s%s)",
					   who_list(job, v, &f[i], j - i), role, rep_cd(c)->dest,
					   class_words(f[i].cls), (long long)(j - i > 1 ? most : total),
					   (j - i > 1 ? most : total) == 1 ? "" : "s",
					   j - i > 1 ? " by the most persistent" : "",
					   span >= 1 ? ht_rep_printf(&job->a, " over %.0f s", span) : "");
		if (strcmp(f[i].cls, "refused") == 0)
			listeners(job, v, rep_cd(c)->dest);
		v->advice = connect_advice(job, f[i].cls, rep_cd(c)->role);
		i = j;
	}
	ht_rep_list_free(&l);
}

static void unresolved(struct rep_job *job)
{
	enum rep_severity sev = job->stuck || job->failed ? REP_ERROR : REP_WARNING;
	struct rep_verdict *v = NULL;
	const char *name = NULL, *what = NULL, *error = NULL;
	struct rep_host *hosts[8];
	size_t nh = 0;
	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *p = job->procs.v[i];
		for (size_t k = 0; k < rep_rare(p)->nres; k++) {
			struct rep_resolve *r = &rep_rare(p)->res[k];
			if (r->error == NULL || r->name == NULL)
				continue;
			if (v == NULL) {
				v = ht_rep_verdict_new(job, HT_VERDICT_RENDEZVOUS_UNREACHABLE, sev);
				name = r->name;
				what = r->what;
				error = r->error;
			}
			ht_rep_blame(job, v, p);
			ht_rep_hosts_add(hosts, &nh, 8, p->h);
			if (v->nevidence < 3)
				ht_rep_verdict_evidence(job, v, &r->loc, NULL);
			break;
		}
	}
	if (v == NULL)
		return;
	v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
	v->summary = ht_rep_printf(&job->a, "%s%s '%s' does not resolve on %s%s%s: %s",
				   what != NULL ? what : "the name", what != NULL ? "" : "",
				   name, ht_rep_hosts_phrase(job, hosts, nh),
				   v->nranks > 0 ? " for " : "",
				   v->nranks > 0 ? ht_rep_ranks_phrase(job, v->ranks, v->nranks) : "",
				   error);
	v->advice = "The affected hosts cannot resolve that name: add it to DNS or /etc/hosts on "
		    "every node, or use an IP address (MASTER_ADDR=10.x.y.z).";
}

static bool loopback_text(const char *a)
{
	return a != NULL && (strcmp(a, "localhost") == 0 || strncmp(a, "127.", 4) == 0 ||
			     strcmp(a, "::1") == 0 || strcmp(a, "localhost.localdomain") == 0);
}

static void master_addr_loopback(struct rep_job *job)
{
	if (job->nhosts < 2)
		return;
	struct rep_verdict *v = NULL;
	const char *addr = NULL, *to = NULL;
	struct rep_host *hosts[8];
	size_t nh = 0;
	/* On the host of rank 0 (where the store usually runs) loopback
	 * works; elsewhere it points each host at itself. */
	struct rep_host *h0 = job->mains.n > 0 && ((struct rep_proc *)job->mains.v[0])->rank == 0 ?
			      ((struct rep_proc *)job->mains.v[0])->h : NULL;
	bool elsewhere = false;
	for (int pass = 0; pass < 2; pass++)
	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *p = job->procs.v[i];
		REP_AHEAD_P(job->procs.v, job->procs.n, i, rare);
		REP_AHEAD_P(job->procs.v, job->procs.n, i, id);
		const struct rep_resolve *res = NULL;
		const struct rep_rare *r = rep_rare(p);
		for (size_t k = 0; k < r->nres && res == NULL; k++)
			if (r->res[k].what != NULL && strcmp(r->res[k].what, "MASTER_ADDR") == 0 &&
			    r->res[k].loopback)
				res = &r->res[k];
		if (res == NULL && !loopback_text(rep_id(p)->master_addr))
			continue;
		if (pass == 0) {
			elsewhere |= p->h != h0;
			continue;
		}
		if (elsewhere && p->h == h0)
			continue;
		if (v == NULL) {
			v = ht_rep_verdict_new(job, HT_VERDICT_MASTER_ADDR_LOOPBACK,
					       job->stuck || job->failed ? REP_ERROR : REP_WARNING);
			addr = res != NULL ? res->name : rep_id(p)->master_addr;
			to = res != NULL ? res->addrs : NULL;
		}
		ht_rep_blame(job, v, p);
		ht_rep_hosts_add(hosts, &nh, 8, p->h);
		if (v->nevidence < 3 && res != NULL)
			ht_rep_verdict_evidence(job, v, &res->loc, NULL);
		else if (v->nevidence < 3)
			ht_rep_verdict_note(job, v, "%s: MASTER_ADDR=%s in the environment of %s",
					    job->files[p->file].name, rep_id(p)->master_addr,
					    ht_rep_who(job, p));
	}
	if (v == NULL)
		return;
	v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
	v->summary = ht_rep_printf(&job->a, "MASTER_ADDR=%s is a loopback address%s%s%s on "
				   "%s of a %zu-host job", addr != NULL ? addr : "?",
				   to != NULL ? " (" : "", to != NULL ? to : "", to != NULL ? ")" : "",
				   ht_rep_hosts_phrase(job, hosts, nh), job->nhosts);
	v->advice = "In a multi-host job MASTER_ADDR must name an address every host reaches: the "
		    "first node's IP or a name resolving to it, never localhost or 127.x. With "
		    "Slurm: MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1). "
		    "If a node's own name maps to 127.0.1.1 in /etc/hosts, use its IP.";
}

static void socket_ifname(struct rep_job *job)
{
	for (int gloo = 0; gloo < 2; gloo++) {
		struct rep_verdict *v = NULL;
		const char *value = NULL, *ifaces = NULL;
		struct rep_host *hosts[8];
		size_t nh = 0;
		for (size_t i = 0; i < job->procs.n; i++) {
			struct rep_proc *p = job->procs.v[i];
			const struct rep_hostfacts *h = rep_hf(p);
			const char *var = gloo ? h->gloo_ifname : h->nccl_ifname;
			int match = gloo ? h->gloo_match : h->nccl_match;
			if (!h->have || var == NULL || match != 0)
				continue;
			struct rep_proc *m = ht_rep_main_of(p);
			bool hurt = rep_waited(m) || m->failed;
			if (v == NULL) {
				v = ht_rep_verdict_new(job, HT_VERDICT_SOCKET_IFNAME_MISSING,
						       REP_WARNING);
				value = var;
				ifaces = h->ifaces;
			}
			if (hurt)
				v->sev = REP_ERROR;
			ht_rep_blame(job, v, p);
			ht_rep_hosts_add(hosts, &nh, 8, p->h);
			if (v->nevidence < 3)
				ht_rep_verdict_evidence(job, v, &p->hf_loc, ht_rep_keep_host);
		}
		if (v == NULL)
			continue;
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		v->summary = ht_rep_printf(&job->a, "%s_SOCKET_IFNAME=%s matches no interface on "
					   "%s (interfaces there: %s)", gloo ? "GLOO" : "NCCL", value,
					   ht_rep_hosts_phrase(job, hosts, nh),
					   ifaces != NULL && ifaces[0] != '\0' ? ifaces : "?");
		v->advice = gloo ? "Set GLOO_SOCKET_IFNAME to an interface that exists on every host "
				   "(see the list), or unset it." :
				   "Set NCCL_SOCKET_IFNAME to an interface that exists on every host "
				   "(see the list; a prefix such as 'ens' or an exclusion such as "
				   "'^lo,docker' works across differently named hosts), or unset it "
				   "and let NCCL choose.";
	}
}

static bool mentions_shm(const struct rep_proc *p)
{
	for (size_t i = 0; i < p->ncomms; i++) {
		const char *e = rep_cid(&p->comms[i])->last_error;
		if (e != NULL && (strstr(e, "shm") != NULL || strstr(e, "shared memory") != NULL ||
				  strstr(e, "No space left") != NULL))
			return true;
	}
	const struct rep_rare *r = rep_rare(p);
	for (size_t i = 0; i < r->nwarns; i++)
		if (strstr(r->warns[i], "shm") != NULL || strstr(r->warns[i], "No space left") != NULL)
			return true;
	return false;
}

static void shm_too_small(struct rep_job *job)
{
	for (size_t i = 0; i < job->nhosts; i++) {
		struct rep_host *h = job->hosts[i];
		const struct rep_hostfacts *hf = h->hf != NULL ? rep_hf(h->hf) : NULL;
		if (hf == NULL || hf->shm_total == REP_UNKNOWN || hf->shm_total >= SHM_BOUND)
			continue;
		bool hurt = false;
		for (size_t k = 0; k < h->procs.n; k++)
			hurt |= mentions_shm(h->procs.v[k]);
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_SHM_TOO_SMALL,
							   hurt ? REP_ERROR : REP_WARNING);
		for (size_t k = 0; k < h->mains.n; k++)
			ht_rep_blame(job, v, h->mains.v[k]);
		ht_rep_verdict_evidence(job, v, &h->hf->hf_loc, ht_rep_keep_host);
		for (size_t k = 0; k < h->procs.n && hurt; k++) {
			struct rep_proc *p = h->procs.v[k];
			for (size_t c = 0; c < p->ncomms; c++)
				if (p->comms[c].failed && mentions_shm(p)) {
					ht_rep_verdict_evidence(job, v, &p->comms[c].end, NULL);
					break;
				}
		}
		v->summary = ht_rep_printf(&job->a, "/dev/shm on host %s is %lld MiB%s: NCCL and "
					   "DataLoader workers need more (at least %lld MiB)", h->name,
					   (long long)(hf->shm_total >> 20),
					   h->hf->hf_shm_free != REP_UNKNOWN ?
					   ht_rep_printf(&job->a, " (%lld MiB free)",
							 (long long)(h->hf->hf_shm_free >> 20)) : "",
					   (long long)(SHM_BOUND >> 20));
		v->advice = "Give the container more shared memory: docker run --shm-size=8g or "
			    "--ipc=host; on Kubernetes mount an emptyDir with medium: Memory at "
			    "/dev/shm. NCCL_SHM_DISABLE=1 works around it for NCCL at some speed.";
	}
}

/* port_in_use: a rank could not bind the rendezvous port (EADDRINUSE):
 * another process holds it, often a job left over from an earlier run,
 * and the ranks that connect there reach that process instead. */
void ht_rep_rules_port_in_use(struct rep_job *job)
{
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		const struct rep_bindfail *b = rep_rare(p)->bind_fail;
		if (b == NULL || b->error == NULL || strcmp(b->error, "EADDRINUSE") != 0 ||
		    b->role == NULL || strcmp(b->role, "other") == 0)
			continue;
		/* A bind that failed in a job that went on (a second store
		 * tried, a fallback) caused nothing: a risk, not the cause. */
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_PORT_IN_USE,
							   job->stuck || job->failed ?
							   REP_ERROR : REP_WARNING);
		ht_rep_blame(job, v, p);
		ht_rep_verdict_evidence(job, v, &b->loc, NULL);
		const char *port = ht_rep_port(b->addr);
		const char *holder = b->holder_pid != REP_UNKNOWN ?
			ht_rep_printf(&job->a, "; pid %lld holds it (%s)", (long long)b->holder_pid,
				      b->holder_cmd != NULL ? b->holder_cmd : "?") :
			"; the process holding it was not found (another user's, or it has ended)";
		v->summary = ht_rep_printf(&job->a, "%s could not listen on %s, the %s port: "
					   "address already in use%s", ht_rep_who(job, p), b->addr,
					   strcmp(b->role, "rendezvous") == 0 ? "rendezvous" : b->role,
					   holder);
		v->advice = b->holder_pid != REP_UNKNOWN ?
			ht_rep_printf(&job->a, "Another process holds port %s on %s, often a job "
				      "left over from an earlier run: end it (kill %lld) if it is "
				      "stale, or give this job another MASTER_PORT (torchrun "
				      "--master-port). The other ranks connect to that process "
				      "and wait for ever.", port != NULL ? port : "?", rep_id(p)->host,
				      (long long)b->holder_pid) :
			ht_rep_printf(&job->a, "Another process holds port %s on %s: `ss -ltnp "
				      "'sport = :%s'` there names it. End it if it is stale, or give "
				      "this job another MASTER_PORT (torchrun --master-port).",
				      port != NULL ? port : "?", rep_id(p)->host, port != NULL ? port : "?");
	}
}

void ht_rep_rules_net(struct rep_job *job)
{
	master_addr_loopback(job);
	unreachable(job);
	unresolved(job);
	socket_ifname(job);
	shm_too_small(job);
}
