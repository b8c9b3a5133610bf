// SPDX-License-Identifier: MIT
/*
 * mpi_loop.c MODE SECONDS [RANK]: one rank of a C-only MPI job (Open MPI,
 * built with mpicc's flags by frameworks.mk; no Python, so the library has
 * no Python frames to look at, only the native stack).
 *
 *   compute  a matrix-multiply + MPI_Allreduce training loop for SECONDS
 *   tight    an MPI_Allreduce-only loop for SECONDS (like osu_allreduce:
 *            the main thread is inside MPI_Allreduce almost all the time)
 *   late     rank RANK spins in its own code (late_work) for SECONDS
 *            before MPI_Barrier; the others wait in MPI_Barrier (Open MPI
 *            spins there)
 *
 * Every mode ends in MPI_Barrier and prints "rank R done True". The loops
 * stop together: each step all-reduces "still in time" with MPI_LAND, so
 * every rank runs the same collectives. Built without mpi.h it prints a
 * SKIP line and exits 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HT_HAVE_MPI
#include <mpi.h>

#define N 96

static double a[N][N], b[N][N], c[N][N];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A few milliseconds of the rank's own work. */
static double compute(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;
			for (int k = 0; k < N; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s / N;
		}
	memcpy(a, c, sizeof(a));
	return c[1][1];
}

static __attribute__((noinline)) double late_work(double secs)
{
	double end = now() + secs, x = 0;
	while (now() < end)
		x += compute();
	return x;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: mpi_loop compute|tight|late SECONDS [RANK]\n");
		return 2;
	}
	const char *mode = argv[1];
	double secs = atof(argv[2]);
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			a[i][j] = (double)((i * 7 + j * 3) % 11) / 11.0;
			b[i][j] = (double)((i + 2 * j) % 5) / 5.0;
		}
	double buf[64], out[64];
	for (int i = 0; i < 64; i++)
		buf[i] = rank + i;
	long steps = 0;
	double end = now() + secs;
	if (strcmp(mode, "compute") == 0 || strcmp(mode, "tight") == 0) {
		int go = 1;
		while (go) {
			if (mode[0] == 'c')
				for (int k = 0; k < 4; k++)
					compute();
			MPI_Allreduce(buf, out, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			steps++;
			int mine = now() < end;
			MPI_Allreduce(&mine, &go, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
		}
	} else if (strcmp(mode, "late") == 0) {
		int late = argc > 3 ? atoi(argv[3]) : size - 1;
		if (rank == late)
			late_work(secs);
		else
			printf("rank %d in barrier\n", rank);
		fflush(stdout);
		steps = 1;
	} else {
		fprintf(stderr, "mpi_loop: unknown mode %s\n", mode);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d ran %ld steps\nrank %d done %s\n", rank, steps, rank,
	       steps > 0 ? "True" : "False");
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
#else
int main(void)
{
	printf("SKIP: built without mpi.h (mpicc --showme found nothing)\n");
	return 77;
}
#endif
