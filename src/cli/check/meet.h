// SPDX-License-Identifier: MIT
/*
 * meet.h: what meet.c (the sockets and the order of the networked steps)
 * and compare.c (rank 0's comparisons) share.
 */
#ifndef HT_CLI_CHECK_MEET_H
#define HT_CLI_CHECK_MEET_H

#include <jansson.h>

#include "check.h"
#include "wire.h"

#define F_ARRIVE 0.40		/* rank 0 stops waiting for arrivals */
#define F_PLAN 0.50		/* a rank stops waiting for its plan */
#define F_DONE 0.85		/* rank 0 stops waiting for the ranks' last word */
#define F_BYE 0.92		/* a rank stops waiting for rank 0's last word */

/* What rank 0 knows of one rank. */
struct chk_member {
	bool here;
	struct chk_conn *conn;
	json_t *facts;
	double offset, rtt;
	int host;			/* index of its host */
	bool done;
	int nccl;			/* its self-test state */
	char nccl_why[300];
	json_t *results;		/* its plan's results */
};

/* A string or integer field of a facts object ("" and -1 when absent). */
const char *ht_chk__str(json_t *o, const char *k);
long long ht_chk__int(json_t *o, const char *k);
/* "0,1,5": the ranks r[0..n) into out (cut at cap). */
void ht_chk__ranks_str(const int64_t *r, size_t n, char *out, size_t cap);
/* Appends one result for a rank's plan to arr. */
void ht_chk__add_result(json_t *arr, enum ht_check_id id, const char *result, const char *code,
			const int64_t *ranks, size_t n, const char *why);
/*
 * Rank 0: from the members that arrived (m[0..ws), waited seconds of
 * waiting), each member's results (arrivals, versions, gpus, addresses,
 * clock) and its "plan_peer" in its facts: a rank on the next host, or
 * a sentence saying why there is none.
 */
void ht_chk__compare(struct chk_member *m, int64_t ws, double waited);

#endif
