// SPDX-License-Identifier: MIT
/*
 * trace.c: the trace file of `hangtrace check` (check.h), what every step
 * writes through: its clocks, the file and its header, one line each
 * (begun, emitted; a write that fails is said once and makes the trace not
 * whole), a check's result, the exit line.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "procfs.h"
#include "tracehead.h"

extern char **environ;

double ht_chk_mono(void)
{
	return (double)ht_clock_ns(CLOCK_MONOTONIC) / HT_NS_PER_SEC;
}

double ht_chk_wall(void)
{
	return (double)ht_clock_ns(CLOCK_REALTIME) / HT_NS_PER_SEC;
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
void ht_chk_header(struct chk *c)
{
	static char buf[65536], text[16384];
	struct ht_jw w;
	char boot[40];

	ht_chk_begin(c, &w, buf, sizeof(buf), HT_EV_HEADER);
	ht_head_identity(&w, c->f.host, &c->id, "check");
	ht_boot_id(boot);
	ht_jw_str(&w, "boot_id", boot);
	ht_jw_secs(&w, "timeout", (int64_t)(c->timeout * 1e9));
	ht_head_paths(&w);
	/* The variable-size parts last. */
	ht_head_cmdline(&w, text, sizeof(text));
	ht_head_env(&w, environ);
	ht_chk_emit(c, &w);
	ht_strlcpy(c->f.boot_id, boot, sizeof(c->f.boot_id));
}

int ht_chk_open(struct chk *c)
{
	/* With its parents: a node-local folder (HANGTRACE_DIR=$TMPDIR/ht-%j/%h)
	 * may be several levels new. */
	int rc = ht_mkdir_p(c->dir, 0777);
	if (rc < 0)
		return rc;
	snprintf(c->path, sizeof(c->path), "%s/%s.%d.jsonl", c->dir, c->f.host, (int)getpid());
	c->fd = open(c->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	return c->fd >= 0 ? 0 : -errno;
}

void ht_chk_exit_line(struct chk *c, int status)
{
	char buf[256];
	struct ht_jw w;
	ht_chk_begin(c, &w, buf, sizeof(buf), HT_EV_EXIT);
	ht_jw_int(&w, "status", status);
	ht_chk_emit(c, &w);
}
