// SPDX-License-Identifier: MIT
/*
 * blocked.c: the decision of blocked.h. Thresholds: idle is under 5% of
 * one core of the process's own CPU time over the window and under 64 KiB
 * of its own I/O (a blocked TCPStore client, gloo pair or JAX coordination
 * client uses neither; a rank that trains uses a core). Operations a
 * family saw complete in the window (MPI calls that returned) are progress
 * whatever the CPU and the stacks say: Open MPI spins inside its calls, and
 * a loop of them shows one stack at every look.
 */
#include "blocked.h"
#include "progress.h"
#include "waitpoint.h"

#define IDLE_IO_BYTES (64 << 10)

static struct ht_progress prev;
static bool have_prev;
static struct ht_look prev_look;
static bool call_blocked;
static struct ht_progress look_now;	/* taken as the dump began: its own reads come after */
static enum ht_look_result result;
static bool ops_moved;		/* of the latest look */
static const struct ht_sig *last_activity;	/* of the latest look */
static bool last_py_cut;			/* its Python frames were cut short */
/* The Python looks since the last dump look. */
static uint64_t py_first;
static bool py_seen, py_changed, py_none;

int64_t ht_blocked_window(int64_t T)
{
	int64_t w = T / 3;
	return w > 10 * HT_NS_PER_SEC ? 10 * HT_NS_PER_SEC : w;
}

int64_t ht_blocked_tick(int64_t T)
{
	int64_t t = T / 10;
	if (t > HT_NS_PER_SEC)
		t = HT_NS_PER_SEC;
	if (t < 50 * 1000000LL)
		t = 50 * 1000000LL;
	return t;
}

static void py_reset(void)
{
	py_seen = py_changed = false;
}

void ht_blocked_reset(void)
{
	ops_moved = false;
	have_prev = false;
	prev_look.valid = false;
	result = HT_LOOK_UNDECIDED;
	py_none = false;
	py_reset();
}

/* Before every look: its progress window is the last W seconds, what the
 * process does now (a rank that imported for seconds and then blocked is
 * idle in the window before its next look). */
void ht_blocked_presample(void)
{
	ht_lib_watchdog_cpu_sync();
	ht_progress_sample(&prev);
	have_prev = true;
	ht_blocked_between();
}

void ht_blocked_between(void)
{
	uint64_t h;
	const struct ht_sig *sig;

	if (py_none || py_changed)
		return;
	if (!ht_wp_python_look(&h, &sig)) {
		py_none = true;	/* not a CPython process: the dumps' stacks only */
		return;
	}
	if (!py_seen) {
		py_first = h;
		py_seen = true;
	} else if (h != py_first) {
		py_changed = true;
	}
	ht_lib_watchdog_cpu_sync();
}

void ht_blocked_look_begin(bool blocked_call)
{
	call_blocked = blocked_call;
	ht_lib_watchdog_cpu_sync();
	ht_progress_sample(&look_now);
	ht_wp_begin();
}

void ht_blocked_look_here(void)
{
	/* No watchdog thread clock to take out: this thread's own time in the
	 * dump is counted as the library's by ht_dump_here. */
	call_blocked = true;
	ht_progress_sample(&look_now);
	ht_wp_begin();
}

bool ht_blocked_wants_ticks(void)
{
	return !py_none && !py_changed && result != HT_LOOK_BLOCKED;
}

enum ht_look_result ht_blocked_result(void)
{
	return result;
}

enum ht_look_result ht_blocked_end_fields(struct ht_jw *w)
{
	struct ht_look look;
	struct ht_progress now = look_now;

	ht_wp_end(&look);
	int64_t win = have_prev ? now.mono_ns - prev.mono_ns : 0;
	int64_t cpu = have_prev ? now.cpu_ns - prev.cpu_ns : 0;
	int64_t io = have_prev ? now.io - prev.io : 0;
	if (cpu < 0)
		cpu = 0;
	if (io < 0)
		io = 0;
	uint64_t ops = have_prev ? now.ops - prev.ops : 0;
	ops_moved = ops > 0;
	bool idle = have_prev && win > 0 && cpu * 20 < win && io < IDLE_IO_BYTES && !ops_moved;
	bool wait = look.sig != NULL;
	/* The Python frames of this look against those seen since the last. */
	bool moved = py_changed || (py_seen && look.py_hash != 0 && look.py_hash != py_first) ||
		     ops_moved;
	bool same = prev_look.valid && look.valid && prev_look.hash == look.hash && !moved;
	const char *why = NULL;

	/* A call in flight past the deadline while others complete (an MPI
	 * progress thread in MPI_Recv, the main thread in its Allreduce
	 * loop) is no stall of the process. */
	if (call_blocked && !ops_moved)
		why = "call";
	else if (wait && (idle || same))
		why = "wait_point";
	else if (idle && (look.activity == NULL || look.activity->kind == HT_SIG_IMPORT))
		why = "no_progress";	/* an import that does nothing is stuck too */
	if (why != NULL)
		result = HT_LOOK_BLOCKED;
	else if (have_prev && !idle && (!wait || moved))
		result = HT_LOOK_WORKING;
	else
		result = HT_LOOK_UNDECIDED;

	ht_jw_bool(w, "declared", result == HT_LOOK_BLOCKED);
	ht_jw_str(w, "blocked", why);
	ht_jw_str(w, "wait_point", look.sig != NULL ? look.sig->id : NULL);
	if (look.activity != NULL)
		ht_jw_str(w, "activity", look.activity->id);
	if (look.py_cut)
		ht_jw_bool(w, "python_cut", true);
	ht_jw_obj_begin(w, "progress");
	if (have_prev) {
		ht_jw_secs(w, "window", win);
		ht_jw_secs(w, "cpu", cpu);
		ht_jw_int(w, "io", io);
		if (ops > 0)
			ht_jw_uint(w, "calls_done", ops);
	}
	ht_jw_bool(w, "idle", idle);
	if (prev_look.valid)
		ht_jw_bool(w, "same_stack", same);
	if (py_seen || look.py_hash != 0)
		ht_jw_bool(w, "python_moved", moved);
	ht_jw_end(w);

	prev = now;
	have_prev = true;
	prev_look = look;
	last_activity = look.activity;
	last_py_cut = look.py_cut;
	py_reset();
	if (look.py_hash != 0) {
		py_first = look.py_hash;
		py_seen = true;
	}
	return result;
}

bool ht_blocked_ops_moved(void)
{
	return ops_moved;
}

const struct ht_sig *ht_blocked_activity(void)
{
	return last_activity;
}

bool ht_blocked_python_cut(void)
{
	return last_py_cut;
}
