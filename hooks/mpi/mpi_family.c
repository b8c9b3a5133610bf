// SPDX-License-Identifier: MIT
/* mpi_family.c: the MPI family's entry in the family table (hooks/families.h). */
#include "families.h"
#include "mpi.h"

static const char *const dlsym_prefixes[] = { "MPI_", "PMPI_", NULL };

const struct ht_family ht_family_mpi = {
	.name = "mpi",
	.fork_child = ht__mpi_fork_child,
	.progress = ht__mpi_progress,
	.dlsym_prefixes = dlsym_prefixes,
	.dlsym = ht__mpi_dlsym,
};
