// SPDX-License-Identifier: MIT
/*
 * check_jsonw.c: the line writer. Every line it makes must parse (jansson,
 * as the report reads it), whatever the input: hostile strings, invalid
 * UTF-8, every integer, overflow. Also the number formatting of fmt.c.
 */
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "hangtrace.h"
#include "ht_check.h"
#include "jsonw.h"

static json_t *parse_line(const char *buf, size_t len)
{
	json_error_t e;
	ck_assert_uint_gt(len, 0);
	ck_assert_int_eq(buf[len - 1], '\n');
	/* One line: the newline is the last byte and the only one. */
	ck_assert_ptr_eq(memchr(buf, '\n', len - 1), NULL);
	json_t *j = json_loadb(buf, len, 0, &e);
	ck_assert_msg(j != NULL, "does not parse: %s at %d: %.*s", e.text, e.position,
		      (int)len, buf);
	return j;
}

START_TEST(integers_round_trip)
{
	static const int64_t v[] = { 0, 1, -1, 9, 10, 99, 100, INT32_MAX, INT32_MIN,
				     INT64_MAX, INT64_MIN, 1234567890123LL };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char buf[256];
		struct ht_jw w;
		ht_jw_init(&w, buf, sizeof(buf));
		ht_jw_obj_begin(&w, NULL);
		ht_jw_int(&w, "v", v[i]);
		ht_jw_uint(&w, "u", (uint64_t)v[i]);
		ht_jw_hex(&w, "h", (uint64_t)v[i]);
		size_t len = ht_jw_finish(&w);
		json_t *j = parse_line(buf, len);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "v")), v[i]);
		json_t *u = json_object_get(j, "u");
		if (v[i] >= 0)
			ck_assert_int_eq(json_integer_value(u), v[i]);
		else	/* past INT64_MAX: a real, close to the value */
			ck_assert(json_is_real(u) && json_real_value(u) > 9.2e18);
		char hex[32];
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)v[i]);
		ck_assert_str_eq(json_string_value(json_object_get(j, "h")), hex);
		json_decref(j);
	}
}
END_TEST

START_TEST(seconds_have_six_decimals)
{
	char b[40];
	ht_fmt_secs(b, 1500000);
	ck_assert_str_eq(b, "0.001500");
	ht_fmt_secs(b, 1796111730013253000LL);
	ck_assert_str_eq(b, "1796111730.013253");
	ht_fmt_secs(b, -2500000000LL);
	ck_assert_str_eq(b, "-2.500000");
}
END_TEST

START_TEST(hostile_strings_escape)
{
	/* Quotes, backslashes, every control byte, DEL, invalid UTF-8
	 * (overlong, surrogate, truncated sequences) and valid multibyte. */
	char hostile[300];
	size_t n = 0;
	const char *parts = "a\"b\\c\n\t\r";
	memcpy(hostile, parts, strlen(parts));
	n = strlen(parts);
	for (int c = 1; c < 0x20; c++)
		hostile[n++] = (char)c;
	const unsigned char bad[] = { 0x7f, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xe2, 0x82,
				      0xf5, 0xff, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80 };
	memcpy(hostile + n, bad, sizeof(bad));
	n += sizeof(bad);
	hostile[n] = '\0';

	char buf[2048];
	struct ht_jw w;
	ht_jw_init(&w, buf, sizeof(buf));
	ht_jw_obj_begin(&w, NULL);
	ht_jw_strn(&w, "s", hostile, n);
	ht_jw_arr_begin(&w, "cmdline");
	ht_jw_str(&w, NULL, "--token=\"; rm -rf /");
	ht_jw_end(&w);
	size_t len = ht_jw_finish(&w);
	json_t *j = parse_line(buf, len);
	const char *s = json_string_value(json_object_get(j, "s"));
	ck_assert_ptr_nonnull(s);
	ck_assert(strncmp(s, "a\"b\\c\n\t\r", 8) == 0);
	/* The valid euro sign and emoji survive; the bad bytes became U+FFFD. */
	ck_assert_ptr_nonnull(strstr(s, "\xe2\x82\xac\xf0\x9f\x98\x80"));
	ck_assert_ptr_nonnull(strstr(s, "\xef\xbf\xbd"));
	json_decref(j);
}
END_TEST

START_TEST(overflow_still_parses)
{
	/* A small buffer and far too much to say: the line is cut at an item
	 * boundary and closed with "truncated":true. */
	char buf[200];
	struct ht_jw w;
	ht_jw_init(&w, buf, sizeof(buf));
	ht_jw_obj_begin(&w, NULL);
	ht_jw_str(&w, "t", "thread");
	ht_jw_arr_begin(&w, "frames");
	for (int i = 0; i < 100; i++)
		ht_jw_str(&w, NULL, "some_function_name (libfoo.so+0x1234)");
	ht_jw_end(&w);
	ht_jw_int(&w, "after", 1);
	size_t len = ht_jw_finish(&w);
	ck_assert_uint_le(len, sizeof(buf));
	json_t *j = parse_line(buf, len);
	ck_assert(json_is_true(json_object_get(j, "truncated")));
	ck_assert_str_eq(json_string_value(json_object_get(j, "t")), "thread");
	ck_assert_uint_gt(json_array_size(json_object_get(j, "frames")), 0);
	json_decref(j);
}
END_TEST

START_TEST(every_size_parses)
{
	/* Whatever the buffer size, the result is one parseable line. */
	for (size_t cap = 48; cap < 400; cap++) {
		char buf[400];
		struct ht_jw w;
		ht_jw_init(&w, buf, cap);
		ht_jw_obj_begin(&w, NULL);
		ht_jw_str(&w, "t", "stall");
		ht_jw_arr_begin(&w, "calls");
		for (int i = 0; i < 5; i++) {
			ht_jw_obj_begin(&w, NULL);
			ht_jw_str(&w, "name", "ncclCommInitRank");
			ht_jw_int(&w, "tid", 1234 + i);
			ht_jw_end(&w);
		}
		ht_jw_end(&w);
		size_t len = ht_jw_finish(&w);
		json_decref(parse_line(buf, len));
	}
}
END_TEST

START_TEST(every_event_type_round_trips)
{
	/* The names of the vocabulary, each as an event line with the common
	 * fields: t, ts, mono. */
	for (int t = 0; t < HT_EV_COUNT; t++) {
		char buf[512];
		struct ht_jw w;
		ht_jw_init(&w, buf, sizeof(buf));
		ht_jw_obj_begin(&w, NULL);
		ht_jw_str(&w, "t", ht_event_name(t));
		ht_jw_secs(&w, "ts", 1796111730013253000LL);
		ht_jw_secs(&w, "mono", 5025867173000LL);
		ht_jw_null(&w, "rank");
		ht_jw_bool(&w, "b", t % 2);
		size_t len = ht_jw_finish(&w);
		json_t *j = parse_line(buf, len);
		ck_assert_str_eq(json_string_value(json_object_get(j, "t")), ht_event_name(t));
		ck_assert_int_eq(ht_event_from_name(json_string_value(json_object_get(j, "t"))), t);
		ck_assert(json_is_real(json_object_get(j, "ts")));
		ck_assert(json_is_null(json_object_get(j, "rank")));
		json_decref(j);
	}
	for (int p = 0; p < HT_PHASE_COUNT; p++)
		ck_assert_int_eq(ht_phase_from_name(ht_phase_name(p)), p);
	ck_assert_ptr_null(ht_phase_name(HT_PHASE_COUNT));
	ck_assert_int_eq(ht_phase_from_name("nonsense"), -1);
}
END_TEST

START_TEST(parse_numbers_strictly)
{
	int64_t v;
	ck_assert(ht_parse_i64("42", &v) && v == 42);
	ck_assert(ht_parse_i64("-7", &v) && v == -7);
	ck_assert(!ht_parse_i64("", &v));
	ck_assert(!ht_parse_i64("4x", &v));
	ck_assert(!ht_parse_i64(" 4", &v));
	ck_assert(!ht_parse_i64("99999999999999999999", &v));
	ck_assert(ht_parse_secs("2.5", &v) && v == 2500000000LL);
	ck_assert(ht_parse_secs("300", &v) && v == 300000000000LL);
	ck_assert(ht_parse_secs(".25", &v) && v == 250000000LL);
	ck_assert(!ht_parse_secs("abc", &v));
	ck_assert(!ht_parse_secs("-1", &v));
	ck_assert(!ht_parse_secs("1e3", &v));
	char b[32];
	ht_fmt_signal(b, SIGTERM);
	ck_assert_str_eq(b, "SIGTERM");
	ht_fmt_signal(b, SIGRTMIN + 3);
	ck_assert_str_eq(b, "SIGRTMIN+3");
}
END_TEST

static Suite *jsonw_suite(void)
{
	Suite *s = suite_create("jsonw");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, integers_round_trip);
	tcase_add_test(tc, seconds_have_six_decimals);
	tcase_add_test(tc, hostile_strings_escape);
	tcase_add_test(tc, overflow_still_parses);
	tcase_add_test(tc, every_size_parses);
	tcase_add_test(tc, every_event_type_round_trips);
	tcase_add_test(tc, parse_numbers_strictly);
	suite_add_tcase(s, tc);
	return s;
}
HT_CHECK_SUITE(jsonw_suite)
