// SPDX-License-Identifier: MIT
/*
 * nccltab.c: the names of NCCL ops, data types and reduction ops (ring
 * entries and phase lines), and the open-addressing table of communicators
 * keyed by their pointer. A lookup is a hash and a short probe with
 * atomic loads, cheap enough for every collective; it never allocates.
 */
#include <string.h>

#include "common.h"
#include "nccltab.h"

static const char *const op_names[] = {
#define XX(id, name) name,
	HT_NCCL_OP_MAP(XX)
#undef XX
};

/* ncclDataType_t values of nccl.h (2.28: up to ncclFloat8e5m2 = 11). */
static const char *const dtype_names[] = {
	"int8", "uint8", "int32", "uint32", "int64", "uint64",
	"float16", "float32", "float64", "bfloat16", "float8e4m3", "float8e5m2",
};

/* ncclRedOp_t built-ins; larger values come from ncclRedOpCreatePreMulSum. */
static const char *const redop_names[] = { "sum", "prod", "max", "min", "avg" };

const char *ht_nccl_op_name(int op)
{
	return op >= 0 && op < (int)HT_ARRAY_SIZE(op_names) ? op_names[op] : "?";
}

const char *ht_nccl_dtype_name(int dtype)
{
	return dtype >= 0 && dtype < (int)HT_ARRAY_SIZE(dtype_names) ? dtype_names[dtype] : "?";
}

const char *ht_nccl_redop_name(int redop)
{
	if (redop >= 0 && redop < (int)HT_ARRAY_SIZE(redop_names))
		return redop_names[redop];
	return redop >= HT_NCCL_REDOP_CUSTOM ? "premulsum" : "?";
}

#define KEY_FREE 0
#define KEY_REMOVED 1

struct ht_ncomm *ht_ncomm_find(struct ht_ncomms *t, uintptr_t comm)
{
	uint32_t i = ht_ncomm_slot(comm);

	if (comm <= KEY_REMOVED)
		return NULL;
	for (uint32_t n = 0; n < HT_NCCL_COMMS; n++) {
		struct ht_ncomm *e = &t->e[i];
		uintptr_t k = atomic_load_explicit(&e->key, memory_order_acquire);
		if (k == comm)
			return e;
		if (k == KEY_FREE)
			return NULL;
		i = i + 1 == HT_NCCL_COMMS ? 0 : i + 1;
	}
	return NULL;
}

struct ht_ncomm *ht_ncomm_add(struct ht_ncomms *t, uintptr_t comm, bool *added)
{
	struct ht_ncomm *e = ht_ncomm_find(t, comm);
	uint32_t i = ht_ncomm_slot(comm);

	*added = false;
	if (e != NULL || comm <= KEY_REMOVED)
		return e;
	for (uint32_t n = 0; n < HT_NCCL_COMMS; n++) {
		e = &t->e[i];
		uintptr_t k = atomic_load_explicit(&e->key, memory_order_relaxed);
		if (k == KEY_FREE || k == KEY_REMOVED) {
			/* Fill the entry first, publish the key last. */
			atomic_store_explicit(&e->seq, 0, memory_order_relaxed);
			atomic_store_explicit(&e->state, HT_NCOMM_READY, memory_order_relaxed);
			atomic_store_explicit(&e->first_done, false, memory_order_relaxed);
			atomic_store_explicit(&e->error_seen, false, memory_order_relaxed);
			memset(&e->f, 0, sizeof(e->f));
			e->f.hook = -1;
			e->f.nranks = e->f.rank = -1;
			e->f.blocking = -1;
			e->owner = 0;
			e->pending = NULL;
			atomic_store_explicit(&e->key, comm, memory_order_release);
			atomic_fetch_add(&t->live, 1);
			*added = true;
			return e;
		}
		i = i + 1 == HT_NCCL_COMMS ? 0 : i + 1;
	}
	atomic_fetch_add(&t->dropped, 1);
	return NULL;
}

void ht_ncomm_remove(struct ht_ncomms *t, struct ht_ncomm *e)
{
	uintptr_t k = atomic_exchange(&e->key, KEY_REMOVED);
	if (k != KEY_FREE && k != KEY_REMOVED)
		atomic_fetch_sub(&t->live, 1);
}

void ht_ncomm_reset(struct ht_ncomms *t)
{
	memset(t, 0, sizeof(*t));
}
