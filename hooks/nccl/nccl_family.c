// SPDX-License-Identifier: MIT
/* nccl_family.c: the NCCL family's entry in the family table (hooks/families.h). */
#include "families.h"
#include "nccl.h"
#include "state.h"

/* Collectives issued (each one after the previous returned): the ring's
 * count, kept already; nothing is added to a collective's path. */
static uint64_t progress(void)
{
	return atomic_load_explicit(&ht_g.ring.next, memory_order_relaxed);
}

/* NCCL's functions and their profiling twins (pncclAllReduce, ...). */
static const char *const dlsym_prefixes[] = { "nccl", "pnccl", NULL };

const struct ht_family ht_family_nccl = {
	.name = "nccl",
	.activate = ht__nccl_activate,
	.fork_child = ht__nccl_fork_child,
	.dump = ht__nccl_dump,
	.dump_end = ht__nccl_dump_end,
	.progress = progress,
	.dlsym_prefixes = dlsym_prefixes,
	.dlsym = ht__nccl_dlsym,
};
