// SPDX-License-Identifier: MIT
/*
 * watchdog_ext.h: the watchdog's entry points for signal handlers beyond
 * those of ht.h. All async-signal-safe.
 */
#ifndef HT_WATCHDOG_EXT_H
#define HT_WATCHDOG_EXT_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "common.h"
#include "fmt.h"
#include "hangtrace.h"
#include "jsonw.h"
#include "state.h"
#include "writer.h"

/* No watchdog thread (a forked child, or none could be started): the
 * interrupted thread writes the dump itself (uc: the handler's context).
 * False when another dump in progress answers this request. */
bool ht_watchdog_dump_here(enum ht_dump_reason why, void *uc);
/* Waits, bounded, for a dump from a handler to finish; true when none is
 * in progress any more. */
bool ht_watchdog_wait_here(int64_t max_ns);
/* The SIGTERM dump: asks the watchdog unless a SIGTERM dump is already
 * asked for or just written, then waits for it; true when it is written. */
bool ht_watchdog_term_dump(int64_t max_ns);
/* The watchdog could not start: the next hooks that bring back a parked
 * watchdog (close, dup2, wait...) try again, at most once a second. Not
 * async-signal-safe. */
void ht_watchdog_retry_later(void);
/* No watchdog thread could be started (err: errno): says so once, on
 * stderr and in the trace, with what still works; arms the stall timers
 * (stalltimer.h) and, at the thread limit, the retries. Not
 * async-signal-safe. */
void ht_watchdog_not_started(int err);
/* A process that becomes relevant again (CUDA, NCCL in a forked child):
 * starts the watchdog unless it runs or the hooks retry it; says so when
 * it cannot (ht_watchdog_not_started). Not async-signal-safe. */
void ht_watchdog_ensure(void);
/* From the stall timer of a call past its deadline, in its own thread:
 * the dump at 1x, 2x or 4x, the stall line, the abort. False when another
 * dump from a handler is in progress (the timer tries again). */
bool ht_watchdog_look_here(void *uc);

#endif
