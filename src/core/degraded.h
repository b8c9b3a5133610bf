// SPDX-License-Identifier: MIT
/*
 * degraded.h: a part of the library's machinery that cannot work in this
 * process (SPEC section 6: no watchdog thread, no signal handlers): said
 * once on stderr and once in the trace, as a warning line with "degraded"
 * (what) and "error" (why), which the report's tracing_degraded reads.
 */
#ifndef HT_DEGRADED_H
#define HT_DEGRADED_H

/* what: "watchdog", "signals"; msg: the sentence; err: errno or 0;
 * covers: what still watches for stalls ("hooked_calls": the stall timers
 * of stalltimer.h), or NULL. */
void ht_degraded(const char *what, const char *msg, int err, const char *covers);
/* The part works after all: a warning line with "recovered" (what), once. */
void ht_degraded_recovered(const char *what, const char *msg);
/* In a forked child: nothing said in its own trace yet. */
void ht_degraded_forget(void);

#endif
