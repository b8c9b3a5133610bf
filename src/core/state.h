// SPDX-License-Identifier: MIT
/*
 * state.h: the library's state and lifetime (state.c): off, idle or active;
 * the per-thread and the process-wide state; activation and switch-off.
 */
#ifndef HT_CORE_STATE_H
#define HT_CORE_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "identity.h"
#include "inflight.h"
#include "options.h"
#include "phase.h"
#include "ring.h"

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
 * passes through from now on. The one way to HT_OFF after load; why (or
 * NULL) is written as a warning when the trace was open. */
void ht_disable(const char *why);

/* In a forked child, first thing (hooks/proc.c): the core state that was
 * the parent's (this thread's slot, the in-flight calls, the ring, the
 * call counts, the watchdog), then the families' (hooks/families.h); then
 * the child's own trace file and its launch line. */
void ht_fork_child(pid_t parent, bool cuda_initialized);

/* A rank identity learned from a communicator (ncclCommInitRank): taken
 * when the environment gave none, with an identity line naming source. */
void ht_identity_learned(int64_t rank, int64_t world_size, const char *source);

#endif
