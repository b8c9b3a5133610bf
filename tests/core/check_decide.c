// SPDX-License-Identifier: MIT
/*
 * check_decide.c: ht_decide (src/core/decide.h) over the windows that the
 * library recorded in real runs, as their dump_end lines wrote them
 * ("progress": window, cpu, io, io_calls, calls_done, main_run, main_runq,
 * main_wakeups, main_preempted), each test naming the run it came from.
 * Runs on this project's test machines (2 cores), --timeout 2 (a window of
 * 0.67 s) unless said otherwise:
 *   torch 1.13 = Debian's python3-torch, torch 2.15 = the CUDA wheel from
 *   PyPI (gloo on the CPU); tests/frameworks/gloo_job.py and friends.
 */
#include <stddef.h>

#include "ht_check.h"
#include "decide.h"

#define S(x) ((int64_t)((x) * 1e9))

/* A window as a dump_end line gives it. */
static struct ht_window win(double w, double cpu, int64_t io, int64_t io_calls, uint64_t calls,
			    double run, double runq, int64_t wake, int64_t pre)
{
	struct ht_window x = {
		.ns = S(w), .cpu_ns = S(cpu), .io_bytes = io, .io_calls = io_calls,
		.calls_done = calls, .main_sched = true, .main_csw = true,
		.main_run_ns = S(run), .main_runq_ns = S(runq), .main_wakeups = wake,
		.main_preempted = pre,
	};
	return x;
}

static struct ht_decision decide(struct ht_window w, bool at_wait, enum ht_activity_kind act,
				 bool moved, bool call)
{
	struct ht_look_in in = {
		.win = w, .call_past_deadline = call, .at_wait = at_wait, .activity = act,
		.stack_moved = moved,
	};
	struct ht_decision d;
	ht_decide(&in, &d);
	return d;
}

#define WORKING(d) ck_assert_int_eq((d).result, HT_LOOK_WORKING)
#define BLOCKED(d, why)                                        \
	do {                                                   \
		ck_assert_int_eq((d).result, HT_LOOK_BLOCKED); \
		ck_assert_str_eq((d).blocked, why);            \
	} while (0)

/* Issue 21's run: two gloo ranks all_reduce 4 MiB in a loop (gloo_job.py
 * all_reduce 16), torch 1.13 and 2.15. The main thread is inside
 * all_reduce at every look (the same stack each time), it wakes ~280 times
 * a second, and gloo moves ~550 MiB/s through read/writev. Declared
 * stalled and aborted at the 2x look before this file existed. */
START_TEST(healthy_all_reduce_4mib)
{
	/* torch 1.13, rank 0, its three looks */
	struct ht_window w113[] = {
		win(0.666302, 0.445683, 326163512, 1168, 0, 0.072849, 0.032904, 183, 101),
		win(0.667683, 0.462966, 364967388, 1304, 0, 0.075906, 0.031639, 187, 120),
		win(0.672667, 0.439774, 371259612, 1320, 0, 0.071735, 0.029533, 171, 114),
	};
	for (size_t i = 0; i < 3; i++) {
		struct ht_decision d = decide(w113[i], true, HT_ACT_NONE, false, false);
		WORKING(d);
		ck_assert_str_eq(d.progress, "io");
	}
	/* torch 2.15, rank 1 */
	struct ht_decision d = decide(win(0.67, 0.68 * 0.67, 423698019, 1519, 0, 0.12 * 0.67,
					  0.07 * 0.67, 203, 108),
				      true, HT_ACT_NONE, false, false);
	WORKING(d);
	/* Even with no byte counted, a thousand calls a second are its waits
	 * ending. */
	struct ht_window calls_only = w113[0];
	calls_only.io_bytes = 0;
	calls_only.cpu_ns = 0;
	WORKING(decide(calls_only, true, HT_ACT_NONE, false, false));
}
END_TEST

/* gloo_job.py tiny 16 (a 64x64 matmul and an all_reduce of 16 floats per
 * step), torch 2.15, rank 0: ~200 KB and ~5,800 calls a second, ~770
 * wakeups a second. */
START_TEST(healthy_tiny_all_reduce)
{
	struct ht_window w = win(0.67, 0.60 * 0.67, 206279, 3927, 0, 0.15 * 0.67, 0.07 * 0.67,
				 514, 290);
	WORKING(decide(w, true, HT_ACT_NONE, false, false));
	/* Its bytes alone, and its calls alone, are each enough. */
	struct ht_window b = w;
	b.io_calls = 0;
	b.cpu_ns = 0;
	WORKING(decide(b, true, HT_ACT_NONE, false, false));
	struct ht_window c = w;
	c.io_bytes = 0;
	c.cpu_ns = 0;
	WORKING(decide(c, true, HT_ACT_NONE, false, false));
}
END_TEST

/* gloo_job.py barrier, torch 1.13 and 2.15: rank 0 in dist.barrier(), rank
 * 1 computes and never reaches it. Rank 0: nothing at all; rank 1: one
 * core of matmul, away from any wait. */
START_TEST(blocked_gloo_barrier)
{
	struct ht_window r0 = win(0.667, 0.0, 0, 0, 0, 0.0, 0.0, 0, 0);
	BLOCKED(decide(r0, true, HT_ACT_NONE, false, false), "wait_point");
	struct ht_window r1 = win(0.667, 1.00 * 0.667, 0, 0, 0, 1.00 * 0.667, 0.0, 0, 4);
	struct ht_decision d = decide(r1, false, HT_ACT_NONE, false, false);
	WORKING(d);
	ck_assert_str_eq(d.progress, "cpu");
}
END_TEST

/* gloo_job.py skip, torch 2.15: rank 0 all_reduces 4 MiB, rank 1 never
 * reaches it. Rank 0, in the same frames as the healthy loop above: no
 * byte, no call, no wakeup. */
START_TEST(blocked_all_reduce_never_reached)
{
	struct ht_window w = win(0.667, 0.0, 0, 0, 0, 0.0, 0.0, 0, 0);
	BLOCKED(decide(w, true, HT_ACT_NONE, false, false), "wait_point");
}
END_TEST

/* A 2-rank job of which only rank 0 runs (gloo_job.py all_reduce, WORLD_SIZE
 * 2). torch 1.13: init_process_group's store barrier polls the store every
 * 10 ms (time.sleep(0.01) around store.add): the main thread wakes ~280
 * times a second, as often as the healthy 4 MiB loop's, and its store
 * traffic (send/recv) is not in /proc/self/io. torch 2.15: TCPStore's
 * waitForWorkers polls too, and its libuv server thread reads and writes
 * ~380 times a second, a few bytes each. Both are blocked. */
START_TEST(blocked_store_polls)
{
	struct ht_window t113 = win(0.667, 0.03 * 0.667, 0, 0, 0, 0.02 * 0.667, 0.0, 186, 36);
	BLOCKED(decide(t113, true, HT_ACT_NONE, false, false), "wait_point");
	struct ht_window t215 = win(0.667, 0.02 * 0.667, 2944, 256, 0, 0.01 * 0.667, 0.0, 189, 6);
	struct ht_decision d = decide(t215, true, HT_ACT_NONE, false, false);
	BLOCKED(d, "wait_point");
	ck_assert(d.idle);
	/* torch 2.15, only rank 1 runs: its store client waits in recv. */
	struct ht_window c = win(0.667, 0.0, 49, 2, 0, 0.0, 0.0, 2, 0);
	BLOCKED(decide(c, true, HT_ACT_NONE, false, false), "wait_point");
	/* The 1.13 poll on a loaded machine: each of its ~200 wakeups a
	 * second waits for a core (a fifth of the window runnable). At a wait
	 * point that is no progress: the wait does not end. */
	struct ht_window loaded = win(0.667, 0.03 * 0.667, 0, 0, 0, 0.02 * 0.667, 0.13, 186, 90);
	BLOCKED(decide(loaded, true, HT_ACT_NONE, false, false), "wait_point");
	/* The same counters away from a wait point: waiting for a core. */
	struct ht_decision away = decide(loaded, false, HT_ACT_IMPORT, false, false);
	WORKING(away);
	ck_assert_str_eq(away.progress, "runq");
}
END_TEST

/* tests/frameworks/mpi.sh, mpi4py on Open MPI, 2 ranks, --timeout 3 (a
 * window of 1 s): rank 0 in MPI_Barrier that rank 1 never reaches. Open MPI
 * spins: its main thread on a CPU or waiting for one (the other rank
 * computes on the second core) the whole window, no voluntary switch, no
 * I/O, no MPI call returning. At the first look MPI_Barrier (hooked) has
 * not yet outlived the deadline (the phase has): the spin declares; at the
 * second the call does. */
START_TEST(blocked_mpi_spin)
{
	struct ht_window w1 = win(1.004732, 0.823399, 0, 0, 0, 0.823485, 0.17609, 0, 73);
	struct ht_window w2 = win(1.004739, 0.691401, 0, 0, 0, 0.691442, 0.308319, 0, 106);
	struct ht_decision d = decide(w1, true, HT_ACT_NONE, false, false);
	BLOCKED(d, "spin");
	ck_assert(d.spin);
	/* Runnable a third of the window: that is no progress for a spin. */
	d = decide(w2, true, HT_ACT_NONE, false, false);
	BLOCKED(d, "spin");
	BLOCKED(decide(w2, true, HT_ACT_NONE, false, true), "call");
	/* Its peer, computing away from any wait on the same counters. */
	struct ht_window peer = win(1.000802, 0.667503, 0, 0, 0, 0.667564, 0.332337, 0, 88);
	WORKING(decide(peer, false, HT_ACT_NONE, false, false));
}
END_TEST

/* The same test's healthy mpi4py compute + Allreduce loop: inside
 * MPI_Allreduce (a wait, hooked) at most looks, the same counters as the
 * spin above, but ~440 MPI calls return in the window. */
START_TEST(healthy_mpi_allreduce)
{
	struct ht_window w[] = {
		win(0.999592, 0.709289, 0, 0, 445, 0.709338, 0.290534, 0, 88),
		win(1.000819, 0.732461, 0, 0, 435, 0.732496, 0.270842, 0, 84),
		win(1.003837, 0.769674, 0, 0, 270, 0.76967, 0.162208, 0, 38),
	};
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
		struct ht_decision d = decide(w[i], true, HT_ACT_NONE, false, true);
		WORKING(d);
		ck_assert_str_eq(d.progress, "calls");
	}
}
END_TEST

/* import torch on a loaded machine (three spinners on the two cores),
 * --timeout 1 (a window of 0.33 s): the main thread waited for a core more
 * than half the window, next to no read(2), few wakeups. Working, not
 * stalled; tests/core/loaded_import.sh runs the same at nice 19, where its
 * CPU share is under the 5% that reads as idle. */
START_TEST(import_on_loaded_machine)
{
	struct ht_window w = win(0.333, 0.153, 1592, 3, 0, 0.153, 0.180, 5, 82);
	struct ht_decision d = decide(w, false, HT_ACT_IMPORT, false, false);
	WORKING(d);
	ck_assert_str_eq(d.progress, "runq");
	/* The same import with nothing at all: stuck (an import lock). */
	struct ht_window none = win(0.667, 0.0, 0, 0, 0, 0.0, 0.0, 1, 0);
	BLOCKED(decide(none, false, HT_ACT_IMPORT, false, false), "no_progress");
	/* A checkpoint load with nothing of its own (the reads in another
	 * process, a network file system): undecided, never blocked. */
	ck_assert_int_eq(decide(none, false, HT_ACT_OTHER, false, false).result, HT_LOOK_UNDECIDED);
}
END_TEST

/* import torch with the page cache dropped (--timeout 0.5, a window of
 * 0.17 s): mapping its libraries the main thread sat in the disk the whole
 * first window, nothing counted yet (a fault is counted when it completes);
 * the next windows have the major faults and the bytes from storage. */
START_TEST(cold_import)
{
	struct ht_window none = win(0.167017, 0.0, 0, 0, 0, 0.0, 0.0, 0, 0);
	none.main_flt = true;
	struct ht_look_in in = { .win = none, .activity = HT_ACT_IMPORT, .disk_wait = true };
	struct ht_decision d;
	ht_decide(&in, &d);
	ck_assert_int_eq(d.result, HT_LOOK_UNDECIDED);
	/* The same window out of the disk: nothing at all, stuck. */
	in.disk_wait = false;
	ht_decide(&in, &d);
	BLOCKED(d, "no_progress");
	/* A window later: 2 major faults, 12 MiB from storage, 4 ms of CPU. */
	struct ht_window f = win(0.166687, 0.003697, 0, 0, 0, 0.003663, 0.0, 2, 0);
	f.main_flt = true;
	f.main_majflt = 2;
	f.disk_bytes = 12787712;
	d = decide(f, false, HT_ACT_IMPORT, false, false);
	WORKING(d);
	ck_assert_str_eq(d.progress, "faults");
	f.main_majflt = 0;
	d = decide(f, false, HT_ACT_IMPORT, false, false);
	WORKING(d);
	ck_assert_str_eq(d.progress, "disk");
	/* In the disk at a wait point with a hooked call past the deadline:
	 * the call still decides. */
	struct ht_look_in c = { .win = none, .at_wait = true, .call_past_deadline = true, .disk_wait = true };
	ht_decide(&c, &d);
	BLOCKED(d, "call");
}
END_TEST

/* Python frames that moved between the samples of the window are
 * movement, whatever the counters say. */
START_TEST(stack_moved_is_progress)
{
	struct ht_window w = win(0.667, 0.0, 0, 0, 0, 0.0, 0.0, 0, 0);
	struct ht_decision d = decide(w, true, HT_ACT_NONE, true, false);
	WORKING(d);
	ck_assert_str_eq(d.progress, "stack");
}
END_TEST

/* Without a window (no sample before the look) only a call that outlived
 * the deadline decides. */
START_TEST(no_window)
{
	struct ht_window w = { 0 };
	ck_assert_int_eq(decide(w, true, HT_ACT_NONE, false, false).result, HT_LOOK_UNDECIDED);
	BLOCKED(decide(w, true, HT_ACT_NONE, false, true), "call");
	/* Without the kernel's thread counters, the process's still decide. */
	struct ht_window n = win(0.667, 0.0, 0, 0, 0, 0, 0, 0, 0);
	n.main_sched = n.main_csw = false;
	BLOCKED(decide(n, true, HT_ACT_NONE, false, false), "wait_point");
	n.cpu_ns = S(0.6);
	ck_assert_int_eq(decide(n, true, HT_ACT_NONE, false, false).result, HT_LOOK_WORKING);
}
END_TEST

static Suite *decide_suite(void)
{
	Suite *s = suite_create("decide");
	TCase *tc = tcase_create("recorded_windows");
	tcase_add_test(tc, healthy_all_reduce_4mib);
	tcase_add_test(tc, healthy_tiny_all_reduce);
	tcase_add_test(tc, blocked_gloo_barrier);
	tcase_add_test(tc, blocked_all_reduce_never_reached);
	tcase_add_test(tc, blocked_store_polls);
	tcase_add_test(tc, blocked_mpi_spin);
	tcase_add_test(tc, healthy_mpi_allreduce);
	tcase_add_test(tc, import_on_loaded_machine);
	tcase_add_test(tc, cold_import);
	tcase_add_test(tc, stack_moved_is_progress);
	tcase_add_test(tc, no_window);
	suite_add_tcase(s, tc);
	return s;
}
HT_CHECK_SUITE(decide_suite)
