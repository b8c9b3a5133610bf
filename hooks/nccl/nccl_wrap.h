// SPDX-License-Identifier: MIT
/*
 * nccl_wrap.h: the NCCL wrappers' common prelude, generated from
 * hooks_nccl.def. Every exported wrapper makes the first contact (resolve,
 * activate), takes the real function from the table and answers
 * ncclInternalError when no NCCL provides it; then it hands over to the
 * body that is the wrapper's own. NSHAPE_<name> says which body:
 *
 *   WRAP   ht__nccl_wrap_<name>(real, caller, args...), written in nccl.c
 *          or nccl_init.c; caller is the wrapper's return address (is
 *          NCCL calling its own export?). The wrappers are nccl_wrap.c.
 *   TEARDOWN  ht__nccl_teardown (nccl.c) with whether the comm is gone
 *          afterwards; generated in nccl_wrap.c too.
 *   COLL   a collective or point-to-point call, with its ring op, count,
 *          data type, reduction op and root or peer (-1: none); the whole
 *          wrapper is generated in nccl_coll.c, where the bracket inlines.
 *
 * A hook of hooks_nccl.def without a shape here does not compile.
 */
#ifndef HT_NCCL_WRAP_H
#define HT_NCCL_WRAP_H

#include "nccl.h"
#include "real.h"

#define NSHAPE_ncclGetUniqueId WRAP
#define NSHAPE_ncclCommInitRank WRAP
#define NSHAPE_ncclCommInitRankConfig WRAP
#define NSHAPE_ncclCommInitRankScalable WRAP
#define NSHAPE_ncclCommInitAll WRAP
#define NSHAPE_ncclCommSplit WRAP
#define NSHAPE_ncclCommShrink WRAP
#define NSHAPE_ncclCommGetAsyncError WRAP
#define NSHAPE_ncclCommFinalize TEARDOWN, false
#define NSHAPE_ncclCommDestroy TEARDOWN, true
#define NSHAPE_ncclCommAbort TEARDOWN, true
#define NSHAPE_ncclGroupStart WRAP
#define NSHAPE_ncclGroupEnd WRAP
#define NSHAPE_ncclAllReduce COLL, HT_NCCL_OP_ALLREDUCE, count, datatype, op, -1
#define NSHAPE_ncclBroadcast COLL, HT_NCCL_OP_BROADCAST, count, datatype, -1, root
/* NCCL's ncclBcast calls ncclBroadcast through the PLT: that inner call is
 * nested and passes straight through, so one ncclBcast counts once. */
#define NSHAPE_ncclBcast COLL, HT_NCCL_OP_BROADCAST, count, datatype, -1, root
#define NSHAPE_ncclReduce COLL, HT_NCCL_OP_REDUCE, count, datatype, op, root
#define NSHAPE_ncclAllGather COLL, HT_NCCL_OP_ALLGATHER, sendcount, datatype, -1, -1
#define NSHAPE_ncclReduceScatter COLL, HT_NCCL_OP_REDUCESCATTER, recvcount, datatype, op, -1
#define NSHAPE_ncclAlltoAll COLL, HT_NCCL_OP_ALLTOALL, count, datatype, -1, -1
#define NSHAPE_ncclGather COLL, HT_NCCL_OP_GATHER, count, datatype, -1, root
#define NSHAPE_ncclScatter COLL, HT_NCCL_OP_SCATTER, count, datatype, -1, root
#define NSHAPE_ncclSend COLL, HT_NCCL_OP_SEND, count, datatype, -1, peer
#define NSHAPE_ncclRecv COLL, HT_NCCL_OP_RECV, count, datatype, -1, peer

#define HT_NCCL_REAL_T(name) __typeof__(ht_real.name)

/* (a, b, args...) and (a, b, params...) for lists that may be empty or (void). */
#define HT_NW_ARGS(...) __VA_ARGS__
#define HT_NW_WITH(a, b, args) HT_NW_WITH_(a, b, HT_NW_ARGS args)
#define HT_NW_WITH_(a, b, ...) HT_NW_WITH__(a, b, __VA_ARGS__)
#define HT_NW_WITH__(a, b, ...) (a, b __VA_OPT__(,) __VA_ARGS__)
#define HT_NW_HEAD(name, params, args) HT_NW_HEAD_(name, params, HT_NW_ARGS args)
#define HT_NW_HEAD_(name, params, ...) HT_NW_HEAD__(name, params, __VA_ARGS__)
#define HT_NW_HEAD__(name, params, ...) \
	(HT_NCCL_REAL_T(name) real, const void *caller __VA_OPT__(, HT_NW_ARGS params))

/*
 * HT_NCCL_GEN(name, params, args, MODE) expands to HT_NW_<MODE>_<shape>(name,
 * params, args, shape arguments...): an includer defines the MODE it
 * generates for each shape (nothing for the others).
 */
#define HT_NCCL_GEN(name, params, args, mode) HT_NW_GEN_(mode, name, params, args, NSHAPE_##name)
#define HT_NW_GEN_(...) HT_NW_GEN__(__VA_ARGS__)
#define HT_NW_GEN__(mode, name, params, args, shape, ...) \
	HT_NW_##mode##_##shape(name, params, args __VA_OPT__(,) __VA_ARGS__)

/* The bodies of the WRAP hooks, declared for nccl_wrap.c. */
#define HT_NW_DECL_WRAP(name, params, args) \
	ht_nccl_result_t ht__nccl_wrap_##name HT_NW_HEAD(name, params, args);
#define HT_NW_DECL_COLL(...)
#define HT_NW_DECL_TEARDOWN(...)
#define HT_HOOK_NCCL(ret, name, params, args) HT_NCCL_GEN(name, params, args, DECL)
#include "hooks_of.h"

/* One exported wrapper: the prelude, then the statements of its body,
 * which call `real`. */
#define HT_NW_WRAPPER(attrs, name, params, ...)                            \
	attrs ht_nccl_result_t name params                                  \
	{                                                                   \
		ht__nccl_contact();                                         \
		HT_NCCL_REAL_T(name) real = HT_NCCL_REAL(name);             \
		if (__builtin_expect(real == NULL, 0))                      \
			return HT_NCCL_INTERNAL_ERROR;                      \
		__VA_ARGS__                                                 \
	}

#endif
