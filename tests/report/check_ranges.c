// SPDX-License-Identifier: MIT
/*
 * check_ranges.c: rank lists as people write them ("0-6,8-15"), the cut
 * that keeps a list inside its room ("...(+N)" counting what was left out),
 * reading them back, and the phrases verdicts build from them.
 */
#include <stdlib.h>

#include "ht_check.h"
#include "report/report.h"
#include "report/rules/rules.h"

static const char *fmt(const int64_t *v, size_t n, size_t max)
{
	static char out[4096];
	return ht_rep_ranges(v, n, out, max);
}

START_TEST(test_format)
{
	int64_t a[] = { 0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	ck_assert_str_eq(fmt(a, 15, 100), "0-6,8-15");
	ck_assert_str_eq(fmt(a, 0, 100), "");
	int64_t b[] = { 7 };
	ck_assert_str_eq(fmt(b, 1, 100), "7");
	int64_t c[] = { 1, 3, 5 };
	ck_assert_str_eq(fmt(c, 3, 100), "1,3,5");
	int64_t d[] = { 4, 5 };
	ck_assert_str_eq(fmt(d, 2, 100), "4-5");
	int64_t e[] = { 0, 2, 3, 4, 9, 16383 };
	ck_assert_str_eq(fmt(e, 6, 100), "0,2-4,9,16383");
}
END_TEST

START_TEST(test_sort_unique)
{
	int64_t v[] = { 9, 3, 3, 1, 2, 9, 0 };
	size_t n = ht_rep_ranks_sort(v, 7);
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(fmt(v, n, 100), "0-3,9");
	ck_assert_uint_eq(ht_rep_ranks_sort(NULL, 0), 0);
}
END_TEST

/* Scattered ranks in little room: cut, never longer than the room, and
 * the count of ranks left out is exact. */
START_TEST(test_cut)
{
	int64_t v[200];
	for (int i = 0; i < 200; i++)
		v[i] = 2 * i;	/* 0,2,4,...: no runs */
	for (size_t max = 10; max < 120; max++) {
		const char *s = fmt(v, 200, max);
		ck_assert_uint_lt(strlen(s), max);
		const char *tail = strstr(s, "...(+");
		ck_assert_ptr_nonnull(tail);
		size_t shown = 0;
		for (const char *p = s; p < tail; p++)
			shown += *p == ',';
		/* "a,b,c,...(+N)": commas before the tail = ranks shown */
		long left = strtol(tail + 5, NULL, 10);
		ck_assert_int_eq((long)shown + left, 200);
	}
	int64_t w[] = { 0, 1, 2, 3 };
	ck_assert_str_eq(fmt(w, 4, 4), "0-3");	/* fits exactly */
	ck_assert_str_eq(fmt(w, 4, 3), "");	/* no room even for the tail */
}
END_TEST

START_TEST(test_parse)
{
	int64_t out[64];
	ck_assert_int_eq(ht_rep_ranges_parse("0-6,8-15", out, 64), 15);
	ck_assert_int_eq(out[6], 6);
	ck_assert_int_eq(out[7], 8);
	ck_assert_int_eq(ht_rep_ranges_parse("", out, 64), 0);
	ck_assert_int_eq(ht_rep_ranges_parse("5", out, 64), 1);
	ck_assert_int_eq(ht_rep_ranges_parse("5-3", out, 64), -1);
	ck_assert_int_eq(ht_rep_ranges_parse("a", out, 64), -1);
	ck_assert_int_eq(ht_rep_ranges_parse("0-100", out, 64), -1);
	/* Round trip. */
	int64_t v[] = { 1, 2, 3, 7, 10, 11 };
	ck_assert_int_eq(ht_rep_ranges_parse(fmt(v, 6, 100), out, 64), 6);
	ck_assert_mem_eq(out, v, sizeof(v));
}
END_TEST

START_TEST(test_phrases)
{
	struct rep_job job;
	ht_rep_job_init(&job);
	int64_t one[] = { 3 }, many[] = { 0, 1, 2, 4 };
	ck_assert_str_eq(ht_rep_ranks_phrase(&job, one, 1), "rank 3");
	ck_assert_str_eq(ht_rep_ranks_phrase(&job, many, 4), "ranks 0-2,4");
	ck_assert_str_eq(ht_rep_cuda_version(&job, 12040), "12.4");
	ck_assert_str_eq(ht_rep_cuda_version(&job, 11080), "11.8");
	ck_assert_str_eq(ht_rep_nccl_version(&job, 22809), "2.28.9");
	ck_assert_str_eq(ht_rep_nccl_version(&job, 2708), "2.7.8");
	ck_assert_str_eq(ht_rep_port("10.0.0.1:29500"), "29500");
	ck_assert_str_eq(ht_rep_port("[::1]:8"), "8");
	ck_assert_ptr_null(ht_rep_port("host"));
	ht_rep_job_free(&job);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("report_ranges");
	TCase *t = tcase_create("ranges");
	tcase_add_test(t, test_format);
	tcase_add_test(t, test_sort_unique);
	tcase_add_test(t, test_cut);
	tcase_add_test(t, test_parse);
	tcase_add_test(t, test_phrases);
	suite_add_tcase(s, t);
	return s;
}

HT_CHECK_SUITE(make)
