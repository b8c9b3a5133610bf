// SPDX-License-Identifier: MIT
/*
 * libtorch_cuda.so: stands in for a framework with NCCL linked in
 * statically (conda PyTorch): NCCL's functions are inside it with hidden
 * visibility, so no preload can see them. Built once as is and once with
 * -DEXPORT_NCCL (exported, as when the static NCCL keeps its default
 * visibility) into $(B)/tests/nccl/exported/.
 */
#ifdef EXPORT_NCCL
#define NCCL_VIS __attribute__((visibility("default")))
#else
#define NCCL_VIS __attribute__((visibility("hidden")))
#endif

NCCL_VIS int ncclCommInitRank(void **comm, int nranks, char id[128], int rank);
NCCL_VIS int ncclCommInitRank(void **comm, int nranks, char id[128], int rank)
{
	(void)id;
	*comm = (void *)0;
	return nranks > rank ? 0 : 4;
}

int framework_start(void);
int framework_start(void)
{
	void *comm;
	char id[128] = { 0 };
	return ncclCommInitRank(&comm, 1, id, 0);
}
