// SPDX-License-Identifier: MIT
/*
 * stalltimer.h: stall dumps and abort without a watchdog thread (SPEC
 * section 6: the machinery works whatever the thread limit). While no
 * watchdog thread could be started, each outermost hooked blocking call
 * arms a POSIX timer of its own thread (SIGEV_THREAD_ID: no thread, no pid)
 * for the deadline and disarms it when it returns. When the timer fires
 * and the call is still in flight, the handler, in that thread, does what
 * the watchdog would: the dump at 1x, 2x and 4x, the stall line, the abort
 * (ht_watchdog_look_here). A thread outside a hooked call is never
 * signalled: the signal lands only where a dump's unwind signal would land
 * anyway, inside a call past its deadline, never on a store client's poll.
 */
#ifndef HT_CORE_STALLTIMER_H
#define HT_CORE_STALLTIMER_H

#include <signal.h>
#include <stdbool.h>

#include "inflight.h"

/* No watchdog thread: the calls from now on arm timers. Needs the dump
 * signal's handler in place (a timer signal nobody handles would end the
 * process); false, and nothing armed, without it. Not async-signal-safe. */
bool ht_stimer_enable(void);
/* The watchdog thread exists after all: every armed timer is disarmed, and
 * none is armed again. */
void ht_stimer_disable(void);
/* In a forked child: the parent's timers do not exist there. */
void ht_stimer_forget(void);
/* From ht_call_enter, the call marked in flight in s (its thread's slot):
 * arms the thread's timer for the deadline; true when armed. */
bool ht_stimer_arm(struct ht_slot *s);
/* From ht_call_leave, after the call left the table; nothing when its
 * timer is not armed. */
void ht_stimer_disarm(struct ht_slot *s);
/* From the dump signal's handler: true when si is one of our timers (and
 * then it was served). Async-signal-safe. */
bool ht_stimer_fired(const siginfo_t *si, void *uc);

#endif
