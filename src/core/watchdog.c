// SPDX-License-Identifier: MIT
/*
 * watchdog.c: one thread per traced process that declares a stall when the
 * current startup phase (steady excluded), or a blocking hooked call, has
 * lasted longer than HANGTRACE_TIMEOUT, and dumps at 1x, 2x and 4x the
 * deadline (SPEC section 6). It sleeps on a futex until the next deadline;
 * signal handlers wake it for SIGTERM and on-demand dumps (FUTEX_WAKE is one
 * async-signal-safe system call, and a futex is no descriptor an application
 * could close: OpenSSH closes every descriptor above 2 at start). It blocks
 * every signal but the synchronous faults.
 */
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "brief.h"
#include "clock.h"
#include "common.h"
#include "dump.h"
#include "events.h"
#include "families.h"
#include "fmt.h"
#include "hangtrace.h"
#include "inflight.h"
#include "phase.h"
#include "blocked.h"
#include "children.h"
#include "degraded.h"
#include "procfs.h"
#include "progress.h"
#include "real.h"
#include "state.h"
#include "watchdog.h"
#include "pystack.h"
#include "writer.h"
#include "unwind.h"
#include "watchdog_ext.h"
#include "stalltimer.h"

static pthread_t thread;
static _Atomic bool running, stopping;
static _Atomic uint32_t wake_word;	/* bumped by every wake-up */
static _Atomic uint32_t req_gen, done_gen;
static _Atomic uint32_t req_reasons;
static _Atomic bool stall_dumped;
static _Atomic bool dumping;	/* a dump is being written */
static _Atomic int64_t closing_ns;	/* when the process began to end, or 0 */
/* No dump starts for this long after the process began to end (a dump cut
 * by the end of the process is worth less than none); one that hangs in
 * its exit handlers is dumped after it. */
#define CLOSING_HOLD_NS HT_NS_PER_SEC
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
/* Steady state found by a look (blocked.h), not by a CUDA synchronize: a
 * phase begun after it is watched again until a look finds the process
 * working again (the epoch of that look). */
static bool steady_by_progress;
static _Atomic uint32_t resteady_epoch;
static _Atomic bool here_busy;	/* a dump from a signal handler is being written */
static _Atomic uint32_t term_gen;	/* the SIGTERM dump being waited for */
static _Atomic int64_t term_done_ns;
/* No watchdog thread could be started (the thread limit): the calls are
 * watched by their stall timers, and the hooks retry once a second. */
static _Atomic int64_t retry_at;
static _Atomic bool unwatched;
static _Atomic bool retrying;

bool ht_watchdog_running(void)
{
	return atomic_load(&running);
}

bool ht_watchdog_dumped(void)
{
	return atomic_load(&stall_dumped);
}

static void wake(void)
{
	atomic_fetch_add(&wake_word, 1);
	syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

uint32_t ht_watchdog_request(enum ht_dump_reason why)
{
	atomic_fetch_or(&req_reasons, 1u << why);
	uint32_t gen = atomic_fetch_add(&req_gen, 1) + 1;
	wake();
	return gen;
}

static bool closing_held(int64_t now)
{
	int64_t c = atomic_load(&closing_ns);
	return c != 0 && now - c < CLOSING_HOLD_NS;
}

/*
 * A dump begins only through here: "dumping" is raised before "closing" is
 * read, and ht_watchdog_settle raises "closing" before it reads "dumping",
 * so either the dump backs off or the ending process waits for it.
 */
static bool dump_begin(void)
{
	atomic_store(&dumping, true);
	if (closing_held(ht_now())) {
		atomic_store(&dumping, false);
		return false;
	}
	return true;
}

static void dump_end(void)
{
	atomic_store(&dumping, false);
}

void ht_watchdog_settle(int64_t max_ns)
{
	if (!atomic_load(&running) || pthread_equal(thread, pthread_self()))
		return;
	int64_t zero = 0;
	atomic_compare_exchange_strong(&closing_ns, &zero, ht_now());
	int64_t deadline = ht_now() + max_ns;
	while (atomic_load(&dumping) && ht_now() < deadline) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

bool ht_watchdog_wait_dump(uint32_t gen, int64_t max_ns)
{
	int64_t deadline = ht_now() + max_ns;
	while ((int32_t)(atomic_load(&done_gen) - gen) < 0) {
		if (ht_now() >= deadline || !atomic_load(&running))
			return false;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return true;
}

/* The start of the oldest thing that can stall: the current phase (unless
 * steady was reached) or a blocking call in flight. INT64_MAX if none.
 * *call: the start of the oldest call in flight alone. */
static int64_t oldest_start(int64_t *call)
{
	int64_t oldest = INT64_MAX;
	struct ht_inflight_view v[64];

	if (!ht_phases_has_begun(&ht_g.phases, HT_PHASE_STEADY) ||
	    (steady_by_progress && atomic_load(&ht_g.phases.current) != HT_PHASE_STEADY &&
	     atomic_load(&ht_g.phases.epoch) != atomic_load(&resteady_epoch)))
		oldest = atomic_load(&ht_g.phases.changed_ns);
	*call = INT64_MAX;
	size_t n = ht_inflight_snapshot(&ht_g.inflight, v, HT_ARRAY_SIZE(v));
	for (size_t i = 0; i < n; i++)
		if (v[i].start_ns < *call)
			*call = v[i].start_ns;
	return *call < oldest ? *call : oldest;
}

/*
 * A look found the process working past its deadline. Its startup is over
 * (SPEC section 6) when no family knows a startup step still to come (the
 * net family: a rendezvous the job names and this process has not done;
 * an MPI job, wired up by its launcher, names none). A rank still in launch that will rendezvous later (a long
 * import, a checkpoint load) is only slow: not steady yet. The first time,
 * the steady phase line says so. False when it is not steady.
 */
static bool found_working(const struct ht_looks *L)
{
	char buf[256];
	struct ht_jw w;

	if (ht_families_startup_pending())
		return false;
	/* Working at an activity of the table (importing, loading a
	 * checkpoint, downloading, building) is still starting up: a JAX
	 * process importing jax past its first look, before it waits in
	 * initialize, is not steady (tests/e2e/jobs.sh). */
	if (L->activity != NULL)
		return false;
	/* Nor when the main thread's Python frames were cut short (read as a
	 * generator yielded): the activity may be in the frames not seen. */
	if (L->py_cut)
		return false;
	if (!ht_phases_has_begun(&ht_g.phases, HT_PHASE_STEADY) &&
	    ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_STEADY, HT_BEGIN)) {
		steady_by_progress = true;
		ht_jw_str(&w, "via", "progress");
		ht_ev_emit(&w);
	}
	atomic_store(&resteady_epoch, atomic_load(&ht_g.phases.epoch));
	return true;
}

static void say_stall(int64_t age)
{
	char secs[32], msg[160];
	int cur = atomic_load(&ht_g.phases.current);
	size_t n = 0;

	ht_fmt_secs(secs, age);
	char *dot = secs;
	while (*dot != '\0' && *dot != '.')
		dot++;
	*dot = '\0';
	msg[0] = '\0';
	if (ht_g.id.rank >= 0) {
		n = ht_append(msg, sizeof(msg), n, "rank ");
		n = ht_append_i64(msg, sizeof(msg), n, ht_g.id.rank);
		n = ht_append(msg, sizeof(msg), n, " ");
	}
	n = ht_append(msg, sizeof(msg), n, "stalled ");
	n = ht_append(msg, sizeof(msg), n, secs);
	n = ht_append(msg, sizeof(msg), n, "s in ");
	ht_append(msg, sizeof(msg), n, cur >= 0 ? ht_phase_name(cur) : "launch");
	ht_say(msg, "; stacks dumped to ", ht_g.trace_path);
}

static void serve_requests(void)
{
	uint32_t upto = atomic_load(&req_gen);
	uint32_t reasons = atomic_exchange(&req_reasons, 0);

	if ((int32_t)(upto - atomic_load(&done_gen)) <= 0)
		return;
	if (ht_active() && dump_begin()) {
		ht_dump((reasons & (1u << HT_DUMP_SIGTERM)) ? HT_DUMP_SIGTERM : HT_DUMP_ON_DEMAND,
			0, 0);
		dump_end();
		/* Requests that came during the dump are answered by it: a
		 * second SIGTERM or dump request never starts another. */
		upto = atomic_load(&req_gen);
	}
	atomic_store(&done_gen, upto);
}

/*
 * One episode: the oldest thing past its deadline (a phase, or a call in
 * flight), looked at 1x, 2x and 4x the deadline. Watchdog thread only.
 */
struct episode {
	int64_t start;		/* of the stalled thing being dumped; 0: none */
	int dumps;		/* looks taken of the current three */
	int presampled;		/* the look whose window was sampled, or -1 */
	bool declared;		/* a look found it blocked: said, maybe aborted */
	bool trailing;		/* found working: the 2x and 4x dumps still come */
	/* A look that found the process at an activity of the table (an
	 * import, a checkpoint load, a build: starting up, not steady, not
	 * blocked) makes three more looks after the 4x one: the schedule
	 * starts over from that look (shift), so that a wait that follows the
	 * activity (a JAX process importing for longer than 4x the deadline,
	 * then waiting in initialize) is still looked at and declared. The
	 * looks go on numbering (rearms). */
	int64_t shift;
	int rearms;
	bool saw_activity;	/* a look of these three found one */
	/* The previous look found the process working: the startup is over
	 * only when two looks in a row do (one look's window can span the
	 * end of an import and the start of a wait: a JAX process entering
	 * initialize read as working). */
	bool worked;
	struct ht_looks looks;
};

static void episode_begin(struct episode *e, int64_t start)
{
	e->start = start;
	e->dumps = 0;
	e->presampled = -1;
	e->declared = e->trailing = false;
	e->shift = 0;
	e->rearms = 0;
	e->saw_activity = false;
	e->worked = false;
	ht_blocked_reset(&e->looks);
}

/* The three looks again, from now (the look that found an activity). */
static void episode_rearm(struct episode *e, int64_t since_start)
{
	e->shift = since_start;
	e->rearms++;
	e->saw_activity = false;
	e->worked = false;
	e->dumps = 0;
	e->presampled = -1;
	ht_blocked_reset(&e->looks);
}

static int64_t episode_next_look(const struct episode *e, int64_t T)
{
	return e->start + e->shift + (T << (e->dumps < 3 ? e->dumps : 2));
}

/* A look found blocked: the stall line, the brief, and the abort asked for. */
static void declare(int64_t age)
{
	say_stall(age);
	ht_brief_on_stall(serve_requests);	/* the verdicts in the job's log */
	if (ht_g.opt.on_stall == HT_ON_STALL_ABORT) {
		ht_say("aborting (HANGTRACE_ON_STALL=abort)", NULL, NULL);
		abort();
	}
}

/* The look at e->dumps times the deadline: a dump, and what it decided. */
static void look(struct episode *e, int64_t now, int64_t oldest, int64_t call0, int64_t T)
{
	if (e->presampled != e->dumps) {
		ht_blocked_presample(&e->looks);
		e->presampled = e->dumps;
	}
	e->dumps++;
	ht_blocked_look_begin(&e->looks, call0 != INT64_MAX && now - call0 >= T);
	atomic_store(&stall_dumped, true);	/* exit's after_dump: after a timeout dump */
	ht_dump(HT_DUMP_TIMEOUT, e->dumps + 3 * e->rearms, now - oldest);
	dump_end();
	enum ht_look_result r = e->looks.last.result;
	bool activity = e->looks.activity != NULL || e->looks.py_cut;
	/* Its forked children (DataLoader workers) only when it is blocked: a
	 * dump is a signal into a busy worker, which a healthy job must not
	 * pay for (make soak saw a worker die of SIGSEGV in one). */
	if (r == HT_LOOK_BLOCKED)
		ht_children_dump();
	/* A look after one that found the process working is evidence only:
	 * steady (SPEC section 6) is no startup stall. */
	if (r == HT_LOOK_BLOCKED && !e->declared && !e->trailing) {
		e->declared = true;
		declare(ht_now() - oldest);
	} else if (r == HT_LOOK_WORKING && (call0 == INT64_MAX || e->looks.ops_moved)) {
		/* A call in flight at a look that saw calls complete (an MPI loop
		 * is nearly always inside one) is the job's work, not its
		 * startup. */
		if (e->worked && found_working(&e->looks))
			e->trailing = true;
		/* Working at an activity (an import) is no first look of two: a
		 * JAX process imports at its 1x look and enters initialize in the
		 * window of its 2x. */
		e->worked = !activity;
	} else {
		e->worked = false;
	}
	e->saw_activity |= activity;
	if (e->dumps == 3 && !e->declared && !e->trailing && r != HT_LOOK_BLOCKED &&
	    e->saw_activity)
		episode_rearm(e, now - oldest);
}

/* When to wake next: the window before the next look opens, the look, a
 * Python look between, or a deadline from now. */
static int64_t next_wake(const struct episode *e, int64_t now, int64_t T, int64_t W)
{
	int64_t next;
	int64_t look_at = episode_next_look(e, T);
	bool looking = e->start != 0 && e->dumps < 3;

	if (looking && e->presampled != e->dumps)
		next = look_at - W;
	else if (looking)
		next = look_at;
	else
		next = now + T;
	if (looking && e->presampled == e->dumps && !e->declared &&
	    ht_blocked_wants_ticks(&e->looks)) {
		int64_t tick = now + ht_blocked_tick(T);
		if (tick < look_at - W)
			tick = look_at - W;	/* none outside the windows */
		if (tick < next)
			next = tick;
	}
	if (next > now + T)
		next = now + T;
	if (closing_held(now) && next < atomic_load(&closing_ns) + CLOSING_HOLD_NS)
		next = atomic_load(&closing_ns) + CLOSING_HOLD_NS;
	if (next < now + 1000000)
		next = now + 1000000;
	return next;
}

static void *main_loop(void *arg)
{
	(void)arg;
	static struct episode e;	/* this thread's alone */

	prctl(PR_SET_NAME, "hangtrace", 0, 0, 0);
	/* The kernel kills a process whose synchronous fault is blocked: these
	 * must reach our handler, which returns to a guarded dump (dump.c). */
	sigset_t faults;
	sigemptyset(&faults);
	sigaddset(&faults, SIGSEGV);
	sigaddset(&faults, SIGBUS);
	sigaddset(&faults, SIGFPE);
	sigaddset(&faults, SIGILL);
	pthread_sigmask(SIG_UNBLOCK, &faults, NULL);
	ht_tls.depth = 1;	/* our own calls never run hook logic */
	ht_tls.tid = (pid_t)syscall(SYS_gettid);
	/* Loaded at activation (lifecycle.c); here only when it was not, so
	 * that a dump from a signal handler (a forked child has no watchdog)
	 * finds it ready. */
	ht_unwind_prepare();
	ht_py_prepare();
	episode_begin(&e, 0);
	uint32_t seen = atomic_load(&wake_word);
	while (!atomic_load(&stopping) && ht_active()) {
		int64_t T = ht_g.opt.timeout_ns;
		int64_t W = ht_blocked_window(T);
		int64_t now = ht_now();
		int64_t call0;
		int64_t oldest = oldest_start(&call0);
		/* Found working (steady from then on), the dumps at 2x and 4x
		 * are still taken as evidence, unless a phase begins. */
		if (e.trailing && e.dumps < 3 && e.start != 0 &&
		    atomic_load(&ht_g.phases.epoch) == atomic_load(&resteady_epoch)) {
			if (e.start < oldest)
				oldest = e.start;
		} else {
			e.trailing = false;
		}
		if (oldest != e.start)
			episode_begin(&e, oldest == INT64_MAX ? 0 : oldest);

		int64_t sched = oldest == INT64_MAX ? oldest : oldest + e.shift;
		/* In the window before each look: a progress sample before the
		 * first, cheap Python looks before every one. */
		if (e.start != 0 && e.dumps < 3 && now - sched >= (T << e.dumps) - W) {
			if (e.presampled != e.dumps) {
				ht_blocked_presample(&e.looks);
				e.presampled = e.dumps;
			} else if (!e.declared && ht_blocked_wants_ticks(&e.looks)) {
				ht_blocked_between(&e.looks);
			}
		}
		if (e.start != 0 && e.dumps < 3 && now - sched >= T << e.dumps && dump_begin())
			look(&e, now, oldest, call0, T);

		now = ht_now();
		int64_t next = next_wake(&e, now, T, W);
		struct timespec ts = { (time_t)((next - now) / HT_NS_PER_SEC),
				       (long)((next - now) % HT_NS_PER_SEC) };
		/* A wake-up after the word was read makes the wait return at once. */
		if (atomic_load(&req_gen) == atomic_load(&done_gen) && !atomic_load(&stopping))
			syscall(SYS_futex, &wake_word, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
		seen = atomic_load(&wake_word);
		serve_requests();
	}
	return NULL;
}

static int tls_size(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	size_t *sum = arg;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS)
			*sum += info->dlpi_phdr[i].p_memsz + info->dlpi_phdr[i].p_align;
	return 0;
}

/* glibc carves the static TLS block of every loaded object (and the
 * thread descriptor) out of the stack it is given: a stack of 256 KiB
 * cannot hold a library's 1 MiB of __thread data (pthread_create fails
 * with EINVAL). The stack asked for is 256 KiB beyond that block. */
static size_t stack_size(void)
{
	size_t tls = 0;
	dl_iterate_phdr(tls_size, &tls);
	size_t page = 4096;
	return ((256u << 10) + tls + 64 * 1024 + page - 1) & ~(page - 1);
}

static int create(bool with_size)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (with_size)
		pthread_attr_setstacksize(&attr, stack_size());
	/* The thread inherits this mask: it never takes a signal. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = -pthread_create(&thread, &attr, main_loop, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return rc;
}

int ht_watchdog_start(void)
{
	int rc = 0;

	if (atomic_load(&running))
		return 0;
	pthread_mutex_lock(&start_lock);
	if (atomic_load(&running))
		goto out_unlock;
	atomic_store(&stopping, false);
	rc = create(true);
	if (rc == -EINVAL)	/* the size still too small: glibc's own default */
		rc = create(false);
	if (rc == 0)
		atomic_store(&running, true);
out_unlock:
	pthread_mutex_unlock(&start_lock);
	if (rc == 0 && atomic_exchange(&unwatched, false)) {
		/* Started after all (the limit lifted): the timers stop, and the
		 * calls go back to the fast path. */
		atomic_store(&retry_at, 0);
		ht_stimer_disable();
		atomic_store(&ht_g.watchdog_parked, false);
		ht_degraded_recovered("watchdog", "the watchdog thread started after all: "
			      "this process is watched from now on");
	}
	return rc;
}

void ht_watchdog_ensure(void)
{
	if (atomic_load(&running) || atomic_load(&unwatched))
		return;	/* running, or retried by the hooks (unpark) */
	int rc = ht_watchdog_start();
	if (rc < 0)
		ht_watchdog_not_started(-rc);
}

bool ht_watchdog_dump_here(enum ht_dump_reason why, void *uc)
{
	if (atomic_exchange(&here_busy, true))
		return false;	/* the dump in progress answers this request too */
	bool done = false;
	if (ht_active() && dump_begin()) {
		ht_dump_here(why, 0, 0, uc);
		dump_end();
		done = true;
	}
	atomic_store(&here_busy, false);
	return done;
}

bool ht_watchdog_wait_here(int64_t max_ns)
{
	int64_t deadline = ht_now() + max_ns;
	while (atomic_load(&here_busy)) {
		if (ht_now() >= deadline)
			return false;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return true;
}

bool ht_watchdog_term_dump(int64_t max_ns)
{
	/* SIGTERMs close together (coreutils timeout signals the child, then
	 * its group; Slurm every task) share one dump. */
	uint32_t gen = atomic_load(&term_gen);
	int64_t done = atomic_load(&term_done_ns);
	if (gen == 0 || (done != 0 && ht_now() - done > HT_NS_PER_SEC)) {
		uint32_t mine = ht_watchdog_request(HT_DUMP_SIGTERM);
		if (atomic_compare_exchange_strong(&term_gen, &gen, mine)) {
			atomic_store(&term_done_ns, 0);
			gen = mine;
		}
	}
	bool ok = ht_watchdog_wait_dump(gen, max_ns);
	if (ok) {
		int64_t zero = 0;
		atomic_compare_exchange_strong(&term_done_ns, &zero, ht_now());
	}
	return ok;
}

void ht_watchdog_stop(void)
{
	pthread_mutex_lock(&start_lock);
	if (atomic_load(&running)) {
		atomic_store(&stopping, true);
		wake();
		pthread_join(thread, NULL);
		atomic_store(&running, false);
		atomic_store(&stopping, false);
	}
	pthread_mutex_unlock(&start_lock);
}

/* The hooks that bring back a parked watchdog try again, at most once a
 * second. */
void ht_watchdog_retry_later(void)
{
	atomic_store(&retry_at, ht_now() + HT_NS_PER_SEC);
	atomic_store(&ht_g.watchdog_parked, true);
}

void ht_watchdog_not_started(int err)
{
	/* SIGTERM and on-demand dumps still work, from the signalled thread
	 * (dump.h); a hooked call past the deadline is watched by its own
	 * thread's timer (stalltimer.h), a phase with no call in flight is
	 * not: nothing can look at a thread outside a hooked call without
	 * signalling it, and a signal there may end a store client's poll. */
	ht_unwind_prepare();
	/* The flag the hooks read stays up: the calls take the slow path,
	 * where they arm their timers (and, at the thread limit, retry). */
	atomic_store(&unwatched, true);
	atomic_store(&ht_g.watchdog_parked, true);
	if (ht_stimer_enable()) {
		ht_degraded("watchdog", "not watched by a thread: could not start the watchdog "
			    "thread; a hooked blocking call (connect, NCCL, CUDA) past the deadline "
			    "is still dumped, declared and aborted, from a timer in its own thread, "
			    "but a startup phase past it with no hooked call in flight (a barrier, a "
			    "store wait) is not; SIGTERM and on-demand dumps still work",
			    err, "hooked_calls");
	} else {
		ht_degraded("watchdog", "not watched: could not start the watchdog thread, "
			    "so no stall is seen or aborted (SIGTERM dumps still work)", err, NULL);
	}
	if (err == EAGAIN)
		ht_watchdog_retry_later();	/* the thread limit may lift */
}

void ht__watchdog_unpark_slow(void)
{
	int64_t r = atomic_load(&retry_at);
	if (r != 0 && ht_now() < r)
		return;
	if (ht_tls.depth != 0 || !ht_active())
		return;
	if (atomic_load(&unwatched)) {
		/* The flag stays up the whole time: the calls arm and disarm
		 * their stall timers by it (events.c). One caller retries. */
		if (r == 0 || atomic_exchange(&retrying, true))
			return;
		int rc = ht_watchdog_start();	/* says so when it starts */
		if (rc == -EAGAIN) {
			ht_watchdog_retry_later();
		} else if (rc < 0) {
			atomic_store(&retry_at, 0);
		}
		atomic_store(&retrying, false);
		return;
	}
	if (atomic_exchange(&ht_g.watchdog_parked, false)) {
		/* Parked across a fork: a thread limit reached now (the child
		 * took the last pid) is said once, and the timers take over. */
		int rc = ht_watchdog_start();
		if (rc < 0)
			ht_watchdog_not_started(-rc);
	}
}

/* Without a watchdog thread: the look of the watchdog's main loop, for
 * the oldest hooked call in flight, from the timer of a call past its
 * deadline (stalltimer.c). One episode per oldest call; dumps at 1x, 2x
 * and 4x its deadline; the call outlived it, so the look is blocked. */
static int64_t fb_ep_start;
static int fb_ep_dumps;
static bool fb_declared;
static struct ht_looks fb_looks;

bool ht_watchdog_look_here(void *uc)
{
	struct ht_inflight_view v[64];
	int64_t T = ht_g.opt.timeout_ns;

	if (atomic_exchange(&here_busy, true))
		return false;	/* a dump in progress: the timer tries again */
	int64_t now = ht_now(), oldest = INT64_MAX;
	size_t n = ht_inflight_snapshot(&ht_g.inflight, v, HT_ARRAY_SIZE(v));
	for (size_t i = 0; i < n; i++)
		if (v[i].start_ns < oldest)
			oldest = v[i].start_ns;
	if (oldest != INT64_MAX && oldest != fb_ep_start) {
		fb_ep_start = oldest;
		fb_ep_dumps = 0;
		fb_declared = false;
		ht_blocked_reset(&fb_looks);
	}
	if (oldest != INT64_MAX && fb_ep_dumps < 3 &&
	    now - oldest >= (T << fb_ep_dumps) - 10 * 1000000LL && ht_active() && dump_begin()) {
		fb_ep_dumps++;
		ht_blocked_look_here(&fb_looks);
		atomic_store(&stall_dumped, true);	/* exit's after_dump */
		ht_dump_here(HT_DUMP_TIMEOUT, fb_ep_dumps, now - oldest, uc);
		dump_end();
		if (fb_looks.last.result == HT_LOOK_BLOCKED && !fb_declared) {
			fb_declared = true;
			say_stall(ht_now() - oldest);
			if (ht_g.opt.on_stall == HT_ON_STALL_ABORT) {
				ht_say("aborting (HANGTRACE_ON_STALL=abort)", NULL, NULL);
				abort();
			}
		}
	}
	atomic_store(&here_busy, false);
	return true;
}

void ht_watchdog_forget(void)
{
	/* In a forked child: no thread. */
	atomic_store(&running, false);
	atomic_store(&stopping, false);
	atomic_store(&ht_g.watchdog_parked, false);
	atomic_store(&retry_at, 0);
	atomic_store(&unwatched, false);
	atomic_store(&retrying, false);
	atomic_store(&stall_dumped, false);
	atomic_store(&dumping, false);
	atomic_store(&closing_ns, 0);
	atomic_store(&here_busy, false);
	atomic_store(&term_gen, 0);
	atomic_store(&term_done_ns, 0);
	fb_ep_start = 0;
	ht_stimer_forget();
	pthread_mutex_init(&start_lock, NULL);
}
