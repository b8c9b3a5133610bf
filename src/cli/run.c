// SPDX-License-Identifier: MIT
/*
 * run.c: `hangtrace run`: prepends the library to LD_PRELOAD (keeping what
 * was there), sets the HANGTRACE_* variables and execs the command, so its
 * pid, signals and exit status are the job's own (SPEC section 1).
 */
#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "fmt.h"
#include "identity.h"
#include "options.h"

extern char **environ;

void ht_cli_default_dir(char *out, size_t cap)
{
	struct ht_options o;
	struct ht_identity id;
	char cwd[PATH_MAX];

	ht_options_parse(environ, &o);
	ht_identity_from_env(environ, &o, &id);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		strcpy(cwd, ".");
	snprintf(out, cap, "%s/hangtrace.%s", cwd, id.job[0] != '\0' ? id.job : "local");
}

bool ht_cli_threads(const char *arg, int *out)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (*end != '\0' || end == arg || v < 1 || v > 64) {
		warnx("--threads takes 1 to 64, not '%s'", arg);
		return false;
	}
	*out = (int)v;
	return true;
}

bool ht_cli_find_library(char *out, size_t cap)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return false;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (slash == NULL)
		return false;
	*slash = '\0';
	static const char *const where[] = { "/libhangtrace.so", "/../lib/libhangtrace.so",
					     "/../lib/hangtrace/libhangtrace.so" };
	for (size_t i = 0; i < HT_ARRAY_SIZE(where); i++) {
		char p[PATH_MAX + 64];
		snprintf(p, sizeof(p), "%s%s", self, where[i]);
		if (access(p, R_OK) == 0 && realpath(p, out) != NULL && strlen(out) < cap)
			return true;
	}
	return false;
}

static void prepend_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	if (old != NULL && old[0] != '\0') {
		/* Already first: nothing to do (a wrapper run twice). */
		size_t n = strlen(lib);
		if (strncmp(old, lib, n) == 0 && (old[n] == '\0' || old[n] == ':' || old[n] == ' '))
			return;
		size_t len = strlen(lib) + strlen(old) + 2;
		char *v = malloc(len);
		if (v == NULL)
			err(HT_EXIT_USAGE, "out of memory");
		snprintf(v, len, "%s:%s", lib, old);
		setenv("LD_PRELOAD", v, 1);
		free(v);
	} else {
		setenv("LD_PRELOAD", lib, 1);
	}
}

int ht_run_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 't' },
		{ "on-stall", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *timeout = NULL, *on_stall = NULL;
	int c;
	int64_t ns;

	while ((c = getopt_long(argc, argv, "+d:t:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 't':
			if (!ht_parse_secs(optarg, &ns) || ns <= 0) {
				warnx("run: --timeout '%s' is not a positive number of seconds", optarg);
				return HT_EXIT_USAGE;
			}
			timeout = optarg;
			break;
		case 's':
			if (strcmp(optarg, "dump") != 0 && strcmp(optarg, "abort") != 0) {
				warnx("run: --on-stall '%s' must be dump or abort", optarg);
				return HT_EXIT_USAGE;
			}
			on_stall = optarg;
			break;
		case 'h':
			printf("usage: hangtrace run [--dir D] [--timeout S] [--on-stall dump|abort] -- CMD [ARGS...]\n");
			return HT_EXIT_OK;
		default:
			return HT_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		warnx("run: no command given (usage: hangtrace run [OPTIONS] -- CMD [ARGS...])");
		return HT_EXIT_USAGE;
	}
	char lib[PATH_MAX];
	if (!ht_cli_find_library(lib, sizeof(lib))) {
		warnx("run: cannot find libhangtrace.so next to this program "
		      "(looked in its folder, ../lib and ../lib/hangtrace)");
		return HT_EXIT_USAGE;
	}
	char path[PATH_MAX + 64];
	if (dir != NULL) {
		char cwd[PATH_MAX];
		if (dir[0] != '/' && getcwd(cwd, sizeof(cwd)) != NULL)
			snprintf(path, sizeof(path), "%s/%s", cwd, dir);
		else
			snprintf(path, sizeof(path), "%s", dir);
		setenv("HANGTRACE_DIR", path, 1);
	} else if (getenv("HANGTRACE_DIR") == NULL) {
		/* Set it even by default: exec'd images find their file through it. */
		ht_cli_default_dir(path, sizeof(path));
		setenv("HANGTRACE_DIR", path, 1);
	}
	if (timeout != NULL)
		setenv("HANGTRACE_TIMEOUT", timeout, 1);
	if (on_stall != NULL)
		setenv("HANGTRACE_ON_STALL", on_stall, 1);
	/* The library runs this command for the brief on a stall (SPEC 3). */
	char self[PATH_MAX];
	ssize_t sn = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sn > 0) {
		self[sn] = '\0';
		setenv("HANGTRACE_COMMAND", self, 0);
	}
	prepend_preload(lib);
	execvp(argv[optind], argv + optind);
	warn("run: cannot run '%s'", argv[optind]);
	return 127;
}
