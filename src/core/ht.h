// SPDX-License-Identifier: MIT
/*
 * ht.h: declarations shared between the files of the preload library (and
 * the unit tests of its plain modules). Names with ht_ are for any file,
 * ht__ for internals of one area. Unless a comment says otherwise, a
 * function here is async-signal-safe, never allocates and preserves errno.
 */
#ifndef HT_H
#define HT_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "hangtrace.h"

#define HT_EXPORT __attribute__((visibility("default")))
#define HT_UNUSED __attribute__((unused))
#define HT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- fmt.c: numbers, names ---------------------------------------------- */

/* Each writes a NUL-terminated string at out and returns its length. */
size_t ht_fmt_u64(char *out, uint64_t v);		/* out: 21 bytes */
size_t ht_fmt_i64(char *out, int64_t v);		/* out: 21 bytes */
size_t ht_fmt_hex(char *out, uint64_t v);		/* "0x...", out: 19 bytes */
size_t ht_fmt_secs(char *out, int64_t ns);		/* "12.345678", out: 32 bytes */
size_t ht_fmt_signal(char *out, int sig);		/* "SIGTERM", out: 24 bytes */
/* Strict decimal integer; false on anything else (sign allowed). */
bool ht_parse_i64(const char *s, int64_t *out);
/* Non-negative seconds with optional fraction ("300", "2.5") into ns. */
bool ht_parse_secs(const char *s, int64_t *ns);
size_t ht_strlcpy(char *dst, const char *src, size_t n);
/* Appends s (or v) to the string of length n in buf[cap], as much as fits;
 * always NUL-terminated; returns the new length, never more than cap - 1.
 * Chains of these cannot run past the buffer, unlike strlcpy's return. */
size_t ht_append(char *buf, size_t cap, size_t n, const char *s);
size_t ht_append_i64(char *buf, size_t cap, size_t n, int64_t v);
/* "ECONNREFUSED" etc., NULL when not in our table. */
const char *ht_errno_name(int e);
const char *ht_signal_name(int sig);

/* ---- jsonw.c: one JSON line in a fixed buffer ----------------------------- */

#define HT_JW_MAX_DEPTH 12

struct ht_jw {
	char *buf;
	size_t cap;
	size_t len;
	int depth;
	char stack[HT_JW_MAX_DEPTH];
	bool full;		/* an item did not fit: the rest is dropped */
	bool first;		/* no item yet at the current level */
};

void ht_jw_init(struct ht_jw *w, char *buf, size_t cap);
/* key is NULL inside arrays and for the top-level object. */
bool ht_jw_obj_begin(struct ht_jw *w, const char *key);
bool ht_jw_arr_begin(struct ht_jw *w, const char *key);
void ht_jw_end(struct ht_jw *w);
bool ht_jw_str(struct ht_jw *w, const char *key, const char *val);	/* NULL -> null */
bool ht_jw_strn(struct ht_jw *w, const char *key, const char *val, size_t n);
bool ht_jw_raw(struct ht_jw *w, const char *key, const char *json, size_t n);
bool ht_jw_int(struct ht_jw *w, const char *key, int64_t v);
bool ht_jw_uint(struct ht_jw *w, const char *key, uint64_t v);
bool ht_jw_hex(struct ht_jw *w, const char *key, uint64_t v);
bool ht_jw_secs(struct ht_jw *w, const char *key, int64_t ns);
bool ht_jw_bool(struct ht_jw *w, const char *key, bool v);
bool ht_jw_null(struct ht_jw *w, const char *key);
bool ht_jw_int_or_null(struct ht_jw *w, const char *key, int64_t v, bool known);
/* Closes every open container, adds "truncated":true after an overflow and
 * the newline; returns the line length (0 if the buffer is unusably small). */
size_t ht_jw_finish(struct ht_jw *w);

/* ---- clocks ---------------------------------------------------------------- */

static inline int64_t ht_clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static inline int64_t ht_now(void) { return ht_clock_ns(CLOCK_MONOTONIC); }
/* A few ns through the vDSO, a few ms of resolution: for in-flight calls. */
static inline int64_t ht_now_coarse(void) { return ht_clock_ns(CLOCK_MONOTONIC_COARSE); }

#define HT_NS_PER_SEC 1000000000LL

/* ---- options.c: HANGTRACE_* ------------------------------------------------- */

enum ht_on_stall { HT_ON_STALL_DUMP, HT_ON_STALL_ABORT };

#define HT_MAX_WARNINGS 4
#define HT_WARNING_LEN 200

struct ht_options {
	char dir[1024];			/* empty: the default ./hangtrace.<job> */
	int64_t timeout_ns;
	enum ht_on_stall on_stall;
	bool brief;			/* HANGTRACE_BRIEF: the verdicts on a stall */
	char command[1024];		/* the hangtrace command, "": beside the library */
	int64_t rank, world_size, local_rank;	/* -1: not given */
	bool nccl_log;
	bool disable;
	int nwarnings;
	char warnings[HT_MAX_WARNINGS][HT_WARNING_LEN];
};

/* Reads every HANGTRACE_* variable of envp into o; defaults for the rest.
 * Unknown names and malformed values are recorded in o->warnings. */
void ht_options_parse(char *const *envp, struct ht_options *o);

/* ---- identity.c: who this rank is ------------------------------------------ */

struct ht_identity {
	int64_t rank, world_size, local_rank;	/* -1: unknown */
	const char *launcher;			/* static string or NULL */
	char job[64];				/* sanitised job id, "" if none */
	int nwarnings;
	char warnings[2][HT_WARNING_LEN];
};

/* Derives the rank identity from the launcher variables of envp and the
 * HANGTRACE_* overrides already in o (SPEC section 3). */
void ht_identity_from_env(char *const *envp, const struct ht_options *o,
			  struct ht_identity *id);
/* The value of name in envp, or NULL (no getenv: usable before libc init). */
const char *ht_env_get(char *const *envp, const char *name);

/* ---- redact.c: what of the environment and command line may be written ---- */

/* True when the variable "NAME=value" may be recorded in a trace. */
bool ht_env_allowed(const char *entry);
/* True when the command-line argument argv[i] must be written as "***":
 * it follows, or carries after '=', an option whose name contains token,
 * key, secret or password. prev is argv[i-1] or NULL. Sets *keep_prefix to
 * the length of "--name=" to keep when the value is inline. */
bool ht_arg_secret(const char *arg, const char *prev, size_t *keep_prefix);

/* ---- phase.c: the phase model ---------------------------------------------- */

struct ht_phases {
	_Atomic uint32_t begun;		/* bit per phase */
	_Atomic uint32_t ended;
	_Atomic uint32_t errored;
	_Atomic int current;		/* last phase begun, -1 before launch */
	_Atomic int64_t changed_ns;	/* mono time of the last transition */
	_Atomic uint32_t epoch;		/* transitions so far */
};

void ht_phases_reset(struct ht_phases *p, int64_t now);
/* Each returns true for the first such transition of the phase only. */
bool ht_phases_begin(struct ht_phases *p, enum ht_phase ph, int64_t now);
bool ht_phases_end(struct ht_phases *p, enum ht_phase ph, int64_t now);
bool ht_phases_error(struct ht_phases *p, enum ht_phase ph, int64_t now);
bool ht_phases_has_begun(const struct ht_phases *p, enum ht_phase ph);
bool ht_phases_has_ended(const struct ht_phases *p, enum ht_phase ph);
/* Back to launch after exec: only launch counts as begun. */
void ht_phases_exec(struct ht_phases *p, int64_t now);

/* ---- inflight.c: which thread is inside which blocking hooked call -------- */

#define HT_INFLIGHT_SLOTS 1024

struct ht_slot {
	_Atomic pid_t tid;		/* owner, 0 = free */
	_Atomic uint32_t seq;		/* odd while a call is in flight */
	_Atomic int32_t hook;		/* hook id of the outermost call */
	_Atomic int64_t start_ns;	/* coarse monotonic start */
	_Atomic uint32_t stalled_seq;	/* seq a dump saw this call at */
	_Atomic uint64_t pthread;	/* the owner's pthread_self(): Python's name for it */
};

struct ht_inflight {
	struct ht_slot slot[HT_INFLIGHT_SLOTS];
	_Atomic uint32_t used;		/* high-water mark of claimed slots */
	_Atomic uint32_t dropped;	/* calls untracked: table full */
};

/* Claims a free slot for thread tid; NULL when the table is full. */
struct ht_slot *ht_inflight_claim(struct ht_inflight *t, pid_t tid);
void ht_inflight_release(struct ht_slot *s);
/* Marks the start and the end of the outermost blocking call of a thread. */
void ht_inflight_enter(struct ht_slot *s, int hook, int64_t now);
void ht_inflight_leave(struct ht_slot *s);

struct ht_inflight_view {
	pid_t tid;
	int hook;
	int64_t start_ns;
	uint32_t seq;
	struct ht_slot *slot;
};
/* A consistent copy of the calls in flight (at most max); returns the count. */
size_t ht_inflight_snapshot(struct ht_inflight *t, struct ht_inflight_view *out, size_t max);
void ht_inflight_reset(struct ht_inflight *t);

/* ---- ring.c: the last collectives, written out with every dump ------------ */

#define HT_RING_SIZE 4096

struct ht_coll {
	_Atomic uint64_t n;	/* global number + 1 when complete, 0 while written */
	uint64_t comm;
	uint64_t count;
	int64_t mono_ns;
	uint32_t seq;		/* per-communicator sequence number */
	int32_t peer;		/* root or peer, -1 when none */
	uint16_t op;		/* index into the op names of the NCCL hooks */
	int8_t dtype;
	int8_t redop;
};

struct ht_ring {
	_Atomic uint64_t next;
	struct ht_coll e[HT_RING_SIZE];
};

/* Records one collective; lock-free, no allocation. */
void ht_ring_put(struct ht_ring *r, uint64_t comm, uint32_t seq, uint16_t op,
		 uint64_t count, int8_t dtype, int8_t redop, int32_t peer, int64_t now);
/* Calls fn for each complete entry, oldest first; returns the total issued. */
uint64_t ht_ring_walk(struct ht_ring *r,
		      void (*fn)(const struct ht_coll *c, void *arg), void *arg);

/* ---- the library's state (state.c) ----------------------------------------- */

enum ht_state_kind {
	HT_OFF = 0,		/* disabled, secure, or failed: pass everything through */
	HT_IDLE,		/* loaded, not relevant (yet) */
	HT_ACTIVE,		/* relevant: trace file open, watchdog running */
};

struct ht_tls {
	int depth;		/* re-entry guard: >0 inside our own code */
	int hook_depth;		/* blocking-call nesting of this thread */
	int nccl_depth;		/* NCCL API nesting (NCCL calls itself) */
	int in_term;		/* inside our SIGTERM handler, waiting for a dump */
	void *fault_jmp;	/* sigjmp_buf to return to on SIGSEGV/SIGBUS (dump code) */
	pid_t tid;
	struct ht_slot *slot;
	uint32_t slot_pid;	/* pid the slot was claimed in (fork) */
};

extern __thread struct ht_tls ht_tls;

struct ht_global {
	_Atomic int state;		/* enum ht_state_kind */
	_Atomic int trace_fd;		/* -1 until activation or after a failure */
	pid_t pid;
	struct ht_options opt;
	struct ht_identity id;
	struct ht_phases phases;
	struct ht_inflight inflight;
	struct ht_ring ring;
	int dump_signal;		/* 0 until activation */
	_Atomic bool cuda_initialized;	/* a cuInit succeeded in this process */
	bool cuda_inherited;		/* forked from a process where it had */
	pid_t fork_parent;		/* traced parent pid after fork, else 0 */
	_Atomic bool gpu_activity;	/* a CUDA or NCCL hook ran */
	_Atomic bool watchdog_parked;	/* stopped around fork, restart due */
	bool trace_lost;		/* the application closed our descriptor */
	_Atomic uint32_t call_lines[512];	/* call lines written per hook id */
	_Atomic uint64_t main_pthread;	/* the main thread's pthread_self(), 0 unknown */
	char trace_path[1280];
	char host[256];
};

extern struct ht_global ht_g;

static inline bool ht_active(void)
{
	return atomic_load_explicit(&ht_g.state, memory_order_acquire) == HT_ACTIVE;
}

/* Why a process becomes relevant (SPEC section 4). */
enum ht_reason { HT_REASON_IDENTITY, HT_REASON_CUDA, HT_REASON_NCCL, HT_REASON_FORK };

/*
 * Makes the process relevant: opens the trace file, writes the header and
 * launch, installs the signal handlers and starts the watchdog. Idempotent
 * and thread-safe. Not async-signal-safe (starts a thread); call from hooks
 * only. Returns true when the process is active afterwards.
 */
bool ht_activate(enum ht_reason why);

/* Switches the library off for good after an internal failure: every hook
 * passes through from now on. */
void ht_disable(const char *why);

/* ---- writer.c: trace lines -------------------------------------------------- */

/* Starts an event line in buf: {"t":...,"ts":...,"mono":...,"tid":... */
void ht_ev_begin(struct ht_jw *w, char *buf, size_t cap, enum ht_event_type t);
/* Finishes the line and writes it with one write(2). Returns 0 or -errno.
 * A write failure stops tracing (one line on stderr says why). */
int ht_ev_emit(struct ht_jw *w);
/* Writes a warning event with msg. */
void ht_ev_warning(const char *msg);
/* Opens (or, after exec, reopens) the trace file and writes the header.
 * Not async-signal-safe in the sense that it may create the folder. */
int ht_trace_open(enum ht_reason why);
/* In a forked child: forget the parent's file, open our own. */
int ht_trace_reopen_child(void);
void ht_trace_close(void);

/* ---- events.c: phases and blocking calls, for the hook families ---------- */

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
	bool outer;		/* the outermost blocking call of its thread */
	bool line;		/* a begin line was written */
};

/* The bracket of a blocking hooked call: in flight between the two. */
void ht_call_enter(struct ht_call *c, int hook);
void ht_call_leave(struct ht_call *c, int64_t result);

/* Family callbacks run by a dump, in the watchdog thread: extra lines. */
void ht__net_dump(void);
void ht__cuda_dump(void);
void ht__nccl_dump(void);

/* Family callbacks run once at activation, in normal context (the hooks/ files). */
void ht__net_activate(void);
void ht__nccl_activate(void);
/* Family callbacks run in a forked child before anything else. */
void ht__net_fork_child(void);
void ht__nccl_fork_child(void);
void ht__cuda_fork_child(void);
/* Asked by a dump before it signals thread tid to unwind it: false when
 * the signal would make the application fail (hooks/net.c). */
bool ht__net_dump_may_signal(pid_t tid);
/* Called by close/dup2/dup3 before fd is closed or replaced, and by
 * close_range/closefrom for the range. */
void ht__net_fd_closing(int fd);
void ht__net_fd_range_closing(unsigned int first, unsigned int last);
/* Names of the NCCL ops, data types and reduction ops in ring entries. */
const char *ht_nccl_op_name(int op);
const char *ht_nccl_dtype_name(int dtype);
const char *ht_nccl_redop_name(int redop);

/* ---- watchdog.c -------------------------------------------------------------- */

/* Starts the watchdog thread (at most one). Not async-signal-safe. */
int ht_watchdog_start(void);
/* Stops it and waits for it (before fork). */
void ht_watchdog_stop(void);
/* Asks for a dump now, from a signal handler: async-signal-safe. Returns
 * the request's generation, for ht_watchdog_wait_dump. */
uint32_t ht_watchdog_request(enum ht_dump_reason why);
/* Waits (bounded) until request gen is served; async-signal-safe. */
bool ht_watchdog_wait_dump(uint32_t gen, int64_t max_ns);
bool ht_watchdog_running(void);
/* After fork, in the child: the watchdog thread does not exist there. */
void ht_watchdog_forget(void);
/* True when a stall dump has been written in this process. */
bool ht_watchdog_dumped(void);
/* The process is ending: a dump in progress may finish (bounded by max_ns)
 * and no new one starts for a second, so the trace never holds a dump cut
 * by the process's end; async-signal-safe. */
void ht_watchdog_settle(int64_t max_ns);
/* Restarts a parked watchdog (see hooks/proc.c fork); cheap when not parked. */
void ht__watchdog_unpark_slow(void);
static inline void ht_watchdog_unpark(void)
{
	if (atomic_load_explicit(&ht_g.watchdog_parked, memory_order_relaxed))
		ht__watchdog_unpark_slow();
}

/* ---- dump.c ------------------------------------------------------------------ */

/* Writes a whole dump (stall line through dump_end). Watchdog thread only. */
void ht_dump(enum ht_dump_reason why, int n, int64_t age_ns);

/* ---- signals.c ----------------------------------------------------------------- */

/* Installs our handlers for SIGTERM, the fatal signals and the dump signal,
 * keeping the application's as the ones to chain to. */
int ht_signals_install(void);
/* The signals the library owns (sigaction/signal answers with the app's). */
bool ht_signal_owned(int sig);
/* sigaction on behalf of the application for an owned signal. */
int ht_signal_app_action(int sig, const struct sigaction *act, struct sigaction *old);
/* Picks the dump signal: a real-time signal nobody handles. */
int ht_signal_pick_dump(void);
/* Sends the unwind request to one thread (rt_tgsigqueueinfo with our tag
 * carrying its slot and the dump's generation). */
int ht_signal_thread(pid_t tid, uint32_t slot, uint32_t gen);

#define HT_MAX_FRAMES 64

#endif /* HT_H */
