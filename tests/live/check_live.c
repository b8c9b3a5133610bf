// SPDX-License-Identifier: MIT
/*
 * check_live.c: the brief (report --brief) and the HTML page over the
 * report's fixtures and over hostile traces built in memory: the brief
 * fits 12 lines and names the first verdict; the page's JSON block cannot
 * be broken out of, whatever a trace holds.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ht_check.h"
#include "report/fixture.h"
#include "report/render/live.h"

static char *brief_of(const char *fixture)
{
	struct rep_job job;
	char *out = NULL;
	size_t n = 0;
	char *dirs[] = { (char *)"/no/such/dir" };
	ck_assert_msg(fixture_run(&job, fixture) > 0, "%s", fixture);
	FILE *f = open_memstream(&out, &n);
	ht_rep_brief(&job, f, dirs, 1);
	fclose(f);
	ht_rep_job_free(&job);
	return out;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what))
		n++;
	return n;
}

START_TEST(test_brief_first_verdict)
{
	char *s = brief_of("missing_rank");
	ck_assert_msg(strstr(s, "\nhangtrace: 1 ERROR missing_rank rank ") != NULL, "%s", s);
	ck_assert(strstr(s, "hangtrace report /no/such/dir\n") != NULL);
	ck_assert_uint_le(count(s, "\n"), REP_BRIEF_LINES);
	for (const char *l = s; *l != '\0'; l = strchr(l, '\n') + 1)
		ck_assert_msg(strncmp(l, "hangtrace: ", 11) == 0, "%s", l);
	free(s);
	s = brief_of("straggler");
	ck_assert_msg(strstr(s, "\nhangtrace: 1 ERROR straggler rank 0: ") != NULL, "%s", s);
	free(s);
}
END_TEST

/* Every fixture: at most 12 lines, each at most 160 columns. */
START_TEST(test_brief_bounds)
{
	static const char *const cases[] = { "healthy", "stalled_all", "version_mismatch",
					     "world_size_mismatch", "bad_files", "unranked",
					     "collective_mismatch", "killed_waiting" };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = brief_of(cases[i]);
		ck_assert_msg(count(s, "\n") <= REP_BRIEF_LINES, "%s: %s", cases[i], s);
		for (const char *l = s; *l != '\0';) {
			const char *e = strchr(l, '\n');
			ck_assert_msg(e - l <= 160, "%s: %.*s", cases[i], (int)(e - l), l);
			l = e + 1;
		}
		ck_assert_msg(strstr(s, "hangtrace report ") != NULL, "%s", cases[i]);
		free(s);
	}
}
END_TEST

/* The traces of one node of a two-node job (a folder per node): the brief
 * says the other hosts' folders are needed; a one-node job gets no note. */
START_TEST(test_brief_one_node_of_many)
{
	struct rep_buf b[2] = { { 0 }, { 0 } };
	struct rep_job job;
	char *out = NULL, *dirs[] = { (char *)"/n1" };
	size_t n = 0;
	ht_rep_job_init(&job);
	for (int r = 0; r < 2; r++) {
		ht_rep_buf_printf(&b[r], "{\"t\":\"header\",\"ts\":1700000000.0,\"mono\":100.0,"
				  "\"format\":\"hangtrace/1\",\"host\":\"n1\",\"pid\":%d,\"ppid\":1,"
				  "\"rank\":%d,\"world_size\":4,\"local_rank\":%d,"
				  "\"launcher\":\"torchrun\",\"relevant\":\"identity\",\"timeout\":1.0,"
				  "\"cmdline\":[\"python3\"],\"env\":{\"LOCAL_WORLD_SIZE\":\"2\"}}\n",
				  10 + r, r, r);
		mem_line(&b[r], 10 + r, 0, "phase", "\"phase\":\"launch\",\"state\":\"begin\"");
		mem_dump(&b[r], 10 + r, 2, 1, "launch", "\"poll (libc.so.6+0x1)\"", NULL, 0.1, 10);
		mem_dump(&b[r], 10 + r, 3, 2, "launch", "\"poll (libc.so.6+0x1)\"", NULL, 0.1, 10);
		mem_add(&job, r == 0 ? "n1.10.jsonl" : "n1.11.jsonl", &b[r]);
	}
	ck_assert_uint_eq(ht_rep_read(&job), 2);
	ht_rep_analyse(&job);
	FILE *f = open_memstream(&out, &n);
	ht_rep_brief(&job, f, dirs, 1);
	fclose(f);
	ck_assert_msg(strstr(out, "\nhangtrace: note: these traces are all from host n1; ") != NULL,
		      "%s", out);
	ck_assert_uint_le(count(out, "\n"), REP_BRIEF_LINES);
	free(out);
	ht_rep_job_free(&job);
	ht_rep_buf_free(&b[0]);
	ht_rep_buf_free(&b[1]);
	out = brief_of("missing_rank");
	ck_assert_msg(strstr(out, "note:") == NULL, "%s", out);
	free(out);
}
END_TEST

static char *html_of(struct rep_job *job)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	ck_assert_int_eq(ht_rep_html(job, f), 0);
	fclose(f);
	return out;
}

/* The JSON between the data block's tags, parsed. */
static json_t *page_data(const char *page)
{
	const char *open = "<script type=\"application/json\" id=\"ht-data\">";
	const char *a = strstr(page, open);
	ck_assert_ptr_nonnull(a);
	a += strlen(open);
	const char *b = strstr(a, "</script>");
	ck_assert_ptr_nonnull(b);
	json_error_t e;
	json_t *j = json_loadb(a, (size_t)(b - a), 0, &e);
	ck_assert_msg(j != NULL, "%s", e.text);
	return j;
}

START_TEST(test_html_hostile)
{
	static const char evil[] = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"
				   "<!--&amp;\\u2028";
	struct rep_buf b = { 0 };
	struct rep_job job;
	char fields[512];
	ht_rep_job_init(&job);
	/* A host name and frames that try to end the data block. */
	ht_rep_buf_printf(&b, "{\"t\":\"header\",\"ts\":1700000000.0,\"mono\":100.0,"
			  "\"format\":\"hangtrace/1\",\"host\":\"%s\",\"pid\":7,\"ppid\":1,"
			  "\"rank\":0,\"world_size\":2,\"local_rank\":0,\"launcher\":\"torchrun\","
			  "\"relevant\":\"identity\",\"timeout\":1.0,\"cmdline\":[\"%s\"],\"env\":{}}\n",
			  evil, evil);
	mem_line(&b, 7, 0, "phase", "\"phase\":\"launch\",\"state\":\"begin\"");
	snprintf(fields, sizeof(fields), "\"%s (libc.so.6+0x1)\"", evil);
	mem_dump(&b, 7, 2, 1, "launch", fields, NULL, 0.1, 10);
	mem_dump(&b, 7, 3, 2, "launch", fields, NULL, 0.1, 10);
	ht_rep_buf_add(&b, "{\"t\":\"</script><b>x\",\"ts\":1700000004.0,\"mono\":104.0}\n");
	mem_add(&job, "<script>evil.jsonl", &b);
	ck_assert_uint_gt(ht_rep_read(&job), 0);
	ht_rep_analyse(&job);
	char *page = html_of(&job);
	/* Exactly the page's own two script blocks, and no markup from the trace. */
	ck_assert_uint_eq(count(page, "<script"), 2);
	ck_assert_uint_eq(count(page, "</script>"), 2);
	ck_assert_ptr_null(strstr(page, "<img"));
	ck_assert_ptr_null(strstr(page, "<!--"));
	ck_assert_ptr_null(strstr(page, "<b>"));
	/* ... while the text is all there, as data. */
	json_t *d = page_data(page);
	char *dump = json_dumps(d, 0);
	ck_assert_msg(strstr(dump, "<img src=x onerror=alert(2)>") != NULL, "%s", dump);
	ck_assert(strstr(dump, "</script><b>x") != NULL);	/* the warning names it */
	free(dump);
	json_decref(d);
	free(page);
	ht_rep_job_free(&job);
	ht_rep_buf_free(&b);
}
END_TEST

START_TEST(test_html_offline)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "missing_rank") > 0);
	char *page = html_of(&job);
	ck_assert(strstr(page, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
			       "'none'; script-src 'sha256-") != NULL);
	ck_assert_ptr_null(strstr(page, "src=\"http"));
	ck_assert_ptr_null(strstr(page, "href=\"http"));
	ck_assert_ptr_null(strstr(page, "unsafe-inline"));
	json_t *d = page_data(page);
	json_t *v0 = json_array_get(json_object_get(d, "verdicts"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(v0, "code")), "missing_rank");
	/* The missing ranks have a row, and the waiting ranks point at it. */
	json_t *rows = json_object_get(d, "rows");
	size_t i, miss = SIZE_MAX, pointing = 0;
	json_t *r;
	json_array_foreach(rows, i, r)
		if (strcmp(json_string_value(json_object_get(r, "state")), "missing") == 0)
			miss = i;
	ck_assert(miss != SIZE_MAX);
	json_array_foreach(rows, i, r) {
		json_t *t = json_object_get(r, "targets");
		if (json_array_size(t) == 1 &&
		    (size_t)json_integer_value(json_array_get(t, 0)) == miss)
			pointing++;
	}
	ck_assert_uint_ge(pointing, 1);
	json_decref(d);
	free(page);
	ht_rep_job_free(&job);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("live");
	TCase *t = tcase_create("brief_html");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_brief_first_verdict);
	tcase_add_test(t, test_brief_bounds);
	tcase_add_test(t, test_brief_one_node_of_many);
	tcase_add_test(t, test_html_hostile);
	tcase_add_test(t, test_html_offline);
	suite_add_tcase(s, t);
	return s;
}

HT_CHECK_SUITE(make)
