// SPDX-License-Identifier: MIT
/*
 * check_elfsym.c: the dump's symbolizer: /proc/self/maps parsing, names
 * from .symtab for static and global functions of this very program and of
 * libc, and lookups by name.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ht_check.h"
#include "elfsym.h"

__attribute__((noinline)) static int local_marker(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int ht_test_global_marker(int x);
__attribute__((noinline)) int ht_test_global_marker(int x)
{
	return local_marker(x) + 2;
}

START_TEST(maps_parse)
{
	struct ht_arena a;
	struct ht_maps m;
	static const char text[] =
		"55d0c0a00000-55d0c0a01000 r--p 00000000 fd:00 123  /usr/bin/prog\n"
		"55d0c0a01000-55d0c0a05000 r-xp 00001000 fd:00 123  /usr/bin/prog\n"
		"7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n"
		"7f1000000000-7f1000002000 r-xp 00000000 00:00 0   [vdso]\n"
		"7f2000000000-7f2000001000 r-xp 00002000 fd:00 9   /lib/with space.so (deleted)\n";
	ck_assert_int_eq(ht_arena_open(&a, 1 << 20), 0);
	ck_assert_int_eq(ht_maps_parse(&a, text, &m), 0);
	ck_assert_uint_eq(m.n, 4);	/* the anonymous mapping is left out */
	ck_assert_str_eq(m.m[1].path, "/usr/bin/prog");
	ck_assert_ptr_eq(m.m[0].path, m.m[1].path);	/* one copy per file */
	ck_assert_uint_eq(m.m[1].off, 0x1000);
	ck_assert_str_eq(m.m[2].path, "[vdso]");
	ck_assert_str_eq(m.m[3].path, "/lib/with space.so (deleted)");
	ck_assert_ptr_eq(ht_maps_find(&m, 0x55d0c0a01234), &m.m[1]);
	ck_assert_ptr_null(ht_maps_find(&m, 0x7f0000000010));
	ck_assert_ptr_null(ht_maps_find(&m, 0x10));
	ht_arena_close(&a);
}
END_TEST

START_TEST(names_from_symtab)
{
	struct ht_arena a;
	struct ht_maps m;
	struct ht_symq q[4];

	ck_assert_int_eq(ht_arena_open(&a, 16 << 20), 0);
	ck_assert_int_eq(ht_maps_read(&a, &m), 0);
	q[0].addr = (uintptr_t)local_marker + 2;	/* static: only in .symtab */
	q[1].addr = (uintptr_t)ht_test_global_marker + 1;
	q[2].addr = (uintptr_t)getpid;			/* libc (ASan takes strlen) */
	q[3].addr = 16;					/* nothing there */
	ht_symbolize(&a, &m, q, 4);
	ck_assert_ptr_nonnull(q[0].name);
	ck_assert_str_eq(q[0].name, "local_marker");
	ck_assert_str_eq(q[1].name, "ht_test_global_marker");
	ck_assert_ptr_nonnull(q[2].map);
	ck_assert_ptr_nonnull(strstr(q[2].map->path, "libc.so"));
	ck_assert_ptr_null(q[3].map);
	ck_assert_ptr_null(q[3].name);
	/* Looking a function up by name gives its address back. */
	const struct ht_map *me = ht_maps_find(&m, (uintptr_t)local_marker);
	ck_assert_ptr_nonnull(me);
	ck_assert_uint_eq(ht_sym_lookup(&m, me->path, "local_marker"), (uintptr_t)local_marker);
	ck_assert_uint_eq(ht_sym_lookup(&m, me->path, "no_such_function_here"), 0);
	ck_assert_str_eq(ht_basename("/a/b/libc.so.6"), "libc.so.6");
	ht_arena_close(&a);
}
END_TEST

/* libc exports malloc and not our names; the span of the object holding
 * malloc holds malloc and free, and no object holds address 16. */
START_TEST(exports_and_span)
{
	Dl_info di;
	ck_assert(dladdr((void *)(uintptr_t)&malloc, &di) != 0 && di.dli_fname != NULL);
	ck_assert(ht_elf_exports(di.dli_fname, "malloc"));
	ck_assert(ht_elf_exports(di.dli_fname, "free"));
	ck_assert(!ht_elf_exports(di.dli_fname, "ht_elf_exports"));
	ck_assert(!ht_elf_exports(di.dli_fname, "mallo"));
	ck_assert(!ht_elf_exports("/nonexistent/libc.so.6", "malloc"));
	ck_assert(!ht_elf_exports("/proc/self/status", "malloc"));

	uintptr_t lo = 0, hi = 0, m = (uintptr_t)&malloc, f = (uintptr_t)&free;
	ck_assert(ht_object_span(&malloc, &lo, &hi));
	ck_assert(lo <= m && m < hi && lo <= f && f < hi);
	ck_assert(!ht_object_span((const void *)16, &lo, &hi));
}
END_TEST

START_TEST(arena_bounds)
{
	struct ht_arena a;
	ck_assert_int_eq(ht_arena_open(&a, 4096), 0);
	ck_assert_ptr_nonnull(ht_arena_alloc(&a, 4000));
	ck_assert_ptr_null(ht_arena_alloc(&a, 200));
	ck_assert_ptr_null(ht_arena_alloc(&a, SIZE_MAX));
	ht_arena_close(&a);
	ck_assert_ptr_null(ht_arena_alloc(&a, 1));
}
END_TEST

static Suite *elfsym_suite(void)
{
	Suite *s = suite_create("elfsym");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, maps_parse);
	tcase_add_test(tc, names_from_symtab);
	tcase_add_test(tc, arena_bounds);
	tcase_add_test(tc, exports_and_span);
	suite_add_tcase(s, tc);
	return s;
}
HT_CHECK_SUITE(elfsym_suite)
