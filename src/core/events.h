// SPDX-License-Identifier: MIT
/*
 * events.h: phases and blocking calls, for the hook families (events.c).
 */
#ifndef HT_CORE_EVENTS_H
#define HT_CORE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hangtrace.h"
#include "jsonw.h"

/*
 * Begins a phase line when ph begins for the first time: the line is
 * started in w with phase and state; the caller adds fields, then calls
 * ht_ev_emit. Returns false (and writes nothing) otherwise.
 */
enum ht_pstate { HT_BEGIN, HT_END, HT_ERROR };
bool ht_phase_line(struct ht_jw *w, char *buf, size_t cap, enum ht_phase ph,
		   enum ht_pstate state);

struct ht_call {
	int hook;
	bool counted;		/* hook_depth was raised */
	int64_t start_ns;
	uint32_t seq;
	uint32_t id;
	uint8_t outer;		/* 1: the outermost blocking call of its thread; 2: and
				 * its stall timer is armed (no watchdog thread) */
	bool line;		/* a begin line was written */
};

/* The bracket of a blocking hooked call: in flight between the two. */
void ht_call_enter(struct ht_call *c, int hook);
void ht_call_leave(struct ht_call *c, int64_t result);

#endif
