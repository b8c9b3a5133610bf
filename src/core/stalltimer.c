// SPDX-License-Identifier: MIT
/*
 * stalltimer.c: the timers of stalltimer.h, one per in-flight slot (a slot
 * is its thread's for good, so a timer is created once per thread, on its
 * first hooked call without a watchdog). Its signal is the dump signal,
 * whose handler (SA_RESTART) tells our timers by si_code SI_TIMER and the
 * tag in si_value. The race of a call that returns as its timer fires: the
 * call leaves the table before it disarms, and the handler does nothing for
 * a call that is not the one it was armed for; a signal that comes after
 * the disarm finds the timer idle.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "hangtrace.h"
#include "signals.h"
#include "stalltimer.h"
#include "state.h"
#include "watchdog_ext.h"
#include "writer.h"

#define TIMER_MAGIC 0x4855ULL		/* si_value: magic << 48 | slot */
#define SLACK_NS (10 * 1000000LL)	/* a timer a little early is on time */
#define AGAIN_NS (50 * 1000000LL)	/* busy (another dump, our own code): try again */

enum { T_NONE, T_IDLE, T_ARMED };

struct stimer {
	_Atomic int state;
	_Atomic uint32_t seq;	/* the call armed for: its slot's odd seq */
	_Atomic int k;		/* looks done for that call: the next is due at T << k */
	pid_t pid;		/* the process it was created in (fork) */
	pid_t tid;		/* the thread it signals */
	timer_t id;
};

static struct stimer timers[HT_INFLIGHT_SLOTS];
static _Atomic bool on;
static _Atomic bool create_failed;

static void set_in(timer_t id, int64_t ns)
{
	if (ns < 1000000)
		ns = 1000000;
	struct itimerspec its = { { 0, 0 },
				  { (time_t)(ns / HT_NS_PER_SEC), (long)(ns % HT_NS_PER_SEC) } };
	timer_settime(id, 0, &its, NULL);
}

static void stop(timer_t id)
{
	struct itimerspec its;
	memset(&its, 0, sizeof(its));
	timer_settime(id, 0, &its, NULL);
}

bool ht_stimer_enable(void)
{
	if (ht_g.dump_signal == 0 || !ht_signal_owned(ht_g.dump_signal))
		return false;
	atomic_store(&on, true);
	return true;
}

void ht_stimer_disable(void)
{
	if (!atomic_exchange(&on, false))
		return;
	for (size_t i = 0; i < HT_ARRAY_SIZE(timers); i++) {
		struct stimer *t = &timers[i];
		if (atomic_load(&t->state) == T_NONE || t->pid != ht_g.pid)
			continue;
		atomic_store(&t->state, T_IDLE);
		stop(t->id);
	}
}

void ht_stimer_forget(void)
{
	/* POSIX timers are not inherited across fork: pid marks them stale. */
	atomic_store(&on, false);
}

__attribute__((noinline, cold)) bool ht_stimer_arm(struct ht_slot *s)
{
	if (!atomic_load_explicit(&on, memory_order_relaxed))
		return false;
	size_t i = (size_t)(s - ht_g.inflight.slot);
	if (i >= HT_ARRAY_SIZE(timers))
		return false;
	struct stimer *t = &timers[i];
	pid_t tid = atomic_load_explicit(&s->tid, memory_order_relaxed);
	if (atomic_load(&t->state) == T_NONE || t->pid != ht_g.pid || t->tid != tid) {
		if (atomic_load(&t->state) != T_NONE && t->pid == ht_g.pid)
			timer_delete(t->id);	/* a slot let go by an NCCL init, claimed again */
		atomic_store(&t->state, T_NONE);
		struct sigevent sev;
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = ht_g.dump_signal;
		sev.sigev_value.sival_ptr = (void *)(uintptr_t)((TIMER_MAGIC << 48) | i);
		sev._sigev_un._tid = tid;
		if (timer_create(CLOCK_MONOTONIC, &sev, &t->id) != 0) {
			if (!atomic_exchange(&create_failed, true))
				ht_ev_warning("no stall timer for a thread (timer_create failed): "
					      "its hooked calls are not watched");
			return false;
		}
		t->pid = ht_g.pid;
		t->tid = tid;
		atomic_store(&t->state, T_IDLE);
	}
	atomic_store(&t->seq, atomic_load_explicit(&s->seq, memory_order_relaxed));
	atomic_store(&t->k, 0);
	atomic_store(&t->state, T_ARMED);
	set_in(t->id, ht_g.opt.timeout_ns);
	/* Disabled meanwhile (the watchdog started): its sweep may have run
	 * before this timer was armed. */
	if (!atomic_load(&on) && atomic_exchange(&t->state, T_IDLE) == T_ARMED)
		stop(t->id);
	return true;
}

__attribute__((noinline, cold)) void ht_stimer_disarm(struct ht_slot *s)
{
	size_t i = (size_t)(s - ht_g.inflight.slot);
	if (i >= HT_ARRAY_SIZE(timers))
		return;
	struct stimer *t = &timers[i];
	/* Fired for good, or disarmed by ht_stimer_disable: nothing to stop. */
	if (atomic_exchange(&t->state, T_IDLE) == T_ARMED)
		stop(t->id);
}

bool ht_stimer_fired(const siginfo_t *si, void *uc)
{
	uint64_t tag = (uint64_t)(uintptr_t)si->si_value.sival_ptr;

	if (si->si_code != SI_TIMER || (tag >> 48) != TIMER_MAGIC)
		return false;
	size_t i = (size_t)(tag & 0xffff);
	if (i >= HT_ARRAY_SIZE(timers))
		return true;
	struct stimer *t = &timers[i];
	struct ht_slot *s = &ht_g.inflight.slot[i];
	if (atomic_load(&t->state) != T_ARMED)
		return true;	/* a late signal of a call that returned */
	if (!atomic_load(&on) || !ht_active() || t->pid != (pid_t)syscall(SYS_getpid) ||
	    atomic_load(&s->seq) != atomic_load(&t->seq)) {
		atomic_store(&t->state, T_IDLE);	/* the call returned as it fired */
		return true;
	}
	int64_t T = ht_g.opt.timeout_ns;
	int64_t start = atomic_load(&s->start_ns);
	int64_t now = ht_now();
	int64_t due = start + (T << atomic_load(&t->k));
	if (now < due - SLACK_NS) {
		set_in(t->id, due - now);
		return true;
	}
	/* Interrupted inside our own code (a nested hook writing its line):
	 * the look comes a moment later, from the call itself. */
	if (ht_tls.depth > 0 || !ht_watchdog_look_here(uc)) {
		set_in(t->id, AGAIN_NS);
		return true;
	}
	int k = atomic_fetch_add(&t->k, 1) + 1;
	if (k < 3 && atomic_load(&on) && atomic_load(&t->state) == T_ARMED)
		set_in(t->id, start + (T << k) - ht_now());
	else
		atomic_store(&t->state, T_IDLE);
	return true;
}
