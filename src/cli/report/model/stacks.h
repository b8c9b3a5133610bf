// SPDX-License-Identifier: MIT
/*
 * stacks.h: the stalled ranks' main-thread stacks merged into groups
 * (stacks.c).
 */
#ifndef HT_REP_STACKS_H
#define HT_REP_STACKS_H

#include "model/model.h"

/* Merges the main-thread stacks of the stalled processes into groups,
 * ordered the smallest (the odd one out) first, then the earliest phase,
 * the lowest rank. */
void ht_rep_stacks(struct rep_job *job);
/* Adds the mains of procs (n of them, NULL allowed) that are in no group
 * yet, from their latest dump whatever its state (a moving one marks its
 * group working), and orders the groups again. The rules add the ranks
 * they blame (rules/stacks.c, SPEC section 8). */
void ht_rep_stacks_add(struct rep_job *job, struct rep_proc *const *procs, size_t n);
/* Frees what ht_rep_stacks made. */
void ht_rep_stacks_free(struct rep_job *job);
/* Frames of one dump's main thread, cleaned (our library dropped, Python
 * spliced in, offsets removed, C++ demangled): innermost first. Exposed
 * for the tests. */
size_t ht_rep_clean_frames(struct rep_job *job, const char *const *native, size_t nn,
			   const char *const *python, size_t np, const char **out, size_t max);
/* The most telling frame of a group: the innermost Python frame, else the
 * innermost frame outside libc. */
const char *ht_rep_top_frame(const struct rep_group *g);
/* The innermost frame of the job's own code in a group: the innermost
 * Python frame outside installed packages and the standard library, else
 * ht_rep_top_frame's. */
const char *ht_rep_own_frame(const struct rep_group *g);
/* The same as ht_rep_top_frame for one dump's main thread (a rank in no group: working, or
 * killed while working), cleaned; NULL when it has no frame to show. */
const char *ht_rep_dump_top_frame(struct rep_job *job, const struct rep_dump *d);

#endif
