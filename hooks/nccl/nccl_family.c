// SPDX-License-Identifier: MIT
/* nccl_family.c: the NCCL family's entry in the family table (hooks/families.h). */
#include "families.h"
#include "nccl.h"

/* NCCL's functions and their profiling twins (pncclAllReduce, ...). */
static const char *const dlsym_prefixes[] = { "nccl", "pnccl", NULL };

const struct ht_family ht_family_nccl = {
	.name = "nccl",
	.activate = ht__nccl_activate,
	.fork_child = ht__nccl_fork_child,
	.dump = ht__nccl_dump,
	.dump_end = ht__nccl_dump_end,
	.dlsym_prefixes = dlsym_prefixes,
	.dlsym = ht__nccl_dlsym,
};
