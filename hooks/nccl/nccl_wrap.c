// SPDX-License-Identifier: MIT
/*
 * nccl_wrap.c: the exported wrappers of the NCCL hooks of shape WRAP
 * and TEARDOWN (nccl_wrap.h), generated from hooks_nccl.def: the prelude, then the
 * hook's body in nccl.c or nccl_init.c. The collectives are generated in
 * nccl_coll.c.
 */
#include "common.h"
#include "nccl_wrap.h"
#include "state.h"

#define HT_NW_OUT_WRAP(name, params, args) \
	HT_NW_WRAPPER(HT_EXPORT, name, params,  \
		      return ht__nccl_wrap_##name HT_NW_WITH(real, __builtin_return_address(0), args);)
#define HT_NW_OUT_TEARDOWN(name, params, args, removes) \
	HT_NW_WRAPPER(HT_EXPORT, name, params,             \
		      return ht__nccl_teardown(HT_HOOK_ID_##name, #name, real, comm, removes);)
#define HT_NW_OUT_COLL(...)
#define HT_HOOK_NCCL(ret, name, params, args) HT_NCCL_GEN(name, params, args, OUT)
#include "hooks_of.h"
