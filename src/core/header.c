// SPDX-License-Identifier: MIT
/*
 * header.c: the first line of a process record (SPEC section 7), and the
 * exec event a new program image appends to its process's file. Only
 * allow-listed environment variables are written and secret-looking
 * arguments are masked (redact.c). Runs at activation, under its lock,
 * so one static buffer serves.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "hangtrace.h"
#include "header.h"
#include "identity.h"
#include "jsonw.h"
#include "procfs.h"
#include "redact.h"
#include "state.h"
#include "tracehead.h"
#include "writer.h"

extern char **environ;

static char line_buf[65536];
static char text_buf[16384];

static const char *reason_name(enum ht_reason why)
{
	switch (why) {
	case HT_REASON_IDENTITY: return "identity";
	case HT_REASON_CUDA: return "cuda";
	case HT_REASON_NCCL: return "nccl";
	case HT_REASON_FORK: return "fork";
	}
	return "identity";
}

/* The inode of our pid namespace ("pid:[4026531836]"), or 0: with the
 * boot id, the report knows it sees our pids (a report in another
 * container of the same host does not). */
static int64_t pid_ns(void)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
	if (n <= 5 || memcmp(link, "pid:[", 5) != 0)
		return 0;
	link[n] = '\0';
	int64_t v = 0;
	for (const char *c = link + 5; *c >= '0' && *c <= '9'; c++)
		v = v * 10 + (*c - '0');
	return v;
}

void ht_proc_write_header(enum ht_reason why)
{
	struct ht_jw w;
	struct ht_stat st;
	char boot[40];
	const struct ht_identity *id = &ht_g.id;
	int64_t real = ht_clock_ns(CLOCK_REALTIME);

	ht_boot_id(boot);
	bool have_stat = ht_read_stat("/proc/self/stat", &st);
	ht_ev_begin(&w, line_buf, sizeof(line_buf), HT_EV_HEADER);
	ht_head_identity(&w, ht_g.host, id, reason_name(why));
	ht_jw_int(&w, "dump_signal", ht_g.dump_signal);
	ht_jw_str(&w, "boot_id", boot);
	ht_jw_secs(&w, "btime", real - ht_clock_ns(CLOCK_BOOTTIME));
	ht_jw_int_or_null(&w, "start_ticks", (int64_t)st.start_ticks, have_stat);
	int64_t ns = pid_ns();
	ht_jw_int_or_null(&w, "pid_ns", ns, ns > 0);
	ht_jw_int_or_null(&w, "fork_parent", ht_g.fork_parent, ht_g.fork_parent > 0);
	ht_jw_bool(&w, "cuda_inherited", ht_g.cuda_inherited);
	ht_jw_secs(&w, "timeout", ht_g.opt.timeout_ns);
	ht_jw_str(&w, "on_stall", ht_g.opt.on_stall == HT_ON_STALL_ABORT ? "abort" : "dump");
	ht_jw_arr_begin(&w, "warnings");
	for (int i = 0; i < ht_g.opt.nwarnings; i++)
		ht_jw_str(&w, NULL, ht_g.opt.warnings[i]);
	for (int i = 0; i < ht_g.id.nwarnings; i++)
		ht_jw_str(&w, NULL, ht_g.id.warnings[i]);
	ht_jw_end(&w);
	ht_head_paths(&w);
	/* The variable-size parts last: if they overflow, the rest is kept. */
	ht_head_cmdline(&w, text_buf, sizeof(text_buf));
	ht_head_env(&w, environ);
	ht_ev_emit(&w);
}

void ht_proc_write_exec(void)
{
	struct ht_jw w;

	ht_ev_begin(&w, line_buf, sizeof(line_buf), HT_EV_EXEC);
	ht_head_path(&w, "path", "/proc/self/exe");
	ht_jw_int_or_null(&w, "rank", ht_g.id.rank, ht_g.id.rank >= 0);
	ht_jw_int(&w, "dump_signal", ht_g.dump_signal);
	ht_head_cmdline(&w, text_buf, sizeof(text_buf));
	ht_ev_emit(&w);
}
