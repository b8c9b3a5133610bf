// SPDX-License-Identifier: MIT
/*
 * proto_check_nccl.c: compile-time proof that the NCCL prototypes of
 * hooks_nccl.def, and the types of hook_types.h and nccl_config.h, match the
 * real nccl.h. Compiled only where nccl.h (and the cuda_runtime.h it needs)
 * exists; it produces no code. Each hook is declared again with nccl.h's
 * types (a conflicting declaration is an error) and checked by a static
 * assertion; a function the header lacks (an older NCCL) is simply not
 * compared. The Makefile builds it only where nccl.h and cuda_runtime.h are
 * installed, with both HT_HAVE_ flags: without them it is an error, never
 * a silent pass. Also run by hand against nccl.h of 2.14.3, 2.16.5, 2.18.1,
 * 2.19.3, 2.21.5, 2.23.4, 2.26.2, 2.27.3, 2.28.9, 2.29.7 and 2.30.4 (made
 * from NVIDIA/nccl src/nccl.h.in at each tag): all pass.
 */
#if !defined(HT_HAVE_NCCL_H) || !defined(HT_HAVE_CUDA_H)
#error "proto_check_nccl.c needs nccl.h and cuda.h (HT_HAVE_NCCL_H, HT_HAVE_CUDA_H)"
#endif

#include <stddef.h>

#include <proto_nccl_h.h>	/* angle: include_next then starts after -Ihooks */

/* Our names for nccl.h's types, as the real ones. */
#define ht_nccl_result_t ncclResult_t
#define ht_nccl_dtype_t ncclDataType_t
#define ht_nccl_redop_t ncclRedOp_t
#define ht_nccl_comm_t ncclComm_t
#define ht_nccl_config_t ncclConfig_t
#define ht_nccl_stream_t cudaStream_t
#define ht_nccl_uid_t ncclUniqueId

#define HT_HOOK(fam, ret, name, params, args)                                   \
	ret name params;                                                         \
	_Static_assert(__builtin_types_compatible_p(__typeof__(name), ret params), \
		       "hooks_nccl.def: " #name " does not match nccl.h");
#include "hooks_nccl.def"
#undef HT_HOOK

/* Our stand-ins have the ABI of the real types. */
_Static_assert(sizeof(ncclResult_t) == sizeof(int), "ncclResult_t is not int-sized");
_Static_assert(sizeof(ncclDataType_t) == sizeof(int), "ncclDataType_t is not int-sized");
_Static_assert(sizeof(ncclRedOp_t) == sizeof(int), "ncclRedOp_t is not int-sized");
_Static_assert(sizeof(ncclUniqueId) == 128 && NCCL_UNIQUE_ID_BYTES == 128, "ncclUniqueId size");
_Static_assert(sizeof(ncclComm_t) == sizeof(void *), "ncclComm_t is not a pointer");
_Static_assert(sizeof(cudaStream_t) == sizeof(void *), "cudaStream_t is not a pointer");
_Static_assert(ncclInProgress == 7 && ncclSuccess == 0 && ncclInternalError == 3,
	       "ncclResult_t values");
#ifdef NCCL_CONFIG_UNDEF_INT	/* 2.17 and later */
_Static_assert(NCCL_CONFIG_UNDEF_INT == (-2147483647 - 1), "NCCL_CONFIG_UNDEF_INT");
#endif
_Static_assert(ncclNumOps == 5, "ncclRedOp_t built-ins (HT_NCCL_REDOP_CUSTOM)");

/* The prefix of ncclConfig_t that hooks/nccl/nccl.h declares. */
#include "nccl_config.h"
#define SAME_FIELD(f)                                                                    \
	_Static_assert(offsetof(ncclConfig_t, f) == offsetof(struct ht_nccl_config, f) && \
			       sizeof(((ncclConfig_t *)0)->f) ==                          \
				       sizeof(((struct ht_nccl_config *)0)->f),           \
		       "ncclConfig_t." #f);
SAME_FIELD(size)
SAME_FIELD(magic)
SAME_FIELD(version)
SAME_FIELD(blocking)
#if NCCL_VERSION_CODE >= 21700
SAME_FIELD(netName)
#endif
#if NCCL_VERSION_CODE >= 22700
SAME_FIELD(commName)
SAME_FIELD(nvlsCTAs)
#endif
