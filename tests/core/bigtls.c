// SPDX-License-Identifier: MIT
/*
 * bigtls: a rank linked with libbigtls.so (1 MiB of static TLS) that blocks
 * in wait_for_peer for the seconds given (default 30), single-threaded.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

int bigtls_touch(int i);

__attribute__((noinline)) void wait_for_peer(int secs)
{
	for (int i = 0; i < secs * 10; i++)
		poll(NULL, 0, 100);
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 30;
	bigtls_touch(1);
	printf("waiting %d s\n", secs);
	fflush(stdout);
	wait_for_peer(secs);
	printf("done\n");
	return 0;
}
