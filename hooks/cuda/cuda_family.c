// SPDX-License-Identifier: MIT
/* cuda_family.c: the CUDA family's entry in the family table (hooks/families.h). */
#include "cuda.h"
#include "families.h"

static const char *const dlsym_prefixes[] = { "cu", NULL };

const struct ht_family ht_family_cuda = {
	.name = "cuda",
	.fork_child = ht__cuda_fork_child,
	.dump = ht__cuda_dump,
	.progress = ht__cuda_progress,
	.dlsym_prefixes = dlsym_prefixes,
	.dlsym = ht__cuda_dlsym,
};
