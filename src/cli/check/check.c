// SPDX-License-Identifier: MIT
/*
 * check.c: `hangtrace check [--dir D] [--timeout S] [--port P] [--nccl]`
 * (SPEC section 1): launched like the job, one process per rank, it runs
 * the field's quick checks where the job would run and writes every
 * result as a trace line to D/<host>.<pid>.jsonl (doc/trace-format.md,
 * "check"). This file holds the options, the trace file and the order of
 * the steps; it must end within S seconds whatever the other ranks do.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "procfs.h"

extern char **environ;


static const char usage[] =
	"NAME\n"
	"    hangtrace check - the quick checks of a job's launch, on every rank, before the job\n"
	"\n"
	"SYNOPSIS\n"
	"    srun hangtrace check [--dir D] [--timeout S] [--port P] [--nccl | --no-nccl]\n"
	"    mpirun -np N hangtrace check ...; RANK=.. WORLD_SIZE=.. hangtrace check ...\n"
	"\n"
	"DESCRIPTION\n"
	"    Launched in place of the training command, with the same launcher and\n"
	"    variables. Every rank records its identity, the GPU its local rank would\n"
	"    take (through the driver), CUDA_VISIBLE_DEVICES, the driver, runtime and NCCL\n"
	"    versions, the interface NCCL would bootstrap from and its address, the\n"
	"    InfiniBand/RoCE ports NCCL_IB_HCA selects and their GIDs, /dev/shm, memlock\n"
	"    and what the host names resolve to. Rank 0 then listens where the rendezvous\n"
	"    would (MASTER_ADDR:MASTER_PORT, or --port); every rank connects to it with\n"
	"    its facts and clock; rank 0 names the ranks that never arrived and compares\n"
	"    what must agree (world size, versions, GPUs per host, addresses across\n"
	"    hosts, clocks). Each rank then connects to a peer on the next host at the\n"
	"    address NCCL would use, and with --nccl (the default where a GPU and\n"
	"    libnccl.so.2 are present) the ranks run a one-element all-reduce.\n"
	"    Every result is a trace line in D: read them with `hangtrace report D`.\n"
	"\n"
	"OPTIONS\n"
	"    --dir D       where the trace files go (default $HANGTRACE_DIR, else\n"
	"                  ./hangtrace-check)\n"
	"    --timeout S   end within S seconds, whatever the other ranks do (default 60)\n"
	"    --port P      the rendezvous port (default $MASTER_PORT, else 29500)\n"
	"    --nccl        run the NCCL all-reduce; --no-nccl: never\n"
	"    -h, --help    this text\n"
	"\n"
	"EXIT STATUS\n"
	"    0  every check passed as far as this rank can tell\n"
	"    1  a check failed (a rank that never arrived fails the ranks that waited)\n"
	"    2  a usage error, or its trace could not be written whole\n";

enum { OPT_DIR = 1, OPT_TIMEOUT, OPT_PORT, OPT_NCCL, OPT_NO_NCCL };

static const struct option longopts[] = {
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "nccl", no_argument, NULL, OPT_NCCL },
	{ "no-nccl", no_argument, NULL, OPT_NO_NCCL },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

double ht_chk_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double ht_chk_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double ht_chk_left(const struct chk *c, double frac)
{
	double left = c->t0 + c->timeout * frac - ht_chk_mono();
	return left > 0 ? left : 0;
}

void ht_chk_begin(struct chk *c, struct ht_jw *w, char *buf, size_t cap, enum ht_event_type t)
{
	(void)c;
	ht_jw_init(w, buf, cap);
	ht_jw_obj_begin(w, NULL);
	ht_jw_str(w, "t", ht_event_name(t));
	ht_jw_secs(w, "ts", ht_clock_ns(CLOCK_REALTIME));
	ht_jw_secs(w, "mono", ht_clock_ns(CLOCK_MONOTONIC));
	if (t != HT_EV_HEADER)
		ht_jw_int(w, "tid", (int64_t)syscall(SYS_gettid));
}

void ht_chk_emit(struct chk *c, struct ht_jw *w)
{
	size_t n = ht_jw_finish(w);
	if (c->fd >= 0 && n > 0 && write(c->fd, w->buf, n) != (ssize_t)n) {
		if (!c->write_failed)
			warn("%s: could not write a trace line", c->path);
		c->write_failed = true;
	}
}

void ht_chk_result(struct chk *c, enum ht_check_id id, const char *result, const char *code,
		   const int64_t *ranks, size_t n, const char *fmt, ...)
{
	char why[1024], buf[8192];
	struct ht_jw w;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	ht_chk_begin(c, &w, buf, sizeof(buf), HT_EV_CHECK);
	ht_jw_str(&w, "check", ht_check_name(id));
	ht_jw_str(&w, "result", result);
	ht_jw_str(&w, "code", code);
	ht_jw_str(&w, "why", why);
	if (c->facts[0] != '\0') {
		ht_jw_raw(&w, "facts", c->facts, strlen(c->facts));
		c->facts[0] = '\0';
	}
	if (ranks != NULL) {
		ht_jw_arr_begin(&w, "ranks");
		for (size_t i = 0; i < n; i++)
			ht_jw_int(&w, NULL, ranks[i]);
		ht_jw_end(&w);
	}
	ht_chk_emit(c, &w);
	if (strcmp(result, "fail") == 0) {
		c->failed++;
		fprintf(stderr, "hangtrace check: rank %lld: %s: FAIL: %s\n", (long long)c->id.rank,
			ht_check_name(id), why);
	}
}

/* The header line, with the fields the report's reader needs. */
static void header(struct chk *c, int argc, char **argv)
{
	static char buf[65536];
	struct ht_jw w;
	char cwd[1024], exe[1024], boot[40];
	ssize_t n;

	ht_chk_begin(c, &w, buf, sizeof(buf), HT_EV_HEADER);
	ht_jw_str(&w, "format", HT_TRACE_FORMAT);
	ht_jw_str(&w, "version", HT_VERSION);
	ht_jw_str(&w, "host", c->f.host);
	ht_jw_int(&w, "pid", getpid());
	ht_jw_int(&w, "ppid", getppid());
	ht_jw_int_or_null(&w, "rank", c->id.rank, c->id.rank >= 0);
	ht_jw_int_or_null(&w, "world_size", c->id.world_size, c->id.world_size >= 0);
	ht_jw_int_or_null(&w, "local_rank", c->id.local_rank, c->id.local_rank >= 0);
	ht_jw_str(&w, "launcher", c->id.launcher);
	ht_jw_str(&w, "job", c->id.job[0] != '\0' ? c->id.job : NULL);
	ht_jw_str(&w, "relevant", "check");
	ht_jw_arr_begin(&w, "cmdline");
	ht_jw_str(&w, NULL, "hangtrace");
	for (int i = 0; i < argc; i++)
		ht_jw_str(&w, NULL, argv[i]);
	ht_jw_end(&w);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	ht_jw_str(&w, "exe", exe);
	ht_jw_str(&w, "cwd", getcwd(cwd, sizeof(cwd)) != NULL ? cwd : "");
	ht_jw_obj_begin(&w, "env");
	for (char **e = environ; *e != NULL; e++) {
		const char *eq = strchr(*e, '=');
		char name[128];
		if (eq == NULL || !ht_env_allowed(*e) || (size_t)(eq - *e) >= sizeof(name))
			continue;
		memcpy(name, *e, (size_t)(eq - *e));
		name[eq - *e] = '\0';
		ht_jw_str(&w, name, eq + 1);
	}
	ht_jw_end(&w);
	ht_boot_id(boot);
	ht_jw_str(&w, "boot_id", boot);
	ht_jw_secs(&w, "timeout", (int64_t)(c->timeout * 1e9));
	ht_chk_emit(c, &w);
	ht_strlcpy(c->f.boot_id, boot, sizeof(c->f.boot_id));
}

static int open_trace(struct chk *c)
{
	if (mkdir(c->dir, 0777) != 0 && errno != EEXIST)
		return -errno;
	snprintf(c->path, sizeof(c->path), "%s/%s.%d.jsonl", c->dir, c->f.host, (int)getpid());
	c->fd = open(c->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	return c->fd >= 0 ? 0 : -errno;
}

static void exit_line(struct chk *c, int status)
{
	char buf[256];
	struct ht_jw w;
	ht_chk_begin(c, &w, buf, sizeof(buf), HT_EV_EXIT);
	ht_jw_int(&w, "status", status);
	ht_chk_emit(c, &w);
}

static int parse_args(struct chk *c, int argc, char **argv)
{
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		char *end;
		switch (ch) {
		case OPT_DIR:
			c->dir = optarg;
			break;
		case OPT_TIMEOUT:
			c->timeout = strtod(optarg, &end);
			if (*end != '\0' || !(c->timeout >= 1 && c->timeout <= 86400)) {
				warnx("--timeout takes seconds from 1 to 86400, not '%s'", optarg);
				return HT_EXIT_USAGE;
			}
			break;
		case OPT_PORT:
			c->port = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || c->port < 1 || c->port > 65535) {
				warnx("--port takes 1 to 65535, not '%s'", optarg);
				return HT_EXIT_USAGE;
			}
			break;
		case OPT_NCCL:
			c->nccl = 1;
			break;
		case OPT_NO_NCCL:
			c->nccl = 0;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			fputs("usage: hangtrace check [--dir D] [--timeout S] [--port P] [--nccl] "
			      "(see --help)\n", stderr);
			return HT_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		warnx("check takes no command: '%s' (see --help)", argv[optind]);
		return HT_EXIT_USAGE;
	}
	return 0;
}

int ht_check_main(int argc, char **argv)
{
	static struct chk c;
	struct ht_options o;

	memset(&c, 0, sizeof(c));
	c.t0 = ht_chk_mono();
	c.timeout = 60;
	c.nccl = -1;
	c.fd = -1;
	int rc = parse_args(&c, argc, argv);
	if (rc != 0)
		return rc < 0 ? HT_EXIT_OK : rc;
	ht_options_parse(environ, &o);
	ht_identity_from_env(environ, &o, &c.id);
	if (c.dir == NULL)
		c.dir = o.dir[0] != '\0' ? o.dir : "hangtrace-check";
	if (c.port == 0) {
		const char *p = ht_env_get(environ, "MASTER_PORT");
		int64_t v;
		c.port = p != NULL && ht_parse_i64(p, &v) && v > 0 && v < 65536 ? (int)v : 29500;
	}
	c.master = ht_env_get(environ, "MASTER_ADDR");
	if (gethostname(c.f.host, sizeof(c.f.host)) != 0)
		ht_strlcpy(c.f.host, "unknown", sizeof(c.f.host));
	c.f.host[sizeof(c.f.host) - 1] = '\0';
	for (char *p = c.f.host; *p != '\0'; p++)
		if (*p == '/')
			*p = '_';
	if ((rc = open_trace(&c)) < 0) {
		warnx("cannot write the trace in %s: %s", c.dir, strerror(-rc));
		return HT_EXIT_USAGE;	/* not a check that failed: no check ran */
	}
	header(&c, argc - 1, argv + 1);
	ht_chk_local(&c);
	ht_chk_meet(&c);
	int status = c.failed > 0 ? HT_EXIT_VERDICT : HT_EXIT_OK;
	exit_line(&c, status);
	if (close(c.fd) != 0 && !c.write_failed) {
		warn("%s: could not write the trace", c.path);
		c.write_failed = true;
	}
	/* A trace that lost lines cannot be reported on: not a check result. */
	if (c.write_failed) {
		warnx("%s: the trace is not whole; exit status 2", c.path);
		status = HT_EXIT_USAGE;
	}
	fflush(stdout);
	/* The all-reduce may still hang in NCCL's threads: end now. */
	_exit(status);
}
