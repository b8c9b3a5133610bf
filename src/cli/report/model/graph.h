// SPDX-License-Identifier: MIT
/*
 * graph.h: who waits for whom (graph.c, SPEC section 8). For every rank
 * that stalled or waited: what it is doing (ranks[].doing), what it waits
 * for (ranks[].waits_for: ranks, or an endpoint, a worker, a lock), and
 * whether it is at the end of a chain of waits (a root cause). The rules
 * and the order of the verdicts read it; the writers print it.
 */
#ifndef HT_REP_GRAPH_H
#define HT_REP_GRAPH_H

#include "model/model.h"

/* Fills each main's sig, doing, at_wait, waits_for, waits_on, root and
 * awaited, and job->laggards and job->endpoint. After ht_rep_model and
 * ht_rep_stacks. */
void ht_rep_graph(struct rep_job *job);

/* The main process of rank r, or NULL (missing, or outside the world). */
struct rep_proc *ht_rep_rank_main(const struct rep_job *job, int64_t r);

/* The roots reached from ranks r (n of them) through waits_for, r's own
 * roots included, into out (a bitmap of job->world_size bits, zeroed by
 * the caller); returns how many were set. */
size_t ht_rep_roots_of(const struct rep_job *job, const int64_t *r, size_t n, uint8_t *out);

/* True when rank r is a root: missing, or a main marked root. */
bool ht_rep_rank_is_root(const struct rep_job *job, int64_t r);

#endif
