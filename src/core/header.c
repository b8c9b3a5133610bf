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
#include "writer.h"

extern char **environ;

static char line_buf[65536];
static char text_buf[16384];

static void write_cmdline(struct ht_jw *w)
{
	ssize_t n = ht_read_file("/proc/self/cmdline", text_buf, sizeof(text_buf));
	const char *prev = NULL;

	ht_jw_arr_begin(w, "cmdline");
	for (ssize_t i = 0; n > 0 && i < n;) {
		const char *arg = text_buf + i;
		size_t len = strlen(arg), keep;
		if (ht_arg_secret(arg, prev, &keep)) {
			char masked[256];
			size_t k = keep < sizeof(masked) - 4 ? keep : sizeof(masked) - 4;
			memcpy(masked, arg, k);
			memcpy(masked + k, "***", 4);
			ht_jw_str(w, NULL, masked);
		} else {
			ht_jw_strn(w, NULL, arg, len);
		}
		prev = arg;
		i += (ssize_t)len + 1;
	}
	ht_jw_end(w);
}

static void write_env(struct ht_jw *w)
{
	ht_jw_obj_begin(w, "env");
	for (size_t i = 0; environ != NULL && environ[i] != NULL; i++) {
		const char *e = environ[i];
		if (!ht_env_allowed(e))
			continue;
		const char *eq = strchr(e, '=');
		char name[128];
		size_t k = (size_t)(eq - e) < sizeof(name) - 1 ? (size_t)(eq - e) : sizeof(name) - 1;
		memcpy(name, e, k);
		name[k] = '\0';
		/* Names are ours to print as keys only when plain. */
		bool plain = true;
		for (size_t j = 0; j < k; j++)
			if (!((name[j] >= 'A' && name[j] <= 'Z') || (name[j] >= 'a' && name[j] <= 'z') ||
			      (name[j] >= '0' && name[j] <= '9') || name[j] == '_'))
				plain = false;
		if (plain)
			ht_jw_str(w, name, eq + 1);
	}
	ht_jw_end(w);
}

static void write_path(struct ht_jw *w, const char *key, const char *link)
{
	char p[4096];
	ssize_t n = readlink(link, p, sizeof(p) - 1);
	if (n < 0)
		ht_jw_null(w, key);
	else
		ht_jw_strn(w, key, p, (size_t)n);
}

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
	ht_jw_str(&w, "format", HT_TRACE_FORMAT);
	ht_jw_str(&w, "version", HT_VERSION);
	ht_jw_str(&w, "host", ht_g.host);
	ht_jw_int(&w, "pid", ht_g.pid);
	ht_jw_int(&w, "ppid", getppid());
	ht_jw_int_or_null(&w, "rank", id->rank, id->rank >= 0);
	ht_jw_int_or_null(&w, "world_size", id->world_size, id->world_size >= 0);
	ht_jw_int_or_null(&w, "local_rank", id->local_rank, id->local_rank >= 0);
	ht_jw_str(&w, "launcher", id->launcher);
	ht_jw_str(&w, "job", id->job[0] != '\0' ? id->job : NULL);
	ht_jw_str(&w, "relevant", reason_name(why));
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
	write_path(&w, "exe", "/proc/self/exe");
	write_path(&w, "cwd", "/proc/self/cwd");
	/* The variable-size parts last: if they overflow, the rest is kept. */
	write_cmdline(&w);
	write_env(&w);
	ht_ev_emit(&w);
}

void ht_proc_write_exec(void)
{
	struct ht_jw w;

	ht_ev_begin(&w, line_buf, sizeof(line_buf), HT_EV_EXEC);
	write_path(&w, "path", "/proc/self/exe");
	ht_jw_int_or_null(&w, "rank", ht_g.id.rank, ht_g.id.rank >= 0);
	ht_jw_int(&w, "dump_signal", ht_g.dump_signal);
	write_cmdline(&w);
	ht_ev_emit(&w);
}
