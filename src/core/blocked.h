// SPDX-License-Identifier: MIT
/*
 * blocked.h: blocked or working? (SPEC section 6). The watchdog looks at a
 * process whose phase, or a hooked call, has outlived the deadline; it
 * dumps it at 1x, 2x and 4x the deadline as evidence, and declares a stall
 * only when one of those looks finds it blocked:
 *
 *   call        a hooked blocking call has been in flight past the deadline;
 *   wait_point  the main thread is at a wait of the signature table and
 *               either the process made no progress over the window, or
 *               its stack (at and outside the wait frame) did not change
 *               since the previous look (a spinning MPI wait);
 *   no_progress no CPU time or I/O of its own over the window, and the main
 *               thread is in no activity of the table (a checkpoint load, a
 *               build or a child process it waits for: work done
 *               elsewhere).
 *
 * A look that finds the process working (progress, no wait point; or its
 * Python frames changing between looks while it uses CPU) ends its
 * startup: it is in steady state from then on (blocked_steady).
 * Watchdog (or dumping) thread only.
 */
#ifndef HT_BLOCKED_H
#define HT_BLOCKED_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "common.h"
#include "fmt.h"
#include "hangtrace.h"
#include "jsonw.h"
#include "state.h"
#include "writer.h"

enum ht_look_result { HT_LOOK_UNDECIDED, HT_LOOK_BLOCKED, HT_LOOK_WORKING };

/* A new episode (something else outlived the deadline). */
void ht_blocked_reset(void);
/* The window before the first look opens: a progress sample. */
void ht_blocked_presample(void);
/* Between looks: a cheap look at the main thread's Python frames. */
void ht_blocked_between(void);
/* Before a timeout dump: whether a hooked call outlived the deadline. */
void ht_blocked_look_begin(bool call_blocked);
/* The same from a stall timer's handler (no watchdog thread): a hooked call
 * outlived the deadline; async-signal-safe. */
void ht_blocked_look_here(void);
/* In that dump's dump_end: decides, writes declared, blocked, wait_point,
 * progress. Returns the result. */
enum ht_look_result ht_blocked_end_fields(struct ht_jw *w);
enum ht_look_result ht_blocked_result(void);
/* True while Python looks between the dumps can still tell something. */
bool ht_blocked_wants_ticks(void);
/* The look window and the interval of the Python looks for deadline T. */
int64_t ht_blocked_window(int64_t T);
int64_t ht_blocked_tick(int64_t T);

/* The activity of the signature table the latest look found on the main
 * thread (a checkpoint load, a download, a build, an import), or NULL. */
const struct ht_sig *ht_blocked_activity(void);
/* The latest look's Python frames of the main thread ended short of its
 * entry (read as they changed): what it was doing is unknown. */
bool ht_blocked_python_cut(void);
/* The latest look saw a family's operations complete (MPI calls returned)
 * in its window. */
bool ht_blocked_ops_moved(void);

#endif
