// SPDX-License-Identifier: MIT
/*
 * proc.c: hooks on the process's lifetime. fork records the fork and gives
 * the child its own trace file; _exit records the status (exit() is seen
 * through on_exit in state.c); sigaction and signal keep the application's
 * handlers for the signals the library owns; close, dup2 and dup3 keep an
 * application from closing or overwriting our trace descriptor; they and
 * the wait family also bring back a watchdog parked across a fork. vfork is
 * never wrapped: a wrapper frame would return twice on the shared stack.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "children.h"
#include "clock.h"
#include "common.h"
#include "families.h"
#include "jsonw.h"
#include "procfs.h"
#include "real.h"
#include "signals.h"
#include "state.h"
#include "watchdog.h"
#include "writer.h"

/* True when the watchdog is the only thread besides the caller, so that a
 * process which checks its thread count at fork (Python 3.12's warning)
 * would count it. */
static bool watchdog_is_only_other_thread(void)
{
	char buf[1024];
	if (ht_read_file("/proc/self/stat", buf, sizeof(buf)) <= 0)
		return false;
	const char *p = strrchr(buf, ')');
	for (int i = 0; p != NULL && i < 18; i++)	/* field 20: num_threads */
		p = strchr(p + 1, ' ');
	return p != NULL && p[1] == '2' && p[2] == ' ';
}

HT_EXPORT pid_t fork(void)
{
	ht_real_init();
	if (!ht_active() || ht_tls.depth > 0)
		return ht_real.fork();

	bool cuda = atomic_load(&ht_g.cuda_initialized);
	pid_t parent = ht_g.pid;
	/* With no GPU activity yet, the watchdog steps aside across the fork
	 * so the process still looks single-threaded; the next hook (close,
	 * typically, right after) brings it back. */
	bool park = !atomic_load(&ht_g.gpu_activity) && watchdog_is_only_other_thread();
	if (park)
		ht_watchdog_stop();
	pid_t pid = ht_real.fork();
	int saved = errno;
	if (pid == 0) {
		ht_fork_child(parent, cuda);
	} else {
		if (park)
			atomic_store(&ht_g.watchdog_parked, true);
		if (pid > 0) {
			char buf[256];
			struct ht_jw w;
			ht_ev_begin(&w, buf, sizeof(buf), HT_EV_FORK);
			ht_children_add(pid);
			ht_children_add(pid);
			ht_jw_int(&w, "child", pid);
			ht_jw_bool(&w, "cuda_initialized", cuda);
			ht_ev_emit(&w);
		}
	}
	errno = saved;
	return pid;
}

static void exit_line(int status)
{
	char buf[256];
	struct ht_jw w;

	/* A vfork child shares our memory and descriptor: it must not write. */
	if (!ht_active() || ht_tls.depth > 0 || syscall(SYS_getpid) != ht_g.pid)
		return;
	ht_watchdog_settle(HT_NS_PER_SEC);
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_EXIT);
	ht_jw_int(&w, "status", status);
	ht_ev_emit(&w);
}

HT_EXPORT void _exit(int status)
{
	ht_real_init();
	exit_line(status);
	if (ht_real._exit != NULL)
		ht_real._exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

HT_EXPORT void _Exit(int status)
{
	ht_real_init();
	exit_line(status);
	if (ht_real._Exit != NULL)
		ht_real._Exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

HT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	ht_real_init();
	if (!ht_active() || ht_tls.depth > 0 || !ht_signal_owned(sig))
		return ht_real.sigaction(sig, act, old);
	return ht_signal_app_action(sig, act, old);
}

HT_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	ht_real_init();
	if (!ht_active() || ht_tls.depth > 0 || !ht_signal_owned(sig))
		return ht_real.signal(sig, handler);
	/* glibc's signal() is BSD semantics: SA_RESTART, handler stays. */
	struct sigaction act = { .sa_handler = handler, .sa_flags = SA_RESTART }, old;
	sigemptyset(&act.sa_mask);
	if (ht_signal_app_action(sig, &act, &old) != 0)
		return SIG_ERR;
	return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)old.sa_sigaction : old.sa_handler;
}

/* The application is about to close or replace fd: if it is our trace
 * descriptor, let go of it first; the next event reopens the file. */
static void fd_going(int fd)
{
	ht_watchdog_unpark();
	if (fd < 0 || !ht_active())
		return;
	ht_families_fd_closing(fd);
	int ours = atomic_load_explicit(&ht_g.trace_fd, memory_order_relaxed);
	if (fd == ours && atomic_compare_exchange_strong(&ht_g.trace_fd, &ours, -1))
		ht_g.trace_lost = true;
}

HT_EXPORT int close(int fd)
{
	ht_real_init();
	if (ht_tls.depth == 0)
		fd_going(fd);
	return ht_real.close(fd);
}

/* Descriptors [first, last] are about to close: ours, and the network
 * families' descriptors among them (the network family's pending connects
 * and listeners). */
static void range_going(unsigned int first, unsigned int last)
{
	if (!ht_active())
		return;
	ht_families_fd_range_closing(first, last);
	int ours = atomic_load_explicit(&ht_g.trace_fd, memory_order_relaxed);
	if (ours >= 0 && (unsigned int)ours >= first && (unsigned int)ours <= last)
		fd_going(ours);
}

HT_EXPORT int close_range(unsigned int first, unsigned int last, int flags)
{
	ht_real_init();
	/* CLOSE_RANGE_CLOEXEC only marks them: nothing closes now. */
	if (ht_tls.depth == 0 && !(flags & CLOSE_RANGE_CLOEXEC))
		range_going(first, last);
	if (ht_real.close_range == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return ht_real.close_range(first, last, flags);
}

HT_EXPORT void closefrom(int lowfd)
{
	ht_real_init();
	if (ht_tls.depth == 0 && lowfd >= 0)
		range_going((unsigned int)lowfd, ~0u);
	if (ht_real.closefrom != NULL)
		ht_real.closefrom(lowfd);
}

HT_EXPORT int dup2(int oldfd, int newfd)
{
	ht_real_init();
	if (ht_tls.depth == 0 && oldfd != newfd)
		fd_going(newfd);
	return ht_real.dup2(oldfd, newfd);
}

HT_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	ht_real_init();
	if (ht_tls.depth == 0)
		fd_going(newfd);
	return ht_real.dup3(oldfd, newfd, flags);
}

/* A parent waits for the child it forked: the moment to bring back a
 * watchdog parked across that fork (the fork's caller has long since looked
 * at its thread count). */
HT_EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	ht_real_init();
	if (ht_tls.depth == 0)
		ht_watchdog_unpark();
	return ht_real.waitpid(pid, status, options);
}

HT_EXPORT pid_t wait(int *status)
{
	ht_real_init();
	if (ht_tls.depth == 0)
		ht_watchdog_unpark();
	return ht_real.wait(status);
}

HT_EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	ht_real_init();
	if (ht_tls.depth == 0)
		ht_watchdog_unpark();
	return ht_real.wait4(pid, status, options, ru);
}

HT_EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	ht_real_init();
	if (ht_tls.depth == 0)
		ht_watchdog_unpark();
	return ht_real.waitid(idtype, id, info, options);
}
