// SPDX-License-Identifier: MIT
/*
 * libncclext.so: stands in for a Python extension module (torch's
 * libtorch_cuda.so, a pybind11 module): it links libnccl normally and is
 * itself loaded RTLD_LOCAL by nccl_pyway, so dlsym(RTLD_NEXT, "ncclX")
 * from a preload finds nothing.
 */
#include "nccl/nccl_test.h"

int ext_run(void);

static char buf[4096];

int ext_run(void)
{
	ncclUniqueId id;
	ncclComm_t comm;

	t_identity();
	if (t_get_id(&id, ncclGetUniqueId) != 0)
		return 2;
	if (ncclCommInitRank(&comm, t_world, id, t_rank) != ncclSuccess)
		return 3;
	t_say("INIT_DONE");
	for (int i = 0; i < t_env_int("ITERS", 3); i++)
		if (ncclReduceScatter(buf, buf, 16, ncclInt32, ncclAvg, comm, NULL) != ncclSuccess)
			return 3;
	if (ncclCommDestroy(comm) != ncclSuccess)
		return 3;
	t_say("DONE");
	return 0;
}
