// SPDX-License-Identifier: MIT
/*
 * digest.c: `hangtrace digest DIR... [-o FILE]` (SPEC section 1): reads
 * the traces of one node (or of any set of ranks, or other digests) as the
 * report reads them and writes what it found as one digest, one JSON line
 * (read/digest_write.c, doc/trace-format.md "Digests"), to stdout or FILE;
 * under a launcher onto a pipe or a pty, in part lines (read/digest.h).
 * `hangtrace report` over digests, alone or mixed with folders, says what
 * it says over the traces themselves. Digests given as input are merged:
 * one digest out.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"

/* Under a launcher (mpirun, srun), whose forwarding of the tasks' standard
 * output (a pty or a pipe) cuts long lines of several tasks into each
 * other: the digest goes in parts (read/digest.h). Not into a file. */
static bool in_parts(void)
{
	static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
						 "SLURM_PROCID" };
	struct stat st;
	bool launched = false;
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]); i++)
		launched |= getenv(rank_vars[i]) != NULL;
	return launched && fstat(STDOUT_FILENO, &st) == 0 && !S_ISREG(st.st_mode);
}

/* Gives the launcher time to read a part line before the next: a pty's
 * output queue says nothing of what mpirun's daemon has read (and a
 * pipe's unread bytes only where one is used), so each part line is
 * followed by a pause of 2 ms; a read of the launcher then holds one part
 * line, forwarded whole, between other ranks' lines. A digest that still
 * comes through cut is named by the report (how many parts it has). */
static void drained(void)
{
	struct stat st;
	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode)) {
		for (int i = 0; i < 20000; i++) {
			int n = 0;
			if (ioctl(STDOUT_FILENO, FIONREAD, &n) != 0 || n == 0)
				break;
			usleep(100);
		}
	}
	usleep(2000);
}

#define PART_LINE 900	/* bytes of a part's data as written (escaped): under a pty's read */

/* The end of the part that starts at at: as much text as escapes into
 * PART_LINE bytes, cut between UTF-8 characters. */
static size_t part_end(const char *text, size_t len, size_t at)
{
	size_t k = at, out = 0;
	while (k < len) {
		unsigned char c = (unsigned char)text[k];
		size_t w = c == '"' || c == '\\' ? 2 : c < 0x20 ? 6 : 1;
		if (out + w > PART_LINE && k > at)
			break;
		out += w;
		k++;
	}
	while (k < len && k > at + 1 && ((unsigned char)text[k] & 0xC0) == 0x80)
		k--;
	return k;
}

static int write_parts(struct rep_job *job)
{
	char *text = NULL, host[256], id[320];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (m == NULL)
		return -1;
	int rc = ht_rep_digest_write(job, m);
	if (fclose(m) != 0 || rc != 0) {
		free(text);
		return -1;
	}
	while (len > 0 && text[len - 1] == '\n')
		len--;
	if (gethostname(host, sizeof(host)) != 0)
		strcpy(host, "unknown");
	host[sizeof(host) - 1] = '\0';
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(id, sizeof(id), "%s.%d.%lld%09ld", host, (int)getpid(), (long long)ts.tv_sec,
		 ts.tv_nsec);
	size_t cuts = 0;
	for (size_t at = 0; at < len; cuts++)
		at = part_end(text, len, at);
	size_t at = 0;
	for (size_t i = 0; i < cuts && rc == 0; i++) {
		size_t k = part_end(text, len, at);
		json_t *o = json_pack("{s:s,s:I,s:I,s:s%}", "digest_part", id, "i", (json_int_t)i,
				      "n", (json_int_t)cuts, "data", text + at, k - at);
		char *line = o != NULL ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		json_decref(o);
		if (line == NULL) {
			rc = -1;
			break;
		}
		size_t n = strlen(line);
		line[n++] = '\n';	/* json_dumps' NUL: room for the newline */
		drained();
		if (write(STDOUT_FILENO, line, n) != (ssize_t)n)
			rc = -1;
		free(line);
		at = k;
	}
	free(text);
	return rc;
}

static const char usage[] =
	"NAME\n"
	"    hangtrace digest - what the report needs of a node's traces, in one line\n"
	"\n"
	"SYNOPSIS\n"
	"    hangtrace digest [-o FILE] DIR...\n"
	"\n"
	"DESCRIPTION\n"
	"    Reads every *.jsonl trace file under each DIR (as hangtrace report does; a DIR\n"
	"    may be a trace file, or a file or pipe of digests, - for standard input,\n"
	"    which are merged) and writes one digest (format " HT_DIGEST_FORMAT "):\n"
	"    one JSON line holding the processes as the report reads them, the warnings\n"
	"    about the files, and the trace lines the report may quote, with their file\n"
	"    and line. Digests of several nodes, concatenated in one file or given one by\n"
	"    one, and folders mixed with them, give the report the traces would give:\n"
	"\n"
	"        srun --ntasks-per-node=1 hangtrace digest $TMPDIR/ht-$SLURM_JOB_ID > job.digests\n"
	"        hangtrace report job.digests\n"
	"\n"
	"    Under a launcher (srun, mpirun: a rank variable set) onto a pipe or a pty,\n"
	"    whose forwarding cuts long lines of several tasks into each other, the\n"
	"    line goes in parts of under 1 KB, 2 ms apart; the report joins them.\n"
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
			if (!ht_cli_threads(optarg, &threads))
				return HT_EXIT_USAGE;
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
	if (out == NULL && in_parts()) {
		int prc = write_parts(&job);
		ht_rep_job_free(&job);
		if (prc != 0)
			warn("standard output: could not write the digest");
		return prc != 0 ? HT_EXIT_USAGE : HT_EXIT_OK;
	}
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
