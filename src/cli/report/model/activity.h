// SPDX-License-Identifier: MIT
/*
 * activity.h: what a rank does that no frame names (activity.c): a main
 * thread in uninterruptible sleep on a network file system.
 */
#ifndef HT_REP_ACTIVITY_H
#define HT_REP_ACTIVITY_H

#include "model/model.h"

/* The file system a kernel wait channel belongs to ("NFS", "Lustre",
 * "FUSE"), or NULL. */
const char *ht_rep_wchan_fs(const char *wchan);
/* After ht_rep_graph: a rank whose main thread was dumped in D state with
 * a network file system's wchan says so in its doing. */
void ht_rep_activities(struct rep_job *job);

#endif
