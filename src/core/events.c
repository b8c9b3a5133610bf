// SPDX-License-Identifier: MIT
/*
 * events.c: the small API the hook families use to record phases and
 * blocking calls. A phase line is written before the hooked call proceeds;
 * a blocking call is marked in the in-flight table for the watchdog, and
 * gets call lines only while the process starts up (at most 8 per hook) or
 * when a dump saw it stalled. No allocation; no locks.
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "events.h"
#include "hangtrace.h"
#include "inflight.h"
#include "jsonw.h"
#include "phase.h"
#include "real.h"
#include "stalltimer.h"
#include "state.h"
#include "watchdog.h"
#include "writer.h"

#define CALL_LINES_PER_HOOK 8

static _Atomic uint32_t call_ids;

bool ht_phase_line(struct ht_jw *w, char *buf, size_t cap, enum ht_phase ph,
		   enum ht_pstate state)
{
	static const char *const names[] = { "begin", "end", "error" };
	int64_t now = ht_now();
	bool first;

	if (!ht_active())
		return false;
	switch (state) {
	case HT_BEGIN:
		first = ht_phases_begin(&ht_g.phases, ph, now);
		break;
	case HT_END:
		first = ht_phases_end(&ht_g.phases, ph, now);
		break;
	default:
		first = ht_phases_error(&ht_g.phases, ph, now);
		break;
	}
	if (!first)
		return false;
	ht_ev_begin(w, buf, cap, HT_EV_PHASE);
	ht_jw_str(w, "phase", ht_phase_name(ph));
	ht_jw_str(w, "state", names[state]);
	return true;
}

static inline __attribute__((always_inline)) struct ht_slot *my_slot(void)
{
	struct ht_slot *s = ht_tls.slot;

	if (s != NULL && ht_tls.slot_pid == (uint32_t)ht_g.pid)
		return s;
	if (ht_tls.tid == 0 || ht_tls.slot_pid != (uint32_t)ht_g.pid)
		ht_tls.tid = (pid_t)syscall(SYS_gettid);
	s = ht_inflight_claim(&ht_g.inflight, ht_tls.tid);
	if (s != NULL)	/* a dump can then name this thread's Python frames */
		atomic_store_explicit(&s->pthread, (uint64_t)pthread_self(), memory_order_relaxed);
	ht_tls.slot = s;
	ht_tls.slot_pid = (uint32_t)ht_g.pid;
	return s;
}

static void call_line(const struct ht_call *c, bool end, int64_t result, bool stalled)
{
	char buf[512];
	struct ht_jw w;

	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_CALL);
	ht_jw_str(&w, "name", ht_hook_name(c->hook));
	ht_jw_str(&w, "state", end ? "end" : "begin");
	ht_jw_uint(&w, "id", c->id);
	if (end) {
		ht_jw_int(&w, "result", result);
		ht_jw_secs(&w, "dur", ht_now_coarse() - c->start_ns);
		ht_jw_bool(&w, "stalled", stalled);
	}
	ht_ev_emit(&w);
}

/* The outermost call of this thread enters the table (and, the first
 * lines of a hook while starting up, its begin line). */
static inline __attribute__((always_inline)) void enter_outer(struct ht_call *c, int hook,
							      struct ht_slot *s)
{
	c->outer = 1;
	c->start_ns = ht_now_coarse();
	ht_inflight_enter(s, hook, c->start_ns);
	c->seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	c->id = 0;
	if (!ht_phases_has_begun(&ht_g.phases, HT_PHASE_STEADY) &&
	    (unsigned)hook < HT_ARRAY_SIZE(ht_g.call_lines) &&
	    /* A plain load first: no locked add once the lines are used up. */
	    atomic_load_explicit(&ht_g.call_lines[hook], memory_order_relaxed) <
		    CALL_LINES_PER_HOOK &&
	    atomic_fetch_add_explicit(&ht_g.call_lines[hook], 1, memory_order_relaxed) <
		    CALL_LINES_PER_HOOK) {
		c->id = atomic_fetch_add(&call_ids, 1) + 1;
		c->line = true;
		call_line(c, false, 0, false);
	}
}

/* Counts the call; the outermost hooked call of its thread enters the
 * in-flight table. Its slot, or NULL (a nested call, no slot). */
static inline __attribute__((always_inline)) struct ht_slot *enter_counted(struct ht_call *c,
									    int hook)
{
	c->counted = true;
	if (ht_tls.hook_depth++ > 0)
		return NULL;
	struct ht_slot *s = my_slot();
	if (s != NULL)
		enter_outer(c, hook, s);
	return s;
}

/* The flag is up: a parked watchdog to bring back, or none could be
 * started, and the call arms its stall timer (stalltimer.h). Off the fast
 * path, which pays one load of the flag and nothing else. */
static __attribute__((noinline)) void enter_slow(struct ht_call *c, int hook)
{
	ht__watchdog_unpark_slow();
	struct ht_slot *s = enter_counted(c, hook);
	if (s != NULL && ht_stimer_arm(s))
		c->outer = 2;
}

void ht_call_enter(struct ht_call *c, int hook)
{
	c->hook = hook;
	c->counted = c->line = false;
	c->outer = 0;
	if (!ht_active())
		return;
	if (__builtin_expect(atomic_load_explicit(&ht_g.watchdog_parked, memory_order_relaxed), 0)) {
		enter_slow(c, hook);
		return;
	}
	(void)enter_counted(c, hook);
}

/* The outermost call of this thread leaves the table (and gets its end
 * line when it had a begin line or a dump saw it stalled). */
static inline __attribute__((always_inline)) void leave_outer(struct ht_call *c, int64_t result,
							      struct ht_slot *s, bool disarm)
{
	bool stalled = atomic_load_explicit(&s->stalled_seq, memory_order_relaxed) == c->seq;
	ht_inflight_leave(s);
	if (disarm)	/* after the leave: a timer firing now does nothing */
		ht_stimer_disarm(s);
	if (stalled && !c->line) {
		c->id = atomic_fetch_add(&call_ids, 1) + 1;
		c->line = true;
	}
	if (c->line)
		call_line(c, true, result, stalled);
}

/* Its stall timer is armed: a call of its own, so that the fast path
 * keeps its tail call and saves no register. */
static __attribute__((noinline)) void leave_armed(struct ht_call *c, int64_t result)
{
	leave_outer(c, result, ht_tls.slot, true);
}

void ht_call_leave(struct ht_call *c, int64_t result)
{
	if (!c->counted)
		return;
	ht_tls.hook_depth--;
	if (!c->outer)
		return;
	if (__builtin_expect(c->outer > 1, 0)) {
		leave_armed(c, result);
		return;
	}
	leave_outer(c, result, ht_tls.slot, false);
}
