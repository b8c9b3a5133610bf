// SPDX-License-Identifier: MIT
/*
 * check_report.h: how `hangtrace report` reads a run of `hangtrace check`
 * and the "ib" facts of any process (check_report.c, verdicts_check.c).
 * Entry points, one for each stage of the report:
 *   reader:   ht_rep__on_check, ht_rep__on_ib (a "check" or "ib" line)
 *   rules:    ht_rep_rules_check (verdicts from failed checks; ib_misconfigured)
 *   output:   ht_rep_check_text (the host-by-check table), ht_rep_check_json
 *             (the "check" member), ht_rep_check_failed_hosts (failed-hosts.txt)
 * A job with no "check" line is no check run: the outputs do nothing.
 */
#ifndef HT_REPORT_CHECK_H
#define HT_REPORT_CHECK_H

#include <jansson.h>

#include "read/reader.h"
#include "report.h"

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

void ht_rep__on_check(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc);
void ht_rep__on_ib(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc);

/* True when some process wrote "check" lines. */
bool ht_rep_is_check_run(const struct rep_job *job);
/* Adds the verdicts of failed checks and of the "ib" facts (every job). */
void ht_rep_rules_check(struct rep_job *job);
/* Prints the table of hosts by checks (nothing for a job that is not a check run). */
void ht_rep_check_text(struct rep_job *job, FILE *out);
/* The report's "check" member: null, or {"checks": [...], "hosts": [{"host",
 * "ranks", "results": {check: {"result", "why"}}}], "failed_hosts": [...],
 * "ranks_never_seen": [...]}. */
json_t *ht_rep_check_json(struct rep_job *job);
/* Writes dir/failed-hosts.txt (one host a line; empty when all passed) for
 * a check run whose first DIR is dir; 0 or -errno (a warning is printed). */
int ht_rep_check_failed_hosts(struct rep_job *job, const char *dir);

#endif
