// SPDX-License-Identifier: MIT
/*
 * dump.h: a whole dump (dump.c): by the watchdog thread, or by the thread a
 * signal interrupted where there is no watchdog thread (a forked child, a
 * process that could not start one); and a dump cut short.
 */
#ifndef HT_CORE_DUMP_H
#define HT_CORE_DUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "hangtrace.h"

/* Writes a whole dump (stall line through dump_end). Watchdog thread only. */
void ht_dump(enum ht_dump_reason why, int n, int64_t age_ns);
/* A whole dump from a signal handler; uc is the handler's context (the
 * interrupted thread is unwound from it); n and age_ns as for ht_dump. One
 * dump at a time: the caller
 * holds the watchdog's dump guard. */
void ht_dump_here(enum ht_dump_reason why, int n, int64_t age_ns, void *uc);
/* When a dump is being written: ends it with a dump_end carrying "cut"
 * (why), so the last dump of the file is never read as whole. */
void ht_dump_mark_cut(const char *why);

#endif
