// SPDX-License-Identifier: MIT
/*
 * blocked.c: the samples of blocked.h, and the fields of a look in its
 * dump's dump_end line. The decision itself is decide.c's.
 */
#include "blocked.h"

/* The looks of the dump being written: one dump at a time (dump_begin). */
static struct ht_looks *_Atomic current;

int64_t ht_blocked_window(int64_t T)
{
	/* Half the deadline: a wait must show nothing for that long (a rank
	 * whose peer is slow to start waits a second or so on a loaded
	 * machine); at most 10 s, what any deadline of 20 s or more gets. */
	int64_t w = T / 2;
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

static void py_reset(struct ht_looks *L)
{
	L->py_seen = L->py_changed = false;
}

void ht_blocked_reset(struct ht_looks *L)
{
	L->ops_moved = false;
	L->have_prev = false;
	L->prev_look.valid = false;
	L->last.result = HT_LOOK_UNDECIDED;
	L->last.blocked = L->last.progress = NULL;
	L->activity = NULL;
	L->py_cut = false;
	L->py_none = false;
	py_reset(L);
}

/* Before every look: its progress window is the last W seconds, what the
 * process does now (a rank that imported for seconds and then blocked is
 * idle in the window before its next look). */
void ht_blocked_presample(struct ht_looks *L)
{
	ht_lib_watchdog_cpu_sync();
	ht_progress_sample(&L->prev);
	L->have_prev = true;
	ht_blocked_between(L);
}

void ht_blocked_between(struct ht_looks *L)
{
	uint64_t h;
	const struct ht_sig *sig;

	if (L->py_none || L->py_changed)
		return;
	if (!ht_wp_python_look(&h, &sig)) {
		L->py_none = true;	/* not a CPython process: the dumps' stacks only */
		return;
	}
	if (!L->py_seen) {
		L->py_first = h;
		L->py_seen = true;
	} else if (h != L->py_first) {
		L->py_changed = true;
	}
	ht_lib_watchdog_cpu_sync();
}

void ht_blocked_look_begin(struct ht_looks *L, bool blocked_call)
{
	L->call_blocked = blocked_call;
	ht_lib_watchdog_cpu_sync();
	ht_progress_sample(&L->now);
	L->disk_seen = false;
	ht_wp_begin();
	atomic_store(&current, L);
}

void ht_blocked_look_here(struct ht_looks *L)
{
	/* No watchdog thread clock to take out: this thread's own time in the
	 * dump is counted as the library's by ht_dump_here. */
	L->call_blocked = true;
	ht_progress_sample(&L->now);
	L->disk_seen = false;
	ht_wp_begin();
	atomic_store(&current, L);
}

struct ht_looks *ht_blocked_current(void)
{
	return atomic_load(&current);
}

void ht_blocked_thread_state(char state)
{
	struct ht_looks *L = atomic_load(&current);
	if (L != NULL && state == 'D')
		L->disk_seen = true;
}

bool ht_blocked_wants_ticks(const struct ht_looks *L)
{
	return !L->py_none && !L->py_changed && L->last.result != HT_LOOK_BLOCKED;
}

static int64_t pos(int64_t v)
{
	return v < 0 ? 0 : v;
}

/* The window between two samples, as decide.h reads it. */
static void window_of(const struct ht_progress *a, const struct ht_progress *b,
		      struct ht_window *w)
{
	w->ns = b->mono_ns - a->mono_ns;
	w->cpu_ns = pos(b->cpu_ns - a->cpu_ns);
	w->io_bytes = pos(b->io - a->io);
	w->io_calls = pos(b->io_calls - a->io_calls);
	w->disk_bytes = pos(b->disk - a->disk);
	w->calls_done = b->ops - a->ops;
	w->main_sched = a->main.sched_ok && b->main.sched_ok;
	w->main_csw = a->main.csw_ok && b->main.csw_ok;
	w->main_run_ns = w->main_sched ? pos(b->main.run_ns - a->main.run_ns) : 0;
	w->main_runq_ns = w->main_sched ? pos(b->main.runq_ns - a->main.runq_ns) : 0;
	w->main_wakeups = w->main_csw ? pos(b->main.vcsw - a->main.vcsw) : 0;
	w->main_preempted = w->main_csw ? pos(b->main.ivcsw - a->main.ivcsw) : 0;
	w->main_flt = a->main.stat_ok && b->main.stat_ok;
	w->main_majflt = w->main_flt ? pos(b->main.majflt - a->main.majflt) : 0;
}

static void write_window(struct ht_jw *w, const struct ht_window *win)
{
	ht_jw_secs(w, "window", win->ns);
	ht_jw_secs(w, "cpu", win->cpu_ns);
	ht_jw_int(w, "io", win->io_bytes);
	ht_jw_int(w, "io_calls", win->io_calls);
	ht_jw_int(w, "disk", win->disk_bytes);
	if (win->calls_done > 0)
		ht_jw_uint(w, "calls_done", win->calls_done);
	if (win->main_sched) {
		ht_jw_secs(w, "main_run", win->main_run_ns);
		ht_jw_secs(w, "main_runq", win->main_runq_ns);
	}
	if (win->main_csw) {
		ht_jw_int(w, "main_wakeups", win->main_wakeups);
		ht_jw_int(w, "main_preempted", win->main_preempted);
	}
	if (win->main_flt)
		ht_jw_int(w, "main_majflt", win->main_majflt);
}

enum ht_look_result ht_blocked_end_fields(struct ht_looks *L, struct ht_jw *w)
{
	struct ht_look look;
	struct ht_look_in in = { 0 };

	atomic_store(&current, NULL);
	ht_wp_end(&look);
	if (L->have_prev)
		window_of(&L->prev, &L->now, &in.win);
	in.call_past_deadline = L->call_blocked;
	in.at_wait = look.sig != NULL;
	in.activity = look.activity == NULL ? HT_ACT_NONE :
		      look.activity->kind == HT_SIG_IMPORT ? HT_ACT_IMPORT : HT_ACT_OTHER;
	/* The Python frames of this look against those seen since the last. */
	/* In the disk: the main thread as the look began, or any thread as
	 * the dump read it (an import's loader thread mapping a library). */
	in.disk_wait = (L->now.main.stat_ok && L->now.main.state == 'D') || L->disk_seen;
	in.stack_moved = L->py_changed ||
			 (L->py_seen && look.py_hash != 0 && look.py_hash != L->py_first);
	ht_decide(&in, &L->last);
	L->ops_moved = in.win.calls_done > 0;
	bool same = L->prev_look.valid && look.valid && L->prev_look.hash == look.hash &&
		    !in.stack_moved;

	ht_jw_bool(w, "declared", L->last.result == HT_LOOK_BLOCKED);
	ht_jw_str(w, "blocked", L->last.blocked);
	ht_jw_str(w, "wait_point", look.sig != NULL ? look.sig->id : NULL);
	if (look.activity != NULL)
		ht_jw_str(w, "activity", look.activity->id);
	if (look.py_cut)
		ht_jw_bool(w, "python_cut", true);
	ht_jw_obj_begin(w, "progress");
	if (L->have_prev)
		write_window(w, &in.win);
	ht_jw_bool(w, "idle", L->last.idle);
	if (L->last.spin)
		ht_jw_bool(w, "spin", true);
	if (in.disk_wait)
		ht_jw_bool(w, "disk_wait", true);
	if (L->last.progress != NULL)
		ht_jw_str(w, "by", L->last.progress);
	/* Evidence for a person; no rule reads it (decide.h). */
	if (L->prev_look.valid)
		ht_jw_bool(w, "same_stack", same);
	if (L->py_seen || look.py_hash != 0)
		ht_jw_bool(w, "python_moved", in.stack_moved);
	ht_jw_end(w);

	L->prev = L->now;
	L->have_prev = true;
	L->prev_look = look;
	L->activity = look.activity;
	L->py_cut = look.py_cut;
	py_reset(L);
	if (look.py_hash != 0) {
		L->py_first = look.py_hash;
		L->py_seen = true;
	}
	return L->last.result;
}
