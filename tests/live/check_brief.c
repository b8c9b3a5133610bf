// SPDX-License-Identifier: MIT
/*
 * check_brief.c: the library's brief helpers (src/core/brief_parse.c): the
 * LD_PRELOAD list the report is started with holds no libhangtrace, and
 * the library's folder is found in /proc/self/maps text.
 */
#include <check.h>
#include <string.h>

#include "brief.h"
#include "ht_check.h"

START_TEST(test_strip_preload)
{
	char out[256];
	ck_assert_int_eq(ht_brief_strip_preload("/opt/ht/lib/libhangtrace.so", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "");
	ck_assert_int_gt(ht_brief_strip_preload("/a/libx.so /b/libhangtrace.so:/c/liby.so", out,
						sizeof(out)), 0);
	ck_assert_str_eq(out, "/a/libx.so:/c/liby.so");
	ht_brief_strip_preload("libhangtrace.so::libjemalloc.so.2", out, sizeof(out));
	ck_assert_str_eq(out, "libjemalloc.so.2");
	/* Only the file name counts: a folder named like us is kept. */
	ht_brief_strip_preload("/libhangtrace/libz.so", out, sizeof(out));
	ck_assert_str_eq(out, "/libhangtrace/libz.so");
	ck_assert_int_eq(ht_brief_strip_preload("/a/libx.so:/b/liby.so", out, 8), -1);
}
END_TEST

START_TEST(test_lib_folder)
{
	static const char maps[] =
		"55d0c0000000-55d0c0001000 r--p 00000000 08:01 123   /usr/bin/python3.11\n"
		"7f0000000000-7f0000010000 r-xp 00001000 08:01 456   /work/my build/libhangtrace.so\n"
		"7f0000010000-7f0000020000 rw-p 00000000 00:00 0 \n"
		"7f0000020000-7f0000030000 r-xp 00000000 08:01 789   /opt/ht/lib/libhangtrace.so (deleted)\n";
	char out[128];
	ck_assert(ht_brief_lib_folder(maps, strlen(maps), 0x7f0000000800UL, out, sizeof(out)));
	ck_assert_str_eq(out, "/work/my build");
	ck_assert(ht_brief_lib_folder(maps, strlen(maps), 0x7f0000020010UL, out, sizeof(out)));
	ck_assert_str_eq(out, "/opt/ht/lib");
	ck_assert(!ht_brief_lib_folder(maps, strlen(maps), 0x7f0000010010UL, out, sizeof(out)));
	ck_assert(!ht_brief_lib_folder(maps, strlen(maps), 0x1000UL, out, sizeof(out)));
	ck_assert(!ht_brief_lib_folder(maps, strlen(maps), 0x7f0000000800UL, out, 8));
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("brief");
	TCase *t = tcase_create("parse");
	tcase_add_test(t, test_strip_preload);
	tcase_add_test(t, test_lib_folder);
	suite_add_tcase(s, t);
	return s;
}

HT_CHECK_SUITE(make)
