// SPDX-License-Identifier: MIT
/*
 * out.h: the writers of the report: text (text.c), JSON (json.c), the
 * Chrome trace timeline (chrome.c).
 */
#ifndef HT_REP_OUT_H
#define HT_REP_OUT_H

#include "model/model.h"

void ht_rep_text(struct rep_job *job, FILE *out, bool colour);
/* Returns 0 or -errno. */
int ht_rep_json(struct rep_job *job, FILE *out);
int ht_rep_chrome(struct rep_job *job, FILE *out);

#endif
