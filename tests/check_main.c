// SPDX-License-Identifier: MIT
/*
 * check_main.c: the one runner of the Check suites. Suites register
 * themselves (ht_check.h); CK_RUN_SUITE and CK_RUN_CASE select as usual.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ht_check.h"

static Suite *(*suites[64])(void);
static int nsuites;

void ht_check_register(Suite *(*make)(void))
{
	if (nsuites < (int)(sizeof(suites) / sizeof(suites[0])))
		suites[nsuites++] = make;
}

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	for (int i = 0; i < nsuites; i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
