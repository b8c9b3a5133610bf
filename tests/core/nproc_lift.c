// SPDX-License-Identifier: MIT
/*
 * nproc_lift: started at a thread limit (RLIMIT_NPROC soft limit reached),
 * it waits 1.5 s, raises its soft limit to the hard one (allowed without
 * privilege), calls close(-1) (a hook that retries the watchdog), then
 * blocks in wait_for_peer for the seconds given (default 5).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

__attribute__((noinline)) void wait_for_peer(int secs)
{
	for (int i = 0; i < secs * 10; i++)
		poll(NULL, 0, 100);
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 5;
	struct rlimit r;
	poll(NULL, 0, 1500);
	if (getrlimit(RLIMIT_NPROC, &r) == 0) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NPROC, &r);
	}
	close(-1);
	printf("waiting %d s\n", secs);
	fflush(stdout);
	wait_for_peer(secs);
	return 0;
}
