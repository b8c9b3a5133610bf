// SPDX-License-Identifier: MIT
/*
 * event_storm: writes trace events as fast as it can from 4 threads: each
 * forks in a loop (a fork event in the parent; a header, launch and exit in
 * each child's own file). Runs until killed, or N forks per thread.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int per_thread = 1 << 30;

static void *forker(void *arg)
{
	(void)arg;
	for (int i = 0; i < per_thread; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(i & 0x7f);
		if (p > 0)
			waitpid(p, NULL, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	if (argc > 1)
		per_thread = atoi(argv[1]);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, forker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
