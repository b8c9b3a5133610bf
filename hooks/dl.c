// SPDX-License-Identifier: MIT
/*
 * dl.c: the dlsym hook. The CUDA runtime reaches the driver, and JAX reaches
 * NCCL, only through dlsym on a handle, so this is where their wrappers are
 * handed out (hooks/cuda/cuda.c, hooks/nccl/nccl.c decide). An RTLD_NEXT lookup is
 * forwarded as a tail call so glibc still sees the caller's return address:
 * otherwise another interposer wrapping through dlsym(RTLD_NEXT) would find
 * itself and recurse (glibc resolves RTLD_NEXT from the return address,
 * dlfcn/dlsym.c; tests/cuda/driver.sh preloads tests/cuda/libputswrap.c
 * after us to check it, scripts/check-lib.sh that the jump stays a jump).
 */
#include <dlfcn.h>

#include "common.h"
#include "families.h"
#include "real.h"
#include "state.h"

static void *lookup(void *handle, const char *name)
{
	void *found = ht_real_dlsym(handle, name);

	if (found == NULL || name == NULL || ht_tls.depth > 0 ||
	    atomic_load_explicit(&ht_g.state, memory_order_relaxed) == HT_OFF)
		return found;
	return ht_families_dlsym(handle, name, found);
}

HT_EXPORT void *dlsym(void *handle, const char *name)
{
	if (handle == RTLD_NEXT)
		return ht_real_dlsym_fn()(handle, name);	/* must stay a tail call */
	return lookup(handle, name);
}
