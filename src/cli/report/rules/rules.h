// SPDX-License-Identifier: MIT
/*
 * rules.h: helpers the verdict rule files (verdicts_*.c) share: how a set
 * of ranks or hosts is named in a sentence, who waits and where, and the
 * evidence fields worth quoting for each event type.
 */
#ifndef HT_REPORT_RULES_H
#define HT_REPORT_RULES_H

#include "model/ranges.h"
#include "model/stacks.h"
#include "read/evidence.h"
#include "rules/verdicts.h"

/* Room for rank lists inside a one-line summary. */
#define REP_LIST_MAX 48

/* "rank 3" or "ranks 0-6,8-15" (sorted unique ranks). */
const char *ht_rep_ranks_phrase(struct rep_job *job, const int64_t *r, size_t n);
/* The waiting ranks not in v's ranks, described: "ranks 0-2,4-7 wait in
 * nccl_init" (the phase most of them wait in); NULL when none waits. Sets
 * *who to one of them, for evidence. */
const char *ht_rep_waiters(struct rep_job *job, const struct rep_verdict *v,
			   struct rep_proc **who);
/* Adds h to set (n entries, at most cap) unless it is there: the distinct
 * hosts a verdict names, for ht_rep_hosts_phrase. */
void ht_rep_hosts_add(struct rep_host **set, size_t *n, size_t cap, struct rep_host *h);
/* "host n1" or "hosts n1,n2,n3 (+4 more)" (h may repeat hosts). */
const char *ht_rep_hosts_phrase(struct rep_job *job, struct rep_host *const *h, size_t n);
/* True when v's rank list holds r. */
bool ht_rep_verdict_has(const struct rep_verdict *v, int64_t r);
/* CUDA version 12040 -> "12.4"; NCCL 22809 -> "2.28.9". */
const char *ht_rep_cuda_version(struct rep_job *job, int64_t v);
const char *ht_rep_nccl_version(struct rep_job *job, int64_t v);
/* A span of s seconds in words: "40 s", "12 min", "3.5 h", "4 days". */
const char *ht_rep_duration(struct rep_job *job, double s);
/* The port of "ip:port" or "[v6]:port", or NULL. */
const char *ht_rep_port(const char *addr);

/* The rules' collect, sort and walk-by-runs loops: a growable array of
 * items of one size (malloc'd). Push items, sort them, then take each run
 * of items that `same` says belong together (a prefix of the sort order:
 * one destination and failure, one message) as one verdict. */
struct rep_list {
	void *v;
	size_t n, cap, size;
};
#define REP_LIST(type) ((struct rep_list){ NULL, 0, 0, sizeof(type) })
/* A zeroed new item at the end (aborts on ENOMEM). */
void *ht_rep_list_push(struct rep_list *l);
void ht_rep_list_sort(struct rep_list *l, int (*cmp)(const void *, const void *));
/* The end of the run of items from i on that same() holds for with item i. */
size_t ht_rep_list_run(const struct rep_list *l, size_t i,
		       bool (*same)(const void *first, const void *other));
static inline void *rep_list_at(const struct rep_list *l, size_t i)
{
	return (char *)l->v + i * l->size;
}
void ht_rep_list_free(struct rep_list *l);

/* Fields kept when quoting lines of each kind. */
extern const char *const ht_rep_keep_stall[];
extern const char *const ht_rep_keep_dump_end[];
extern const char *const ht_rep_keep_host[];

#endif
