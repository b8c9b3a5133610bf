// SPDX-License-Identifier: MIT
/*
 * proto_check_cuda.c: compile-time proof that our own declarations of the
 * driver API (hooks_cuda.def, hook_types.h, cuda_errors.def) match the
 * toolkit's cuda.h and cudaTypedefs.h. Built by the Makefile only where
 * cuda.h is installed, with only the toolkit's include folder on the path,
 * and never linked: a mismatch is a compile error, so make fails.
 * __CUDA_API_VERSION_INTERNAL makes cuda.h declare every versioned name
 * (cuCtxCreate, cuStreamSynchronize, the 4-argument cuGetProcAddress...)
 * as the driver exports it, the way libcuda is built.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cudaTypedefs.h>

#include "hook_types.h"

#define HT_PFN(base, ver, ptsz) HT_PFN_##ptsz(base, ver)
#define HT_PFN_0(base, ver) PFN_##base##_v##ver
#define HT_PFN_1(base, ver) PFN_##base##_v##ver##_ptsz

/* Each entry: the exported symbol has our prototype, and so has the PFN
 * typedef of the (base, version) cuGetProcAddress hands that ABI out for. */
#define HT_CUDA(ret, name, params, args, base, ver, ptsz)                                  \
	_Static_assert(__builtin_types_compatible_p(__typeof__(name), ret params),         \
		       #name ": prototype differs from cuda.h");                           \
	_Static_assert(__builtin_types_compatible_p(HT_PFN(base, ver, ptsz), ret(*) params), \
		       #name ": not the ABI of " #base " at " #ver " in cudaTypedefs.h");
#include "hooks_cuda.def"
#undef HT_CUDA

/* What hooks/cuda/cuda_record.c calls itself, in the libcuda that answered. */
_Static_assert(__builtin_types_compatible_p(PFN_cuDriverGetVersion_v2020, ht_cu_result (*)(int *)),
	       "cuDriverGetVersion");
_Static_assert(__builtin_types_compatible_p(__typeof__(cuDeviceGetCount), ht_cu_result(int *)),
	       "cuDeviceGetCount");
_Static_assert(__builtin_types_compatible_p(__typeof__(cuDeviceGetUuid),
					    ht_cu_result(struct CUuuid_st *, ht_cu_device)),
	       "cuDeviceGetUuid");
_Static_assert(__builtin_types_compatible_p(__typeof__(cuDeviceGetUuid_v2),
					    ht_cu_result(struct CUuuid_st *, ht_cu_device)),
	       "cuDeviceGetUuid_v2");
_Static_assert(sizeof(CUuuid) == 16, "CUuuid is 16 bytes");
_Static_assert(__builtin_types_compatible_p(__typeof__(cuDeviceGetPCIBusId),
					    ht_cu_result(char *, int, ht_cu_device)),
	       "cuDeviceGetPCIBusId");
_Static_assert(__builtin_types_compatible_p(__typeof__(cuCtxGetDevice), ht_cu_result(ht_cu_device *)),
	       "cuCtxGetDevice");
_Static_assert(__builtin_types_compatible_p(__typeof__(cuCtxGetCurrent),
					    ht_cu_result(struct CUctx_st **)),
	       "cuCtxGetCurrent");
_Static_assert(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM == 2, "per-thread flag");

/* The error names: every value as cuda.h has it. */
#define HT_CU_ERROR(name, value) _Static_assert(name == value, #name " is not " #value);
#include "cuda_errors.def"
#undef HT_CU_ERROR

/* Only for the values the hooks test by number (hooks/cuda/cuda.h). */
_Static_assert(CUDA_ERROR_NOT_INITIALIZED == 3 && CUDA_ERROR_STUB_LIBRARY == 34 &&
		       CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND == 302,
	       "error codes of hooks/cuda/cuda.h");

/* A newer toolkit may bring ABI variants hooks_cuda.def does not list yet:
 * they are handed out unwrapped until HT_CUDA_ABI_MAX (hooks/cuda/cuda.h) grows. */
#if CUDA_VERSION > 13000
#pragma message("cuda.h is newer than 13.0: review hooks_cuda.def and HT_CUDA_ABI_MAX")
#endif
