// SPDX-License-Identifier: MIT
/*
 * decide.h: blocked, working or undecided, from what one look saw (SPEC
 * section 6). One pure function over plain numbers: no clock, no /proc, no
 * state; the watchdog gathers the samples (blocked.c) and acts on the
 * result (watchdog.c). tests/core/check_decide.c runs it over sequences
 * recorded from real runs.
 *
 * Blocked means a wait that does not end. The evidence that waits end is
 * progress:
 *   calls     hooked calls completed in the window (MPI calls returned,
 *             NCCL collectives issued, CUDA synchronizes returned);
 *   io        the process's own file and socket I/O (read/write family:
 *             bytes, or calls);
 *   wakeups   the main thread's voluntary context switches: a thread whose
 *             waits keep ending wakes hundreds of times a second;
 *   runq      the main thread waited to run (a loaded machine: it makes
 *             progress at the kernel's pace, its low CPU share is no
 *             idleness);
 *   faults    the main thread's major page faults, and disk the bytes the
 *             process fetched from storage: an import mapping its
 *             extension modules from a cold or busy disk waits for it,
 *             with no CPU and no read(2) counted;
 *   stack     the main thread's Python frames moved between samples;
 *   cpu       CPU time of the process outside a spinning main thread.
 * A main thread in the disk (state D) when nothing else moved waits for
 * a page fault or a read that has not completed yet (a cold import maps
 * hundreds of MiB): undecided, never declared on that look. A stack that
 * is the same at two looks is never, on its own, evidence of a stall. A wait that spins (Open MPI's barrier) is a main thread that
 * runs, at a wait point, with none of the progress above and no other
 * thread working.
 */
#ifndef HT_DECIDE_H
#define HT_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

/* What the process did in the window before a look (the differences of two
 * samples; the library's own CPU time and I/O taken out). */
struct ht_window {
	int64_t ns;		/* its length; 0: no sample before the look */
	int64_t cpu_ns;		/* the process's CPU time */
	int64_t io_bytes;	/* rchar + wchar */
	int64_t io_calls;	/* syscr + syscw */
	int64_t disk_bytes;	/* read_bytes: fetched from storage (reads, page faults) */
	uint64_t calls_done;	/* hooked calls completed */
	bool main_sched;	/* run_ns and runq_ns below were read */
	bool main_csw;		/* wakeups and preempted below were read */
	int64_t main_run_ns;	/* the main thread on a CPU */
	int64_t main_runq_ns;	/* the main thread runnable, waiting for one */
	int64_t main_wakeups;	/* its voluntary context switches */
	int64_t main_preempted;	/* its involuntary ones */
	bool main_flt;		/* main_majflt below was read */
	int64_t main_majflt;	/* its major page faults: waits for the disk */
};

/* What the activity of the main thread's stack is, if any. */
enum ht_activity_kind { HT_ACT_NONE, HT_ACT_IMPORT, HT_ACT_OTHER };

struct ht_look_in {
	struct ht_window win;
	bool call_past_deadline;	/* a hooked blocking call outlived it */
	bool at_wait;			/* the main thread at a wait of the table */
	enum ht_activity_kind activity;	/* at an activity of the table */
	bool stack_moved;	/* its Python frames differed between samples */
	bool disk_wait;		/* the main thread, or a thread of the dump, in the disk (D) */
};

enum ht_look_result { HT_LOOK_UNDECIDED, HT_LOOK_BLOCKED, HT_LOOK_WORKING };

struct ht_decision {
	enum ht_look_result result;
	const char *blocked;	/* call, wait_point, spin, no_progress; or NULL */
	const char *progress;	/* the first evidence of progress found, or NULL */
	bool idle;		/* no progress and no CPU at all */
	bool spin;		/* the main thread runs and nothing completes */
};

/* The thresholds, per second of window (decide.c says where each number
 * comes from). */
#define HT_DECIDE_IO_BYTES (64 << 10)	/* a window's bytes that are progress */
#define HT_DECIDE_IO_CALLS_PER_S 1000
#define HT_DECIDE_WAKEUPS_PER_S 1000
#define HT_DECIDE_FEW_WAKEUPS_PER_S 4	/* a spinning thread's, at most */
#define HT_DECIDE_MAJFLT 2		/* a window's major faults that are progress */

void ht_decide(const struct ht_look_in *in, struct ht_decision *out);

#endif
