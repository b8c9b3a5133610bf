// SPDX-License-Identifier: MIT
/*
 * cudafacts.h: plain functions behind the CUDA hooks (hooks/cuda*.c): the
 * names of driver error codes, the printed form of a GPU UUID, and which
 * ABI variant cuGetProcAddress hands out for a (symbol, version, flags)
 * request. No state, no allocation; async-signal-safe.
 */
#ifndef HT_CUDAFACTS_H
#define HT_CUDAFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM of cuda.h. */
#define HT_CU_GPA_PER_THREAD 2u

/* The name of a CUresult ("CUDA_ERROR_STUB_LIBRARY"); NULL when unknown. */
const char *ht_cu_error_name(int code);

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (nvidia-smi's form) of 16
 * bytes; out has HT_CU_UUID_LEN + 1 bytes. Returns the length. */
#define HT_CU_UUID_LEN 40
size_t ht_cu_uuid_format(char *out, const unsigned char bytes[16]);

/* One ABI variant of a driver entry point (an entry of hooks_cuda.def). */
struct ht_cu_abi {
	const char *base;	/* the name cuGetProcAddress is asked for */
	int ver;		/* the first cudaVersion that gets this ABI */
	bool ptsz;		/* only with the per-thread default stream flag */
};

/*
 * The index in v[0..n) of the variant a cuGetProcAddress(sym, ver, flags)
 * answer has: among the variants of sym, the greatest ver not above the
 * request, a per-thread one first when flags ask for it. -1 when sym is not
 * listed, no variant is old enough, or ver is above max_ver (a newer ABI
 * than we know of may exist).
 */
int ht_cu_pick(const struct ht_cu_abi *v, size_t n, const char *sym, int ver,
	       uint64_t flags, int max_ver);

/* True when the libcuda that answered is the toolkit's stub: it said so
 * (CUDA_ERROR_STUB_LIBRARY) or lives in a stubs folder. */
bool ht_cu_is_stub(int result, const char *path);

#endif
