// SPDX-License-Identifier: MIT
/*
 * churn: a main thread stuck in wait_for_peer while other threads churn:
 *   threads   creates and joins short-lived threads (200 per second)
 *   dlopen    loops on dlopen/dlclose of a library (the loader lock)
 *   puts      prints one line with puts (for the interposer tests)
 *   malloc    allocates and frees in a loop
 *   churn MODE SECONDS [LIBRARY]
 */
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_bool stop;
static const char *lib = "libm.so.6";
static atomic_long created, loads;

static void *short_lived(void *arg)
{
	return arg;
}

static void *thread_churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_lived, NULL) == 0) {
			pthread_join(t, NULL);
			atomic_fetch_add(&created, 1);
		}
		poll(NULL, 0, 5);
	}
	return NULL;
}

static void *dlopen_churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		if (h != NULL)
			dlclose(h);
		atomic_fetch_add(&loads, 1);
	}
	return NULL;
}

static void *malloc_churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		void *p = malloc(100 + (size_t)(rand() % 10000));
		free(p);
	}
	return NULL;
}

__attribute__((noinline)) void wait_for_peer(int secs)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		poll(NULL, 0, 100);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (b.tv_sec - a.tv_sec < secs);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "threads";
	int secs = argc > 2 ? atoi(argv[2]) : 3;
	pthread_t t;
	if (argc > 3)
		lib = argv[3];
	if (strcmp(mode, "puts") == 0) {
		puts("hello once");
		return 0;
	}
	void *(*fn)(void *) = strcmp(mode, "dlopen") == 0 ? dlopen_churn :
			      strcmp(mode, "malloc") == 0 ? malloc_churn : thread_churn;
	pthread_create(&t, NULL, fn, NULL);
	wait_for_peer(secs);
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	printf("done threads=%ld loads=%ld\n", atomic_load(&created) > 0 ? 1L : 0L,
	       atomic_load(&loads) > 0 ? 1L : 0L);
	return 0;
}
