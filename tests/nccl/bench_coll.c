// SPDX-License-Identifier: MIT
/*
 * bench_coll: the cost of one ncclAllReduce call on libncclstub (which
 * returns at once): BATCHES batches of 10000 calls, the median batch, in
 * ns per call, on stdout. Run with and without the library preloaded; the
 * difference is what the library adds (SPEC section 9: <= 25 ns).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int ncclCommInitRank(void **comm, int nranks, char id[128], int rank);
int ncclAllReduce(const void *s, void *r, size_t n, int dt, int op, void *comm, void *st);

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int batches = argc > 1 ? atoi(argv[1]) : 200;
	double *per = calloc((size_t)batches, sizeof(double));
	char id[128] = { 0 }, buf[64];
	void *comm;

	if (per == NULL || ncclCommInitRank(&comm, 1, id, 0) != 0)
		return 2;
	for (int b = 0; b < batches; b++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < 10000; i++)
			ncclAllReduce(buf, buf, 16, 7, 0, comm, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		per[b] = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 10000.0;
	}
	qsort(per, (size_t)batches, sizeof(double), cmp);
	printf("%.2f\n", per[batches / 2]);
	return 0;
}
