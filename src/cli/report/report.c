// SPDX-License-Identifier: MIT
/*
 * report.c: `hangtrace report`. (Placeholder until the report lands.)
 */
#include <stdio.h>

#include "cli.h"

int ht_report_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "hangtrace: report: not built yet\n");
	return HT_EXIT_USAGE;
}
