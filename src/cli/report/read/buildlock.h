// SPDX-License-Identifier: MIT
/*
 * buildlock.h: the build_lock line (parse_buildlock.c), read into the
 * process record (p->blk, struct rep_buildlock of model/workers.h).
 */
#ifndef HT_REP_READ_BUILDLOCK_H
#define HT_REP_READ_BUILDLOCK_H

#include "reader.h"

/* Keeps the latest build_lock line of p. */
void ht_rep__on_build_lock(struct rep_rctx *c, struct rep_proc *p, json_t *o,
			   const struct rep_loc *loc, double ts);

#endif
