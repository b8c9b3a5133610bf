// SPDX-License-Identifier: MIT
/*
 * nccl_init.c: communicator creation, the nccl_init phase (SPEC section 5).
 * Every init writes nccl events (begin, then end or error) with the whole
 * story: nranks, rank, the unique id(s) decoded, the config fields the
 * caller's ncclConfig_t has, and NCCL's own words on failure. A blocking
 * init is a blocking call for the watchdog; a non-blocking one (returning
 * ncclInProgress) stays open, watched through an in-flight record, until an
 * app-level ncclCommGetAsyncError reports success or an error; an init made
 * inside ncclGroupStart/End completes at the outermost ncclGroupEnd.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "clock.h"
#include "common.h"
#include "events.h"
#include "hook_types.h"
#include "jsonw.h"
#include "nccl.h"
#include "nccl_wrap.h"
#include "nccl_config.h"
#include "ncclid.h"
#include "nccltab.h"
#include "real.h"
#include "state.h"
#include "writer.h"

struct init_call {
	struct ht_ncomm_facts f;
	struct ht_call call;
	int64_t t0;
	int saved;
	bool in_group;
	int n_exclude, shrink_flags;	/* ncclCommShrink */
};

static bool is_split(int hook)
{
	return hook == HT_HOOK_ID_ncclCommSplit || hook == HT_HOOK_ID_ncclCommShrink;
}

/* Reads what exists of the caller's config: nothing without the magic,
 * nothing at or past config->size (an older NCCL's smaller struct). */
static void read_config(struct ht_ncomm_facts *f, const ht_nccl_config_t *cfg)
{
	f->blocking = -1;
	if (cfg == NULL || cfg->magic != HT_NCCL_CONFIG_MAGIC)
		return;
	size_t size = cfg->size;
	if (size >= offsetof(struct ht_nccl_config, blocking) + sizeof(int) &&
	    cfg->blocking != HT_NCCL_CONFIG_UNDEF_INT)
		f->blocking = cfg->blocking != 0;
	if (size >= offsetof(struct ht_nccl_config, commName) + sizeof(char *) &&
	    cfg->commName != NULL) {
		size_t n = 0;
		while (n < sizeof(f->name) - 1 && cfg->commName[n] != '\0') {
			f->name[n] = cfg->commName[n];
			n++;
		}
		f->name[n] = '\0';
	}
}

static void facts_fields(struct ht_jw *w, const struct ht_ncomm_facts *f)
{
	ht_jw_int_or_null(w, "nranks", f->nranks, f->nranks >= 0);
	ht_jw_int_or_null(w, "rank", f->rank, f->rank >= 0);
	if (f->n_ids > 0)
		ht_jw_int(w, "n_ids", f->n_ids);
	if (f->have_id)
		ht__nccl_id_fields(w, &f->id);
	if (f->blocking >= 0)
		ht_jw_bool(w, "blocking", f->blocking != 0);
	else
		ht_jw_null(w, "blocking");
	ht_jw_str(w, "comm_name", f->name[0] != '\0' ? f->name : NULL);
	if (is_split(f->hook)) {
		ht_jw_hex(w, "parent", f->parent);
		if (f->hook == HT_HOOK_ID_ncclCommSplit) {
			ht_jw_int(w, "color", f->color);
			ht_jw_int(w, "key", f->key);
		}
	}
	ht_jw_int_or_null(w, "nccl_version", ht__nccl_prov.version, ht__nccl_prov.version > 0);
}

/* The end or error of an init, as a nccl event and (the first time) the
 * nccl_init phase line. via: what reported it, when not the init itself. */
static void init_done(const struct ht_ncomm_facts *f, ht_nccl_comm_t comm, int rc,
		      const char *via, const char *abandoned)
{
	char buf[4096];
	struct ht_jw w;
	bool ok = rc == HT_NCCL_SUCCESS && abandoned == NULL;
	int64_t dur = ht_now_coarse() - f->start_ns;

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0) {
			ht_ev_begin(&w, buf, sizeof(buf), HT_EV_NCCL);
			ht_jw_str(&w, "fn", ht_hook_name(f->hook));
			ht_jw_str(&w, "state", ok ? "end" : "error");
		} else if (!ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_NCCL_INIT,
					  ok ? HT_END : HT_ERROR)) {
			break;
		} else {
			ht_jw_str(&w, "fn", ht_hook_name(f->hook));
		}
		if (comm != NULL)
			ht_jw_hex(&w, "comm", (uintptr_t)comm);
		else
			ht_jw_null(&w, "comm");
		facts_fields(&w, f);
		if (abandoned != NULL)
			ht_jw_str(&w, "abandoned", abandoned);
		else
			ht__nccl_result_fields(&w, rc, comm);
		if (via != NULL)
			ht_jw_str(&w, "via", via);
		ht_jw_secs(&w, "dur", dur > 0 ? dur : 0);
		ht_ev_emit(&w);
	}
}

static void begin_lines(const struct init_call *ic)
{
	char buf[4096];
	struct ht_jw w;

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0) {
			ht_ev_begin(&w, buf, sizeof(buf), HT_EV_NCCL);
			ht_jw_str(&w, "fn", ht_hook_name(ic->f.hook));
			ht_jw_str(&w, "state", "begin");
		} else if (!ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_NCCL_INIT, HT_BEGIN)) {
			break;
		} else {
			ht_jw_str(&w, "fn", ht_hook_name(ic->f.hook));
		}
		facts_fields(&w, &ic->f);
		if (ic->f.hook == HT_HOOK_ID_ncclCommShrink) {
			ht_jw_int(&w, "n_exclude", ic->n_exclude);
			ht_jw_int(&w, "shrink_flags", ic->shrink_flags);
		}
		ht_jw_bool(&w, "in_group", ic->in_group);
		ht_jw_bool(&w, "nested", false);
		ht_ev_emit(&w);
	}
}

/* Prepares ic; false when the call is to pass straight through (tracing
 * off, our own code, or NCCL calling itself). */
static bool init_enter(struct init_call *ic, int hook, const void *caller)
{
	if (ht_tls.nccl_depth > 0 || ht_tls.depth > 0 || !ht_active() ||
	    ht__nccl_from_provider(caller))
		return false;
	memset(ic, 0, sizeof(*ic));
	ic->saved = errno;
	ic->f.hook = hook;
	ic->f.nranks = ic->f.rank = -1;
	ic->f.blocking = -1;
	ic->f.start_ns = ht_now_coarse();
	ic->t0 = ht_now();
	ic->in_group = ht__nccl_in_group();
	return true;
}

static void init_start(struct init_call *ic)
{
	if (ic->f.hook == HT_HOOK_ID_ncclCommInitRank ||
	    ic->f.hook == HT_HOOK_ID_ncclCommInitRankConfig ||
	    ic->f.hook == HT_HOOK_ID_ncclCommInitRankScalable)
		ht_identity_learned(ic->f.rank, ic->f.nranks, "nccl");
	if (ic->f.have_id)
		ht__nccl_note_root(&ic->f.id);
	begin_lines(ic);
	ht__nccl_call_begin(&ic->call, ic->f.hook, &ic->saved);
}

/* One communicator the init returned (rank given for ncclCommInitAll). */
static void settle(const struct init_call *ic, ht_nccl_comm_t comm, int rank, int rc)
{
	struct ht_ncomm_facts f = ic->f;

	if (rank >= 0)
		f.rank = rank;
	if (rc != HT_NCCL_SUCCESS && rc != HT_NCCL_IN_PROGRESS) {
		init_done(&f, comm, rc, NULL, NULL);
		return;
	}
	if (comm == NULL) {
		/* ncclCommSplit with NCCL_SPLIT_NOCOLOR: no communicator. */
		init_done(&f, NULL, HT_NCCL_SUCCESS, NULL, NULL);
		return;
	}
	bool pending = ic->in_group || rc == HT_NCCL_IN_PROGRESS;
	if (!pending && f.nranks < 0) {
		f.nranks = ht__nccl_comm_count(comm);
		f.rank = ht__nccl_comm_rank(comm);
	}
	struct ht_ncomm *e = ht__nccl_comm_add(comm);
	if (e != NULL) {
		e->f = f;
		if (ic->in_group) {
			e->owner = ht__nccl_tid();
			atomic_store(&e->state, HT_NCOMM_GROUP);
			ht__nccl_group_note_init();
		} else if (rc == HT_NCCL_IN_PROGRESS) {
			e->pending = ht__nccl_pending_claim(f.hook, f.start_ns);
			atomic_store(&e->state, HT_NCOMM_PENDING);
		}
	}
	if (!pending)
		init_done(&f, comm, rc, NULL, NULL);
}

static ht_nccl_result_t init_leave(struct init_call *ic, ht_nccl_comm_t *comms, int n, int rc)
{
	ht__nccl_call_end(&ic->call, rc, &ic->saved);
	bool ok = rc == HT_NCCL_SUCCESS || rc == HT_NCCL_IN_PROGRESS;
	if (!ok || comms == NULL || n <= 0)
		settle(ic, NULL, -1, rc);
	else if (n == 1)
		settle(ic, *comms, -1, rc);
	else
		for (int i = 0; i < n; i++)
			settle(ic, comms[i], i, rc);
	errno = ic->saved;
	return rc;
}

static void take_id(struct ht_ncomm_facts *f, const ht_nccl_uid_t *id, int n)
{
	f->n_ids = n;
	if (id != NULL && n > 0) {
		ht_ncclid_decode(id, &f->id);
		f->have_id = true;
	}
}

/* ---- the wrappers ------------------------------------------------------------------ */

ht_nccl_result_t ht__nccl_wrap_ncclCommInitRank(HT_NCCL_REAL_T(ncclCommInitRank) real,
				 const void *caller,
				 ht_nccl_comm_t *comm, int nranks, ht_nccl_uid_t commId,
				 int rank)
{
	struct init_call ic;

	if (!init_enter(&ic, HT_HOOK_ID_ncclCommInitRank, caller))
		return real(comm, nranks, commId, rank);
	ic.f.nranks = nranks;
	ic.f.rank = rank;
	take_id(&ic.f, &commId, 1);
	init_start(&ic);
	return init_leave(&ic, comm, 1, real(comm, nranks, commId, rank));
}

ht_nccl_result_t ht__nccl_wrap_ncclCommInitRankConfig(HT_NCCL_REAL_T(ncclCommInitRankConfig) real,
				 const void *caller,
				 ht_nccl_comm_t *comm, int nranks, ht_nccl_uid_t commId,
				 int rank, ht_nccl_config_t *config)
{
	struct init_call ic;

	if (!init_enter(&ic, HT_HOOK_ID_ncclCommInitRankConfig, caller))
		return real(comm, nranks, commId, rank, config);
	ic.f.nranks = nranks;
	ic.f.rank = rank;
	take_id(&ic.f, &commId, 1);
	read_config(&ic.f, config);
	init_start(&ic);
	return init_leave(&ic, comm, 1, real(comm, nranks, commId, rank, config));
}

ht_nccl_result_t ht__nccl_wrap_ncclCommInitRankScalable(HT_NCCL_REAL_T(ncclCommInitRankScalable) real,
				 const void *caller,
				 ht_nccl_comm_t *newcomm, int nranks, int myrank, int nId,
				 ht_nccl_uid_t *commIds, ht_nccl_config_t *config)
{
	struct init_call ic;

	if (!init_enter(&ic, HT_HOOK_ID_ncclCommInitRankScalable, caller))
		return real(newcomm, nranks, myrank, nId, commIds, config);
	ic.f.nranks = nranks;
	ic.f.rank = myrank;
	take_id(&ic.f, commIds, nId);
	for (int i = 1; commIds != NULL && i < nId && i < 64; i++) {
		struct ht_ncclid other;
		ht_ncclid_decode(&commIds[i], &other);
		ht__nccl_note_root(&other);
	}
	read_config(&ic.f, config);
	init_start(&ic);
	return init_leave(&ic, newcomm, 1, real(newcomm, nranks, myrank, nId, commIds, config));
}

ht_nccl_result_t ht__nccl_wrap_ncclCommInitAll(HT_NCCL_REAL_T(ncclCommInitAll) real,
				 const void *caller,
				 ht_nccl_comm_t *comm, int ndev, const int *devlist)
{
	struct init_call ic;

	if (!init_enter(&ic, HT_HOOK_ID_ncclCommInitAll, caller))
		return real(comm, ndev, devlist);
	ic.f.nranks = ndev;
	init_start(&ic);
	ht_nccl_result_t rc = real(comm, ndev, devlist);
	/* NCCL made the id itself, with a nested ncclGetUniqueId. */
	ic.f.have_id = ht__nccl_take_nested_id(&ic.f.id);
	ic.f.n_ids = ic.f.have_id;
	return init_leave(&ic, comm, ndev, rc);
}

ht_nccl_result_t ht__nccl_wrap_ncclCommSplit(HT_NCCL_REAL_T(ncclCommSplit) real,
				 const void *caller,
				 ht_nccl_comm_t comm, int color, int key,
				 ht_nccl_comm_t *newcomm, ht_nccl_config_t *config)
{
	struct init_call ic;

	if (!init_enter(&ic, HT_HOOK_ID_ncclCommSplit, caller))
		return real(comm, color, key, newcomm, config);
	ic.f.parent = (uintptr_t)comm;
	ic.f.color = color;
	ic.f.key = key;
	read_config(&ic.f, config);
	init_start(&ic);
	return init_leave(&ic, newcomm, 1, real(comm, color, key, newcomm, config));
}

ht_nccl_result_t ht__nccl_wrap_ncclCommShrink(HT_NCCL_REAL_T(ncclCommShrink) real,
				 const void *caller,
				 ht_nccl_comm_t comm, int *excludeRanksList,
				 int excludeRanksCount, ht_nccl_comm_t *newcomm,
				 ht_nccl_config_t *config, int shrinkFlags)
{
	struct init_call ic;

	if (!init_enter(&ic, HT_HOOK_ID_ncclCommShrink, caller))
		return real(comm, excludeRanksList, excludeRanksCount, newcomm, config, shrinkFlags);
	ic.f.parent = (uintptr_t)comm;
	ic.n_exclude = excludeRanksCount;
	ic.shrink_flags = shrinkFlags;
	read_config(&ic.f, config);
	init_start(&ic);
	return init_leave(&ic, newcomm, 1,
			  real(comm, excludeRanksList, excludeRanksCount, newcomm, config, shrinkFlags));
}

/* ---- completions after the call ------------------------------------------------------ */

static void complete(struct ht_ncomm *e, ht_nccl_comm_t comm, int st, const char *via)
{
	if (st == HT_NCCL_SUCCESS && e->f.nranks < 0) {
		e->f.nranks = ht__nccl_comm_count(comm);
		e->f.rank = ht__nccl_comm_rank(comm);
	}
	init_done(&e->f, comm, st, via, NULL);
}

void ht__nccl_group_done(pid_t tid, int rc)
{
	for (size_t i = 0; i < HT_NCCL_COMMS; i++) {
		struct ht_ncomm *e = &ht__nccl_comms.e[i];
		uintptr_t k = atomic_load(&e->key);
		if (k <= 1 || e->owner != tid || atomic_load(&e->state) != HT_NCOMM_GROUP)
			continue;
		ht_nccl_comm_t comm = (ht_nccl_comm_t)k;
		if (rc == HT_NCCL_IN_PROGRESS) {
			e->pending = ht__nccl_pending_claim(e->f.hook, e->f.start_ns);
			atomic_store(&e->state, HT_NCOMM_PENDING);
			continue;
		}
		atomic_store(&e->state, rc == HT_NCCL_SUCCESS ? HT_NCOMM_READY : HT_NCOMM_FAILED);
		complete(e, comm, rc, "ncclGroupEnd");
	}
}

void ht__nccl_poll(struct ht_ncomm *e, ht_nccl_comm_t comm, int st)
{
	int s = atomic_load(&e->state);

	if (s == HT_NCOMM_PENDING) {
		if (st == HT_NCCL_IN_PROGRESS)
			return;
		if (!atomic_compare_exchange_strong(&e->state, &s,
						    st == HT_NCCL_SUCCESS ? HT_NCOMM_READY :
									    HT_NCOMM_FAILED))
			return;
		ht__nccl_pending_release(e);
		complete(e, comm, st, "ncclCommGetAsyncError");
	} else if (s == HT_NCOMM_READY && st != HT_NCCL_SUCCESS && st != HT_NCCL_IN_PROGRESS &&
		   !atomic_exchange(&e->error_seen, true)) {
		/* A communicator that worked and then failed (a peer died). */
		ht__nccl_error_event("ncclCommGetAsyncError", comm, st);
	}
}

void ht__nccl_init_abandoned(struct ht_ncomm *e, ht_nccl_comm_t comm, const char *fn)
{
	init_done(&e->f, comm, HT_NCCL_IN_PROGRESS, NULL, fn);
}
