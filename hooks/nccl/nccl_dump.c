// SPDX-License-Identifier: MIT
/*
 * nccl_dump.c: the NCCL lines of a dump, written by the watchdog thread:
 * one line per live communicator (its init state and how many collectives
 * it issued, so lagging ranks show even after the ring wrapped), and, when
 * a framework that uses NCCL is loaded but no NCCL call was ever seen,
 * no libnccl is loaded and the framework does not export NCCL, a line saying NCCL is not observable in
 * this build (conda PyTorch links it statically and hidden). Runs while
 * the process may be stuck anywhere: no malloc, no dl* calls (a stuck
 * dlopen may hold the loader lock); /proc and ELF files read directly.
 */
#include <string.h>

#include "clock.h"
#include "common.h"
#include "elfsym.h"
#include "jsonw.h"
#include "nccl.h"
#include "nccltab.h"
#include "real.h"
#include "ring.h"
#include "state.h"
#include "writer.h"

static const char *const state_names[] = { "ready", "pending", "group", "failed" };

/* Objects of frameworks known to call NCCL, by the start of their name. */
static const char *const frameworks[] = {
	"libtorch_cuda", "xla_extension", "xla_cuda_plugin", "libtensorflow_framework",
	"_pywrap_tensorflow_internal", "libxgboost", "mpi_lib",
};

static void comm_lines(void)
{
	int64_t now = ht_now_coarse();

	for (size_t i = 0; i < HT_NCCL_COMMS; i++) {
		const struct ht_ncomm *e = &ht__nccl_comms.e[i];
		uintptr_t k = atomic_load(&e->key);
		if (k <= 1)
			continue;
		char buf[1024];
		struct ht_jw w;
		int st = atomic_load(&e->state);
		ht_ev_begin(&w, buf, sizeof(buf), HT_EV_NCCL);
		ht_jw_str(&w, "fn", "comm");
		ht_jw_hex(&w, "comm", k);
		ht_jw_str(&w, "init", st >= 0 && st < (int)HT_ARRAY_SIZE(state_names) ?
					      state_names[st] : NULL);
		ht_jw_str(&w, "init_fn", e->f.hook >= 0 ? ht_hook_name(e->f.hook) : NULL);
		ht_jw_uint(&w, "seq", atomic_load(&e->seq));
		ht_jw_int_or_null(&w, "nranks", e->f.nranks, e->f.nranks >= 0);
		ht_jw_int_or_null(&w, "rank", e->f.rank, e->f.rank >= 0);
		ht_jw_str(&w, "root", e->f.have_id && e->f.id.root[0] != '\0' ? e->f.id.root : NULL);
		if (e->f.have_id)
			ht_jw_hex(&w, "id_hash", e->f.id.id_hash);
		if (e->f.parent != 0)
			ht_jw_hex(&w, "parent", e->f.parent);
		if (st == HT_NCOMM_PENDING || st == HT_NCOMM_GROUP)
			ht_jw_secs(&w, "age", now - e->f.start_ns);
		ht_ev_emit(&w);
	}
}

static bool is_framework(const char *path)
{
	const char *b = ht_basename(path);
	for (size_t i = 0; i < HT_ARRAY_SIZE(frameworks); i++)
		if (strncmp(b, frameworks[i], strlen(frameworks[i])) == 0)
			return strcmp(frameworks[i], "mpi_lib") != 0 || strstr(path, "/horovod/");
	return false;
}

/* NCCL used but invisible: a framework is mapped, nothing named libnccl
 * is, and the framework does not export NCCL's API. */
static void observability(void)
{
	struct ht_arena a;
	struct ht_maps maps = { 0 };
	const char *framework = NULL;

	if (atomic_load(&ht__nccl_seen) || ht_arena_open(&a, 8u << 20) < 0)
		return;
	if (ht_maps_read(&a, &maps) < 0)
		goto out_close;
	for (size_t i = 0; i < maps.n; i++) {
		const char *p = maps.m[i].path;
		if (p == NULL || p[0] != '/')
			continue;
		const char *b = ht_basename(p);
		if (strncmp(b, "libnccl", 7) == 0)
			goto out_close;	/* dynamic NCCL: our wrappers see it */
		if (framework == NULL && is_framework(p))
			framework = p;
	}
	if (framework == NULL)
		goto out_close;
	/* Linked in but exported: its calls reach our wrappers, none came yet. */
	if (ht_elf_exports(framework, "ncclCommInitRank") ||
	    ht_elf_exports(framework, "pncclCommInitRank"))
		goto out_close;
	char buf[2048];
	struct ht_jw w;
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_NCCL);
	ht_jw_str(&w, "fn", "not_observable");
	ht_jw_str(&w, "provider", framework);
	ht_jw_str(&w, "reason", "no libnccl is loaded and no loaded object exports NCCL's API: "
				"NCCL is linked statically into this framework without exported "
				"symbols (e.g. conda PyTorch), so NCCL calls are not observable in "
				"this build; stacks are still dumped");
	ht_ev_emit(&w);
out_close:
	ht_arena_close(&a);
}

void ht__nccl_dump(void)
{
	comm_lines();
	observability();
}

static void ring_entry(const struct ht_coll *c, void *arg)
{
	struct ht_jw *w = arg;
	ht_jw_obj_begin(w, NULL);
	ht_jw_hex(w, "comm", c->comm);
	ht_jw_uint(w, "seq", c->seq);
	ht_jw_str(w, "op", ht_nccl_op_name(c->op));
	ht_jw_uint(w, "count", c->count);
	ht_jw_str(w, "dtype", ht_nccl_dtype_name(c->dtype));
	ht_jw_str(w, "redop", c->redop >= 0 ? ht_nccl_redop_name(c->redop) : NULL);
	ht_jw_int(w, "peer", c->peer);
	ht_jw_secs(w, "mono", c->mono_ns);
	ht_jw_end(w);
}

/* The last collectives of the ring (src/core/ring.c), in the dump_end line. */
void ht__nccl_dump_end(struct ht_jw *w)
{
	ht_jw_arr_begin(w, "collectives");
	uint64_t total = ht_ring_walk(&ht_g.ring, ring_entry, w);
	ht_jw_end(w);
	ht_jw_uint(w, "collectives_total", total);
}
