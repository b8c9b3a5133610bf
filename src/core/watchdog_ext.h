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

#endif
