// SPDX-License-Identifier: MIT
/*
 * startup: the added start-up cost of the library in a process that is not
 * relevant (SPEC section 9: at most 0.3 ms). Runs CMD N times with and
 * without LD_PRELOAD=LIB, alternating so both see the same machine noise,
 * and prints the medians, the difference and the ratio.
 *
 *   startup LIB N CMD [ARGS...]
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double run(char **argv, char **envp)
{
	pid_t pid;
	int st;
	double t0 = now_us();
	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, envp) != 0) {
		perror("posix_spawnp");
		exit(2);
	}
	waitpid(pid, &st, 0);
	return now_us() - t0;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: startup LIB N CMD [ARGS...]\n");
		return 2;
	}
	int n = atoi(argv[2]);
	size_t ne = 0;
	while (environ[ne] != NULL)
		ne++;
	/* The same environment, without any LD_PRELOAD, and with ours. */
	char **bare = calloc(ne + 1, sizeof(*bare)), **pre = calloc(ne + 2, sizeof(*pre));
	size_t nb = 0;
	for (size_t i = 0; i < ne; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
			bare[nb++] = environ[i];
	char preload[4200];
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", argv[1]);
	for (size_t i = 0; i < nb; i++)
		pre[i] = bare[i];
	pre[nb] = preload;
	double *a = calloc((size_t)n, sizeof(*a)), *b = calloc((size_t)n, sizeof(*b));
	for (int i = 0; i < 20; i++) {	/* warm the page cache */
		run(argv + 3, bare);
		run(argv + 3, pre);
	}
	for (int i = 0; i < n; i++) {
		a[i] = run(argv + 3, bare);
		b[i] = run(argv + 3, pre);
	}
	qsort(a, (size_t)n, sizeof(*a), cmp);
	qsort(b, (size_t)n, sizeof(*b), cmp);
	double ma = a[n / 2], mb = b[n / 2];
	printf("%-28s bare %8.1f us  preloaded %8.1f us  added %6.1f us  ratio %.3f  (median of %d, budget 300 us)\n",
	       argv[3], ma, mb, mb - ma, mb / ma, n);
	return 0;
}
