// SPDX-License-Identifier: MIT
/*
 * check_report.h: a run of `hangtrace check` in the report's output
 * (check_report.c): ht_rep_check_text (the host-by-check table),
 * ht_rep_check_json (the "check" member), ht_rep_check_failed_hosts
 * (failed-hosts.txt). A job with no "check" line is no check run: they
 * do nothing.
 */
#ifndef HT_REPORT_CHECK_H
#define HT_REPORT_CHECK_H

#include <jansson.h>
#include <stdio.h>

#include "read/checkfacts.h"
#include "report.h"

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
