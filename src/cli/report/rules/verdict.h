// SPDX-License-Identifier: MIT
/*
 * verdict.h: what the rules conclude, the type the rules make
 * (rules/verdicts.c), order (rules/order.c) and the output prints
 * (render/). The job holds them (rep_job.verdicts, model/model.h).
 */
#ifndef HT_REPORT_VERDICT_H
#define HT_REPORT_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "hangtrace.h"

enum rep_severity { REP_ERROR, REP_WARNING };

struct rep_verdict {
	enum ht_verdict_code code;
	enum rep_severity sev;
	int64_t *ranks;			/* sorted, unique */
	size_t nranks;
	const char *summary;
	char **evidence;
	size_t nevidence;
	const char *advice;
	int prio;			/* smaller: more likely the root cause */
	double t;			/* earliest time it involves (wall) */
	size_t cap_ranks, cap_evidence, more;	/* while it is built */
	const struct rep_verdict *because;	/* the verdict it follows from, or NULL */
	int64_t follows_rank;		/* a rule's hint: it follows from what this rank did */
	size_t order;			/* position once ordered */
};

#endif
