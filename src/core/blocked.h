// SPDX-License-Identifier: MIT
/*
 * blocked.h: the samples a look decides with (SPEC section 6). The watchdog
 * looks at a process whose phase, or a hooked call, has outlived the
 * deadline; it dumps it at 1x, 2x and 4x the deadline as evidence. Before
 * each look a progress sample opens its window (the process's CPU time,
 * I/O bytes and calls, hooked calls completed, the main thread's wakeups,
 * run and runnable time); between, cheap looks at the main thread's Python
 * frames; at the look, the dump's own frames. ht_decide (decide.h) turns
 * them into blocked, working or undecided; this file only gathers them and
 * writes what was seen into the dump's dump_end line.
 * Watchdog (or dumping) thread only.
 */
#ifndef HT_BLOCKED_H
#define HT_BLOCKED_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "decide.h"
#include "progress.h"
#include "waitpoint.h"
#include "common.h"
#include "fmt.h"
#include "hangtrace.h"
#include "jsonw.h"
#include "state.h"
#include "writer.h"

/* What the looks of one episode have seen, for the next look: owned by
 * its caller (the watchdog thread's loop, or the stall timers' path). */
struct ht_looks {
	struct ht_progress prev;	/* the sample that opens the window */
	bool have_prev;
	struct ht_look prev_look;
	bool call_blocked;
	struct ht_progress now;		/* taken as the dump began: its own reads come after */
	struct ht_decision last;	/* of the latest look */
	bool disk_seen;		/* a thread of the dump in the disk (D) */
	bool ops_moved;
	const struct ht_sig *activity;
	bool py_cut;
	/* The Python looks since the last dump look. */
	uint64_t py_first;
	bool py_seen, py_changed, py_none;
};

/* A new episode (something else outlived the deadline). */
void ht_blocked_reset(struct ht_looks *L);
/* The window before the first look opens: a progress sample. */
void ht_blocked_presample(struct ht_looks *L);
/* Between looks: a cheap look at the main thread's Python frames. */
void ht_blocked_between(struct ht_looks *L);
/* Before a timeout dump: whether a hooked call outlived the deadline. */
void ht_blocked_look_begin(struct ht_looks *L, bool call_blocked);
/* The same from a stall timer's handler (no watchdog thread): a hooked call
 * outlived the deadline; async-signal-safe. */
void ht_blocked_look_here(struct ht_looks *L);
/* The looks the dump being written decides with (set by look_begin and
 * look_here, cleared by end_fields). */
struct ht_looks *ht_blocked_current(void);
/* The dump read a thread's state (its stat, as it wrote the thread). */
void ht_blocked_thread_state(char state);
/* In that dump's dump_end: decides (decide.h), writes declared, blocked,
 * wait_point, progress. Returns the result. */
enum ht_look_result ht_blocked_end_fields(struct ht_looks *L, struct ht_jw *w);
/* True while Python looks between the dumps can still tell something. */
bool ht_blocked_wants_ticks(const struct ht_looks *L);
/* The look window and the interval of the Python looks for deadline T. */
int64_t ht_blocked_window(int64_t T);
int64_t ht_blocked_tick(int64_t T);

#endif
