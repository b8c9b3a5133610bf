// SPDX-License-Identifier: MIT
/*
 * framework: loads a framework library (argv[1]) RTLD_LOCAL, calls its
 * framework_start(), then waits argv[2] seconds in wait_in_framework():
 * a rank that stalls with NCCL inside the framework.
 */
#include <dlfcn.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void wait_in_framework(int secs);
__attribute__((noinline)) void wait_in_framework(int secs)
{
	for (int i = 0; i < secs * 10; i++)
		poll(NULL, 0, 100);
}

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "libtorch_cuda.so", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "framework: %s\n", dlerror());
		return 2;
	}
	int (*start)(void) = (int (*)(void))dlsym(h, "framework_start");
	int rc = start != NULL ? start() : 2;
	wait_in_framework(argc > 2 ? atoi(argv[2]) : 3);
	return rc;
}
