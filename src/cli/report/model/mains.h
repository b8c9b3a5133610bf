// SPDX-License-Identifier: MIT
/*
 * mains.h: between model.c and mains.c (each rank's main process).
 */
#ifndef HT_REP_MAINS_H
#define HT_REP_MAINS_H

#include <stdbool.h>

#include "model/model.h"

/* A forked child that is a DataLoader-like worker of a traced parent (model.c). */
bool ht_rep__fork_worker(const struct rep_proc *p);
/* The launcher kind that numbers the job's ranks (job->kind). */
void ht_rep__pick_kind(struct rep_job *job);
/* Whether p's identity is of a launcher kind (not unknown). */
bool ht_rep__real_kind(const struct rep_proc *p);
/* Whether p holds a rank of the job's numbering. */
bool ht_rep__in_numbering(const struct rep_job *job, const struct rep_proc *p);
/* Each rank's main (job->mains, job->by_rank), then the other processes
 * under the mains as wrappers, helpers and children. */
void ht_rep__choose_mains(struct rep_job *job);
void ht_rep__place_others(struct rep_job *job);
/* qsort order of mains: by rank, then start time. */
int ht_rep__cmp_main(const void *a, const void *b);

#endif
