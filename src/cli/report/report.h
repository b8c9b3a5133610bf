// SPDX-License-Identifier: MIT
/*
 * report.h: `hangtrace report` as a pipeline (report.c): read (read/),
 * model (model/), rules (rules/), order, output (out/). Each stage has its
 * own header; this one names the stages' entry points a caller needs (the
 * command, the tests, the fuzz target) and the driver that runs them.
 */
#ifndef HT_REPORT_H
#define HT_REPORT_H

#include "model/activity.h"
#include "model/graph.h"
#include "model/model.h"
#include "model/ranges.h"
#include "model/stacks.h"
#include "model/workers.h"
#include "read/evidence.h"
#include "render/out.h"
#include "read/read.h"
#include "rules/dataloader.h"
#include "rules/order.h"
#include "rules/verdicts.h"

/* Runs the stages after reading over job: model, stacks, graph, rules,
 * order. */
void ht_rep_analyse(struct rep_job *job);
/* Adds each input to job: a folder or a trace file (read/files.c), or a
 * file of digests (read/digest_read.c); what cannot be added is said on
 * stderr. */
void ht_rep_add_inputs(struct rep_job *job, char *const *paths, size_t n);
/* Frees everything the stages made, each stage its own, and resets job. */
void ht_rep_job_free(struct rep_job *job);

#endif
