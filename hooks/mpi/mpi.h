// SPDX-License-Identifier: MIT
/*
 * mpi.h: the MPI family (hooks/mpi/mpi.c): wrappers of the MPI calls that
 * wait for other ranks (hooks_mpi.def), and the count of those that
 * returned, which the watchdog reads as progress (hooks/families.h).
 */
#ifndef HT_HOOKS_MPI_H
#define HT_HOOKS_MPI_H

#include <stdint.h>

/* MPI calls of hooks_mpi.def that returned in this process. */
uint64_t ht__mpi_progress(void);
void ht__mpi_fork_child(void);
/* dlsym of an MPI name: our wrapper is never handed out where no MPI
 * library provides the real function (a probe for MPI finds none). */
void *ht__mpi_dlsym(void *handle, const char *name, void *found);

#endif
