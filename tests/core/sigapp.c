// SPDX-License-Identifier: MIT
/*
 * sigapp: a program that owns signals itself, to check the library keeps
 * the application's handlers working (SPEC section 6). Modes:
 *   term      installs a SIGTERM handler, checks a query returns it, waits;
 *             on SIGTERM prints "app handler" and exits 3
 *   segv      installs a SIGSEGV handler that recovers, faults once, exits 0
 *   crash     faults with the default action (dies by SIGSEGV)
 *   rt N      installs a handler for SIGRTMIN+N, waits; prints "rt handler"
 *             on it and exits 4
 *   signalfn  like term, with signal(2)
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static sigjmp_buf back;

static void on_term(int sig)
{
	(void)sig;
	static const char msg[] = "app handler\n";
	write(1, msg, sizeof(msg) - 1);
	_exit(3);
}

static void on_rt(int sig)
{
	(void)sig;
	static const char msg[] = "rt handler\n";
	write(1, msg, sizeof(msg) - 1);
	_exit(4);
}

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(back, 1);
}

__attribute__((noinline)) void wait_for_signal(void)
{
	for (int i = 0; i < 300; i++)
		usleep(100000);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "term";
	struct sigaction sa, q;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);

	if (strcmp(mode, "term") == 0 || strcmp(mode, "signalfn") == 0) {
		if (strcmp(mode, "term") == 0) {
			sa.sa_handler = on_term;
			sigaction(SIGTERM, &sa, NULL);
		} else {
			signal(SIGTERM, on_term);
		}
		sigaction(SIGTERM, NULL, &q);
		printf("query %s\n", q.sa_handler == on_term ? "app" : "other");
		fflush(stdout);
		wait_for_signal();
		return 0;
	}
	if (strcmp(mode, "segv") == 0) {
		sa.sa_handler = on_segv;
		sigaction(SIGSEGV, &sa, NULL);
		if (sigsetjmp(back, 1) == 0)
			*(volatile int *)16 = 1;
		printf("recovered\n");
		return 0;
	}
	if (strcmp(mode, "crash") == 0) {
		*(volatile int *)16 = 1;
		return 0;
	}
	if (strcmp(mode, "rt") == 0) {
		int sig = SIGRTMIN + atoi(argv[2]);
		sa.sa_handler = on_rt;
		sigaction(sig, &sa, NULL);
		printf("ready\n");
		fflush(stdout);
		wait_for_signal();
		return 0;
	}
	return 2;
}
