// SPDX-License-Identifier: MIT
/*
 * late_answer: a thread named "vforker" blocks in vfork() for 3 s (the
 * kernel holds a vfork parent uninterruptibly until the child exits), so a
 * signal sent to it is delivered late; then it waits in after_vfork. The
 * main thread waits 5.5 s in total, or the milliseconds of its argument,
 * and returns.
 */
#include <poll.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) void after_vfork(void)
{
	for (;;)
		poll(NULL, 0, 100);
}

static void *vforker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "vforker", 0, 0, 0);
	if (vfork() == 0) {
		/* Only raw system calls in a vfork child. */
		struct timespec ts = { 3, 0 };
		syscall(SYS_nanosleep, &ts, NULL);
		syscall(SYS_exit, 0);
	}
	after_vfork();
	return NULL;
}

int main(int argc, char **argv)
{
	long total = argc > 1 ? atol(argv[1]) : 5500;
	pthread_t t;
	pthread_create(&t, NULL, vforker, NULL);
	/* poll returns early with EINTR when a dump signals this thread. */
	struct timespec start, now;
	long ms = 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		poll(NULL, 0, (int)(total - ms < 100 ? total - ms : 100));
		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
	} while (ms < total);
	return 0;
}
