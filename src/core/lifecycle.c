// SPDX-License-Identifier: MIT
/*
 * lifecycle.c: the library's lifetime in a process. The constructor only
 * reads the environment (SPEC section 4): a process without a rank
 * identity gets no file, no thread and no output until a hooked CUDA or
 * NCCL call makes it relevant. Activation opens the trace, writes the
 * header and launch, installs the signal handlers and starts the
 * watchdog; a forked child opens its own. The globals are state.c's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "events.h"
#include "families.h"
#include "fmt.h"
#include "identity.h"
#include "inflight.h"
#include "jsonw.h"
#include "options.h"
#include "phase.h"
#include "procfs.h"
#include "real.h"
#include "signals.h"
#include "state.h"
#include "pystack.h"
#include "watchdog.h"
#include "writer.h"
#include "children.h"
#include "degraded.h"
#include "unwind.h"
#include "watchdog_ext.h"

extern char **environ;

static pthread_mutex_t act_lock = PTHREAD_MUTEX_INITIALIZER;
static bool exit_registered, atfork_registered;

static void host_name(void)
{
	struct utsname u;

	if (uname(&u) != 0)
		ht_strlcpy(u.nodename, "unknown", sizeof(u.nodename));
	ht_strlcpy(ht_g.host, u.nodename, sizeof(ht_g.host));
	/* The host names a file: no '/' and no leading dot. */
	for (char *p = ht_g.host; *p != '\0'; p++)
		if (*p == '/' || (p == ht_g.host && *p == '.'))
			*p = '_';
}

static void on_exit_record(int status, void *arg)
{
	(void)arg;
	char buf[256];
	struct ht_jw w;

	if (!ht_active() || getpid() != ht_g.pid)
		return;
	ht_watchdog_settle(HT_NS_PER_SEC);
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_EXIT);
	ht_jw_int(&w, "status", status);
	ht_ev_emit(&w);
}

static void atfork_prepare(void) { pthread_mutex_lock(&act_lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&act_lock); }
static void atfork_child(void) { pthread_mutex_init(&act_lock, NULL); }

/* Why the trace could not be opened, for the one stderr line. */
static const char *open_failure(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return ": permission denied, or the folder belongs to another user";
	case ELOOP:
		return ": a symbolic link is in the way (not followed)";
	case ENOSPC:
		return ": no space left on device";
	case EDQUOT:
		return ": disk quota exceeded";
	case EROFS:
		return ": read-only file system";
	case ENOTDIR:
		return ": a file is in the way of the folder";
	case ENAMETOOLONG:
		return ": path too long";
	case ENOENT:
		return ": a parent folder does not exist";
	default:
		return ": the system refused (see errno with strace)";
	}
}

static void launch_line(void)
{
	char buf[256];
	struct ht_jw w;

	if (ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_LAUNCH, HT_BEGIN))
		ht_ev_emit(&w);
}

static void activate_locked(enum ht_reason why)
{
	ht_real_init();
	host_name();
	ht_g.pid = getpid();
	if (syscall(SYS_gettid) == ht_g.pid)
		atomic_store(&ht_g.main_pthread, (uint64_t)pthread_self());
	ht_phases_reset(&ht_g.phases, ht_now());
	ht_g.dump_signal = ht_signal_pick_dump();

	int rc = ht_trace_open(why);
	if (rc < 0) {
		ht_say("not tracing: cannot create ", ht_g.trace_path[0] != '\0' ?
		       ht_g.trace_path : ht_g.opt.dir, open_failure(-rc));
		ht_disable(NULL);
		return;
	}
	for (int i = 0; i < ht_g.opt.nwarnings; i++)
		ht_say(ht_g.opt.warnings[i], NULL, NULL);
	for (int i = 0; i < ht_g.id.nwarnings; i++)
		ht_say(ht_g.id.warnings[i], NULL, NULL);
	atomic_store_explicit(&ht_g.state, HT_ACTIVE, memory_order_release);
	launch_line();

	if (ht_signals_install() < 0)
		ht_degraded("signals", "could not install signal handlers: no SIGTERM dumps", errno, NULL);
	if (!exit_registered && on_exit(on_exit_record, NULL) == 0)
		exit_registered = true;
	if (!atfork_registered && pthread_atfork(atfork_prepare, atfork_parent, atfork_child) == 0)
		atfork_registered = true;
	ht_families_activate();
	/* The unwinder is loaded (its files opened) here, in the activating
	 * thread, not in the watchdog thread beside the application: a shell
	 * that moves its own descriptors (dash's `>&2`: close(1), then
	 * dup2(2, 1)) would see our open take the number in between and fail
	 * with EBUSY (tests/trust/invisible.sh, 3 runs in 300). */
	if (why != HT_REASON_FORK)
		ht_unwind_prepare();
	int wrc = why != HT_REASON_FORK ? ht_watchdog_start() : 0;
	if (wrc < 0)
		ht_watchdog_not_started(-wrc);
}

bool ht_activate(enum ht_reason why)
{
	int s = atomic_load_explicit(&ht_g.state, memory_order_acquire);

	if (s == HT_ACTIVE) {
		/* A forked child has its file but no watchdog until it becomes
		 * relevant itself (SPEC section 4). */
		if (why != HT_REASON_FORK && why != HT_REASON_IDENTITY)
			ht_watchdog_ensure();
		return true;
	}
	if (s != HT_IDLE || ht_tls.depth > 0)
		return false;
	ht_tls.depth++;
	pthread_mutex_lock(&act_lock);
	if (atomic_load(&ht_g.state) == HT_IDLE)
		activate_locked(why);
	pthread_mutex_unlock(&act_lock);
	ht_tls.depth--;
	return ht_active();
}

void ht_fork_child(pid_t parent, bool cuda)
{
	ht_tls.tid = 0;
	ht_tls.slot = NULL;
	ht_tls.hook_depth = 0;
	ht_tls.nccl_depth = 0;
	ht_g.pid = getpid();
	atomic_store(&ht_g.main_pthread, (uint64_t)pthread_self());	/* the forking thread */
	ht_g.fork_parent = parent;
	ht_g.cuda_inherited = cuda;
	atomic_store(&ht_g.cuda_initialized, false);
	atomic_store(&ht_g.gpu_activity, false);
	ht_inflight_reset(&ht_g.inflight);
	atomic_store(&ht_g.ring.next, 0);
	for (size_t i = 0; i < HT_ARRAY_SIZE(ht_g.call_lines); i++)
		atomic_store(&ht_g.call_lines[i], 0);
	ht_watchdog_forget();
	ht_degraded_forget();	/* the child's trace says it again */
	ht_children_forget();
	ht_families_fork_child();
	/* Its dumps run in a signal handler (no watchdog here), which cannot
	 * look the Python dumper up: now, as the fork returns. */
	ht_py_prepare();
	ht_phases_reset(&ht_g.phases, ht_now());
	if (ht_trace_reopen_child() < 0) {
		ht_disable(NULL);
		return;
	}
	launch_line();
}

void ht_identity_learned(int64_t rank, int64_t world_size, const char *source)
{
	char buf[256];
	struct ht_jw w;

	if (!ht_identity_learn(&ht_g.id, rank, world_size))
		return;
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_IDENTITY);
	ht_jw_int(&w, "rank", rank);
	ht_jw_int(&w, "world_size", world_size);
	ht_jw_int_or_null(&w, "local_rank", ht_g.id.local_rank, ht_g.id.local_rank >= 0);
	ht_jw_str(&w, "source", source);
	ht_ev_emit(&w);
}

/* An exec'd image of a traced process continues its file even without a
 * rank identity: only where HANGTRACE_DIR names the folder. */
static bool traced_before_exec(void)
{
	char path[sizeof(ht_g.trace_path)];
	size_t n;

	if (ht_g.opt.dir[0] == '\0')
		return false;
	host_name();
	n = ht_dir_expand(path, sizeof(path), ht_g.opt.dir, ht_g.host, ht_g.id.job);
	n = ht_append(path, sizeof(path), n, "/");
	n = ht_append(path, sizeof(path), n, ht_g.host);
	n = ht_append(path, sizeof(path), n, ".");
	n = ht_append_i64(path, sizeof(path), n, getpid());
	if (ht_append(path, sizeof(path), n, ".jsonl") != n + 6)
		return false;	/* too long to be ours */
	if (access(path, F_OK) != 0)
		return false;
	return ht_proc_trace_matches(path, getpid());
}

__attribute__((constructor)) static void ht_init(void)
{
	/* Set-user-ID and set-group-ID programs are never traced. */
	if (getauxval(AT_SECURE) != 0)
		return;
	ht_options_parse(environ, &ht_g.opt);
	if (ht_g.opt.disable)
		return;
	ht_identity_from_env(environ, &ht_g.opt, &ht_g.id);
	ht_g.pid = getpid();
	atomic_store_explicit(&ht_g.state, HT_IDLE, memory_order_release);
	if (ht_g.id.rank >= 0 || traced_before_exec())
		ht_activate(HT_REASON_IDENTITY);
}
