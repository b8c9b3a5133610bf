// SPDX-License-Identifier: MIT
/*
 * hooks_bench: the per-call cost of hooked calls, bare or preloaded, and
 * the heap allocations they make once warm (SPEC section 9: none).
 *   hooks_bench sync LIBCUDA N    cuStreamSynchronize as the CUDA runtime
 *                                 gets it: dlopen libcuda, cuGetProcAddress_v2,
 *                                 the self-lookup at 12000, then the lookup
 *   hooks_bench getsockopt N      getsockopt(SO_RCVBUF) on an unrelated socket
 *   hooks_bench connect N         a blocking connect to a closed loopback port
 *   hooks_bench close N           close(-1)
 * Prints "ns_per_call mallocs": the median of 20 batches of N calls, and
 * the allocations counted (by a preloaded counter exporting
 * ht_test_malloc_count) over all batches after a warm-up.
 */
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef int (*gpa_fn)(const char *, void **, int, unsigned long long, int *);
typedef int (*sync_fn)(void *);

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static sync_fn sync_call;
static int sock_fd, port;

static void one(const char *what)
{
	if (what[0] == 's' && what[1] == 'y') {
		sync_call(NULL);
	} else if (what[0] == 'g') {
		int v;
		socklen_t l = sizeof(v);
		getsockopt(sock_fd, SOL_SOCKET, SO_RCVBUF, &v, &l);
	} else if (what[0] == 'c' && what[1] == 'o') {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
					 .sin_addr.s_addr = htonl(0x7f000001) };
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		connect(fd, (struct sockaddr *)&a, sizeof(a));
		close(fd);
	} else {
		close(-1);
	}
}

static int setup_sync(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	gpa_fn gpa = h != NULL ? (gpa_fn)dlsym(h, "cuGetProcAddress_v2") : NULL;
	void *p;
	int st;
	if (gpa == NULL || gpa("cuGetProcAddress", &p, 12000, 0, &st) != 0)
		return -1;
	gpa = (gpa_fn)p;
	int (*init)(unsigned), (*get)(int *, int), (*retain)(void **, int), (*set)(void *);
	gpa("cuInit", (void **)&init, 2000, 0, &st);
	gpa("cuDeviceGet", (void **)&get, 2000, 0, &st);
	gpa("cuDevicePrimaryCtxRetain", (void **)&retain, 7000, 0, &st);
	gpa("cuCtxSetCurrent", (void **)&set, 4000, 0, &st);
	gpa("cuStreamSynchronize", (void **)&sync_call, 2000, 0, &st);
	int dev;
	void *ctx;
	if (!init || !get || !retain || !set || !sync_call || init(0) || get(&dev, 0) ||
	    retain(&ctx, dev) || set(ctx))
		return -1;
	return sync_call(NULL) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: hooks_bench sync LIBCUDA N | getsockopt|connect|close N\n");
		return 2;
	}
	const char *what = argv[1];
	int n = atoi(argv[argc - 1]);
	if (strcmp(what, "sync") == 0 && setup_sync(argv[2]) != 0) {
		fprintf(stderr, "hooks_bench: cannot set up the driver %s\n", argv[2]);
		return 1;
	}
	sock_fd = socket(AF_INET, SOCK_STREAM, 0);
	{	/* A loopback port nobody listens on: bind, then close. */
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
		socklen_t l = sizeof(a);
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		bind(fd, (struct sockaddr *)&a, sizeof(a));
		getsockname(fd, (struct sockaddr *)&a, &l);
		port = ntohs(a.sin_port);
		close(fd);
	}
	long (*count)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "ht_test_malloc_count");
	for (int i = 0; i < n; i++)	/* warm up: first calls may allocate */
		one(what);
	long before = count != NULL ? count() : -1;
	double per[20];
	for (int b = 0; b < 20; b++) {
		double t0 = now_ns();
		for (int i = 0; i < n; i++)
			one(what);
		per[b] = (now_ns() - t0) / n;
	}
	long after = count != NULL ? count() : -1;
	qsort(per, 20, sizeof(per[0]), cmp);
	printf("%.2f %ld\n", per[10], count != NULL ? after - before : -1);
	return 0;
}
