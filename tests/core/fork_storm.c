// SPDX-License-Identifier: MIT
/*
 * fork_storm: N forks (default 1000) while 8 threads are inside hooked
 * calls: 4 block in waitpid on children of their own, 4 loop on sigaction
 * and close. Each forked child exits with i % 100 through _exit (hooked),
 * so each must still be able to write its trace (no lock held across fork).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_bool stop;

static void *waiter(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		pid_t p = fork();
		if (p == 0) {
			usleep(20000);
			_exit(0);
		}
		waitpid(p, NULL, 0);
	}
	return NULL;
}

static void *looper(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		struct sigaction sa;
		sigaction(SIGTERM, NULL, &sa);
		close(-1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, bad = 0;
	pthread_t t[8];
	for (int i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, i < 4 ? waiter : looper, NULL);
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(i % 100);
		int st;
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != i % 100)
			bad++;
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	printf("forks %d bad %d\n", n, bad);
	return bad != 0;
}
