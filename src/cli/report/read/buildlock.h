// SPDX-License-Identifier: MIT
/*
 * buildlock.h: what the reader keeps of a build_lock line
 * (parse_buildlock.c) in the process record (p->blk), for the rules
 * (rules/verdicts_buildlock.c).
 */
#ifndef HT_REP_READ_BUILDLOCK_H
#define HT_REP_READ_BUILDLOCK_H

#include "model/model.h"

/* A build_lock line (doc/trace-format.md): lock files found and builders. */
#define REP_MAX_LOCKS 8
#define REP_MAX_BUILDERS 8
struct rep_buildlock {
	const char *root, *via;
	struct { const char *path; double age; } locks[REP_MAX_LOCKS];
	size_t nlocks, more_locks;
	struct { int64_t pid; const char *comm; double age; } builders[REP_MAX_BUILDERS];
	size_t nbuilders;
	double ts;
	struct rep_loc loc;
};

#endif
