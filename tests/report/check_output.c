// SPDX-License-Identifier: MIT
/*
 * check_output.c: what the report prints. The JSON parses back and has the
 * shape of SPEC section 8 (format, job, ranks with exit forms, verdicts,
 * stack_groups, warnings); the Chrome trace is valid JSON with the events
 * Perfetto needs (names, phases, pids, timestamps, durations, one process
 * row per rank); the text report fits 100 columns and uses colour only when
 * asked.
 */
#include <jansson.h>
#include <stdlib.h>

#include "ht_check.h"
#include "fixture.h"

typedef int (*writer)(struct rep_job *, FILE *);

static int text_plain(struct rep_job *job, FILE *f)
{
	ht_rep_text(job, f, false);
	return 0;
}

static int text_colour(struct rep_job *job, FILE *f)
{
	ht_rep_text(job, f, true);
	return 0;
}

static char *render(const char *fixture, writer w)
{
	struct rep_job job;
	char *out = NULL;
	size_t n = 0;
	ck_assert_msg(fixture_run(&job, fixture) > 0, "%s", fixture);
	FILE *f = open_memstream(&out, &n);
	ck_assert_int_eq(w(&job, f), 0);
	fclose(f);
	ht_rep_job_free(&job);
	return out;
}

static json_t *json_of(const char *fixture)
{
	char *s = render(fixture, ht_rep_json);
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);
	ck_assert_msg(j != NULL, "%s: %s", fixture, e.text);
	free(s);
	return j;
}

static json_t *rank_entry(json_t *j, json_int_t r)
{
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(j, "ranks"), i, x)
		if (json_integer_value(json_object_get(x, "rank")) == r &&
		    json_is_integer(json_object_get(x, "rank")))
			return x;
	return NULL;
}

START_TEST(test_json_shape)
{
	json_t *j = json_of("straggler");
	ck_assert_str_eq(json_string_value(json_object_get(j, "format")), "hangtrace-report/1");
	static const char *const keys[] = { "job", "ranks", "verdicts", "stack_groups", "warnings" };
	for (size_t i = 0; i < 5; i++)
		ck_assert_msg(json_object_get(j, keys[i]) != NULL, "no %s", keys[i]);
	json_t *job = json_object_get(j, "job");
	ck_assert_int_eq(json_integer_value(json_object_get(job, "world_size")), 8);
	ck_assert_str_eq(json_string_value(json_object_get(job, "launcher")), "torchrun");
	ck_assert_str_eq(json_string_value(json_object_get(job, "framework")), "pytorch");
	ck_assert_uint_eq(json_array_size(json_object_get(job, "hosts")), 1);
	ck_assert_uint_eq(json_array_size(json_object_get(job, "ranks_seen")), 8);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "ranks")), 8);

	json_t *r0 = rank_entry(j, 0);
	ck_assert_ptr_nonnull(r0);
	ck_assert_str_eq(json_string_value(json_object_get(r0, "host")), "n1");
	ck_assert_int_eq(json_integer_value(json_object_get(r0, "pid")), 4000);
	ck_assert_str_eq(json_string_value(json_object_get(r0, "phase")), "launch");
	ck_assert(json_is_true(json_object_get(r0, "stalled")));
	ck_assert(json_is_null(json_object_get(r0, "exit")));

	json_t *v = json_array_get(json_object_get(j, "verdicts"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(v, "code")), "straggler");
	ck_assert_str_eq(json_string_value(json_object_get(v, "severity")), "error");
	ck_assert_uint_eq(json_array_size(json_object_get(v, "ranks")), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(v, "ranks"), 0)), 0);
	ck_assert(json_string_length(json_object_get(v, "summary")) > 0);
	ck_assert(json_string_length(json_object_get(v, "advice")) > 0);
	ck_assert_uint_gt(json_array_size(json_object_get(v, "evidence")), 0);
	ck_assert(strncmp(json_string_value(json_array_get(json_object_get(v, "evidence"), 0)),
			  "n1.4000.jsonl:", 14) == 0);

	json_t *g = json_array_get(json_object_get(j, "stack_groups"), 0);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(g, "ranks"), 0)), 0);
	bool found = false;
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(g, "frames"), i, f)
		found |= strcmp(json_string_value(f), "load_checkpoint (/work/train.py:12)") == 0;
	ck_assert(found);
	ck_assert_uint_eq(json_array_size(json_object_get(json_array_get(
		json_object_get(j, "stack_groups"), 1), "ranks")), 7);
	json_decref(j);
}
END_TEST

/* exit: null while running, {"status":N}, {"signal":...}, {"vanished":true};
 * rank null for a process without identity. */
START_TEST(test_json_exits)
{
	json_t *j = json_of("healthy");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(rank_entry(j, 1), "exit"),
							    "status")), 0);
	json_decref(j);
	j = json_of("rank_exited");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(rank_entry(j, 2), "exit"),
							   "signal")), "SIGSEGV");
	json_decref(j);
	j = json_of("vanished");
	ck_assert(json_is_true(json_object_get(json_object_get(rank_entry(j, 1), "exit"), "vanished")));
	ck_assert(json_is_null(json_object_get(rank_entry(j, 0), "exit")));
	json_decref(j);
	j = json_of("unranked");
	json_t *only = json_array_get(json_object_get(j, "ranks"), 0);
	ck_assert(json_is_null(json_object_get(only, "rank")));
	ck_assert_int_eq(json_integer_value(json_object_get(only, "pid")), 5000);
	ck_assert(json_is_true(json_object_get(only, "stalled")));
	json_decref(j);
	j = json_of("bad_files");
	ck_assert_uint_ge(json_array_size(json_object_get(j, "warnings")), 4);
	ck_assert(strstr(json_string_value(json_array_get(json_object_get(j, "warnings"), 0)),
			 "n1.4000.jsonl:") != NULL);
	json_decref(j);
}
END_TEST

START_TEST(test_chrome)
{
	char *s = render("straggler", ht_rep_chrome);
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);
	ck_assert_msg(j != NULL, "%s", e.text);
	free(s);
	json_t *ev = json_object_get(j, "traceEvents");
	ck_assert(json_is_array(ev));
	size_t i, names = 0, slices = 0, stalled = 0, flows = 0;
	json_t *x;
	json_array_foreach(ev, i, x) {
		const char *ph = json_string_value(json_object_get(x, "ph"));
		ck_assert_ptr_nonnull(ph);
		ck_assert(json_is_string(json_object_get(x, "name")));
		ck_assert(json_is_integer(json_object_get(x, "pid")));
		if (strcmp(ph, "M") == 0) {
			names += strcmp(json_string_value(json_object_get(x, "name")), "process_name") == 0;
			continue;
		}
		if (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0) {	/* waits-for arrows */
			ck_assert(json_is_integer(json_object_get(x, "id")));
			flows++;
			continue;
		}
		ck_assert(strcmp(ph, "X") == 0 || strcmp(ph, "i") == 0);
		ck_assert(json_is_number(json_object_get(x, "ts")));
		ck_assert(json_number_value(json_object_get(x, "ts")) >= 0);
		ck_assert(json_is_integer(json_object_get(x, "tid")));
		if (strcmp(ph, "X") == 0) {
			slices++;
			ck_assert(json_is_number(json_object_get(x, "dur")));
			ck_assert(json_number_value(json_object_get(x, "dur")) >= 0);
			if (strstr(json_string_value(json_object_get(x, "name")), "(stalled)") != NULL)
				stalled++;
		} else {
			ck_assert(json_is_string(json_object_get(x, "s")));
		}
	}
	ck_assert_uint_eq(names, 8);	/* one row per rank */
	ck_assert_uint_ge(flows, 2);	/* the waiting ranks point at the straggler */
	ck_assert_uint_ge(slices, 8);
	ck_assert_uint_eq(stalled, 8);	/* every rank's current phase is a stall */
	json_decref(j);
}
END_TEST

/* Every fixture's text report fits 100 columns; colour only when asked. */
START_TEST(test_text)
{
	static const char *const cases[] = { "straggler", "missing_host", "collective_mismatch",
					     "rendezvous_refused", "bad_files", "unique_id_mismatch",
					     "healthy", "shm_too_small", "fork_after_cuda_init" };
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *s = render(cases[c], text_plain);
		ck_assert(strstr(s, "VERDICTS") != NULL);
		ck_assert(strchr(s, '\033') == NULL);
		for (char *line = s; *line != '\0';) {
			char *nl = strchr(line, '\n');
			size_t n = nl != NULL ? (size_t)(nl - line) : strlen(line);
			/* Columns, not bytes: UTF-8 continuation bytes take none. */
			size_t cols = 0;
			for (size_t k = 0; k < n; k++)
				cols += ((unsigned char)line[k] & 0xc0) != 0x80;
			ck_assert_msg(cols <= 100, "%s: %zu columns: %.*s", cases[c], cols, (int)n, line);
			line = nl != NULL ? nl + 1 : line + n;
		}
		free(s);
	}
	char *s = render("straggler", text_colour);
	ck_assert(strstr(s, "\033[1;31mERROR") != NULL);
	free(s);
	s = render("straggler", text_plain);
	ck_assert(strstr(s, " 1 ERROR   straggler  rank 0\n") != NULL);
	ck_assert(strstr(s, "[1] rank 0 ") != NULL);	/* the odd stack first */
	free(s);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("report_output");
	TCase *t = tcase_create("output");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_json_shape);
	tcase_add_test(t, test_json_exits);
	tcase_add_test(t, test_chrome);
	tcase_add_test(t, test_text);
	suite_add_tcase(s, t);
	return s;
}

HT_CHECK_SUITE(make)
