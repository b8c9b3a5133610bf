// SPDX-License-Identifier: MIT
/*
 * signals.c: the signals the library owns (SPEC section 6). SIGTERM dumps
 * and then goes on to the application's handler or the default action; the
 * fatal signals record the process's end and chain; the dump signal, a
 * real-time signal picked at activation, carries unwind requests from the
 * watchdog (tagged) and on-demand dump requests (from `hangtrace dump`).
 * The application's own handlers are kept and called; sigaction queries
 * answer with them. Handlers save errno and never allocate.
 */
#include <errno.h>
#include <setjmp.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "fmt.h"
#include "jsonw.h"
#include "dump.h"
#include "progress.h"
#include "real.h"
#include "signals.h"
#include "stalltimer.h"
#include "state.h"
#include "unwind.h"
#include "watchdog.h"
#include "writer.h"
#include "watchdog_ext.h"

/* The tag of our unwind requests in si_value: magic, slot, generation. */
#define TAG_MAGIC 0x4854ULL

struct owned {
	int sig;
	_Atomic bool installed;		/* our handler is in the kernel */
	struct sigaction app;		/* what the application asked for */
};

static struct owned owned[] = {
	{ .sig = SIGTERM }, { .sig = SIGSEGV }, { .sig = SIGBUS }, { .sig = SIGFPE },
	{ .sig = SIGILL }, { .sig = SIGABRT }, { .sig = 0 /* the dump signal */ },
};
#define DUMP_SLOT (HT_ARRAY_SIZE(owned) - 1)

static struct owned *find(int sig)
{
	if (sig <= 0)
		return NULL;
	for (size_t i = 0; i < HT_ARRAY_SIZE(owned); i++)
		if (owned[i].sig == sig)
			return &owned[i];
	return NULL;
}

bool ht_signal_owned(int sig)
{
	struct owned *o = find(sig);
	return o != NULL && atomic_load(&o->installed);
}

static int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	ht_real_init();
	return ht_real.sigaction(sig, act, old);
}

int ht_signal_pick_dump(void)
{
	sigset_t blocked;

	/* Count down from SIGRTMAX-1: low real-time signals are glibc's and
	 * the usual picks of applications (async-profiler issue #862). A
	 * signal the process blocks may be one it consumes with sigwait. */
	pthread_sigmask(SIG_BLOCK, NULL, &blocked);
	for (int sig = SIGRTMAX - 1; sig >= SIGRTMIN + 4; sig--) {
		struct sigaction sa;
		if (sigismember(&blocked, sig) == 1 || real_sigaction(sig, NULL, &sa) != 0)
			continue;
		if (!(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_DFL)
			return sig;
	}
	return 0;
}

/* Calls the application's disposition for sig as the kernel would have. */
static void chain(struct owned *o, int sig, siginfo_t *si, void *uc)
{
	struct sigaction app = o->app;
	bool is_handler = (app.sa_flags & SA_SIGINFO) ? app.sa_sigaction != NULL :
			  (app.sa_handler != SIG_DFL && app.sa_handler != SIG_IGN);

	if (is_handler) {
		sigset_t mask = ((ucontext_t *)uc)->uc_sigmask;
		for (int s = 1; s < NSIG; s++)
			if (sigismember(&app.sa_mask, s) == 1)
				sigaddset(&mask, s);
		if (!(app.sa_flags & SA_NODEFER))
			sigaddset(&mask, sig);
		pthread_sigmask(SIG_SETMASK, &mask, NULL);
		if (app.sa_flags & SA_RESETHAND) {
			o->app.sa_handler = SIG_DFL;
			o->app.sa_flags &= ~SA_SIGINFO;
		}
		if (app.sa_flags & SA_SIGINFO)
			app.sa_sigaction(sig, si, uc);
		else
			app.sa_handler(sig);
		return;
	}
	if (!(app.sa_flags & SA_SIGINFO) && app.sa_handler == SIG_IGN)
		return;
	/* The default action: record the end, then let the kernel do it. */
	char buf[256], name[24];
	struct ht_jw w;
	if (ht_active() && syscall(SYS_getpid) == ht_g.pid) {
		ht_fmt_signal(name, sig);
		ht_ev_begin(&w, buf, sizeof(buf), HT_EV_EXIT);
		ht_jw_str(&w, "signal", name);
		ht_jw_bool(&w, "after_dump", ht_watchdog_dumped());
		ht_ev_emit(&w);
	}
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigemptyset(&dfl.sa_mask);
	atomic_store(&o->installed, false);
	real_sigaction(sig, &dfl, NULL);
	sigset_t unblock;
	sigemptyset(&unblock);
	sigaddset(&unblock, sig);
	pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
	syscall(SYS_tgkill, (pid_t)syscall(SYS_getpid), (pid_t)syscall(SYS_gettid), sig);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct owned *o = find(sig);

	/* A fault in our own dump code (CPython's frames changing under its
	 * dumper, a file truncated under the symbolizer): back to the dump,
	 * which says what it lost. Never the application's fault to handle. */
	if ((sig == SIGSEGV || sig == SIGBUS) && ht_tls.fault_jmp != NULL) {
		sigjmp_buf *back = ht_tls.fault_jmp;
		ht_tls.fault_jmp = NULL;
		errno = saved;
		siglongjmp(*back, sig);
	}

	if (o == NULL)
		goto out;
	bool app_handler = (o->app.sa_flags & SA_SIGINFO) ||
			   (o->app.sa_handler != SIG_DFL && o->app.sa_handler != SIG_IGN);
	if (app_handler && ht_active() && syscall(SYS_getpid) == ht_g.pid) {
		/* The application may survive its own handler: not an exit. */
		char buf[256], name[24];
		struct ht_jw w;
		ht_fmt_signal(name, sig);
		ht_ev_begin(&w, buf, sizeof(buf), HT_EV_SIGNAL);
		ht_jw_str(&w, "signal", name);
		ht_jw_str(&w, "chained", "handler");
		ht_ev_emit(&w);
	}
	chain(o, sig, si, uc);
out:
	errno = saved;
}

/* The threads waiting in on_term for their SIGTERM dump (two SIGTERMs
 * may land on two threads): the watchdog signals them whatever they wait
 * in, since their wait is the library's own (ht_signal_in_term). */
#define TERM_SLOTS 4
static _Atomic pid_t term_tids[TERM_SLOTS];

bool ht_signal_in_term(pid_t tid)
{
	for (int i = 0; i < TERM_SLOTS; i++)
		if (tid != 0 && atomic_load(&term_tids[i]) == tid)
			return true;
	return false;
}

static int term_enter(pid_t tid)
{
	for (int i = 0; i < TERM_SLOTS; i++) {
		pid_t zero = 0;
		if (atomic_compare_exchange_strong(&term_tids[i], &zero, tid))
			return i;
	}
	return -1;
}

static void on_term(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct owned *o = find(sig);

	if (ht_active() && syscall(SYS_getpid) == ht_g.pid && ht_watchdog_running()) {
		/* While it waits, this thread must still answer the watchdog's
		 * unwind signal; its stack is then taken past this handler. */
		sigset_t dump;
		sigemptyset(&dump);
		sigaddset(&dump, ht_g.dump_signal);
		ht_tls.in_term++;
		int slot = term_enter((pid_t)syscall(SYS_gettid));
		pthread_sigmask(SIG_UNBLOCK, &dump, NULL);
		bool written = ht_watchdog_term_dump(3 * HT_NS_PER_SEC);
		pthread_sigmask(SIG_BLOCK, &dump, NULL);
		if (slot >= 0)
			atomic_store(&term_tids[slot], 0);
		ht_tls.in_term--;
		bool dies = o != NULL && !(o->app.sa_flags & SA_SIGINFO) &&
			    o->app.sa_handler == SIG_DFL;
		if (!written && dies)
			ht_dump_mark_cut("SIGTERM: the process ended before the dump was written");
	} else if (ht_active() && syscall(SYS_getpid) == ht_g.pid) {
		/* No watchdog thread here (a forked child, or none could be
		 * started): this thread writes the dump itself. */
		if (!ht_watchdog_dump_here(HT_DUMP_SIGTERM, uc))
			ht_watchdog_wait_here(3 * HT_NS_PER_SEC);
	}
	if (o != NULL)
		chain(o, sig, si, uc);
	errno = saved;
}

static void on_dump(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct owned *o = &owned[DUMP_SLOT];
	uint64_t tag = (uint64_t)(uintptr_t)si->si_value.sival_ptr;

	if (ht_stimer_fired(si, uc)) {
		/* A stall timer (no watchdog thread): served. */
	} else if (si->si_code == SI_QUEUE && si->si_pid == ht_g.pid && (tag >> 48) == TAG_MAGIC) {
		int64_t cpu0 = ht_thread_cpu_ns();
		ht_unwind_in_handler(uc, (uint32_t)((tag >> 32) & 0xffff), (uint32_t)tag);
		ht_lib_add_cpu(ht_thread_cpu_ns() - cpu0);	/* the library's, not the job's */
	} else {
		bool app_handler = (o->app.sa_flags & SA_SIGINFO) ||
				   (o->app.sa_handler != SIG_DFL && o->app.sa_handler != SIG_IGN);
		if (app_handler)
			chain(o, sig, si, uc);	/* the application uses it after all */
		else if (ht_active() && ht_watchdog_running())
			ht_watchdog_request(HT_DUMP_ON_DEMAND);
		else if (ht_active() && syscall(SYS_getpid) == ht_g.pid)
			ht_watchdog_dump_here(HT_DUMP_ON_DEMAND, uc);	/* no watchdog thread */
	}
	errno = saved;
}

int ht_signal_thread(pid_t tid, uint32_t slot, uint32_t gen)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = ht_g.dump_signal;
	si.si_code = SI_QUEUE;
	si.si_pid = ht_g.pid;
	si.si_uid = getuid();
	si.si_value.sival_ptr = (void *)(uintptr_t)((TAG_MAGIC << 48) |
						   ((uint64_t)(slot & 0xffff) << 32) | gen);
	if (syscall(SYS_rt_tgsigqueueinfo, ht_g.pid, tid, ht_g.dump_signal, &si) != 0)
		return -errno;
	return 0;
}

static bool ignored(const struct sigaction *sa)
{
	return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_IGN;
}

/* Puts our handler in place for o unless the application ignores the
 * signal: an ignored signal stays ignored across exec, a handled one would
 * not, so ours would change what children inherit. */
static int install(struct owned *o, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa = { .sa_sigaction = fn,
				.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK };
	sigfillset(&sa.sa_mask);
	if (ignored(&o->app)) {
		atomic_store(&o->installed, false);
		return 0;
	}
	if (real_sigaction(o->sig, &sa, NULL) != 0)
		return -errno;
	atomic_store(&o->installed, true);
	return 0;
}

static void (*handler_for(const struct owned *o))(int, siginfo_t *, void *)
{
	if (o->sig == SIGTERM)
		return on_term;
	if (o == &owned[DUMP_SLOT])
		return on_dump;
	return on_fatal;
}

int ht_signals_install(void)
{
	int rc = 0;

	owned[DUMP_SLOT].sig = ht_g.dump_signal;
	for (size_t i = 0; i < HT_ARRAY_SIZE(owned); i++) {
		struct owned *o = &owned[i];
		if (o->sig == 0)
			continue;
		if (real_sigaction(o->sig, NULL, &o->app) != 0) {
			rc = -errno;
			continue;
		}
		if (install(o, handler_for(o)) < 0)
			rc = -1;
	}
	return rc;
}

int ht_signal_app_action(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct owned *o = find(sig);

	if (o == NULL)
		return real_sigaction(sig, act, old);
	if (old != NULL)
		*old = o->app;
	if (act != NULL) {
		o->app = *act;
		if (ignored(act)) {
			/* Ignoring: the kernel must know, for exec'd children. */
			atomic_store(&o->installed, false);
			return real_sigaction(sig, act, NULL);
		}
		if (!atomic_load(&o->installed))
			return install(o, handler_for(o));
	}
	return 0;
}
