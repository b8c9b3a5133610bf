// SPDX-License-Identifier: MIT
/*
 * evidence.h: the trace lines a verdict or a page quotes (evidence.c).
 */
#ifndef HT_REP_EVIDENCE_H
#define HT_REP_EVIDENCE_H

#include "model/model.h"

/* The text of a line (malloc'd, caller frees), NULL if unreadable. */
char *ht_rep_line_text(const struct rep_job *job, const struct rep_loc *loc);
/* Evidence: "FILE:LINE: {compact line without ts/mono/tid}", cut to max bytes;
 * keep (NULL-terminated) limits the fields to those named besides "t". */
char *ht_rep_evidence(struct rep_job *job, const struct rep_loc *loc,
		      const char *const *keep, size_t max);

#endif
