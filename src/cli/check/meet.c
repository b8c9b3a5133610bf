// SPDX-License-Identifier: MIT
/*
 * meet.c: the networked checks of `hangtrace check`. Rank 0 listens where
 * the rendezvous would; every other rank connects with its facts and its
 * clock (the offset from one round trip). Rank 0 waits for every rank up
 * to 40% of the bound, compares what must agree and answers each rank with
 * its results (compare.c) and a peer on the next host (a ring over hosts)
 * to connect to at the address NCCL would use; then the peer connects, the NCCL
 * self-test where it runs, and a last word from rank 0. Every wait has a
 * deadline inside the bound (fractions of --timeout below).
 */
/* The sentences written are cut at their buffer on purpose. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "meet.h"
#include "netfacts.h"
#include "portholder.h"
#include "wire.h"


/* ---- the peer listener: answers who it is, until the process ends -------- */

static int peer_fd = -1;
static char peer_hello[512];

static void *peer_thread(void *arg)
{
	(void)arg;
	for (;;) {
		int s = accept4(peer_fd, NULL, NULL, SOCK_CLOEXEC);
		if (s < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;
		}
		ssize_t n = send(s, peer_hello, strlen(peer_hello), MSG_NOSIGNAL);
		(void)n;
		close(s);
	}
}

static void peer_listen(struct chk *c)
{
	int port = 0;
	pthread_t t;
	if (c->f.addr[0] == '\0')
		return;
	peer_fd = ht_chk_listen(c->f.addr, 0, &port);
	if (peer_fd < 0)
		return;
	c->f.peer_port = port;
	snprintf(peer_hello, sizeof(peer_hello),
		 "{\"host\":\"%.200s\",\"boot_id\":\"%.40s\",\"rank\":%lld}\n", c->f.host,
		 c->f.boot_id, (long long)c->f.rank);
	if (pthread_create(&t, NULL, peer_thread, NULL) == 0)
		pthread_detach(t);
}

/* ---- facts on the wire ----------------------------------------------------- */

static json_t *facts_json(const struct chk *c)
{
	const struct chk_facts *f = &c->f;
	json_t *o = json_object();
	json_object_set_new(o, "rank", json_integer(f->rank));
	json_object_set_new(o, "world_size", json_integer(f->world_size));
	json_object_set_new(o, "local_rank", json_integer(f->local_rank));
	json_object_set_new(o, "host", json_string(f->host));
	json_object_set_new(o, "boot_id", json_string(f->boot_id));
	json_object_set_new(o, "version", json_string(HT_VERSION));
	json_object_set_new(o, "driver", json_integer(f->driver));
	json_object_set_new(o, "runtime", json_integer(f->runtime));
	json_object_set_new(o, "nccl", json_integer(f->nccl));
	json_object_set_new(o, "cuda", json_boolean(f->cuda));
	json_object_set_new(o, "gpu_count", json_integer(f->gpu_count));
	json_object_set_new(o, "ordinal", json_integer(f->ordinal));
	json_object_set_new(o, "uuid", json_string(f->uuid));
	json_object_set_new(o, "visible", json_string(f->visible));
	json_object_set_new(o, "ifname", json_string(f->ifname));
	json_object_set_new(o, "addr", json_string(f->addr));
	json_object_set_new(o, "peer_port", json_integer(f->peer_port));
	json_object_set_new(o, "gid_index", f->gid_index != NULL ? json_string(f->gid_index)
								  : json_null());
	return o;
}

/* Writes the results a plan carries as this rank's check lines. */
static void write_results(struct chk *c, json_t *arr)
{
	size_t i;
	json_t *o;
	json_array_foreach(arr, i, o) {
		int id = ht_check_from_name(ht_chk__str(o, "check"));
		json_t *rk = json_object_get(o, "ranks");
		int64_t ranks[256];
		size_t n = 0, j;
		json_t *v;
		if (id < 0)
			continue;
		json_array_foreach(rk, j, v) {
			if (n < 256)
				ranks[n++] = json_integer_value(v);
		}
		const char *code = json_string_value(json_object_get(o, "code"));
		ht_chk_result(c, (enum ht_check_id)id, ht_chk__str(o, "result"), code,
			      json_is_array(rk) ? ranks : NULL, n, "%s", ht_chk__str(o, "why"));
	}
}

/* The peer connect of one rank; writes the peer check. */
static void peer_test(struct chk *c, json_t *peer)
{
	char dest[128];
	if (!json_is_object(peer)) {
		ht_chk_result(c, HT_CHECK_PEER, "skip", NULL, NULL, 0, "%s",
			      json_is_string(peer) ? json_string_value(peer) :
			      "one host: no peer on another host");
		return;
	}
	const char *addr = ht_chk__str(peer, "addr");
	int port = (int)ht_chk__int(peer, "port");
	int64_t pr = ht_chk__int(peer, "rank");
	if (addr[0] == '\0' || port <= 0) {
		ht_chk_result(c, HT_CHECK_PEER, "skip", NULL, NULL, 0,
			      "rank %lld on host %s has no address NCCL would use", (long long)pr,
			      ht_chk__str(peer, "host"));
		return;
	}
	double secs = c->timeout * 0.15 < 10 ? c->timeout * 0.15 : 10;
	int fd = ht_chk_connect(addr, port, secs, false, dest, sizeof(dest));
	if (fd < 0) {
		ht_chk_result(c, HT_CHECK_PEER, "fail", "peer_unreachable", &pr, 1,
			      "cannot connect to rank %lld on host %s at %s, the address NCCL would "
			      "use: %s%s", (long long)pr, ht_chk__str(peer, "host"), dest, strerror(-fd),
			      fd == -ETIMEDOUT ? " (nobody answers: a firewall between the hosts?)" : "");
		return;
	}
	struct chk_conn *cn = calloc(1, sizeof(*cn));
	cn->fd = fd;
	json_t *who = ht_chk_recv(cn, secs);
	close(fd);
	free(cn);
	if (who == NULL) {
		ht_chk_result(c, HT_CHECK_PEER, "fail", "peer_unreachable", &pr, 1,
			      "connected to %s but rank %lld never answered", dest, (long long)pr);
		return;
	}
	if (strcmp(ht_chk__str(who, "host"), ht_chk__str(peer, "host")) != 0 ||
	    strcmp(ht_chk__str(who, "boot_id"), ht_chk__str(peer, "boot_id")) != 0) {
		ht_chk_result(c, HT_CHECK_PEER, "fail", "address_conflict", &pr, 1,
			      "%s, where rank %lld of host %s should listen, was answered by host %s "
			      "(rank %lld): the address is not unique", dest, (long long)pr,
			      ht_chk__str(peer, "host"), ht_chk__str(who, "host"), ht_chk__int(who, "rank"));
	} else {
		ht_chk_result(c, HT_CHECK_PEER, "pass", NULL, NULL, 0,
			      "reached rank %lld on host %s at %s", (long long)pr, ht_chk__str(peer, "host"),
			      dest);
	}
	json_decref(who);
}

/* ---- the NCCL self-test while waiting --------------------------------------- */

/* Whether this run does the all-reduce (rank 0 decides it for all). */
static bool want_nccl(struct chk *c, struct chk_member *m, int64_t ws)
{
	if (c->nccl == 0)
		return false;
	if (c->nccl == 1)
		return true;
	for (int64_t r = 0; r < ws; r++)
		if (m[r].here && (!json_is_true(json_object_get(m[r].facts, "cuda")) ||
				  ht_chk__int(m[r].facts, "nccl") < 0 || ht_chk__int(m[r].facts, "ordinal") < 0))
			return false;
	return true;
}

static const char *nccl_word(int s)
{
	switch (s) {
	case 0: return "never reached ncclCommInitRank";
	case 1: return "still in ncclCommInitRank";
	case 2: return "still in the all-reduce";
	case 3: return "done";
	default: return "failed";
	}
}

/* ---- rank 0 ------------------------------------------------------------------ */

static void nccl_verdict(struct chk *c, struct chk_member *m, int64_t ws, json_t *out)
{
	int64_t bad[CHK_MAX_RANKS], never[CHK_MAX_RANKS];
	size_t nb = 0, nn = 0;
	char rs[600], why[900];
	for (int64_t r = 0; r < ws; r++) {
		if (m[r].nccl == 3)
			continue;
		bad[nb++] = r;
		if (!m[r].here || m[r].nccl == 0)
			never[nn++] = r;
	}
	if (nb == 0) {
		ht_chk__add_result(out, HT_CHECK_NCCL, "pass", NULL, NULL, 0,
			   "the one-element all-reduce finished on every rank");
		return;
	}
	/* Blame those that never joined when there are any: the rest wait for them. */
	int64_t *blame = nn > 0 ? never : bad;
	size_t nbl = nn > 0 ? nn : nb;
	ht_chk__ranks_str(blame, nbl, rs, sizeof(rs));
	int64_t first = blame[0];
	snprintf(why, sizeof(why), "the all-reduce did not finish in %.0f s: rank%s %s %s%s",
		 c->timeout * F_DONE, nbl == 1 ? "" : "s", rs,
		 !m[first].here ? "never arrived" : nccl_word(m[first].nccl),
		 m[first].here && m[first].nccl < 0 ? m[first].nccl_why : "");
	ht_chk__add_result(out, HT_CHECK_NCCL, "fail", "nccl_selftest_failed", blame, nbl, why);
}

static void serve(struct chk *c)
{
	int64_t ws = c->id.world_size;
	int bound = 0;
	char why[256];
	int lfd = ht_chk_listen(NULL, c->port, &bound);
	if (lfd == -EADDRINUSE) {
		/* Where the job's store would listen: taken, and by whom. */
		char cmd[512];
		pid_t holder = ht_net_port_holder(c->port, cmd, sizeof(cmd));
		int64_t r0 = 0;
		if (holder > 0)
			ht_chk_result(c, HT_CHECK_RENDEZVOUS, "fail", "port_in_use", &r0, 1,
				      "rank 0 cannot listen on port %d: address already in use; "
				      "pid %d holds it (%s)", c->port, (int)holder, cmd);
		else
			ht_chk_result(c, HT_CHECK_RENDEZVOUS, "fail", "port_in_use", &r0, 1,
				      "rank 0 cannot listen on port %d: address already in use "
				      "(the holder is not ours to see)", c->port);
		return;
	}
	if (lfd < 0) {
		ht_chk_result(c, HT_CHECK_RENDEZVOUS, "fail", "rendezvous_unreachable", NULL, 0,
			      "rank 0 cannot listen on port %d: %s", c->port, strerror(-lfd));
		return;
	}
	ht_chk_result(c, HT_CHECK_RENDEZVOUS, "pass", NULL, NULL, 0,
		      "rank 0 listens on port %d", c->port);
	struct chk_member *m = calloc((size_t)ws, sizeof(*m));
	struct chk_conn **pend = calloc(CHK_MAX_RANKS, sizeof(*pend));
	size_t npend = 0;
	int64_t here = 1;
	m[0].here = true;
	m[0].facts = facts_json(c);
	double t_start = ht_chk_mono();
	/* Arrivals: hello (facts, t1) -> t2 -> offset. */
	while (here < ws && ht_chk_left(c, F_ARRIVE) > 0) {
		struct pollfd pf[CHK_MAX_RANKS + 1];
		pf[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (size_t i = 0; i < npend; i++)
			pf[i + 1] = (struct pollfd){ .fd = pend[i]->fd, .events = POLLIN };
		int ms = (int)(ht_chk_left(c, F_ARRIVE) * 1000) + 1;
		if (poll(pf, npend + 1, ms) <= 0)
			continue;
		if ((pf[0].revents & POLLIN) && npend < CHK_MAX_RANKS) {
			int s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (s >= 0) {
				pend[npend] = calloc(1, sizeof(**pend));
				pend[npend++]->fd = s;
			}
		}
		for (size_t i = 0; i < npend; i++) {
			struct chk_conn *cn = pend[i];
			json_t *o;
			while (cn != NULL && (o = ht_chk_take(cn)) != NULL) {
				json_t *f = json_object_get(o, "facts");
				int64_t r = ht_chk__int(f, "rank");
				if (json_is_object(f) && r > 0 && r < ws && !m[r].here &&
				    m[r].conn == NULL) {
					m[r].conn = cn;
					m[r].facts = json_incref(f);
					json_t *a = json_object();
					json_object_set_new(a, "t2", json_real(ht_chk_wall()));
					ht_chk_send(cn->fd, a);
				} else if (json_object_get(o, "offset") != NULL) {
					for (int64_t q = 1; q < ws; q++)
						if (m[q].conn == cn && !m[q].here) {
							m[q].here = true;
							m[q].offset = json_number_value(json_object_get(o, "offset"));
							m[q].rtt = json_number_value(json_object_get(o, "rtt"));
							here++;
						}
				}
				json_decref(o);
			}
		}
	}
	double waited = ht_chk_mono() - t_start;
	ht_chk__compare(m, ws, waited);
	bool nccl = want_nccl(c, m, ws);
	char id[260] = "";
	if (nccl && ht_chk_nccl_id(c, why, sizeof(why)) != 0) {
		ht_chk__add_result(m[0].results, HT_CHECK_NCCL, "fail", "nccl_selftest_failed", NULL, 0, why);
		nccl = false;
	}
	if (nccl)
		ht_strlcpy(id, c->nccl_id, sizeof(id));
	for (int64_t r = 1; r < ws; r++) {
		if (!m[r].here)
			continue;
		json_t *plan = json_object();
		json_object_set(plan, "results", m[r].results);
		json_object_set(plan, "peer", json_object_get(m[r].facts, "plan_peer"));
		json_object_set_new(plan, "nccl_id", nccl ? json_string(id) : json_null());
		ht_chk_send(m[r].conn->fd, plan);
	}
	write_results(c, m[0].results);
	peer_test(c, json_object_get(m[0].facts, "plan_peer"));
	if (nccl)
		ht_chk_nccl_start(c);
	/* The ranks' last word: their self-test state, then done. */
	for (;;) {
		char w[200];
		m[0].nccl = nccl ? ht_chk_nccl_state(w, sizeof(w)) : 3;
		if (m[0].nccl < 0)
			ht_strlcpy(m[0].nccl_why, w, sizeof(m[0].nccl_why));
		bool all = m[0].nccl == 3 || m[0].nccl < 0 || !nccl;
		for (int64_t r = 1; r < ws; r++)
			all = all && (!m[r].here || m[r].done);
		if (all || ht_chk_left(c, F_DONE) <= 0)
			break;
		struct pollfd pf[CHK_MAX_RANKS];
		int64_t who[CHK_MAX_RANKS];
		nfds_t n = 0;
		for (int64_t r = 1; r < ws; r++)
			if (m[r].here && !m[r].done && !m[r].conn->closed) {
				who[n] = r;
				pf[n++] = (struct pollfd){ .fd = m[r].conn->fd, .events = POLLIN };
			}
		poll(pf, n, nccl ? 20 : (int)(ht_chk_left(c, F_DONE) * 1000) + 1);
		for (nfds_t i = 0; i < n; i++) {
			json_t *o;
			struct chk_member *mm = &m[who[i]];
			while ((o = ht_chk_take(mm->conn)) != NULL) {
				if (json_object_get(o, "nccl") != NULL)
					mm->nccl = (int)ht_chk__int(o, "nccl");
				if (json_object_get(o, "nccl_why") != NULL)
					ht_strlcpy(mm->nccl_why, ht_chk__str(o, "nccl_why"), sizeof(mm->nccl_why));
				if (json_is_true(json_object_get(o, "done")))
					mm->done = true;
				json_decref(o);
			}
			if (mm->conn->closed)
				mm->done = true;
		}
	}
	json_t *last = json_array();
	if (nccl)
		nccl_verdict(c, m, ws, last);
	for (int64_t r = 1; r < ws; r++) {
		if (!m[r].here || m[r].conn->closed)
			continue;
		json_t *bye = json_object();
		json_object_set(bye, "results", last);
		ht_chk_send(m[r].conn->fd, bye);
	}
	write_results(c, last);
	if (!nccl)
		ht_chk_result(c, HT_CHECK_NCCL, "skip", NULL, NULL, 0, "%s",
			      c->nccl == 0 ? "--no-nccl" : "no GPU with libnccl.so.2 on every rank "
			      "(--nccl forces it)");
	json_decref(last);
	close(lfd);
}

/* ---- every other rank ------------------------------------------------------------- */

static void skip_rest(struct chk *c, enum ht_check_id from, const char *why)
{
	for (int id = from; id < HT_CHECK_COUNT; id++)
		ht_chk_result(c, (enum ht_check_id)id, "skip", NULL, NULL, 0, "%s", why);
}

/* The ranks on this host when the launcher says (else -1). */
static long long local_world(void)
{
	static const char *const vars[] = { "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
					    "SLURM_NTASKS_PER_NODE", "MPI_LOCALNRANKS" };
	extern char **environ;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		int64_t v;
		const char *s = ht_env_get(environ, vars[i]);
		if (s != NULL && ht_parse_i64(s, &v) && v > 0)
			return v;
	}
	return -1;
}

/* True when MASTER_ADDR resolves to loopback here while the job spans hosts:
 * every host then looks for rank 0 on itself (the /etc/hosts trap). */
static bool master_loopback(const char *host, int64_t world)
{
	struct ht_addr a;
	long long local = local_world();
	if (local < 0 || local >= world)
		return false;
	if (ht_addr_parse(&a, host))
		return ht_addr_loopback(&a);
	return strcmp(host, "localhost") == 0;
}

static void join(struct chk *c)
{
	const char *host = c->master != NULL && c->master[0] != '\0' ? c->master : "127.0.0.1";
	char dest[128];
	double secs = ht_chk_left(c, F_ARRIVE);
	int fd = ht_chk_connect(host, c->port, secs, true, dest, sizeof(dest));
	if (fd < 0 && master_loopback(host, c->id.world_size)) {
		ht_chk_result(c, HT_CHECK_RENDEZVOUS, "fail", "master_addr_loopback", NULL, 0,
			      "MASTER_ADDR %s is this host's loopback, but the job spans hosts (%lld "
			      "ranks, %lld here): rank 0 is not reached at %s: %s", host,
			      (long long)c->id.world_size, local_world(), dest, strerror(-fd));
		skip_rest(c, HT_CHECK_ARRIVALS, "rank 0 was not reached");
		return;
	}
	if (fd < 0) {
		ht_chk_result(c, HT_CHECK_RENDEZVOUS, "fail", "rendezvous_unreachable", NULL, 0,
			      "cannot connect to rank 0 at %s (MASTER_ADDR %s, port %d) in %.1f s: %s%s",
			      dest, host, c->port, secs, strerror(-fd),
			      fd == -ETIMEDOUT ? " (nobody answers: a firewall drops the port?)" :
			      fd == -ECONNREFUSED ? " (nobody listens: rank 0 not started, or "
						    "another port)" : "");
		skip_rest(c, HT_CHECK_ARRIVALS, "rank 0 was not reached");
		return;
	}
	struct chk_conn *cn = calloc(1, sizeof(*cn));
	cn->fd = fd;
	json_t *hello = json_object();
	json_object_set_new(hello, "facts", facts_json(c));
	double t1 = ht_chk_wall();
	ht_chk_send(fd, hello);
	json_t *a = ht_chk_recv(cn, ht_chk_left(c, F_PLAN));
	double t3 = ht_chk_wall();
	if (a == NULL || json_object_get(a, "t2") == NULL) {
		ht_chk_result(c, HT_CHECK_RENDEZVOUS, "fail", "rendezvous_unreachable", NULL, 0,
			      "%s accepted but did not answer as rank 0 of hangtrace check "
			      "(another program on the port?)", dest);
		skip_rest(c, HT_CHECK_ARRIVALS, "rank 0 did not answer");
		json_decref(a);
		goto out;
	}
	double t2 = json_number_value(json_object_get(a, "t2"));
	json_decref(a);
	json_t *off = json_object();
	json_object_set_new(off, "offset", json_real(t2 - (t1 + t3) / 2));
	json_object_set_new(off, "rtt", json_real(t3 - t1));
	ht_chk_send(fd, off);
	ht_chk_result(c, HT_CHECK_RENDEZVOUS, "pass", NULL, NULL, 0, "reached rank 0 at %s", dest);
	json_t *plan = ht_chk_recv(cn, ht_chk_left(c, F_PLAN));
	if (plan == NULL) {
		skip_rest(c, HT_CHECK_ARRIVALS, "rank 0 sent no plan in time");
		c->failed++;
		goto out;
	}
	write_results(c, json_object_get(plan, "results"));
	peer_test(c, json_object_get(plan, "peer"));
	const char *id = json_string_value(json_object_get(plan, "nccl_id"));
	int last = -9;
	if (id != NULL) {
		ht_strlcpy(c->nccl_id, id, sizeof(c->nccl_id));
		ht_chk_nccl_start(c);
		for (;;) {
			char w[200];
			int s = ht_chk_nccl_state(w, sizeof(w));
			if (s != last) {
				json_t *o = json_object();
				json_object_set_new(o, "nccl", json_integer(s));
				if (s < 0)
					json_object_set_new(o, "nccl_why", json_string(w));
				ht_chk_send(fd, o);
				last = s;
			}
			if (s == 3 || s < 0 || ht_chk_left(c, F_DONE) <= 0)
				break;
			usleep(10000);
		}
	}
	json_t *done = json_object();
	json_object_set_new(done, "done", json_true());
	ht_chk_send(fd, done);
	json_t *bye = ht_chk_recv(cn, ht_chk_left(c, F_BYE));
	if (bye != NULL)
		write_results(c, json_object_get(bye, "results"));
	if (id == NULL)
		ht_chk_result(c, HT_CHECK_NCCL, "skip", NULL, NULL, 0, "%s",
			      c->nccl == 0 ? "--no-nccl" : "rank 0 did not start the NCCL self-test");
	else if (bye == NULL)
		ht_chk_result(c, HT_CHECK_NCCL, last == 3 ? "pass" : "fail",
			      last == 3 ? NULL : "nccl_selftest_failed", NULL, 0,
			      "the all-reduce %s here; rank 0 said nothing in time", nccl_word(last));
	json_decref(bye);
	json_decref(plan);
out:
	close(fd);
	free(cn);
}

void ht_chk_meet(struct chk *c)
{
	if (c->id.rank < 0 || c->id.world_size < 1) {
		skip_rest(c, HT_CHECK_RENDEZVOUS, "no rank identity");
		return;
	}
	peer_listen(c);
	if (c->id.world_size > CHK_MAX_RANKS) {
		skip_rest(c, HT_CHECK_RENDEZVOUS, "more ranks than hangtrace check takes (4096)");
		return;
	}
	if (c->id.rank == 0)
		serve(c);
	else
		join(c);
}
