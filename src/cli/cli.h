// SPDX-License-Identifier: MIT
/*
 * cli.h: the subcommands of `hangtrace` and what they share.
 */
#ifndef HT_CLI_H
#define HT_CLI_H

#include <stdbool.h>
#include <stddef.h>

/* Exit statuses (documented in `hangtrace --help`). */
enum { HT_EXIT_OK = 0, HT_EXIT_VERDICT = 1, HT_EXIT_USAGE = 2 };

int ht_run_main(int argc, char **argv);
int ht_dump_main(int argc, char **argv);
int ht_check_main(int argc, char **argv);
int ht_report_main(int argc, char **argv);
int ht_digest_main(int argc, char **argv);
int ht_watch_main(int argc, char **argv);

/* The default trace folder for this environment, as the library computes
 * it ("./hangtrace.<job>"), made absolute. */
void ht_cli_default_dir(char *out, size_t cap);
/* --threads N of report and digest: 1 to 64 into *out; false (said on
 * stderr) otherwise. */
bool ht_cli_threads(const char *arg, int *out);

/* The library beside this program, made absolute into out[cap]: in its
 * folder (build/ of the tree), ../lib (make install; the wheel's
 * hangtrace/bin and hangtrace/lib) or ../lib/hangtrace. False when none is
 * readable there. */
bool ht_cli_find_library(char *out, size_t cap);

#endif
