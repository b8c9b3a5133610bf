// SPDX-License-Identifier: MIT
/*
 * dump.c: one dump (SPEC section 6), written by the watchdog thread: the
 * stall line with the calls in flight, the families' extra lines (pending
 * connects), a thread line per thread with its native frames, Python frames,
 * CPU time and state, and dump_end with the I/O counters and the collective
 * ring. Threads are signalled once each and waited for a bounded time; one
 * that does not answer is described from /proc instead. Memory comes from
 * an arena mapped for the dump and unmapped after it: no malloc.
 */
#include <dirent.h>
#include <setjmp.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "buildlock.h"
#include "clock.h"
#include "common.h"
#include "blocked.h"
#include "children.h"
#include "dump.h"
#include "elfsym.h"
#include "families.h"
#include "fmt.h"
#include "hangtrace.h"
#include "inflight.h"
#include "jsonw.h"
#include "procfs.h"
#include "progress.h"
#include "pystack.h"
#include "real.h"
#include "signals.h"
#include "state.h"
#include "unwind.h"
#include "writer.h"
#include "waitpoint.h"

#define ARENA_SIZE (64u << 20)		/* reserved, touched only as used */
#define ANSWER_WAIT_NS (60 * 1000000LL)	/* the bound on unanswered threads */
#define BLOCKED_GRACE_NS (10 * 1000000LL)	/* how long a masked thread is watched */
#define MAX_THREADS 4096

static char line[65536];
static uint32_t dump_no;
static uint32_t unwind_gen;
static enum ht_dump_reason cur_why;
static bool feed_main;		/* the main thread's frames go to the wait-point matcher */
static void *handler_uc;	/* dumping from a signal handler: its context */
static _Atomic bool in_dump;

struct thr {
	pid_t tid;
	int slot;		/* index in ht_uslots, -1 if none */
	bool signalled;
	bool deferred;		/* blocked our signal when we looked */
	bool answered;
	struct ht_stat st;
	bool have_stat;
};

struct thr_list {
	struct thr *t;
	size_t n, max;
};

static bool one_thread(void *arg, int fd, const struct dirent64 *d)
{
	struct thr_list *l = arg;
	int64_t tid;
	(void)fd;
	if (ht_parse_i64(d->d_name, &tid) && l->n < l->max)
		l->t[l->n++] = (struct thr){ .tid = (pid_t)tid, .slot = -1 };
	return true;
}

static size_t list_threads(struct thr *t, size_t max)
{
	struct thr_list l = { t, 0, max };
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	ht_dir_each(fd, 0, one_thread, &l);
	syscall(SYS_close, fd);
	return l.n;
}

static int slot_for(pid_t tid)
{
	int free_slot = -1;
	for (int i = 0; i < HT_USLOTS; i++) {
		pid_t s = atomic_load(&ht_uslots[i].tid);
		if (s == tid)
			return i;
		if (s == 0 && free_slot < 0)
			free_slot = i;
	}
	if (free_slot >= 0) {
		struct ht_uslot *u = &ht_uslots[free_slot];
		atomic_store(&u->want, 0);
		atomic_store(&u->sent, 0);
		atomic_store(&u->answered, 0);
		atomic_store(&u->done, 0);
		atomic_store(&u->tid, tid);
	}
	return free_slot;
}

/* Frees the slots of threads that no longer exist. */
static void reap_slots(const struct thr *t, size_t n)
{
	for (int i = 0; i < HT_USLOTS; i++) {
		pid_t s = atomic_load(&ht_uslots[i].tid);
		if (s == 0)
			continue;
		bool alive = false;
		for (size_t k = 0; k < n && !alive; k++)
			alive = t[k].tid == s;
		if (!alive)
			atomic_store(&ht_uslots[i].tid, 0);
	}
}

/* True when tid blocks our dump signal (SigBlk in its status): it would
 * not answer until it unblocks, so it is described from /proc at once. */
static bool blocks_dump_signal(pid_t tid)
{
	char path[64], buf[2048];
	ht_task_path(path, sizeof(path), tid, "status");
	if (ht_read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	const char *p = strstr(buf, "\nSigBlk:");
	if (p == NULL)
		return false;
	p += 9;
	while (*p == ' ' || *p == '\t')
		p++;
	/* A 64-bit hex mask, signal k at bit k-1 counted from the right. */
	const char *end = p;
	while ((*end >= '0' && *end <= '9') || (*end >= 'a' && *end <= 'f'))
		end++;
	int bit = ht_g.dump_signal - 1;
	const char *digit = end - 1 - bit / 4;
	if (digit < p)
		return false;
	int v = *digit <= '9' ? *digit - '0' : *digit - 'a' + 10;
	return (v >> (bit % 4)) & 1;
}

static bool send_unwind(struct thr *t, uint32_t gen)
{
	struct ht_uslot *u = &ht_uslots[t->slot];
	atomic_store(&u->want, gen);
	atomic_store(&u->sent, gen);
	if (ht_signal_thread(t->tid, (uint32_t)t->slot, gen) == 0) {
		t->signalled = true;
		return true;
	}
	atomic_store(&u->answered, gen);
	return false;
}

/*
 * Signals every thread once and waits, bounded, for the answers. A thread
 * that blocks our signal is not signalled (it would only queue it): it is
 * looked at again for a few milliseconds, since it may just be passing
 * through a handler (the one that asked for this very dump, say), and is
 * otherwise described from /proc. A family may spare a thread (one whose
 * wait an EINTR would end, hooks/net); a thread waiting in our SIGTERM
 * handler is signalled anyway: its wait is ours, and its stack past the
 * handler is the one the report needs.
 */
static void signal_and_wait(struct thr *t, size_t n, uint32_t gen)
{
	pid_t self = ht_tls.tid;
	int64_t start = ht_now();
	int64_t deadline = start + ANSWER_WAIT_NS, grace = start + BLOCKED_GRACE_NS;
	size_t waiting = 0, deferred = 0;

	for (size_t i = 0; i < n; i++) {
		if (t[i].tid == self || (t[i].slot = slot_for(t[i].tid)) < 0)
			continue;
		struct ht_uslot *u = &ht_uslots[t[i].slot];
		/* At most one signal outstanding per thread: real-time signals
		 * queue, and a masked thread would get them all at once later. */
		if (atomic_load(&u->sent) != atomic_load(&u->answered) ||
		    (!ht_signal_in_term(t[i].tid) && !ht_families_may_signal(t[i].tid)))
			continue;
		if (blocks_dump_signal(t[i].tid)) {
			t[i].deferred = true;
			deferred++;
		} else if (send_unwind(&t[i], gen)) {
			waiting++;
		}
	}
	for (;;) {
		int64_t now = ht_now();
		if ((waiting == 0 && (deferred == 0 || now >= grace)) || now >= deadline)
			break;
		struct timespec ts = { 0, 200000 };
		nanosleep(&ts, NULL);
		waiting = 0;
		for (size_t i = 0; i < n; i++) {
			if (t[i].deferred && ht_now() < grace && !blocks_dump_signal(t[i].tid)) {
				t[i].deferred = false;
				deferred--;
				send_unwind(&t[i], gen);
			}
			if (t[i].signalled && !t[i].answered) {
				if (atomic_load_explicit(&ht_uslots[t[i].slot].done,
							 memory_order_acquire) == gen)
					t[i].answered = true;
				else
					waiting++;
			}
		}
	}
}

static void write_stall(enum ht_dump_reason why, int n, int64_t age_ns, int64_t now)
{
	struct ht_jw w;
	struct ht_inflight_view v[64];
	size_t nv = ht_inflight_snapshot(&ht_g.inflight, v, HT_ARRAY_SIZE(v));
	int64_t coarse = ht_now_coarse();
	int cur = atomic_load(&ht_g.phases.current);

	ht_ev_begin(&w, line, sizeof(line), HT_EV_STALL);
	ht_jw_uint(&w, "dump", dump_no);
	ht_jw_str(&w, "reason", ht_dump_reason_name(why));
	ht_jw_str(&w, "phase", cur >= 0 ? ht_phase_name(cur) : NULL);
	ht_jw_secs(&w, "phase_age", now - atomic_load(&ht_g.phases.changed_ns));
	ht_jw_int(&w, "n", n);
	ht_jw_secs(&w, "deadline", ht_g.opt.timeout_ns);
	if (why == HT_DUMP_TIMEOUT)
		ht_jw_secs(&w, "age", age_ns);
	if (why == HT_DUMP_TIMEOUT && handler_uc != NULL)
		ht_jw_bool(&w, "timer", true);	/* no watchdog thread: a call's timer */
	ht_jw_arr_begin(&w, "calls");
	for (size_t i = 0; i < nv; i++) {
		atomic_store(&v[i].slot->stalled_seq, v[i].seq);
		ht_jw_obj_begin(&w, NULL);
		ht_jw_str(&w, "name", ht_hook_name(v[i].hook));
		ht_jw_int(&w, "tid", v[i].tid);
		ht_jw_secs(&w, "age", coarse - v[i].start_ns);
		ht_jw_end(&w);
	}
	ht_jw_end(&w);
	ht_ev_emit(&w);
}

static void write_frames(struct ht_jw *w, const struct ht_uslot *u, const struct ht_symq *q)
{
	ht_jw_arr_begin(w, "frames");
	for (int k = 0; k < u->n; k++) {
		char f[1400], hex[24];
		const struct ht_symq *s = &q[k];
		/* The name gets at most 1100 bytes: the place must still fit. */
		size_t len = ht_append(f, 1100, 0, s->name != NULL ? s->name : "??");
		len = ht_append(f, sizeof(f), len, " (");
		if (s->map != NULL) {
			len = ht_append(f, len + 200, len, ht_basename(s->map->path));
			ht_fmt_hex(hex, s->vaddr != 0 ? s->vaddr : s->addr - s->map->lo + s->map->off);
			len = ht_append(f, sizeof(f), len, "+");
			len = ht_append(f, sizeof(f), len, hex);
		} else {
			len = ht_append(f, sizeof(f), len, "??");
		}
		ht_append(f, sizeof(f), len, ")");
		if (feed_main)
			ht_wp_native(k, f);
		ht_jw_str(w, NULL, f);
	}
	ht_jw_end(w);
}

static void write_unanswered(struct ht_jw *w, pid_t tid)
{
	char path[64], buf[256];
	ht_task_path(path, sizeof(path), tid, "wchan");
	ssize_t r = ht_read_file(path, buf, sizeof(buf));
	ht_jw_str(w, "wchan", r > 0 ? buf : NULL);
	ht_task_path(path, sizeof(path), tid, "syscall");
	r = ht_read_file(path, buf, sizeof(buf));
	while (r > 0 && buf[r - 1] == '\n')
		buf[--r] = '\0';
	ht_jw_str(w, "syscall", r > 0 ? buf : NULL);
}

/* The pthread_t of thread t, as CPython names threads; 0 when unknown. */
static uint64_t thread_ident(const struct thr *t, const struct ht_uslot *u)
{
	if (u != NULL)
		return u->pthread;
	if (t->tid == ht_g.pid)
		return atomic_load(&ht_g.main_pthread);
	uint32_t used = atomic_load(&ht_g.inflight.used);
	for (uint32_t i = 0; i < used; i++)
		if (atomic_load(&ht_g.inflight.slot[i].tid) == t->tid)
			return atomic_load(&ht_g.inflight.slot[i].pthread);
	if (t->slot >= 0)	/* answered a dump before */
		return ht_uslots[t->slot].pthread;
	return 0;
}

static void write_thread(struct ht_arena *a, const struct ht_maps *maps, struct thr *t,
			 struct ht_pythread *py, size_t npy, uint32_t gen)
{
	struct ht_jw w;
	char path[64];
	long ticks = sysconf(_SC_CLK_TCK);
	ht_task_path(path, sizeof(path), t->tid, "stat");
	t->have_stat = ht_read_stat(path, &t->st);

	ht_ev_begin(&w, line, sizeof(line), HT_EV_THREAD);
	ht_jw_uint(&w, "dump", dump_no);
	ht_jw_int(&w, "tid", t->tid);
	ht_jw_str(&w, "name", t->have_stat ? t->st.comm : NULL);
	ht_jw_bool(&w, "main", t->tid == ht_g.pid);
	char state[2] = { t->have_stat ? t->st.state : '?', '\0' };
	ht_jw_str(&w, "state", state);
	if (t->have_stat)
		ht_blocked_thread_state(t->st.state);
	if (t->have_stat && ticks > 0)
		ht_jw_secs(&w, "cpu", (int64_t)((t->st.utime + t->st.stime) *
					   (uint64_t)(HT_NS_PER_SEC / ticks)));
	bool watchdog = t->tid == ht_tls.tid && handler_uc == NULL;
	feed_main = cur_why == HT_DUMP_TIMEOUT && t->tid == ht_g.pid;
	const struct ht_uslot *u = t->slot >= 0 && t->answered ? &ht_uslots[t->slot] : NULL;
	ht_jw_bool(&w, "answered", u != NULL);
	if (watchdog)
		ht_jw_bool(&w, "hangtrace", true);
	size_t mark = a->used;
	if (u != NULL && atomic_load(&u->done) == gen) {
		struct ht_symq *q = ht_arena_alloc(a, (size_t)(u->n > 0 ? u->n : 1) * sizeof(*q));
		sigjmp_buf back;
		if (q != NULL && sigsetjmp(back, 1) == 0) {
			/* Return addresses point after the call: look up ip-1. */
			for (int k = 0; k < u->n; k++)
				q[k].addr = k == 0 ? u->ip[k] : u->ip[k] - 1;
			ht_tls.fault_jmp = &back;
			ht_symbolize(a, maps, q, (size_t)u->n);
			ht_tls.fault_jmp = NULL;
			write_frames(&w, u, q);
		} else if (q != NULL) {
			ht_jw_str(&w, "frames_error", "a fault while reading symbols (a file changed?)");
		}
	} else if (!watchdog) {
		write_unanswered(&w, t->tid);
	}
	if (u != NULL && t->have_stat && t->st.state == 'D')
		write_unanswered(&w, t->tid);	/* in I/O: where (an NFS wait...) */
	/* Python frames need no signal: only the thread's pthread_t, known
	 * from its answer, its in-flight slot, or as the main thread. */
	uint64_t ident = thread_ident(t, u);
	for (size_t k = 0; ident != 0 && k < npy; k++) {
		if (py[k].ident != ident)
			continue;
		ht_jw_arr_begin(&w, "python");
		for (int f = 0; f < py[k].n; f++) {
			if (feed_main)
				ht_wp_python(f, py[k].frames[f]);
			ht_jw_str(&w, NULL, py[k].frames[f]);
		}
		ht_jw_end(&w);
		break;
	}
	feed_main = false;
	a->used = mark;
	ht_ev_emit(&w);
}

/* The process's I/O counters when the dump began, rchar and wchar less
 * the library's own reads and writes up to then (io_hangtrace). */
static void write_io(struct ht_jw *w, const struct ht_io *io, int64_t lib_r, int64_t lib_w)
{
	ht_jw_obj_begin(w, "io");
	if (io->ok) {
		ht_jw_int(w, "rchar", io->rchar > lib_r ? io->rchar - lib_r : 0);
		ht_jw_int(w, "wchar", io->wchar > lib_w ? io->wchar - lib_w : 0);
		ht_jw_int(w, "syscr", io->syscr);
		ht_jw_int(w, "syscw", io->syscw);
		ht_jw_int(w, "read_bytes", io->read_bytes);
		ht_jw_int(w, "write_bytes", io->write_bytes);
	}
	ht_jw_end(w);
	ht_jw_obj_begin(w, "io_hangtrace");
	ht_jw_int(w, "rchar", lib_r);
	ht_jw_int(w, "wchar", lib_w);
	ht_jw_end(w);
}

static void write_end(struct ht_arena *a, int64_t t0, size_t threads, size_t unanswered,
		      const char *py, const struct ht_io *io, int64_t lib_r, int64_t lib_w)
{
	/* The families' fields (the NCCL ring: 4096 entries) may be long:
	 * this line gets a buffer of its own. */
	size_t cap = 1u << 20;
	char *buf = ht_arena_alloc(a, cap);
	struct ht_jw w;
	if (buf == NULL) {
		buf = line;
		cap = sizeof(line);
	}
	ht_ev_begin(&w, buf, cap, HT_EV_DUMP_END);
	ht_jw_uint(&w, "dump", dump_no);
	ht_jw_secs(&w, "dur", ht_now() - t0);
	ht_jw_uint(&w, "threads", threads);
	ht_jw_uint(&w, "unanswered", unanswered);
	ht_jw_str(&w, "unwinder", ht_unwind_name());
	if (py != NULL)
		ht_jw_str(&w, "python", py);
	write_io(&w, io, lib_r, lib_w);
	struct ht_looks *looks = ht_blocked_current();
	if (cur_why == HT_DUMP_TIMEOUT && looks != NULL)
		ht_blocked_end_fields(looks, &w);
	ht_families_dump_end(&w);
	ht_ev_emit(&w);
}

/* A dump_end that says the dump was cut short, and why. */
static void write_cut(int64_t t0, const char *why)
{
	char buf[512];
	struct ht_jw w;
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_DUMP_END);
	ht_jw_uint(&w, "dump", dump_no);
	ht_jw_secs(&w, "dur", ht_now() - t0);
	ht_jw_str(&w, "cut", why);
	ht_ev_emit(&w);
}

void ht_dump_mark_cut(const char *why)
{
	/* Only once per dump: whoever clears the flag writes the line. */
	if (atomic_exchange(&in_dump, false))
		write_cut(ht_now(), why);
}

/* The dumping thread itself, from its signal handler's context. */
static void unwind_self(struct thr *t, size_t nt, uint32_t gen)
{
	for (size_t i = 0; i < nt; i++) {
		if (t[i].tid != ht_tls.tid || (t[i].slot = slot_for(t[i].tid)) < 0)
			continue;
		struct ht_uslot *u = &ht_uslots[t[i].slot];
		atomic_store(&u->want, gen);
		atomic_store(&u->sent, gen);
		int in_term = ht_tls.in_term;
		ht_tls.in_term = 0;
		ht_unwind_in_handler(handler_uc, (uint32_t)t[i].slot, gen);
		ht_tls.in_term = in_term;
		t[i].signalled = t[i].answered = atomic_load(&u->done) == gen;
	}
}

void ht_dump(enum ht_dump_reason why, int n, int64_t age_ns)
{
	struct ht_arena a;
	int64_t t0 = ht_now();

	if (atomic_load(&ht_g.trace_fd) < 0 && !ht_g.trace_lost)
		return;
	dump_no++;
	cur_why = why;
	atomic_store(&in_dump, true);
	struct ht_lib_mark mark;
	ht_lib_mark_begin(&mark);
	int64_t lib_r = ht_lib_rchar() - mark.n, lib_w = ht_lib_wchar();
	write_stall(why, n, age_ns, t0);
	/* Forked children (DataLoader workers) are dumped with their parent
	 * when it is killed, and after a look that found it blocked
	 * (watchdog.c); `hangtrace dump` asks each of them itself. */
	if (why == HT_DUMP_SIGTERM)
		ht_children_dump();
	ht_families_dump();
	if (ht_arena_open(&a, ARENA_SIZE) < 0) {
		ht_dump_mark_cut("no memory for the stacks");
		return;
	}
	if (handler_uc == NULL)
		ht_unwind_prepare();
	struct thr *t = ht_arena_alloc(&a, MAX_THREADS * sizeof(*t));
	size_t nt = t != NULL ? list_threads(t, MAX_THREADS) : 0;
	reap_slots(t, nt);
	uint32_t gen = ++unwind_gen;
	if (handler_uc != NULL)
		unwind_self(t, nt, gen);
	signal_and_wait(t, nt, gen);

	struct ht_maps maps = { 0 };
	ht_maps_read(&a, &maps);
	struct ht_pythread *py = NULL;
	size_t npy = 0;
	/* CPython's dumper reads other threads' frames without the GIL: frames
	 * that change under it may fault. That fault comes back here. */
	const char *py_status;
	sigjmp_buf back;
	if (sigsetjmp(back, 1) == 0) {
		ht_tls.fault_jmp = &back;
		py_status = ht_py_capture(&a, &maps, &py, &npy, handler_uc != NULL);
	} else {
		py = NULL;
		npy = 0;
		py_status = "unavailable: the interpreter's frames changed while they were read";
	}
	ht_tls.fault_jmp = NULL;

	size_t unanswered = 0;
	for (size_t i = 0; i < nt; i++) {
		write_thread(&a, &maps, &t[i], py, npy, gen);
		if (!t[i].answered && t[i].tid != ht_tls.tid)
			unanswered++;
	}
	ht_buildlock_dump(py, npy);
	/* A SIGTERM that gave up waiting may have marked it cut already. */
	if (atomic_exchange(&in_dump, false))
		write_end(&a, t0, nt, unanswered, py_status, &mark.io, lib_r, lib_w);
	ht_lib_mark_end(&mark);
	ht_arena_close(&a);
}

void ht_dump_here(enum ht_dump_reason why, int n, int64_t age_ns, void *uc)
{
	pid_t tid = ht_tls.tid;
	ht_tls.tid = (pid_t)syscall(SYS_gettid);
	ht_tls.depth++;
	handler_uc = uc;
	int64_t cpu0 = ht_thread_cpu_ns();
	ht_dump(why, n, age_ns);
	ht_lib_add_cpu(ht_thread_cpu_ns() - cpu0);
	handler_uc = NULL;
	ht_tls.depth--;
	ht_tls.tid = tid;
}
