// SPDX-License-Identifier: MIT
/*
 * report.c: `hangtrace report [--json] [--chrome-trace FILE] DIR...`
 * (SPEC section 8): reads every trace file under the folders given, runs
 * the model, the verdict rules and the stack merger, and prints the report
 * for a person, or as JSON. Exit status: 2 when nothing could be read or
 * the command line is wrong, else 1 when a verdict of severity error was
 * found, else 0.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "render/check_report.h"
#include "render/live.h"
#include "report.h"

#define STDERR_WARNINGS 20

/* The stages after reading: the model (trees, ranks, hosts, states), the
 * stack groups, who waits for whom, the rules, their order (root causes
 * first, what follows from them after), the groups' order (by the
 * verdicts that blame them). */
void ht_rep_analyse(struct rep_job *job)
{
	ht_rep_model(job);
	ht_rep_stacks(job);
	ht_rep_graph(job);
	ht_rep_workers(job);
	ht_rep_activities(job);
	ht_rep_verdicts(job);
	ht_rep_order(job);
	ht_rep_rules_stacks(job);
}

/* A pipe, a socket or a terminal (or "-", standard input): read once,
 * as it comes, so only as digests (a folder of traces is read from disk). */
static bool is_stream(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
					 S_ISCHR(st.st_mode));
}

void ht_rep_add_inputs(struct rep_job *job, char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *what = "no *.jsonl trace files in it";
		const char *path = strcmp(paths[i], "-") == 0 ? "/dev/stdin" : paths[i];
		int r;
		if (is_stream(path)) {
			r = ht_rep_add_digest(job, path);
			if (r == -EINVAL || r == 0) {
				warnx("%s: read as it comes (not a file or a folder), and no digest of "
				      "format %s in it: give a stream only digests (hangtrace digest), "
				      "trace folders by their path", paths[i], HT_DIGEST_FORMAT);
				continue;
			}
		} else if (ht_rep_is_digest(path)) {
			r = ht_rep_add_digest(job, path);
			what = "no digest in it";
			if (r == -EINVAL) {
				char says[64];
				ht_rep_digest_says(path, says, sizeof(says));
				warnx("%s: not a digest of format %s (its first line says \"%s\"): digest its "
				      "traces again with this hangtrace (%s)", paths[i], HT_DIGEST_FORMAT,
				      says, HT_VERSION);
				continue;
			}
		} else {
			r = ht_rep_add_path(job, path);
		}
		if (r < 0)
			warnx("%s: %s", paths[i], strerror(-r));
		else if (r == 0)
			warnx("%s: %s", paths[i], what);
	}
	ht_rep_digest_load(job);
}

void ht_rep_job_free(struct rep_job *job)
{
	ht_rep_verdicts_free(job);
	ht_rep_stacks_free(job);
	ht_rep_model_free(job);
	ht_rep_read_free(job);
	memset(job, 0, sizeof(*job));
}

static const char usage[] =
	"NAME\n"
	"    hangtrace report - say which rank of a job is missing, stuck or wrong, and why\n"
	"\n"
	"SYNOPSIS\n"
	"    hangtrace report [--json | --brief] [--html FILE] [--chrome-trace FILE]\n"
	"                     [--color WHEN] DIR...\n"
	"\n"
	"DESCRIPTION\n"
	"    Reads every *.jsonl trace file under each DIR (searched recursively: give one\n"
	"    folder, or one per node) and prints: a summary of the job (hosts, ranks\n"
	"    expected and seen, the phase every rank reached); the verdicts, most likely\n"
	"    root cause first, each with the ranks it blames, the trace lines that prove it\n"
	"    and what to try; and the main threads' stacks of the ranks blamed and the\n"
	"    ranks stalled, identical stacks merged, the blamed first, then the odd one\n"
	"    out. A DIR may also be a single trace file, or a file of digests (hangtrace\n"
	"    digest: one a line), alone or mixed with folders, in any order: the report is\n"
	"    the one the traces they digest would give. Digests may also come through a\n"
	"    pipe, or standard input as -:\n"
	"        srun --ntasks-per-node=1 hangtrace digest DIR | hangtrace report -\n"
	"\n"
	"OPTIONS\n"
	"    --json               print one JSON object (format hangtrace-report/1) instead\n"
	"                         of the text report\n"
	"    --brief              print only the job in one line, the first verdicts in one\n"
	"                         line each and this command for the rest (at most 12\n"
	"                         lines; what the library prints in the job's log on a stall)\n"
	"    --html FILE          also write one self-contained page (no network fetch): the\n"
	"                         summary, the verdicts with evidence, every rank's timeline\n"
	"                         and the merged stacks as a tree that folds\n"
	"    --time-limit S       end (by SIGALRM) after S seconds, however far it got\n"
	"                         (the library's brief passes 10: a report it started must\n"
	"                         not outlive a job that ended meanwhile)\n"
	"    --chrome-trace FILE  also write every rank's phases and blocking calls as a\n"
	"                         timeline for Perfetto or chrome://tracing (Trace Event\n"
	"                         Format, one row per rank, stalls marked, an arrow from\n"
	"                         each waiting rank to the rank it waits for)\n"
	"    --color WHEN         auto (default: on a terminal, unless NO_COLOR is set),\n"
	"                         always or never\n"
	"    --threads N          read files on N threads (default: the processors, up to 8)\n"
	"    -h, --help           this text\n"
	"\n"
	"WARNINGS\n"
	"    A line or file that cannot be read (a truncated last line, a file that is not\n"
	"    a trace, an unknown event type) is a warning naming the file and line, on\n"
	"    stderr and in the JSON's \"warnings\"; everything else is still used.\n"
	"\n"
	"EXIT STATUS\n"
	"    0  no verdict of severity error\n"
	"    1  at least one verdict of severity error\n"
	"    2  nothing could be read, a usage error, or an output (--html, --chrome-trace,\n"
	"       the report itself) that could not be written whole\n";

enum { OPT_JSON = 1, OPT_BRIEF, OPT_HTML, OPT_TIME_LIMIT, OPT_CHROME, OPT_COLOR, OPT_THREADS };

static const struct option longopts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "brief", no_argument, NULL, OPT_BRIEF },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "time-limit", required_argument, NULL, OPT_TIME_LIMIT },
	{ "chrome-trace", required_argument, NULL, OPT_CHROME },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "colour", required_argument, NULL, OPT_COLOR },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void print_warnings(const struct rep_job *job)
{
	size_t shown = 0;
	for (size_t i = 0; i < job->nwarns && shown < STDERR_WARNINGS; i++, shown++) {
		const struct rep_warning *w = &job->warns[i];
		const char *name = w->file < job->nfiles ? job->files[w->file].name : "";
		if (w->line > 0)
			warnx("%s:%u: %s", name, w->line, w->msg);
		else
			warnx("%s%s%s", name, name[0] != '\0' ? ": " : "", w->msg);
	}
	size_t rest = job->nwarns - shown + job->warns_dropped;
	if (rest > 0)
		warnx("%zu more warning%s (see --json)", rest, rest == 1 ? "" : "s");
}

static bool want_colour(const char *when)
{
	if (strcmp(when, "always") == 0)
		return true;
	if (strcmp(when, "never") == 0)
		return false;
	const char *term = getenv("TERM");
	return isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL &&
	       (term == NULL || strcmp(term, "dumb") != 0);
}

/* Writes one output file with FN; false (said on stderr: the file, and why)
 * when it could not be opened or written whole. */
static bool write_output(const char *path, const char *what, struct rep_job *job,
			 int (*fn)(struct rep_job *, FILE *))
{
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		warn("%s: could not write %s", path, what);
		return false;
	}
	errno = 0;
	int rc = fn(job, f);
	int why = errno;	/* the failed write's, when one failed */
	int err = 0;
	if (fflush(f) != 0)
		err = errno;
	else if (ferror(f) || rc != 0)
		err = why != 0 ? why : rc < 0 ? -rc : EIO;
	if (fclose(f) != 0 && err == 0)
		err = errno;
	if (rc != 0 || err != 0) {
		warnx("%s: could not write %s: %s", path, what, strerror(err != 0 ? err : EIO));
		return false;
	}
	return true;
}

int ht_report_main(int argc, char **argv)
{
	bool json = false, brief = false;
	const char *html = NULL;
	const char *chrome = NULL, *colour = "auto";
	int threads = 0, c;
	struct rep_job job;

	/* Large blocks (a million ranks' sort buffers and tables, made and
	 * freed stage by stage) are mapped, and unmapped when freed: glibc
	 * would otherwise raise its threshold and keep them in the heap once
	 * freed, where the next stage's come on top of them. */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case OPT_BRIEF:
			brief = true;
			break;
		case OPT_HTML:
			html = optarg;
			break;
		case OPT_TIME_LIMIT: {
			int secs = atoi(optarg);
			if (secs < 1 || secs > 86400) {
				warnx("--time-limit takes 1 to 86400 seconds, not '%s'", optarg);
				return HT_EXIT_USAGE;
			}
			signal(SIGALRM, SIG_DFL);
			alarm((unsigned)secs);
			break;
		}
		case OPT_CHROME:
			chrome = optarg;
			break;
		case OPT_COLOR:
			if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "always") != 0 &&
			    strcmp(optarg, "never") != 0) {
				warnx("--color takes auto, always or never, not '%s'", optarg);
				return HT_EXIT_USAGE;
			}
			colour = optarg;
			break;
		case OPT_THREADS:
			if (!ht_cli_threads(optarg, &threads))
				return HT_EXIT_USAGE;
			break;
		case 'h':
			fputs(usage, stdout);
			return HT_EXIT_OK;
		default:
			fputs("usage: hangtrace report [--json] [--chrome-trace FILE] DIR... "
			      "(see --help)\n", stderr);
			return HT_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fputs("usage: hangtrace report [--json] [--chrome-trace FILE] DIR... (see --help)\n",
		      stderr);
		return HT_EXIT_USAGE;
	}
	ht_rep_job_init(&job);
	job.nthreads = threads;
	ht_rep_add_inputs(&job, argv + optind, (size_t)(argc - optind));
	if (job.nfiles == 0) {
		warnx("nothing to read: no trace files found");
		ht_rep_job_free(&job);
		return HT_EXIT_USAGE;
	}
	size_t n = ht_rep_read(&job);
	if (!brief)	/* in the job's log: a line cut by a live writer is no news */
		print_warnings(&job);
	if (n == 0) {
		warnx("nothing could be read: no process record in %zu file%s", job.nfiles,
		      job.nfiles == 1 ? "" : "s");
		ht_rep_job_free(&job);
		return HT_EXIT_USAGE;
	}
	ht_rep_analyse(&job);
	ht_rep_check_failed_hosts(&job, argv[optind]);	/* a check run's (check_report.h) */

	/* An output asked for and not written is a failure of the command
	 * (exit 2), whatever the verdicts: say which and why. */
	bool out_failed = false;
	if (chrome != NULL)
		out_failed |= !write_output(chrome, "the timeline", &job, ht_rep_chrome);
	if (html != NULL)
		out_failed |= !write_output(html, "the page", &job, ht_rep_html);
	if (brief) {
		ht_rep_brief(&job, stdout, argv + optind, (size_t)(argc - optind));
	} else if (json) {
		if (ht_rep_json(&job, stdout) != 0) {
			warnx("could not write the JSON report");
			out_failed = true;
		}
	} else {
		ht_rep_text(&job, stdout, want_colour(colour));
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warn("standard output: could not write the report");
		out_failed = true;
	}
	int status = ht_rep_has_error(&job) ? HT_EXIT_VERDICT : HT_EXIT_OK;
	ht_rep_job_free(&job);
	return out_failed ? HT_EXIT_USAGE : status;
}
