// SPDX-License-Identifier: MIT
/*
 * wire.c: sockets with deadlines for `hangtrace check`: a connect that
 * retries refusals until its deadline (a rank may start before rank 0
 * listens, as with the job's own store), a listener, and JSON lines.
 * Every wait is bounded: the check must end in time whatever the network.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "netfacts.h"
#include "wire.h"

static int ms_left(double deadline)
{
	double left = deadline - ht_chk_mono();
	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* One non-blocking attempt, up to deadline: 0 and *fd, or -errno. */
static int attempt(const struct addrinfo *ai, double deadline, int *fd)
{
	int s = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (connect(s, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
		int e = errno;
		close(s);
		return -e;
	}
	struct pollfd p = { .fd = s, .events = POLLOUT };
	int r = poll(&p, 1, ms_left(deadline));
	if (r <= 0) {
		close(s);
		return -ETIMEDOUT;
	}
	int err = 0;
	socklen_t len = sizeof(err);
	getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err != 0) {
		close(s);
		return -err;
	}
	fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
	*fd = s;
	return 0;
}

int ht_chk_connect(const char *host, int port, double secs, bool retry, char *dest, size_t cap)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	char ports[16];
	double deadline = ht_chk_mono() + secs;
	int rc = -ETIMEDOUT;

	snprintf(ports, sizeof(ports), "%d", port);
	snprintf(dest, cap, "%s:%d", host, port);
	for (;;) {
		int g = getaddrinfo(host, ports, &hints, &res);
		if (g != 0) {
			rc = -EHOSTUNREACH;
		} else {
			for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
				struct ht_addr a;
				if (ht_addr_from_sa(&a, ai->ai_addr, ai->ai_addrlen))
					ht_addr_fmt(dest, cap, &a, true);
				int fd = -1;
				rc = attempt(ai, deadline, &fd);
				if (rc == 0) {
					freeaddrinfo(res);
					return fd;
				}
			}
			freeaddrinfo(res);
			res = NULL;
		}
		if (!retry || ms_left(deadline) <= 50)
			return rc;
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

static int listen_one(const char *addr, int family, int port, int *bound);

int ht_chk_listen(const char *addr, int port, int *bound)
{
	/* Every address: [::] takes IPv4 too; 0.0.0.0 where IPv6 is off. */
	int fd = listen_one(addr, addr == NULL ? AF_INET6 : AF_UNSPEC, port, bound);
	if (fd < 0 && addr == NULL && fd != -EADDRINUSE)
		fd = listen_one(NULL, AF_INET, port, bound);
	return fd;
}

static int listen_one(const char *addr, int family, int port, int *bound)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICHOST };
	struct addrinfo *res = NULL;
	char ports[16];
	int one = 1, rc = -EADDRNOTAVAIL;

	snprintf(ports, sizeof(ports), "%d", port);
	hints.ai_family = family;
	if (getaddrinfo(addr, ports, &hints, &res) != 0)
		return -EADDRNOTAVAIL;
	for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
		int s = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0) {
			rc = -errno;
			continue;
		}
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(s, ai->ai_addr, ai->ai_addrlen) != 0 || listen(s, 4096) != 0) {
			rc = -errno;
			close(s);
			continue;
		}
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		struct ht_addr a;
		if (getsockname(s, (struct sockaddr *)&ss, &len) == 0 &&
		    ht_addr_from_sa(&a, &ss, len))
			*bound = a.port;
		freeaddrinfo(res);
		return s;
	}
	freeaddrinfo(res);
	return rc;
}

int ht_chk_send(int fd, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (s == NULL)
		return -ENOMEM;
	size_t n = strlen(s);
	s[n] = '\n';
	size_t off = 0;
	int rc = 0;
	while (off < n + 1) {
		ssize_t w = send(fd, s + off, n + 1 - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = -errno;
			break;
		}
		off += (size_t)w;
	}
	free(s);
	return rc;
}

static json_t *line_of(struct chk_conn *c)
{
	char *nl = memchr(c->buf, '\n', c->n);
	if (nl == NULL)
		return NULL;
	size_t len = (size_t)(nl - c->buf);
	json_t *o = json_loadb(c->buf, len, 0, NULL);
	memmove(c->buf, nl + 1, c->n - len - 1);
	c->n -= len + 1;
	if (o != NULL && !json_is_object(o)) {
		json_decref(o);
		o = NULL;
	}
	return o != NULL ? o : json_object();
}

json_t *ht_chk_take(struct chk_conn *c)
{
	json_t *o = line_of(c);
	if (o != NULL || c->closed)
		return o;
	if (c->n == sizeof(c->buf)) {
		c->closed = true;	/* a line longer than we take: a stranger */
		return NULL;
	}
	ssize_t r = recv(c->fd, c->buf + c->n, sizeof(c->buf) - c->n, MSG_DONTWAIT);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
		c->closed = true;
	if (r > 0)
		c->n += (size_t)r;
	return line_of(c);
}

json_t *ht_chk_recv(struct chk_conn *c, double secs)
{
	double deadline = ht_chk_mono() + secs;
	for (;;) {
		json_t *o = ht_chk_take(c);
		if (o != NULL || c->closed)
			return o;
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int ms = ms_left(deadline);
		if (ms <= 0 || poll(&p, 1, ms) == 0)
			return NULL;
	}
}
