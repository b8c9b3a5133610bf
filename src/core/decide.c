// SPDX-License-Identifier: MIT
/*
 * decide.c: the decision of decide.h. Where the numbers come from (the
 * runs of tests/core/check_decide.c, recorded with these counters):
 *   - a blocked TCPStore client, gloo pair or JAX coordination client
 *     makes no counted I/O, uses no CPU and its main thread wakes at most
 *     a few times a second; the polling store barrier of torch 1.13
 *     (time.sleep(0.01) around store.add) wakes about 200 times a second
 *     and its store traffic (send/recv) is not in /proc/self/io;
 *   - a healthy gloo loop moves megabytes (read/writev) and thousands of
 *     calls a second; a tiny all-reduce loop, hundreds of calls;
 *   - an import on a loaded 2-core machine (four ranks importing torch
 *     and JAX at once, the page cache short of their libraries): the main
 *     thread in create_module (dlopen) with no CPU, not runnable, no
 *     read(2) for half a second: in the disk (D), major faults;
 *   - Open MPI spinning in a barrier: its main thread on a CPU, or
 *     runnable waiting for one, the whole window (two ranks on two cores:
 *     run 0.6-0.8 s, runnable 0.2-0.4 s of 1 s), no voluntary switch
 *     (its yields are involuntary), no I/O, no MPI call returning; a
 *     healthy mpi4py Allreduce loop looks the same but for its ~400 MPI
 *     calls returning a second.
 */
#include <stddef.h>
#include <string.h>

#include "decide.h"

/* n per second over a window of ns, rounded up, at least min. */
static int64_t per_window(int64_t per_s, int64_t ns, int64_t min)
{
	int64_t v = (per_s * ns + 999999999) / 1000000000;
	return v < min ? min : v;
}

static const char *progress_of(const struct ht_look_in *in)
{
	const struct ht_window *w = &in->win;

	if (w->calls_done > 0)
		return "calls";
	if (w->io_bytes >= HT_DECIDE_IO_BYTES)
		return "io";
	if (w->io_calls >= per_window(HT_DECIDE_IO_CALLS_PER_S, w->ns, 8))
		return "io_calls";
	if (w->main_flt && w->main_majflt >= HT_DECIDE_MAJFLT)
		return "faults";
	if (w->disk_bytes >= HT_DECIDE_IO_BYTES)
		return "disk";
	if (in->stack_moved)
		return "stack";
	if (w->main_csw && w->main_wakeups >= per_window(HT_DECIDE_WAKEUPS_PER_S, w->ns, 16))
		return "wakeups";
	/* Runnable a tenth of the window without a CPU: the machine is
	 * loaded, the thread is not waiting for anything but a core. Not at a
	 * wait point: a wait that polls (a store client's sleep loop, a
	 * bootstrap's poll) waits for a core at every wakeup on a loaded
	 * machine, and does not end. */
	if (!in->at_wait && w->main_sched && w->main_runq_ns * 10 >= w->ns)
		return "runq";
	return NULL;
}

void ht_decide(const struct ht_look_in *in, struct ht_decision *out)
{
	const struct ht_window *w = &in->win;

	out->result = HT_LOOK_UNDECIDED;
	out->blocked = NULL;
	out->progress = NULL;
	out->idle = out->spin = false;
	if (w->ns <= 0) {
		/* No window: only a call that outlived the deadline tells. */
		if (in->call_past_deadline) {
			out->result = HT_LOOK_BLOCKED;
			out->blocked = "call";
		}
		return;
	}
	int64_t cpu = w->cpu_ns < 0 ? 0 : w->cpu_ns;
	bool cpu_busy = cpu * 20 >= w->ns;	/* 5% of a core */
	/* The main thread's own run time, when known; the rest is the other
	 * threads' (JAX's and torch's compute threads while main waits). */
	int64_t main_run = w->main_sched ? w->main_run_ns : 0;
	int64_t other = cpu - main_run;
	bool other_busy = w->main_sched ? other * 20 >= w->ns : cpu_busy;
	out->progress = progress_of(in);
	bool progress = out->progress != NULL;
	/* Waiting for a core is progress for a thread that has work (an
	 * import on a loaded machine), not for one that spins: a spinning wait
	 * on a loaded machine waits to run too (Open MPI's barrier, two ranks
	 * on two busy cores: runnable 20-35% of the window). */
	bool only_runq = progress && strcmp(out->progress, "runq") == 0;
	out->idle = !progress && !cpu_busy;
	/* A spinning main thread: on a CPU, or runnable, half the window,
	 * next to no wait that ended, nothing completing, no other thread at
	 * work. */
	out->spin = (!progress || only_runq) && w->main_sched && w->main_csw &&
		    (main_run + w->main_runq_ns) * 2 >= w->ns &&
		    w->main_wakeups <= per_window(HT_DECIDE_FEW_WAKEUPS_PER_S, w->ns, 2) &&
		    !other_busy;

	/* In the disk with nothing else moving: the fault or read has not
	 * completed, none of it is counted yet (look again). */
	if (in->disk_wait && !progress && !in->call_past_deadline)
		return;
	/* A hooked call in flight past the deadline while none completes (an
	 * MPI loop is nearly always inside one: calls that return are its
	 * progress). */
	if (in->call_past_deadline && w->calls_done == 0) {
		out->result = HT_LOOK_BLOCKED;
		out->blocked = "call";
	} else if (in->at_wait && out->idle) {
		out->result = HT_LOOK_BLOCKED;
		out->blocked = "wait_point";
	} else if (in->at_wait && out->spin) {
		out->result = HT_LOOK_BLOCKED;
		out->blocked = "spin";
	} else if (out->idle && in->activity != HT_ACT_OTHER) {
		/* Nothing at all, and no work done elsewhere on its behalf (a
		 * checkpoint load, a build it waits for): an import that does
		 * nothing is stuck too. */
		out->result = HT_LOOK_BLOCKED;
		out->blocked = "no_progress";
	} else if (progress || (cpu_busy && !(in->at_wait && out->spin))) {
		/* A main thread that computes alone, away from any wait, spins
		 * by these counters too: it is working. */
		out->result = HT_LOOK_WORKING;
		if (!progress)
			out->progress = "cpu";
	}
}
