// SPDX-License-Identifier: MIT
/*
 * check_checkreport.c: the report of a `hangtrace check` run over real
 * check traces recorded by tests/check/two_hosts.sh (tests/fixtures/check:
 * ok, store port dropped on host A, peer ports dropped on host B): the
 * table's cells, the failing hosts (blamed through the ranks a line names),
 * the first error verdict, no rank_exited for a check's exit status 1,
 * and missing_rank only for ranks without a trace.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ht_check.h"
#include "report/render/check_report.h"
#include "report/report.h"

static bool load(struct rep_job *job, const char *name)
{
	static const char *const roots[] = { "tests/fixtures/check", "../tests/fixtures/check",
					     "../../tests/fixtures/check" };
	char dir[PATH_MAX], self[PATH_MAX / 2];
	ht_rep_job_init(job);
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", roots[i], name);
		if (access(dir, R_OK) == 0)
			goto found;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return false;
	self[n] = '\0';
	for (int up = 0; up < 3; up++) {
		char *s = strrchr(self, '/');
		if (s != NULL)
			*s = '\0';
	}
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/check/%s", self, name);
	if (access(dir, R_OK) != 0)
		return false;
found:
	if (ht_rep_add_path(job, dir) <= 0 || ht_rep_read(job) == 0)
		return false;
	ht_rep_analyse(job);
	return true;
}

static const struct rep_verdict *first_error(const struct rep_job *job)
{
	for (size_t i = 0; i < job->nverdicts; i++)
		if (job->verdicts[i]->sev == REP_ERROR)
			return job->verdicts[i];
	return NULL;
}

static bool has_code(const struct rep_job *job, enum ht_verdict_code c)
{
	for (size_t i = 0; i < job->nverdicts; i++)
		if (job->verdicts[i]->code == c)
			return true;
	return false;
}

/* The JSON "check" member's failed hosts, joined by spaces. */
static void failed(struct rep_job *job, char *out, size_t cap)
{
	json_t *o = ht_rep_check_json(job), *v;
	size_t i, n = 0;
	out[0] = '\0';
	json_array_foreach(json_object_get(o, "failed_hosts"), i, v)
		n += (size_t)snprintf(out + n, cap - n, "%s%.20s", n ? " " : "", json_string_value(v));
	json_decref(o);
}

START_TEST(passing_run)
{
	struct rep_job job;
	char f[256];
	ck_assert(load(&job, "ok"));
	ck_assert(ht_rep_is_check_run(&job));
	ck_assert_int_eq(job.nhosts, 2);
	ck_assert(!ht_rep_has_error(&job));
	ck_assert(!has_code(&job, HT_VERDICT_RANK_EXITED));
	failed(&job, f, sizeof(f));
	ck_assert_str_eq(f, "");
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	ht_rep_check_text(&job, m);
	fclose(m);
	ck_assert_ptr_nonnull(strstr(text, "failing hosts: none"));
	ck_assert_ptr_null(strstr(text, "  FAIL "));
	free(text);
	ht_rep_job_free(&job);
}
END_TEST

START_TEST(store_dropped)
{
	struct rep_job job;
	char f[256];
	ck_assert(load(&job, "store"));
	const struct rep_verdict *v = first_error(&job);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->code, HT_VERDICT_RENDEZVOUS_UNREACHABLE);
	ck_assert_int_eq(v->nranks, 2);
	ck_assert_int_eq(v->ranks[0], 2);
	ck_assert_int_eq(v->ranks[1], 3);
	/* Ranks 2 and 3 wrote traces: they are unreachable, not missing. */
	ck_assert(!has_code(&job, HT_VERDICT_MISSING_RANK));
	ck_assert(!has_code(&job, HT_VERDICT_RANK_EXITED));
	failed(&job, f, sizeof(f));
	ck_assert_msg(strncmp(f, "hostb-", 6) == 0 && strchr(f, ' ') == NULL, "failed: %s", f);
	ht_rep_job_free(&job);
}
END_TEST

START_TEST(peer_dropped)
{
	struct rep_job job;
	char f[256];
	ck_assert(load(&job, "peer"));
	const struct rep_verdict *v = first_error(&job);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->code, HT_VERDICT_PEER_UNREACHABLE);
	ck_assert_int_eq(v->nranks, 1);
	ck_assert_int_eq(v->ranks[0], 2);	/* the peer on host B that nobody reaches */
	failed(&job, f, sizeof(f));
	ck_assert_msg(strncmp(f, "hostb-", 6) == 0 && strchr(f, ' ') == NULL, "failed: %s", f);
	ht_rep_job_free(&job);
}
END_TEST

static Suite *checkreport_suite(void)
{
	Suite *s = suite_create("checkreport");
	TCase *tc = tcase_create("checkreport");
	tcase_add_test(tc, passing_run);
	tcase_add_test(tc, store_dropped);
	tcase_add_test(tc, peer_dropped);
	suite_add_tcase(s, tc);
	return s;
}

HT_CHECK_SUITE(checkreport_suite)
