// SPDX-License-Identifier: MIT
/*
 * cuda.h: the cuda family's declarations (hooks/cuda/cuda.c: the wrappers and how
 * they are handed out; hooks/cuda/cuda_record.c: what they write). Not the
 * toolkit's cuda.h, which the library never includes. The one function for
 * other families is ht_cuda_note_collective.
 */
#ifndef HT_HOOKS_CUDA_H
#define HT_HOOKS_CUDA_H

#include <stdatomic.h>
#include <stdbool.h>

#include "events.h"
#include "hook_types.h"
#include "real.h"

/*
 * For the NCCL family: a collective or send/recv was issued in this
 * process. The first stream, event or context synchronize that returns
 * after it begins the steady phase. Lock-free, no allocation, a load on
 * every call after the first: cheap enough for the collective hot path.
 */
extern _Atomic bool ht__cuda_collective;
static inline void ht_cuda_note_collective(void)
{
	if (!atomic_load_explicit(&ht__cuda_collective, memory_order_relaxed))
		atomic_store_explicit(&ht__cuda_collective, true, memory_order_relaxed);
}

/*
 * Versions of the driver API whose ABI we know (cuda.h 13.0). A request
 * for a newer cudaVersion may get an ABI introduced since, so its answer is
 * handed out unwrapped.
 */
#define HT_CUDA_ABI_MAX 13000

/* CUresult values the hooks look at. */
#define HT_CU_SUCCESS 0u
#define HT_CU_NOT_INITIALIZED 3u
#define HT_CU_STUB_LIBRARY 34u
/* Answered by a wrapper whose driver function cannot be found (no libcuda
 * loaded): CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND. */
#define HT_CU_MISSING 302u

/* How a wrapper was reached (the cuda_init line's "via"). */
enum ht_cu_via { HT_CU_VIA_NAME, HT_CU_VIA_GPA, HT_CU_VIA_DLSYM };

/* One call of a wrapper: which entry point, reached how, called from where. */
struct ht_cu_site {
	int hook;		/* HT_HOOK_ID_<name> */
	enum ht_cu_via via;
	const void *caller;	/* return address into the calling object */
	const void *real;	/* the driver function being called */
};

/*
 * cuda_record.c. Each *_begin returns false when the call is to pass
 * straight through (not active, re-entered, off); the caller then calls the
 * real function and nothing else. Otherwise the matching *_end must follow,
 * with the result; it returns the result and leaves errno as the driver
 * left it. No allocation or lock on the synchronize path.
 */
struct ht_cu_span {
	struct ht_call call;
	int err;		/* errno at entry, restored before the real call */
};

bool ht__cu_init_begin(struct ht_cu_span *sp, const struct ht_cu_site *s);
ht_cu_result ht__cu_init_end(struct ht_cu_span *sp, const struct ht_cu_site *s, ht_cu_result r);

bool ht__cu_version_begin(struct ht_cu_span *sp);
ht_cu_result ht__cu_version_end(struct ht_cu_span *sp, const struct ht_cu_site *s,
				ht_cu_result r, const int *version);

/* A device bind: dev is the ordinal when the call names one, else -1 and
 * ctx the context made current (NULL: not a bind). */
bool ht__cu_bind_begin(struct ht_cu_span *sp, const struct ht_cu_site *s, int dev,
		       const struct CUctx_st *ctx);
ht_cu_result ht__cu_bind_end(struct ht_cu_span *sp, const struct ht_cu_site *s,
			     ht_cu_result r, int dev, const struct CUctx_st *ctx);

bool ht__cu_sync_begin(struct ht_cu_span *sp, const struct ht_cu_site *s);
ht_cu_result ht__cu_sync_end(struct ht_cu_span *sp, const struct ht_cu_site *s, ht_cu_result r);

/* A cuGetProcAddress request was answered (any resolver): remembers the
 * runtime's version and counts lookups. */
void ht__cu_lookup_seen(const char *symbol, int cuda_version, const void *caller);

/* The family table's entries (cuda_family.c, hooks/families.h): the dlsym
 * redirect (our wrapper for a wrapped name), the fork child and the dump
 * (cuda_record.c). */
void *ht__cuda_dlsym(void *handle, const char *name, void *found);
void ht__cuda_fork_child(void);
uint64_t ht__cuda_progress(void);	/* synchronizes that returned */
void ht__cuda_dump(void);

/* True for the hook ids of this family (cuda.c). */
bool ht__cu_is_hook(int id);

#endif
