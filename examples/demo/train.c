// SPDX-License-Identifier: MIT
/*
 * train: one rank of the demo job. Like a real training script's start it
 * initialises CUDA, binds the GPU of its local rank, gets (rank 0) or reads
 * the NCCL unique id from a shared file, creates the communicator and runs a
 * first allreduce. Built against the fake driver and fake NCCL of tests/,
 * so it runs here without a GPU, with a real TCP bootstrap: if a rank never
 * starts, the others wait in ncclCommInitRank forever, as with real NCCL.
 *
 *   RANK=r WORLD_SIZE=n LOCAL_RANK=l train ID_FILE
 */
#include <cuda.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v != NULL ? atoi(v) : dflt;
}

static void get_id(int rank, const char *path, ncclUniqueId *id)
{
	if (rank == 0) {
		char tmp[4096];
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		ncclGetUniqueId(id);
		FILE *f = fopen(tmp, "wb");
		fwrite(id, sizeof(*id), 1, f);
		fclose(f);
		rename(tmp, path);
		return;
	}
	for (;;) {
		FILE *f = fopen(path, "rb");
		if (f != NULL && fread(id, sizeof(*id), 1, f) == 1) {
			fclose(f);
			return;
		}
		if (f != NULL)
			fclose(f);
		usleep(50000);
	}
}

int main(int argc, char **argv)
{
	int rank = env_int("RANK", 0), world = env_int("WORLD_SIZE", 1);
	int local = env_int("LOCAL_RANK", rank);
	CUdevice dev;
	CUcontext ctx;
	ncclUniqueId id;
	ncclComm_t comm;

	if (argc < 2) {
		fprintf(stderr, "usage: RANK=r WORLD_SIZE=n train ID_FILE\n");
		return 2;
	}
	if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, local) != CUDA_SUCCESS ||
	    cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
		fprintf(stderr, "rank %d: CUDA initialisation failed\n", rank);
		return 1;
	}
	get_id(rank, argv[1], &id);
	printf("rank %d of %d: GPU %d, joining the communicator\n", rank, world, local);
	fflush(stdout);
	if (ncclCommInitRank(&comm, world, id, rank) != ncclSuccess) {
		fprintf(stderr, "rank %d: ncclCommInitRank: %s\n", rank, ncclGetLastError(NULL));
		return 1;
	}
	float x = 1;
	ncclAllReduce(&x, &x, 1, ncclFloat32, ncclSum, comm, NULL);
	cuCtxSynchronize();
	printf("rank %d: first allreduce done\n", rank);
	ncclCommDestroy(comm);
	return 0;
}
