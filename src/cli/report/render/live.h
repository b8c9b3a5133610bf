// SPDX-License-Identifier: MIT
/*
 * live.h: the report's outputs for where users look (SPEC sections 1, 3
 * and 8): the brief the library prints in the job's log, the lines
 * `hangtrace watch` redraws, and the self-contained HTML page. They read
 * the model through a few fields of struct rep_job (ranks, hosts, phases
 * with their times, calls, dumps, exits, verdicts with evidence, stack
 * groups) and the one hook below for who waits for whom.
 */
#ifndef HT_REPORT_LIVE_H
#define HT_REPORT_LIVE_H

#include <stdio.h>

#include "report.h"

/* At most this many lines in a brief (SPEC section 3). */
#define REP_BRIEF_LINES 12

/*
 * Prints the brief form of the report: a line on the job, the first
 * verdicts (code, severity, ranks, the summary cut to one line) and the
 * `hangtrace report DIR...` command for the rest; at most REP_BRIEF_LINES
 * lines, each starting "hangtrace: ". dirs are the folders read, as given.
 */
void ht_rep_brief(struct rep_job *job, FILE *out, char *const *dirs, size_t ndirs);

/* One line per verdict for the watch and the brief: "1 ERROR missing_rank
 * rank 3: summary", cut to width columns (0: no limit). Allocated in the
 * job's arena. */
const char *ht_rep_verdict_line(struct rep_job *job, size_t i, size_t width);

/* The job in one line ("3 of 4 ranks traced, 3 stalled, missing: 3"),
 * allocated in the job's arena. */
const char *ht_rep_job_line(struct rep_job *job);

/*
 * Who rank p waits for, as sorted ranks written to out[max]; returns the
 * count. The hook the HTML page and the Chrome trace draw arrows from:
 * today, a rank that waits (stalled or killed while waiting) and is not
 * blamed waits for the ranks the first error verdict blames. When the
 * model knows ranks[].waits_for (SPEC section 8), return that here.
 */
size_t ht_rep_waits_for(struct rep_job *job, const struct rep_proc *p, int64_t *out, size_t max);

/* Writes the HTML page (SPEC section 8, --html). Returns 0 or -errno. */
int ht_rep_html(struct rep_job *job, FILE *out);

#endif
