// SPDX-License-Identifier: MIT
/*
 * wait_for_peer: a rank that blocks in a function named wait_for_peer for
 * the number of seconds given (default 10), optionally with N extra threads
 * of which one blocks every signal (SPEC section 6: the dump must still
 * complete and report that thread from /proc).
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int secs = 10;

__attribute__((noinline)) void wait_for_peer(void)
{
	/* A real blocking syscall, restarted by nothing: sleep loop. */
	for (int i = 0; i < secs * 10; i++)
		poll(NULL, 0, 100);
}

__attribute__((noinline)) static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

__attribute__((noinline)) static void *masked_thread(void *arg)
{
	sigset_t all;
	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	for (;;)
		sleep(100);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 0;
	if (argc > 1)
		secs = atoi(argv[1]);
	for (int i = 0; i < threads; i++) {
		pthread_t t;
		pthread_create(&t, NULL, i == 0 ? masked_thread : idle_thread, NULL);
	}
	printf("waiting %d s\n", secs);
	fflush(stdout);
	wait_for_peer();
	printf("done\n");
	return 0;
}
