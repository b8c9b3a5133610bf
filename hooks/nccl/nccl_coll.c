// SPDX-License-Identifier: MIT
/*
 * nccl_coll.c: collectives and point-to-point calls. Each app-level call
 * takes the next sequence number of its communicator, goes into the ring
 * (src/core/ring.c) that every dump writes out, and is a blocking call for the
 * watchdog (the first one may block on NCCL's lazy connection setup). The
 * first collective of each communicator is written at once, and the first
 * of the process opens the first_collective phase. This path runs for every
 * collective of a training job: thread-locals, atomics and the coarse clock
 * only; no lock, no allocation, no system call (SPEC section 9: <= 25 ns).
 */
#include "clock.h"
#include "common.h"
#include "cuda.h"
#include "events.h"
#include "hook_types.h"
#include "jsonw.h"
#include "nccl.h"
#include "nccl_wrap.h"
#include "nccltab.h"
#include "phase.h"
#include "real.h"
#include "ring.h"
#include "state.h"
#include "writer.h"

static _Atomic bool issued;	/* a collective returned in this process */

struct coll {
	struct ht_call call;
	struct ht_ncomm *e;
	uint32_t seq;
	bool first;		/* this call opened the first_collective phase */
	int64_t t0;
};

struct coll_args {
	int hook, op;
	ht_nccl_comm_t comm;
	size_t count;
	int dtype, redop, peer;
	ht_nccl_stream_t stream;
};

static bool is_p2p(int op)
{
	return op == HT_NCCL_OP_SEND || op == HT_NCCL_OP_RECV;
}

static void coll_fields(struct ht_jw *w, const struct coll_args *a, const struct coll *c)
{
	ht_jw_hex(w, "comm", (uintptr_t)a->comm);
	if (c->e != NULL)
		ht_jw_uint(w, "seq", c->seq);
	else
		ht_jw_null(w, "seq");
	ht_jw_str(w, "op", ht_nccl_op_name(a->op));
	ht_jw_uint(w, "count", a->count);
	ht_jw_str(w, "dtype", ht_nccl_dtype_name(a->dtype));
	ht_jw_str(w, "redop", a->redop >= 0 ? ht_nccl_redop_name(a->redop) : NULL);
	ht_jw_int_or_null(w, "root", a->peer, a->peer >= 0 && !is_p2p(a->op));
	ht_jw_int_or_null(w, "peer", a->peer, a->peer >= 0 && is_p2p(a->op));
	ht_jw_hex(w, "stream", (uintptr_t)a->stream);
}

/* The first collective on a communicator: a nccl event, and for the first
 * of the process the first_collective phase line, before NCCL runs it. */
static __attribute__((noinline)) void first_on_comm(struct coll *c, const struct coll_args *a)
{
	char buf[1024];
	struct ht_jw w;

	/* A comm we cannot track (NULL, table full) writes at most the phase. */
	if (c->e != NULL ? atomic_exchange(&c->e->first_done, true) :
			   ht_phases_has_begun(&ht_g.phases, HT_PHASE_FIRST_COLLECTIVE))
		return;
	c->t0 = ht_now();
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_NCCL);
	ht_jw_str(&w, "fn", ht_hook_name(a->hook));
	ht_jw_str(&w, "state", "begin");
	ht_jw_bool(&w, "first", true);
	coll_fields(&w, a, c);
	ht_ev_emit(&w);
	if (ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_FIRST_COLLECTIVE, HT_BEGIN)) {
		ht_jw_str(&w, "fn", ht_hook_name(a->hook));
		coll_fields(&w, a, c);
		ht_ev_emit(&w);
		c->first = true;
	}
}

static __attribute__((noinline)) void leave_slow(struct coll *c, const struct coll_args *a, int rc)
{
	char buf[2048];
	struct ht_jw w;
	bool ok = rc == HT_NCCL_SUCCESS || rc == HT_NCCL_IN_PROGRESS;

	if (c->first && ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_FIRST_COLLECTIVE,
				      ok ? HT_END : HT_ERROR)) {
		ht_jw_str(&w, "fn", ht_hook_name(a->hook));
		ht_jw_hex(&w, "comm", (uintptr_t)a->comm);
		ht__nccl_result_fields(&w, rc, a->comm);
		ht_jw_secs(&w, "dur", ht_now() - c->t0);
		ht_ev_emit(&w);
	}
	if (!ok) {
		ht_ev_begin(&w, buf, sizeof(buf), HT_EV_NCCL);
		ht_jw_str(&w, "fn", ht_hook_name(a->hook));
		ht_jw_str(&w, "state", "error");
		coll_fields(&w, a, c);
		ht__nccl_result_fields(&w, rc, a->comm);
		ht_ev_emit(&w);
	}
	/* The first synchronize after this begins `steady` (hooks/cuda/cuda.h). */
	if (ok && !atomic_exchange(&issued, true))
		ht_cuda_note_collective();
}

static inline __attribute__((always_inline)) bool coll_enter(struct coll *c,
							   const struct coll_args *a)
{
	if (ht_tls.nccl_depth > 0 || ht_tls.depth > 0 || !ht_active())
		return false;
	/* Nothing on this path sets errno (the line writer keeps it). */
	ht__nccl_call_begin(&c->call, a->hook, NULL);
	c->e = ht_ncomm_find_fast(&ht__nccl_comms, (uintptr_t)a->comm);
	if (__builtin_expect(c->e == NULL, 0) && a->comm != NULL)
		c->e = ht__nccl_comm_get(a->comm);
	/* NCCL forbids using one communicator from two threads at once, so
	 * its counter needs no locked read-modify-write on every call. */
	if (c->e != NULL) {
		c->seq = atomic_load_explicit(&c->e->seq, memory_order_relaxed);
		atomic_store_explicit(&c->e->seq, c->seq + 1, memory_order_relaxed);
	} else {
		c->seq = 0;
	}
	int64_t now = c->call.outer ? c->call.start_ns : ht_now_coarse();
	int redop = a->redop < 0 ? -1 : a->redop > HT_NCCL_REDOP_CUSTOM ? HT_NCCL_REDOP_CUSTOM :
									   a->redop;
	ht_ring_put(&ht_g.ring, (uintptr_t)a->comm, c->seq, (uint16_t)a->op, a->count,
		    (int8_t)(a->dtype >= 0 && a->dtype < 127 ? a->dtype : 127), (int8_t)redop, a->peer,
		    now);
	c->first = false;
	if (__builtin_expect(c->e == NULL ||
				     !atomic_load_explicit(&c->e->first_done, memory_order_relaxed),
			     0))
		first_on_comm(c, a);
	return true;
}

static inline __attribute__((always_inline)) ht_nccl_result_t
coll_leave(struct coll *c, const struct coll_args *a, ht_nccl_result_t rc)
{
	ht__nccl_call_end(&c->call, rc, NULL);
	if (__builtin_expect(c->first || (rc != HT_NCCL_SUCCESS && rc != HT_NCCL_IN_PROGRESS) ||
				     !atomic_load_explicit(&issued, memory_order_relaxed),
			     0))
		leave_slow(c, a, rc);
	return rc;
}

/* One wrapper: the args struct, the real function, the bracket. No stack
 * canary: nothing here is an array, and the check costs on every call. */
#if defined(__has_attribute) && __has_attribute(no_stack_protector)
#define HT_COLL_API HT_EXPORT __attribute__((no_stack_protector))
#else
#define HT_COLL_API HT_EXPORT
#endif
/* The collective wrappers, generated from hooks_nccl.def and their shapes
 * (nccl_wrap.h): the prelude, the args struct, the bracket around the
 * real call. */
#define HT_NW_COLL_COLL(name, params, args, opcode, n, dt, rop, pr)                              \
	HT_NW_WRAPPER(HT_COLL_API, name, params,                                                 \
		      const struct coll_args a = { HT_HOOK_ID_##name, opcode, comm, n, dt, rop,  \
						   pr, stream };                                \
		      struct coll c;                                                             \
		      if (!coll_enter(&c, &a))                                                   \
			      return real args;                                                  \
		      return coll_leave(&c, &a, real args);)
#define HT_NW_COLL_WRAP(...)
#define HT_NW_COLL_TEARDOWN(...)
#define HT_HOOK_NCCL(ret, name, params, args) HT_NCCL_GEN(name, params, args, COLL)
#include "hooks_of.h"

void ht__nccl_coll_fork_child(void)
{
	atomic_store(&issued, false);
}
