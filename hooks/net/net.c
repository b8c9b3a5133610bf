// SPDX-License-Identifier: MIT
/*
 * net.c: the network family's hooks (SPEC section 5, rendezvous): connect,
 * getsockopt, bind, listen, accept and accept4. A TCP connect to an IPv4 or
 * IPv6 address is recorded with its outcome; a non-blocking one stays
 * pending until the application itself reads SO_ERROR (we never do: the
 * read clears it: socket(7), SO_ERROR "get and clear"), closes the socket, or a dump finds it
 * connected. Attempts are counted per (destination, errno) and written at
 * the 1st, 2nd, 4th, 8th... one. Hook paths never allocate, take no lock
 * and keep errno; everything but INET connects and SO_ERROR reads on
 * pending sockets takes a fast path of one compare and one bit test.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "events.h"
#include "fmt.h"
#include "jsonw.h"
#include "net.h"
#include "netfacts.h"
#include "phase.h"
#include "portholder.h"
#include "procfs.h"
#include "real.h"
#include "state.h"
#include "writer.h"

/* Sockets are followed by descriptor number up to this one. */
#define MAX_FD 16384
#define MAX_LISTENERS 64

struct ht_endpoints ht__net_endpoints;
static struct ht_dests dests;
static struct ht_agg agg;

/* A connect in progress: the socket's destination and when it started. */
struct pend {
	uint32_t dest;
	int64_t t0;
	pid_t tid;		/* the thread that connected */
};

static _Atomic uint64_t pend_bits[MAX_FD / 64];
static struct pend pend[MAX_FD];

struct listener {
	_Atomic int fd1;		/* the descriptor + 1; 0: free */
	uint8_t role;
	_Atomic uint64_t count;		/* connections accepted */
	char str[HT_ADDR_STRLEN];
};

static _Atomic uint64_t lis_bits[MAX_FD / 64];
static struct listener lis[MAX_LISTENERS];

static _Atomic int64_t rdv_first;	/* mono ns of the rendezvous begin, 0 before */
/* The thread connecting to an endpoint, until such a connect succeeds. */
static _Atomic pid_t rdv_tid;
/* The thread whose latest connect to another address (an init_method or a
 * coordinator given as an argument, not a variable) has not succeeded. */
static _Atomic pid_t other_tid;
static _Atomic bool full_warned;

/* ---- the per-descriptor bit maps ------------------------------------------------ */

static inline bool bit_test(_Atomic uint64_t *bits, int fd)
{
	return (unsigned)fd < MAX_FD &&
	       ((atomic_load_explicit(&bits[(unsigned)fd / 64], memory_order_acquire) >>
		 ((unsigned)fd % 64)) & 1);
}

static inline void bit_set(_Atomic uint64_t *bits, int fd)
{
	atomic_fetch_or_explicit(&bits[(unsigned)fd / 64], 1ull << ((unsigned)fd % 64),
				 memory_order_release);
}

/* Clears fd's bit; true when this call cleared it. */
static inline bool bit_take(_Atomic uint64_t *bits, int fd)
{
	uint64_t bit = 1ull << ((unsigned)fd % 64);
	return (atomic_fetch_and(&bits[(unsigned)fd / 64], ~bit) & bit) != 0;
}

static bool pend_peek(int fd, struct pend *out)
{
	if (!bit_test(pend_bits, fd))
		return false;
	*out = pend[fd];
	return true;
}

/* Takes fd's pending attempt, once: true for the one caller that gets it. */
static bool pend_claim(int fd, struct pend *out)
{
	return pend_peek(fd, out) && bit_take(pend_bits, fd);
}

/* tcpi_state of fd (non-destructive, unlike SO_ERROR), 0 when unknown. */
static int tcp_state(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	int saved = errno;
	int r = ht_real.getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len);
	errno = saved;
	return r == 0 && len >= 1 ? ti.tcpi_state : 0;
}

/* ---- lines ------------------------------------------------------------------------ */

enum line_kind { LINE_ATTEMPT, LINE_PROBE, LINE_SUMMARY };

static void warn_full(void)
{
	if (!atomic_exchange(&full_warned, true))
		ht_ev_warning("connect tables full: further destinations are not recorded");
}

/* One connect line. err -1: the outcome is not known (closed unread). */
static void connect_line(const struct ht_dest *d, int err, uint64_t count, int64_t first,
			 int64_t last, int64_t dur, enum line_kind kind, int state)
{
	char buf[640];
	struct ht_jw w;
	enum ht_net_result res = err < 0 ? HT_RES_ERROR : ht_net_result_of(err);

	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_CONNECT);
	ht_jw_str(&w, "dest", d->str);
	ht_jw_str(&w, "role", ht_net_role_name(atomic_load(&d->role)));
	ht_jw_str(&w, "result", ht_net_result_name(res));
	ht_jw_int_or_null(&w, "errno", err, err >= 0);
	ht_jw_str(&w, "error", err > 0 ? ht_errno_name(err) : NULL);
	ht_jw_uint(&w, "count", count);
	ht_jw_secs(&w, "first", first);
	ht_jw_secs(&w, "last", last);
	if (dur >= 0)
		ht_jw_secs(&w, "dur", dur);
	else
		ht_jw_null(&w, "dur");
	if (kind == LINE_PROBE) {
		ht_jw_bool(&w, "probe", true);
		ht_jw_str(&w, "tcp_state", ht_tcp_state_name(state));
	} else if (kind == LINE_SUMMARY) {
		ht_jw_bool(&w, "summary", true);
	}
	ht_ev_emit(&w);
}

static void rendezvous_begin(const struct ht_dest *d, int64_t t0)
{
	char buf[384];
	struct ht_jw w;

	/* NCCL's own bootstrap connects belong to nccl_init, once it began. */
	if (ht_phases_has_begun(&ht_g.phases, HT_PHASE_NCCL_INIT))
		return;
	if (!ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_RENDEZVOUS, HT_BEGIN))
		return;
	atomic_store(&rdv_first, t0);
	ht_jw_str(&w, "dest", d->str);
	ht_jw_str(&w, "role", ht_net_role_name(atomic_load(&d->role)));
	ht_ev_emit(&w);
}

static void rendezvous_end(const struct ht_dest *d, int64_t now)
{
	char buf[384];
	struct ht_jw w;
	int64_t first = atomic_load(&rdv_first);

	if (first == 0 || !ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_RENDEZVOUS, HT_END))
		return;
	ht_jw_str(&w, "dest", d->str);
	ht_jw_str(&w, "role", ht_net_role_name(atomic_load(&d->role)));
	ht_jw_secs(&w, "dur", now - first);
	ht_ev_emit(&w);
}

/* Records the outcome of one attempt to dest that began at t0. */
static void settle(uint32_t di, int err, int64_t t0, int64_t now)
{
	const struct ht_dest *d = &dests.d[di];
	uint64_t count;
	struct ht_agg_ent *e = ht_agg_add(&agg, di, err, now, &count);

	if (e == NULL) {
		warn_full();
	} else if (ht_net_log_due(count)) {
		atomic_store(&e->logged, count);
		connect_line(d, err, count, atomic_load(&e->first), now, now - t0, LINE_ATTEMPT, 0);
	}
	if (err == 0 && atomic_load(&d->role) != HT_ROLE_OTHER) {
		atomic_store(&rdv_tid, 0);
		rendezvous_end(d, now);
	}
}

/* A pending connect's outcome: a success also ends its thread's wait
 * elsewhere (other_tid), whoever saw it (the application, or a dump). */
static void settle_pend(const struct pend *p, int err, int64_t now)
{
	settle(p->dest, err, p->t0, now);
	if (err == 0) {
		pid_t t = p->tid;
		atomic_compare_exchange_strong(&other_tid, &t, 0);
	}
}

/* ---- connect and SO_ERROR --------------------------------------------------------- */

/* True for a TCP socket. A UDP connect sends nothing: it only sets the
 * peer (the "find my own address" trick connects to MASTER_ADDR). */
static bool is_stream(int fd)
{
	int type = 0;
	socklen_t tl = sizeof(type);
	return ht_real.getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 && type == SOCK_STREAM;
}

/*
 * The socket type costs a system call, so it is asked only where the
 * answer matters: before a connect to an endpoint (which may open the
 * rendezvous), and after a connect to anything else that succeeded at once
 * or failed in a way a datagram socket can (EINPROGRESS, ECONNREFUSED,
 * ETIMEDOUT... are a stream socket's).
 */
static __attribute__((noinline)) int net_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	int saved = errno;
	struct ht_addr a;
	int di = -1;

	if (ht_addr_from_sa(&a, sa, len) && (di = ht_dests_get(&dests, &a)) < 0)
		warn_full();
	if (di < 0) {
		errno = saved;
		return ht_real.connect(fd, sa, len);
	}
	struct ht_dest *d = &dests.d[di];
	enum ht_net_role role = ht_endpoints_role(&ht__net_endpoints, &a);
	atomic_store(&d->role, (uint8_t)role);
	if (role != HT_ROLE_OTHER && !is_stream(fd)) {
		errno = saved;
		return ht_real.connect(fd, sa, len);
	}
	int64_t t0 = ht_now();
	struct pend prev;
	/* Some loops call connect again on a socket still connecting. */
	bool again = pend_peek(fd, &prev) && prev.dest == (uint32_t)di;
	pid_t me = (pid_t)syscall(SYS_gettid);
	atomic_store(role != HT_ROLE_OTHER ? &rdv_tid : &other_tid, me);
	if (again) {
		t0 = prev.t0;
	} else {
		if (role != HT_ROLE_OTHER)
			rendezvous_begin(d, t0);
		if ((unsigned)fd < MAX_FD) {
			pend[fd] = (struct pend){ .dest = (uint32_t)di, .t0 = t0, .tid = me };
			bit_set(pend_bits, fd);
		}
	}

	/* Every connect is bracketed: a blocking one is then watched like any
	 * blocking call; a non-blocking one leaves the table at once. Asking
	 * fcntl which it is cost a system call, most of the hook's price. */
	struct ht_call c;
	ht_call_enter(&c, HT_HOOK_ID_connect);
	errno = saved;
	int r = ht_real.connect(fd, sa, len);
	int err = r == 0 ? 0 : errno;
	ht_call_leave(&c, r);
	if (r == 0 && role == HT_ROLE_OTHER)
		atomic_compare_exchange_strong(&other_tid, &me, 0);

	struct pend p;
	/* EINTR: the kernel goes on connecting, as after EINPROGRESS. */
	bool waiting = err == EINPROGRESS || err == EALREADY || err == EINTR;
	/* Outcomes only a stream socket has need no question. */
	bool tcp_only = waiting || err == EISCONN || err == ECONNREFUSED || err == ETIMEDOUT ||
			err == ECONNRESET;
	if (!tcp_only && role == HT_ROLE_OTHER && !again && !is_stream(fd)) {
		if ((unsigned)fd < MAX_FD)
			bit_take(pend_bits, fd);
	} else if (err == EISCONN) {
		/* Connected meanwhile: success if we were following it. */
		if (again && pend_claim(fd, &p))
			settle_pend(&p, 0, ht_now());
	} else if ((unsigned)fd >= MAX_FD) {
		settle((uint32_t)di, err == EINTR ? EINPROGRESS : err, t0, ht_now());
	} else if (!waiting) {
		if (pend_claim(fd, &p))
			settle_pend(&p, err, ht_now());
	}
	errno = r == 0 ? saved : err;
	return r;
}

HT_EXPORT int connect(int fd, __CONST_SOCKADDR_ARG sa_arg, socklen_t len)
{
	const struct sockaddr *sa = sa_arg.__sockaddr__;

	ht_real_init();
	/* AF_INET (2) and AF_INET6 (10) are the families f with f | 8 == 10. */
	if (sa == NULL || (sa->sa_family | 8) != AF_INET6 || !ht_active() || ht_tls.depth > 0)
		return ht_real.connect(fd, sa, len);
	return net_connect(fd, sa, len);
}

static __attribute__((noinline)) int net_so_error(int fd, void *optval, socklen_t *optlen)
{
	int r = ht_real.getsockopt(fd, SOL_SOCKET, SO_ERROR, optval, optlen);
	int saved = errno;

	if (r == 0 && optval != NULL && optlen != NULL && *optlen >= sizeof(int) &&
	    ht_tls.depth == 0 && ht_active()) {
		int v;
		memcpy(&v, optval, sizeof(v));
		struct pend p;
		/* 0 while still in SYN_SENT: asked too early, still pending. */
		if ((v != 0 || tcp_state(fd) != TCP_SYN_SENT) && pend_claim(fd, &p))
			settle_pend(&p, v, ht_now());
	}
	errno = saved;
	return r;
}

HT_EXPORT int getsockopt(int fd, int level, int optname, void *optval, socklen_t *optlen)
{
	ht_real_init();
	if ((((unsigned)level ^ SOL_SOCKET) | ((unsigned)optname ^ SO_ERROR)) != 0 ||
	    !bit_test(pend_bits, fd))
		return ht_real.getsockopt(fd, level, optname, optval, optlen);
	return net_so_error(fd, optval, optlen);
}

/* ---- servers: bind, listen, accept -------------------------------------------------- */

static void listen_line(const char *str, enum ht_net_role role, const char *fn, int err, int port)
{
	char buf[1024], cmd[512];
	struct ht_jw w;
	/* A rendezvous port taken: by whom, while the holder still holds it. */
	pid_t holder = err == EADDRINUSE && port > 0 ? ht_net_port_holder(port, cmd, sizeof(cmd)) : 0;

	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_LISTEN);
	ht_jw_str(&w, "addr", str);
	ht_jw_str(&w, "role", ht_net_role_name(role));
	ht_jw_str(&w, "fn", fn);
	ht_jw_str(&w, "result", err == 0 ? "ok" : "error");
	ht_jw_int(&w, "errno", err);
	ht_jw_str(&w, "error", err != 0 ? ht_errno_name(err) : NULL);
	if (holder > 0) {
		ht_jw_obj_begin(&w, "holder");
		ht_jw_int(&w, "pid", holder);
		ht_jw_str(&w, "cmd", cmd);
		ht_jw_end(&w);
	}
	ht_ev_emit(&w);
}

static __attribute__((noinline)) void net_bind_failed(const struct sockaddr *sa, socklen_t len,
						      int err)
{
	struct ht_addr a;
	char str[HT_ADDR_STRLEN];

	if (!ht_addr_from_sa(&a, sa, len))
		return;
	enum ht_net_role role = ht_endpoints_role_listen(&ht__net_endpoints, &a);
	/* Only where it matters: port probing loops fail binds all day. */
	if (role == HT_ROLE_OTHER)
		return;
	ht_addr_fmt(str, sizeof(str), &a, true);
	listen_line(str, role, "bind", err, a.port);
}

HT_EXPORT int bind(int fd, __CONST_SOCKADDR_ARG sa_arg, socklen_t len)
{
	const struct sockaddr *sa = sa_arg.__sockaddr__;

	ht_real_init();
	int r = ht_real.bind(fd, sa, len);
	if (r == 0 || sa == NULL || (sa->sa_family | 8) != AF_INET6 || !ht_active() ||
	    ht_tls.depth > 0)
		return r;
	int err = errno;
	net_bind_failed(sa, len, err);
	errno = err;
	return r;
}

static __attribute__((noinline)) void net_listening(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct ht_addr a;

	if ((unsigned)fd >= MAX_FD || getsockname(fd, (struct sockaddr *)&ss, &len) != 0 ||
	    !ht_addr_from_sa(&a, &ss, len))
		return;
	enum ht_net_role role = ht_endpoints_role_listen(&ht__net_endpoints, &a);
	if (bit_test(lis_bits, fd))
		return;			/* listen() again on the same socket */
	for (int i = 0; i < MAX_LISTENERS; i++) {
		int expect = 0;
		if (!atomic_compare_exchange_strong(&lis[i].fd1, &expect, fd + 1))
			continue;
		lis[i].role = (uint8_t)role;
		atomic_store(&lis[i].count, 0);
		ht_addr_fmt(lis[i].str, sizeof(lis[i].str), &a, true);
		bit_set(lis_bits, fd);
		listen_line(lis[i].str, role, "listen", 0, 0);
		return;
	}
}

HT_EXPORT int listen(int fd, int backlog)
{
	ht_real_init();
	int r = ht_real.listen(fd, backlog);
	if (r != 0 || !ht_active() || ht_tls.depth > 0)
		return r;
	int saved = errno;
	net_listening(fd);
	errno = saved;
	return r;
}

static struct listener *listener_of(int fd)
{
	for (int i = 0; i < MAX_LISTENERS; i++)
		if (atomic_load(&lis[i].fd1) == fd + 1)
			return &lis[i];
	return NULL;
}

static __attribute__((noinline)) void net_accepted(int lfd, int fd)
{
	int saved = errno;
	struct listener *l = listener_of(lfd);
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct ht_addr a;
	char peer[HT_ADDR_STRLEN] = "";

	if (l == NULL || !ht_active() || ht_tls.depth > 0)
		goto out;
	uint64_t n = atomic_fetch_add(&l->count, 1) + 1;
	/* Every peer of a rendezvous or bootstrap server; others 1, 2, 4... */
	if (l->role == HT_ROLE_OTHER && !ht_net_log_due(n))
		goto out;
	if (getpeername(fd, (struct sockaddr *)&ss, &len) == 0 && ht_addr_from_sa(&a, &ss, len))
		ht_addr_fmt(peer, sizeof(peer), &a, true);

	char buf[384];
	struct ht_jw w;
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_ACCEPT);
	ht_jw_str(&w, "addr", l->str);
	ht_jw_str(&w, "role", ht_net_role_name(l->role));
	ht_jw_str(&w, "peer", peer[0] != '\0' ? peer : NULL);
	ht_jw_uint(&w, "count", n);
	ht_ev_emit(&w);
out:
	errno = saved;
}

HT_EXPORT int accept(int fd, __SOCKADDR_ARG sa, socklen_t *len)
{
	ht_real_init();
	int r = ht_real.accept(fd, sa, len);
	if (r >= 0 && bit_test(lis_bits, fd))
		net_accepted(fd, r);
	return r;
}

HT_EXPORT int accept4(int fd, __SOCKADDR_ARG sa, socklen_t *len, int flags)
{
	ht_real_init();
	int r = ht_real.accept4(fd, sa, len, flags);
	if (r >= 0 && bit_test(lis_bits, fd))
		net_accepted(fd, r);
	return r;
}

/* ---- endpoints from other families ----------------------------------------------- */

void ht_net_add_endpoint(const struct sockaddr *sa, socklen_t len, const char *role)
{
	struct ht_addr a;
	int r = ht_net_role_from_name(role);

	if (!ht_addr_from_sa(&a, sa, len))
		return;
	if (ht_endpoints_add(&ht__net_endpoints, &a, r < 0 ? HT_ROLE_OTHER : (enum ht_net_role)r) < 0)
		return;
	/* Destinations seen before keep counting, now under their role. */
	enum ht_net_role now = ht_endpoints_role(&ht__net_endpoints, &a);
	for (int i = 0; i < HT_NET_DESTS; i++)
		if (atomic_load_explicit(&dests.d[i].state, memory_order_acquire) == 2 &&
		    ht_addr_equal(&dests.d[i].addr, &a))
			atomic_store(&dests.d[i].role, (uint8_t)now);
}

/* ---- the core's callbacks ------------------------------------------------------------ */

/* What a pending attempt came to when the application closes its socket
 * without having read SO_ERROR: connected, abandoned while nobody answered
 * (timeout), or failed with an error we may not read. */
static int outcome_at_close(int fd)
{
	int st = tcp_state(fd);
	if (ht_tcp_state_connected(st))
		return 0;
	return st == TCP_SYN_SENT ? ETIMEDOUT : -1;
}

void ht__net_fd_closing(int fd)
{
	struct pend p;

	if (pend_claim(fd, &p))
		settle_pend(&p, outcome_at_close(fd), ht_now());
	if (bit_test(lis_bits, fd)) {
		struct listener *l = listener_of(fd);
		bit_take(lis_bits, fd);
		if (l != NULL)
			atomic_store(&l->fd1, 0);
	}
}

/* The first descriptor >= from with a bit set in any of the bitmaps, or
 * -1: the loops over pending connects and listeners. */
static int next_fd(int from, bool listeners)
{
	for (unsigned w = (unsigned)from / 64; from >= 0 && w < MAX_FD / 64; w++) {
		uint64_t bits = atomic_load(&pend_bits[w]);
		if (listeners)
			bits |= atomic_load(&lis_bits[w]);
		if (w == (unsigned)from / 64)
			bits &= ~0ull << ((unsigned)from % 64);
		if (bits != 0)
			return (int)(w * 64 + (unsigned)__builtin_ctzll(bits));
	}
	return -1;
}

void ht__net_fd_range_closing(unsigned int first, unsigned int last)
{
	/* Only descriptors with a bit set: close_range(3, ~0) costs 256 loads. */
	if (first >= MAX_FD)
		return;
	for (int fd = next_fd((int)first, true); fd >= 0 && (unsigned int)fd <= last;
	     fd = next_fd(fd + 1, true))
		ht__net_fd_closing(fd);
}

/* The system calls a signal handler makes fail with EINTR, SA_RESTART or
 * not (signal(7)): waits with a timeout, sleeps, multiplexers. */
static const long eintr_waits[] = {
#ifdef SYS_poll
	SYS_poll,
#endif
#ifdef SYS_select
	SYS_select,
#endif
#ifdef SYS_epoll_wait
	SYS_epoll_wait,
#endif
#ifdef SYS_pause
	SYS_pause,
#endif
	SYS_ppoll, SYS_pselect6, SYS_epoll_pwait, SYS_nanosleep, SYS_clock_nanosleep,
	SYS_rt_sigsuspend, SYS_rt_sigtimedwait, SYS_io_getevents,
	/* A poll or sleep that a signal interrupted and the kernel restarts
	 * shows as restart_syscall (restart_syscall(2)); one more signal ends
	 * it with EINTR. Seen after the brief's child exits (SIGCHLD). */
	SYS_restart_syscall,
};

/* The system call thread tid waits in, -1 when it runs or is unknown. */
static long current_syscall(pid_t tid)
{
	char path[64], buf[128];
	ht_task_path(path, sizeof(path), tid, "syscall");
	if (ht_read_file(path, buf, sizeof(buf)) <= 0 || buf[0] < '0' || buf[0] > '9')
		return -1;
	long nr = 0;
	for (const char *p = buf; *p >= '0' && *p <= '9'; p++)
		nr = nr * 10 + (*p - '0');
	return nr;
}

/*
 * PyTorch 1.13's TCPStore turns an EINTR in its connect poll or its one
 * second retry sleep into "RuntimeError: Interrupted system call" (c10d
 * socket.cpp, on purpose, so Ctrl-C works): a dump's unwind signal would
 * end a rank that waits for the store. The thread connecting to an
 * endpoint is therefore not signalled while it waits in such a call, until
 * one of its connects succeeds; the dump describes it from /proc. So is
 * a thread whose latest connect elsewhere failed or is pending: the store
 * may be reached through an address given as an argument
 * (init_method="tcp://host:port"), which no variable names.
 */
bool ht__net_dump_may_signal(pid_t tid)
{
	if (tid != atomic_load(&rdv_tid) && tid != atomic_load(&other_tid))
		return true;
	long nr = current_syscall(tid);
	for (size_t i = 0; i < HT_ARRAY_SIZE(eintr_waits); i++)
		if (nr == eintr_waits[i])
			return false;
	return true;
}

/* Restates the count of every (destination, outcome) whose latest line is
 * behind it (all of them when every is set). */
static void write_summaries(bool every)
{
	for (int i = 0; i < HT_NET_AGG; i++) {
		struct ht_agg_ent *e = &agg.e[i];
		if (atomic_load_explicit(&e->state, memory_order_acquire) != 2)
			continue;
		uint64_t n = atomic_load(&e->count);
		if (!every && atomic_load(&e->logged) == n)
			continue;
		atomic_store(&e->logged, n);
		connect_line(&dests.d[e->dest], e->err, n, atomic_load(&e->first),
			     atomic_load(&e->last), -1, LINE_SUMMARY, 0);
	}
}

void ht__net_dump(void)
{
	int64_t now = ht_now();

	if (!ht_active())
		return;
	for (int fd = next_fd(0, false); fd >= 0; fd = next_fd(fd + 1, false)) {
		struct pend p;
		if (!pend_peek(fd, &p))
			continue;
		int st = tcp_state(fd);
		if (ht_tcp_state_connected(st)) {
			/* Connected, and the application never asked. */
			if (pend_claim(fd, &p))
				settle_pend(&p, 0, now);
			continue;
		}
		connect_line(&dests.d[p.dest], EINPROGRESS, 1, p.t0, p.t0, now - p.t0,
			     LINE_PROBE, st);
	}
	write_summaries(true);
}

/* At exit, attempts still pending end as if their sockets were closed
 * (the process gave up on them), then every count not yet written. */
static void on_exit_summary(int status, void *arg)
{
	(void)status;
	(void)arg;
	if (!ht_active() || getpid() != ht_g.pid)
		return;
	for (int fd = next_fd(0, false); fd >= 0; fd = next_fd(fd + 1, false)) {
		struct pend p;
		if (pend_claim(fd, &p))
			settle_pend(&p, outcome_at_close(fd), ht_now());
	}
	write_summaries(false);
}

void ht__net_activate(void)
{
	static bool registered;

	/* Registered after the core's exit record, so it runs before it. */
	if (!registered && on_exit(on_exit_summary, NULL) == 0)
		registered = true;
	ht__net_host_facts();
}

void ht__net_fork_child(void)
{
	/* The parent's attempts and counts are its own; listeners stay. */
	for (unsigned i = 0; i < MAX_FD / 64; i++)
		atomic_store(&pend_bits[i], 0);
	memset(&agg, 0, sizeof(agg));
	atomic_store(&rdv_first, 0);
	atomic_store(&rdv_tid, 0);
	atomic_store(&other_tid, 0);
	for (int i = 0; i < MAX_LISTENERS; i++)
		atomic_store(&lis[i].count, 0);
}
