// SPDX-License-Identifier: MIT
/*
 * mpi_bench.c OP N: N calls of one MPI operation on MPI_COMM_SELF (no
 * peer: the cheapest a real MPI call gets, so the wrapper's share shows),
 * timed after a warm-up; prints ns per call (rank 0). OP: allreduce (one
 * int, MPI_SUM), barrier; world: the same MPI_Allreduce on MPI_COMM_WORLD
 * (two ranks under mpirun: a real collective through shared memory).
 * Built with mpicc's flags by bench/mpi.sh.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	MPI_Init(&argc, &argv);
	int world = strcmp(argv[1], "world") == 0;
	int allreduce = world || strcmp(argv[1], "allreduce") == 0;
	MPI_Comm comm = world ? MPI_COMM_WORLD : MPI_COMM_SELF;
	int rank, size = 1;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	long n = atol(argv[2]);
	int in = 1, out = 0;
	for (long i = 0; i < n / 10; i++)
		allreduce ? MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm)
			  : MPI_Barrier(comm);
	double t0 = now();
	for (long i = 0; i < n; i++)
		allreduce ? MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm)
			  : MPI_Barrier(comm);
	double t1 = now();
	if (rank == 0)
		printf("%.2f\n", (t1 - t0) / (double)n);
	MPI_Finalize();
	return allreduce && out != size;
}
