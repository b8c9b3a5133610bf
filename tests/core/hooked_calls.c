// SPDX-License-Identifier: MIT
/*
 * hooked_calls: a rank whose blocking hooked calls are connects to a
 * loopback listener of its own (no thread, no other process: it runs at a
 * thread limit). Like PyTorch 1.13's TCPStore, it takes an EINTR from its
 * poll as fatal (exit 4), so a signal outside a hooked call ends it.
 *
 *   hooked_calls block      fills the listener's accept queue (backlog 0),
 *                           then blocks in connect_to_peer: a connect whose
 *                           SYN the kernel drops while the queue is full
 *                           (net.ipv4.tcp_abort_on_overflow 0, the
 *                           default); exit 3 if the connect fails
 *   hooked_calls loop SECS [PAUSE_MS]
 *                           connects, accepts, closes and sleeps 20 ms in
 *                           poll, for SECS seconds, then prints "done";
 *                           after the first connect it sleeps PAUSE_MS in
 *                           poll (longer than the deadline: a signal of
 *                           a timer left armed would end it there)
 *   hooked_calls lift       raises its RLIMIT_NPROC soft limit to the hard
 *                           one, starts a thread that calls close(-1) (a
 *                           hook that retries the watchdog) after 1.3 s,
 *                           and blocks as "block" does
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in addr;

static int listener(int backlog)
{
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr.sin_port = 0;
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
	    listen(fd, backlog) != 0 || getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
		perror("listener");
		exit(2);
	}
	return fd;
}

static int dial(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		printf("connect failed: %s\n", strerror(errno));
		exit(3);
	}
	return fd;
}

__attribute__((noinline)) int connect_to_peer(void)
{
	return dial();
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *lifter(void *arg)
{
	(void)arg;
	poll(NULL, 0, 1300);
	close(-1);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc >= 2 && strcmp(argv[1], "lift") == 0) {
		struct rlimit r;
		pthread_t t;
		if (getrlimit(RLIMIT_NPROC, &r) == 0) {
			r.rlim_cur = r.rlim_max;
			setrlimit(RLIMIT_NPROC, &r);
		}
		if (pthread_create(&t, NULL, lifter, NULL) != 0) {
			printf("pthread_create failed\n");
			return 2;
		}
		argv[1] = "block";
	}
	if (argc >= 2 && strcmp(argv[1], "block") == 0) {
		listener(0);
		dial();	/* the one the accept queue holds */
		printf("waiting\n");
		connect_to_peer();
		printf("connected\n");
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "loop") == 0) {
		int lfd = listener(16);
		double end = now() + atof(argv[2]);
		int pause_ms = argc >= 4 ? atoi(argv[3]) : 0;
		while (now() < end) {
			int c = dial();
			int a = accept(lfd, NULL, NULL);
			close(c);
			if (a >= 0)
				close(a);
			if (poll(NULL, 0, pause_ms > 0 ? pause_ms : 20) < 0) {
				printf("poll: %s\n", strerror(errno));
				return 4;
			}
			pause_ms = 0;
		}
		printf("done\n");
		return 0;
	}
	fprintf(stderr, "usage: hooked_calls block | loop SECS\n");
	return 2;
}
