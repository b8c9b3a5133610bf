// SPDX-License-Identifier: MIT
/*
 * order.h: the order of the verdicts (order.c): root causes first, each
 * verdict that follows from another named in `because` and placed after it.
 */
#ifndef HT_REP_ORDER_H
#define HT_REP_ORDER_H

#include "model/model.h"
#include "rules/verdict.h"

/* After the rules: links each verdict that follows from another (because),
 * applies the job's severity policy (a completed job has warnings only),
 * then orders job->verdicts, each chain after its root. */
void ht_rep_order(struct rep_job *job);

#endif
