// SPDX-License-Identifier: MIT
/*
 * evidence.h: the trace lines a verdict or a page quotes (evidence.c).
 */
#ifndef HT_REP_EVIDENCE_H
#define HT_REP_EVIDENCE_H

#include "model/model.h"

/* The text of a line (malloc'd, caller frees), NULL if unreadable. */
char *ht_rep_line_text(const struct rep_job *job, const struct rep_loc *loc);
/* Frees what ht_rep_line_text kept of files past 4 GiB. */
void ht_rep__far_free(struct rep_job *job);
/* Evidence: "FILE:LINE: {compact line without ts/mono/tid}", cut to max bytes;
 * keep (NULL-terminated) limits the fields to those named besides "t". */
char *ht_rep_evidence(struct rep_job *job, const struct rep_loc *loc,
		      const char *const *keep, size_t max);

/* The members of the top-level object of a trace line, as they are in the
 * line (NUL-terminated): key and value spans. Returns how many (at most
 * cap; evidence looks at REP_MAX_MEMBERS), 0 when the line is not an
 * object. */
#define REP_MAX_MEMBERS 96
struct rep_member {
	const char *key, *val;	/* key: after its opening quote */
	size_t klen, vlen;
};
size_t ht_rep_members(const char *line, struct rep_member *m, size_t cap);
/* The end of the JSON value that starts at s (a string, a number, a
 * literal, an object or an array), or NULL when the text ends first. */
const char *ht_rep_value_end(const char *s);

#endif
