// SPDX-License-Identifier: MIT
/*
 * main.c: `hangtrace`, the command: run a rank under the library, ask
 * traced processes for a dump, report on a job's traces.
 */
#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "hangtrace.h"

static const char usage[] =
	"NAME\n"
	"    hangtrace - find out why a distributed GPU job hangs at startup\n"
	"\n"
	"SYNOPSIS\n"
	"    hangtrace run [--dir D] [--timeout S] [--on-stall dump|abort] -- CMD [ARGS...]\n"
	"    hangtrace report [--json | --brief] [--html FILE] [--chrome-trace FILE] DIR...\n"
	"    hangtrace digest [-o FILE] DIR...\n"
	"    hangtrace watch [--interval S] DIR...\n"
	"    hangtrace dump DIR\n"
	"    hangtrace check [--dir D] [--timeout S] [--port P] [--nccl]\n"
	"    hangtrace --lib-path\n"
	"    hangtrace --help | --version\n"
	"\n"
	"DESCRIPTION\n"
	"    run     runs CMD (one rank) with libhangtrace.so preloaded: every startup\n"
	"            phase is timestamped into DIR/<host>.<pid>.jsonl, and a rank that\n"
	"            stalls past the timeout (default 300 s) dumps every thread's stack.\n"
	"    report  reads the trace files of a job and names the rank that is missing,\n"
	"            stuck or wrong, in which phase, why, and what to change.\n"
	"    digest  reads the traces of one node (or digests) and writes what the report\n"
	"            needs of them as one JSON line; hangtrace report reads digests too.\n"
	"    check   launched like the job, runs the quick checks on every rank (see\n"
	"            hangtrace check --help); hangtrace report D reads them.\n"
	"    watch   shows every rank's phase and the verdicts live, redrawn every 2 s.\n"
	"    dump    asks every traced process of this host listed in DIR for a dump now.\n"
	"    --lib-path\n"
	"            prints the path of the libhangtrace.so that run preloads, for job\n"
	"            scripts that set LD_PRELOAD themselves:\n"
	"            export LD_PRELOAD=$(hangtrace --lib-path)\n"
	"\n"
	"EXIT STATUS\n"
	"    run: the exit status of CMD (127 if it cannot be run, 2 on a usage error).\n"
	"    report: 0 no error found, 1 a verdict of severity error, 2 nothing readable\n"
	"    or a usage error. dump: 0 when a process was signalled, 1 when none, 2 usage.\n"
	"    --lib-path: 0, or 1 when no library lies beside the command.\n"
	"\n"
	"ENVIRONMENT\n"
	"    HANGTRACE_DIR, HANGTRACE_TIMEOUT, HANGTRACE_ON_STALL, HANGTRACE_BRIEF, HANGTRACE_RANK,\n"
	"    HANGTRACE_WORLD_SIZE, HANGTRACE_LOCAL_RANK, HANGTRACE_NCCL_LOG,\n"
	"    HANGTRACE_DISABLE: see the README.\n";

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? HT_EXIT_USAGE : HT_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("hangtrace %s\n", HT_VERSION);
		return HT_EXIT_OK;
	}
	if (strcmp(argv[1], "--lib-path") == 0) {
		char lib[PATH_MAX];
		if (!ht_cli_find_library(lib, sizeof(lib))) {
			warnx("cannot find libhangtrace.so beside this program "
			      "(looked in its folder, ../lib and ../lib/hangtrace)");
			return 1;
		}
		puts(lib);
		return HT_EXIT_OK;
	}
	if (strcmp(argv[1], "run") == 0)
		return ht_run_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "report") == 0)
		return ht_report_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "digest") == 0)
		return ht_digest_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "check") == 0)
		return ht_check_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "watch") == 0)
		return ht_watch_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "dump") == 0)
		return ht_dump_main(argc - 1, argv + 1);
	fprintf(stderr, "hangtrace: unknown command '%s' (try hangtrace --help)\n", argv[1]);
	return HT_EXIT_USAGE;
}
