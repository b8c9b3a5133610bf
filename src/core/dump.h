// SPDX-License-Identifier: MIT
/*
 * dump.h: a whole dump (dump.c).
 */
#ifndef HT_CORE_DUMP_H
#define HT_CORE_DUMP_H

#include <stdint.h>

#include "hangtrace.h"

/* Writes a whole dump (stall line through dump_end). Watchdog thread only. */
void ht_dump(enum ht_dump_reason why, int n, int64_t age_ns);

#endif
