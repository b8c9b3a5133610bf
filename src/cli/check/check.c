// SPDX-License-Identifier: MIT
/*
 * check.c: `hangtrace check [--dir D] [--timeout S] [--port P] [--nccl]`
 * (SPEC section 1): launched like the job, one process per rank, it runs
 * the field's quick checks where the job would run and writes every
 * result as a trace line to D/<host>.<pid>.jsonl (doc/trace-format.md,
 * "check"). This file holds the options and the order of the steps (the
 * trace file is trace.c's); it must end within S seconds whatever the
 * other ranks do.
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
	/* %h and %j, as the library does (a node-local folder per host). */
	static char dir[sizeof(o.dir) + 256];
	ht_dir_expand(dir, sizeof(dir), c.dir, c.f.host, c.id.job);
	c.dir = dir;
	if ((rc = ht_chk_open(&c)) < 0) {
		warnx("cannot write the trace in %s: %s", c.dir, strerror(-rc));
		return HT_EXIT_USAGE;	/* not a check that failed: no check ran */
	}
	ht_chk_header(&c);
	ht_chk_local(&c);
	ht_chk_meet(&c);
	int status = c.failed > 0 ? HT_EXIT_VERDICT : HT_EXIT_OK;
	ht_chk_exit_line(&c, status);
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
