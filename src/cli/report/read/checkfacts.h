// SPDX-License-Identifier: MIT
/*
 * checkfacts.h: what the reader keeps of a `hangtrace check` run's "check"
 * lines and of any process's "ib" facts (read/parse_check.c), for the
 * rules (rules/verdicts_check.c) and the output (render/check_report.c).
 * A job with no "check" line is no check run.
 */
#ifndef HT_REPORT_CHECKFACTS_H
#define HT_REPORT_CHECKFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* One "check" line of a process. */
struct rep_chkline {
	int check;			/* index in HT_CHECK_MAP order, see check_report.c */
	const char *result, *code, *why;
	int64_t *ranks;			/* blamed ranks, NULL when the line has none */
	size_t nranks;
	struct rep_loc loc;
};

struct rep_ibprob {
	const char *dev, *what;
	int64_t port;
};

/* The "check" and "ib" lines of one process (rep_proc.chk). */
struct rep_checkfacts {
	struct rep_chkline *lines;
	size_t n;
	bool have_ib, ib_in_use, roce;
	const char *gid_index, *hca;
	struct rep_ibprob *probs;
	size_t nprobs;
	struct rep_loc ib_loc;
};

/* True when some process wrote "check" lines. */
bool ht_rep_is_check_run(const struct rep_job *job);
#endif
