// SPDX-License-Identifier: MIT
/*
 * nccl_dlopen: a rank that reaches NCCL the way JAX/XLA and XGBoost do: it
 * never links libnccl, but dlopens it RTLD_LOCAL ($NCCL_LIB) and dlsyms each
 * function by name, "ncclX" or, with argv[1] = "pnccl", "pncclX". Only the
 * dlsym hook can observe it. init, ITERS allreduces, destroy.
 */
#include <dlfcn.h>

#include "nccl/nccl_test.h"

static char buf[4096];

static void *sym(void *h, const char *prefix, const char *fn)
{
	char name[64];
	snprintf(name, sizeof(name), "%s%s", prefix, fn);
	void *p = dlsym(h, name);
	if (p == NULL)
		t_say("dlsym %s: NULL", name);
	return p;
}

int main(int argc, char **argv)
{
	const char *prefix = argc > 1 ? argv[1] : "nccl";
	const char *lib = getenv("NCCL_LIB");
	void *h = dlopen(lib != NULL ? lib : "libnccl.so.2", RTLD_NOW | RTLD_LOCAL);

	t_identity();
	if (h == NULL) {
		t_say("dlopen: %s", dlerror());
		return 2;
	}
	typedef ncclResult_t (*get_id_fn)(ncclUniqueId *);
	typedef ncclResult_t (*init_fn)(ncclComm_t *, int, ncclUniqueId, int);
	typedef ncclResult_t (*allreduce_fn)(const void *, void *, size_t, ncclDataType_t,
					     ncclRedOp_t, ncclComm_t, cudaStream_t);
	typedef ncclResult_t (*destroy_fn)(ncclComm_t);
	get_id_fn get_id_ = (get_id_fn)sym(h, prefix, "GetUniqueId");
	init_fn init_ = (init_fn)sym(h, prefix, "CommInitRank");
	allreduce_fn allreduce_ = (allreduce_fn)sym(h, prefix, "AllReduce");
	destroy_fn destroy_ = (destroy_fn)sym(h, prefix, "CommDestroy");
	if (!get_id_ || !init_ || !allreduce_ || !destroy_)
		return 2;

	ncclUniqueId id;
	ncclComm_t comm;
	if (t_get_id(&id, get_id_) != 0)
		return 2;
	if (init_(&comm, t_world, id, t_rank) != ncclSuccess)
		return 3;
	t_say("INIT_DONE");
	for (int i = 0; i < t_env_int("ITERS", 3); i++)
		if (allreduce_(buf, buf, 32, ncclUint64, ncclMin, comm, NULL) != ncclSuccess)
			return 3;
	if (destroy_(comm) != ncclSuccess)
		return 3;
	t_say("DONE");
	return 0;
}
