// SPDX-License-Identifier: MIT
/*
 * netprobe: small socket clients and servers the net tests run under the
 * library. Each mode prints what the application saw, so a test can
 * compare it with and without hangtrace:
 *
 *   soerror PORT          non-blocking connect to 127.0.0.1:PORT, poll, read
 *                         SO_ERROR ourselves: prints the value (111 when
 *                         closed) and the errno each call left
 *   echo                  a TCP echo exchange on loopback (blocking and
 *                         non-blocking client) and an AF_UNIX one
 *   retry HOST PORT N MS  NCCL's loop: up to N attempts, a new non-blocking
 *                         socket each, connect + poll + SO_ERROR, sleep MS
 *   pending HOST PORT S   a non-blocking connect left pending for S seconds
 *                         in a function named wait_for_store (never reads
 *                         SO_ERROR)
 *   closed HOST PORT S    like pending, but closes every descriptor from 3
 *                         up with close_range(3) at once, then waits S s
 *   serve PORT N          listen on 0.0.0.0:PORT, accept N clients, exit
 *   fullq S               a loopback listener whose accept queue is full (so
 *                         further SYNs are dropped): prints its port, waits S
 *   bench N PORT [all]    ns per call (median of 15 rounds of N) of the
 *                         hooks' fast paths, of an IPv4 connect the kernel
 *                         answers at once; with all, of a refused connect
 *                         to 127.0.0.1:PORT and of socket+close
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "netprobe: %s: %s\n", what, strerror(errno));
	return 2;
}

static int resolve(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
	char ps[16];
	snprintf(ps, sizeof(ps), "%d", port);
	if (getaddrinfo(host, ps, &hints, &res) != 0)
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static int soerror(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fail("socket");
	errno = 0;
	int r = connect(fd, (struct sockaddr *)&a, sizeof(a));
	printf("connect=%d errno=%d\n", r, errno);
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	poll(&p, 1, 2000);
	int v = -1;
	socklen_t vl = sizeof(v);
	errno = 4242;	/* a successful call must leave errno alone */
	r = getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &vl);
	printf("getsockopt=%d so_error=%d errno=%d\n", r, v, errno);
	v = -1;
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &vl);
	printf("second so_error=%d\n", v);
	close(fd);
	return 0;
}

static void *echo_server(void *arg)
{
	int lfd = *(int *)arg;
	for (int i = 0; i < 3; i++) {
		int c = accept(lfd, NULL, NULL);
		if (c < 0)
			return NULL;
		char buf[64];
		ssize_t n = read(c, buf, sizeof(buf));
		if (n > 0 && write(c, buf, (size_t)n) != n)
			perror("write");
		close(c);
	}
	return NULL;
}

/* Sends msg on fd and prints what comes back. */
static void exchange(const char *what, int fd, const char *msg)
{
	char buf[64] = "";
	if (write(fd, msg, strlen(msg)) < 0)
		perror("write");
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	printf("%s: sent '%s' got '%s'\n", what, msg, buf);
}

static int echo(void)
{
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 8) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &al) != 0)
		return fail("tcp listener");
	pthread_t t;
	pthread_create(&t, NULL, echo_server, &lfd);

	int fd = socket(AF_INET, SOCK_STREAM, 0);
	errno = 0;
	int r = connect(fd, (struct sockaddr *)&a, sizeof(a));
	printf("blocking connect=%d errno=%d\n", r, errno);
	exchange("tcp", fd, "hello");
	close(fd);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	r = connect(fd, (struct sockaddr *)&a, sizeof(a));
	printf("non-blocking connect=%d einprogress=%d\n", r, r < 0 && errno == EINPROGRESS);
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	poll(&p, 1, 2000);
	int v = -1;
	socklen_t vl = sizeof(v);
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &vl);
	printf("so_error=%d\n", v);
	fcntl(fd, F_SETFL, 0);
	exchange("tcp-nb", fd, "again");
	close(fd);

	/* A connect() that sits in the listener's backlog: accepted third. */
	fd = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 m = { .sin6_family = AF_INET6, .sin6_port = a.sin_port };
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &m.sin6_addr);
	r = connect(fd, (struct sockaddr *)&m, sizeof(m));
	printf("mapped connect=%d\n", r);
	exchange("tcp-mapped", fd, "mapped");
	close(fd);
	pthread_join(t, NULL);
	close(lfd);

	/* AF_UNIX: a listener at a path, a client connect, an exchange. */
	struct sockaddr_un u = { .sun_family = AF_UNIX };
	snprintf(u.sun_path, sizeof(u.sun_path), "/tmp/netprobe.%d.sock", (int)getpid());
	unlink(u.sun_path);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(lfd, (struct sockaddr *)&u, sizeof(u)) != 0 || listen(lfd, 4) != 0)
		return fail("unix listener");
	int c = socket(AF_UNIX, SOCK_STREAM, 0);
	r = connect(c, (struct sockaddr *)&u, sizeof(u));
	int s = accept(lfd, NULL, NULL);
	printf("unix connect=%d accepted=%d\n", r, s >= 0);
	if (write(c, "ping", 4) != 4)
		perror("write");
	char buf[8] = "";
	ssize_t n = read(s, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	printf("unix: got '%s'\n", buf);
	close(c);
	close(s);
	close(lfd);
	unlink(u.sun_path);
	/* A missing AF_UNIX path: the error is the application's. */
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(u.sun_path, sizeof(u.sun_path), "/tmp/netprobe.none.%d", (int)getpid());
	errno = 0;
	r = connect(c, (struct sockaddr *)&u, sizeof(u));
	printf("unix missing connect=%d errno=%d\n", r, errno);
	close(c);
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int retry(const char *host, int port, int n, int ms)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int attempts = 0, err = 0;
	if (resolve(host, port, &ss, &len) != 0)
		return fail("resolve");
	for (int i = 0; i < n; i++) {
		int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		attempts++;
		err = 0;
		if (connect(fd, (struct sockaddr *)&ss, len) != 0)
			err = errno;
		if (err == EINPROGRESS) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			poll(&p, 1, 1000);
			socklen_t el = sizeof(err);
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
		}
		close(fd);
		if (err == 0)
			break;
		sleep_ms(ms);
	}
	printf("attempts=%d last=%d\n", attempts, err);
	return 0;
}

static double now_ns(void);

/* Polls for secs, going on after EINTR like a real client (a dump signals
 * every thread). */
__attribute__((noinline)) static int wait_for_store(int fd, int secs)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	double end = now_ns() + secs * 1e9;
	int r;
	do {
		double left = (end - now_ns()) / 1e6;
		r = poll(&p, 1, left > 0 ? (int)left : 0);
	} while (r < 0 && errno == EINTR);
	return r;
}

static int pending(const char *host, int port, int secs)
{
	struct sockaddr_storage ss;
	socklen_t len;
	if (resolve(host, port, &ss, &len) != 0)
		return fail("resolve");
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	int r = connect(fd, (struct sockaddr *)&ss, len);
	printf("connect=%d errno=%d\n", r, errno);
	fflush(stdout);
	printf("poll=%d\n", wait_for_store(fd, secs));
	return 0;
}

static int pending_closed(const char *host, int port, int secs)
{
	struct sockaddr_storage ss;
	socklen_t len;
	if (resolve(host, port, &ss, &len) != 0)
		return fail("resolve");
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	int r = connect(fd, (struct sockaddr *)&ss, len);
	printf("connect=%d errno=%d close_range=%d\n", r, errno, close_range(3, ~0u, 0));
	fflush(stdout);
	printf("poll=%d\n", wait_for_store(-1, secs));
	return 0;
}

static int serve(int port, int n)
{
	int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 64) != 0)
		return fail("listen");
	printf("listening\n");
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			return fail("accept");
		close(c);
	}
	printf("accepted=%d\n", n);
	return 0;
}

static int fullq(int secs)
{
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 0) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &al) != 0)
		return fail("listen");
	/* Backlog 0 holds one connection: this one. The kernel drops the
	 * SYNs of the next ones while nobody accepts. */
	int c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&a, sizeof(a)) != 0)
		return fail("connect");
	printf("%d\n", ntohs(a.sin_port));
	sleep((unsigned)secs);
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median over 15 rounds of n calls of fn: ns per call. */
static double median_ns(int n, void (*fn)(int), int arg)
{
	double r[15];
	for (int k = 0; k < 15; k++) {
		double t0 = now_ns();
		for (int i = 0; i < n; i++)
			fn(arg);
		r[k] = (now_ns() - t0) / n;
	}
	qsort(r, 15, sizeof(r[0]), cmp_double);
	return r[7];
}

static struct sockaddr_in bench_closed;

static void bench_getsockopt(int fd)
{
	int v;
	socklen_t l = sizeof(v);
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &l);
}

static void bench_unix_connect(int fd)
{
	static const struct sockaddr_un u = { .sun_family = AF_UNIX, .sun_path = "/nonexistent/x" };
	connect(fd, (const struct sockaddr *)&u, sizeof(u));
}

static void bench_refused(int unused)
{
	(void)unused;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	connect(fd, (struct sockaddr *)&bench_closed, sizeof(bench_closed));
	close(fd);
}

static struct sockaddr_in bench_listener;

/* A connect the kernel answers at once (EISCONN): what is left is the
 * hook's own work on an IPv4 connect. */
static void bench_isconn(int fd)
{
	connect(fd, (struct sockaddr *)&bench_listener, sizeof(bench_listener));
}

static void bench_socket_close(int unused)
{
	(void)unused;
	close(socket(AF_INET, SOCK_STREAM, 0));
}

static int bench(int n, int port, bool all)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int ufd = socket(AF_UNIX, SOCK_STREAM, 0);
	bench_closed = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &bench_closed.sin_addr);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	socklen_t al = sizeof(bench_listener);
	bench_listener = (struct sockaddr_in){ .sin_family = AF_INET };
	inet_pton(AF_INET, "127.0.0.1", &bench_listener.sin_addr);
	bind(lfd, (struct sockaddr *)&bench_listener, sizeof(bench_listener));
	listen(lfd, 1);
	getsockname(lfd, (struct sockaddr *)&bench_listener, &al);
	int cfd = socket(AF_INET, SOCK_STREAM, 0);
	connect(cfd, (struct sockaddr *)&bench_listener, sizeof(bench_listener));
	printf("getsockopt_so_error_ns=%.1f\n", median_ns(n, bench_getsockopt, fd));
	printf("isconn_connect_ns=%.1f\n", median_ns(n, bench_isconn, cfd));
	fcntl(cfd, F_SETFL, O_NONBLOCK);
	printf("isconn_nonblocking_connect_ns=%.1f\n", median_ns(n, bench_isconn, cfd));
	printf("unix_connect_ns=%.1f\n", median_ns(n, bench_unix_connect, ufd));
	if (!all)
		return 0;
	printf("refused_connect_ns=%.1f\n", median_ns(n / 10, bench_refused, 0));
	printf("socket_close_ns=%.1f\n", median_ns(n / 10, bench_socket_close, 0));
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && strcmp(argv[1], "soerror") == 0)
		return soerror(atoi(argv[2]));
	if (argc >= 2 && strcmp(argv[1], "echo") == 0)
		return echo();
	if (argc >= 6 && strcmp(argv[1], "retry") == 0)
		return retry(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	if (argc >= 5 && strcmp(argv[1], "pending") == 0)
		return pending(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc >= 5 && strcmp(argv[1], "closed") == 0)
		return pending_closed(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc >= 4 && strcmp(argv[1], "serve") == 0)
		return serve(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 3 && strcmp(argv[1], "fullq") == 0)
		return fullq(atoi(argv[2]));
	if (argc >= 4 && strcmp(argv[1], "bench") == 0)
		return bench(atoi(argv[2]), atoi(argv[3]), argc > 4 && strcmp(argv[4], "all") == 0);
	fprintf(stderr, "usage: netprobe soerror PORT | echo | retry HOST PORT N MS | "
			"pending HOST PORT S | serve PORT N | fullq S | bench N PORT [all]\n");
	return 2;
}
