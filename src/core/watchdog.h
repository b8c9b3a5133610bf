// SPDX-License-Identifier: MIT
/*
 * watchdog.h: the watchdog thread that notices stalls (watchdog.c).
 */
#ifndef HT_CORE_WATCHDOG_H
#define HT_CORE_WATCHDOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hangtrace.h"
#include "state.h"

/* Starts the watchdog thread (at most one). Not async-signal-safe. */
int ht_watchdog_start(void);
/* Stops it and waits for it (before fork). */
void ht_watchdog_stop(void);
/* Asks for a dump now, from a signal handler: async-signal-safe. Returns
 * the request's generation, for ht_watchdog_wait_dump. */
uint32_t ht_watchdog_request(enum ht_dump_reason why);
/* Waits (bounded) until request gen is served; async-signal-safe. */
bool ht_watchdog_wait_dump(uint32_t gen, int64_t max_ns);
bool ht_watchdog_running(void);
/* After fork, in the child: the watchdog thread does not exist there. */
void ht_watchdog_forget(void);
/* True when a stall dump has been written in this process. */
bool ht_watchdog_dumped(void);
/* The process is ending: a dump in progress may finish (bounded by max_ns)
 * and no new one starts for a second, so the trace never holds a dump cut
 * by the process's end; async-signal-safe. */
void ht_watchdog_settle(int64_t max_ns);
/* Restarts a parked watchdog (see hooks/proc.c fork); cheap when not parked. */
void ht__watchdog_unpark_slow(void);
static inline void ht_watchdog_unpark(void)
{
	if (atomic_load_explicit(&ht_g.watchdog_parked, memory_order_relaxed))
		ht__watchdog_unpark_slow();
}

#endif
