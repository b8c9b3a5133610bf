// SPDX-License-Identifier: MIT
/*
 * late_answer: a thread named "vforker" blocks in vfork() for 3 s (the
 * kernel holds a vfork parent uninterruptibly until the child exits), so a
 * signal sent to it is delivered late; then it waits in after_vfork. The
 * main thread waits 5 s in total.
 */
#include <poll.h>
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

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, vforker, NULL);
	/* poll returns early with EINTR when a dump signals this thread. */
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		poll(NULL, 0, 100);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < 5500);
	return 0;
}
