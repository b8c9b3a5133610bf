// SPDX-License-Identifier: MIT
/*
 * digest.c: `hangtrace digest DIR... [-o FILE]` (SPEC section 1): reads
 * the traces of one node (or of any set of ranks, or other digests) as the
 * report reads them and writes what it found as one digest, one JSON line
 * (read/digest_write.c, doc/trace-format.md "Digests"), to stdout or FILE.
 * `hangtrace report` over digests, alone or mixed with folders, says what
 * it says over the traces themselves. Digests given as input are merged:
 * one digest out.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"

static const char usage[] =
	"NAME\n"
	"    hangtrace digest - what the report needs of a node's traces, in one line\n"
	"\n"
	"SYNOPSIS\n"
	"    hangtrace digest [-o FILE] DIR...\n"
	"\n"
	"DESCRIPTION\n"
	"    Reads every *.jsonl trace file under each DIR (as hangtrace report does; a DIR\n"
	"    may be a trace file, or a file of digests, which are merged) and writes one\n"
	"    digest (format " HT_DIGEST_FORMAT "): one JSON line holding the processes as\n"
	"    the report reads them, the warnings about the files, and the trace lines the\n"
	"    report may quote, with their file and line. Digests of several nodes,\n"
	"    concatenated in one file or given one by one, and folders mixed with them,\n"
	"    give the report the traces would give:\n"
	"\n"
	"        srun --ntasks-per-node=1 hangtrace digest $TMPDIR/ht-$SLURM_JOB_ID > job.digests\n"
	"        hangtrace report job.digests\n"
	"\n"
	"OPTIONS\n"
	"    -o FILE       write the digest to FILE (default: standard output)\n"
	"    --threads N   read files on N threads (default: the processors, up to 8)\n"
	"    -h, --help    this text\n"
	"\n"
	"EXIT STATUS\n"
	"    0  the digest was written (warnings about the files are in it, as the report\n"
	"       gives them)\n"
	"    2  nothing to read, a usage error, or the digest could not be written\n";

enum { OPT_THREADS = 1 };

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int ht_digest_main(int argc, char **argv)
{
	const char *out = NULL;
	int threads = 0, c;
	struct rep_job job;

	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_THREADS:
			threads = atoi(optarg);
			if (threads < 1 || threads > 64) {
				warnx("--threads takes 1 to 64, not '%s'", optarg);
				return HT_EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return HT_EXIT_OK;
		default:
			fputs("usage: hangtrace digest [-o FILE] DIR... (see --help)\n", stderr);
			return HT_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fputs("usage: hangtrace digest [-o FILE] DIR... (see --help)\n", stderr);
		return HT_EXIT_USAGE;
	}
	ht_rep_job_init(&job);
	job.nthreads = threads;
	ht_rep_digest_prepare(&job);
	ht_rep_add_inputs(&job, argv + optind, (size_t)(argc - optind));
	if (job.nfiles == 0) {
		warnx("nothing to read: no trace files found");
		ht_rep_job_free(&job);
		return HT_EXIT_USAGE;
	}
	ht_rep_read(&job);
	FILE *f = out != NULL ? fopen(out, "w") : stdout;
	if (f == NULL) {
		warn("%s", out);
		ht_rep_job_free(&job);
		return HT_EXIT_USAGE;
	}
	int rc = ht_rep_digest_write(&job, f);
	if (fflush(f) != 0 || ferror(f))
		rc = -1;
	if (out != NULL && fclose(f) != 0)
		rc = -1;
	if (rc != 0)
		warn("%s: could not write the digest", out != NULL ? out : "standard output");
	ht_rep_job_free(&job);
	return rc != 0 ? HT_EXIT_USAGE : HT_EXIT_OK;
}
