// SPDX-License-Identifier: MIT
/*
 * ht_check.h: how a Check suite joins the one runner. Each tests/<dir>/check_*.c
 * defines a `Suite *make(void)` and registers it with HT_CHECK_SUITE(make);
 * tests/check_main.c runs every registered suite.
 */
#ifndef HT_TESTS_CHECK_H
#define HT_TESTS_CHECK_H

#include <check.h>

void ht_check_register(Suite *(*make)(void));

#define HT_CHECK_SUITE(fn) \
	static void __attribute__((constructor)) ht_check_reg_##fn(void) { ht_check_register(fn); }

#endif
