// SPDX-License-Identifier: MIT
/*
 * order.h: the order of the verdicts (order.c): root causes first, each
 * verdict that follows from another named in `because` and placed after it.
 */
#ifndef HT_REP_ORDER_H
#define HT_REP_ORDER_H

#include "model/model.h"

/* Orders job->verdicts and sets each one's because (after the rules). */
void ht_rep_order(struct rep_job *job);

#endif
