// SPDX-License-Identifier: MIT
/*
 * nccl.h: declarations private to the NCCL family (hooks/nccl*.c): the
 * wrappers' prototypes, the layout of ncclConfig_t we read, the resolver of
 * the real functions and the small API the files share. Never included
 * together with the real nccl.h (hooks/nccl/proto_check_nccl.c compares them).
 */
#ifndef HT_HOOKS_NCCL_H
#define HT_HOOKS_NCCL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "hook_types.h"
#include "inflight.h"
#include "jsonw.h"
#include "ncclid.h"
#include "nccltab.h"
#include "real.h"
#include "state.h"

/* The wrappers, one per NCCL entry of hooks.def (exported by the library). */
#define HT_HOOK_NCCL(ret, name, params, args) ret name params;
#include "hooks_of.h"

/* ncclResult_t values we act on. */
#define HT_NCCL_SUCCESS 0
#define HT_NCCL_INTERNAL_ERROR 3
#define HT_NCCL_IN_PROGRESS 7

#include "nccl_config.h"

/* ---- nccl_real.c: the provider and the real functions ---------------------- */

/* The loaded object that answers for NCCL, found at first contact. */
struct ht_nccl_provider {
	char path[512];
	uintptr_t lo, hi;	/* its mapped span */
	bool dedicated;		/* a libnccl*, not NCCL linked into a framework */
	int version;		/* ncclGetVersion, 0 unknown */
};
extern struct ht_nccl_provider ht__nccl_prov;

/* Finds the provider (preferring the object holding hint, when given) and
 * fills the NCCL entries of ht_real. Cheap once done; thread-safe; normal
 * context only (it may dlopen with RTLD_NOLOAD). True when found. */
bool ht__nccl_resolve(const void *hint);
/* The real function of hook id, resolving it first if needed; NULL when no
 * NCCL provides it. */
void *ht__nccl_real_slow(int id);
/* The real one, through the table: the fast path is one load. */
#define HT_NCCL_REAL(name)                                              \
	(__builtin_expect(ht_real.name != NULL, 1) ? ht_real.name :      \
	 (__typeof__(ht_real.name))ht__nccl_real_slow(HT_HOOK_ID_##name))

/* True when addr lies in a dedicated libnccl: NCCL calling its own export. */
static inline bool ht__nccl_from_provider(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	return a >= ht__nccl_prov.lo && a < ht__nccl_prov.hi && ht__nccl_prov.dedicated;
}

/* NCCL's own words for a result, and its last error; NULL if unavailable. */
const char *ht__nccl_error_string(int result);
const char *ht__nccl_last_error(ht_nccl_comm_t comm);
/* ncclCommCount / ncclCommUserRank, -1 when unavailable or failing. */
int ht__nccl_comm_count(ht_nccl_comm_t comm);
int ht__nccl_comm_rank(ht_nccl_comm_t comm);

/* ---- nccl.c ---------------------------------------------------------------- */

/* Set once a hooked NCCL function ran in this process (after fork: reset). */
extern _Atomic bool ht__nccl_seen;
/* The first call: resolve, activate (HT_REASON_NCCL), record the version. */
void ht__nccl_first_contact(void);
static inline void ht__nccl_contact(void)
{
	if (__builtin_expect(!atomic_load_explicit(&ht__nccl_seen, memory_order_relaxed), 0))
		ht__nccl_first_contact();
}
/* This thread's id (cached in ht_tls). */
pid_t ht__nccl_tid(void);
/* The communicators of this process. */
extern struct ht_ncomms ht__nccl_comms;
/* The entry of comm; added (facts unknown) when a collective meets a comm
 * whose init was not seen. NULL when the table is full. */
struct ht_ncomm *ht__nccl_comm_get(ht_nccl_comm_t comm);
/* Adds comm (serialised with removals); NULL when comm is NULL or the
 * table is full. */
struct ht_ncomm *ht__nccl_comm_add(ht_nccl_comm_t comm);
void ht__nccl_comm_remove(struct ht_ncomm *e);
/* Writes NCCL's result, error string and last error into w. */
void ht__nccl_result_fields(struct ht_jw *w, int result, ht_nccl_comm_t comm);
/* Writes the fields of an error a hooked call returned: a nccl event. */
void ht__nccl_error_event(const char *fn, ht_nccl_comm_t comm, int result);
/* The fields of a decoded unique id (root, magic, hashes). */
void ht__nccl_id_fields(struct ht_jw *w, const struct ht_ncclid *id);
/* Tells the net family that id's root is an NCCL bootstrap address. */
void ht__nccl_note_root(const struct ht_ncclid *id);
/* The in-flight record that keeps a pending init under the watchdog. */
struct ht_slot *ht__nccl_pending_claim(int hook, int64_t start_ns);
void ht__nccl_pending_release(struct ht_ncomm *e);
/* The id the last nested ncclGetUniqueId of this thread made, once. */
bool ht__nccl_take_nested_id(struct ht_ncclid *out);
/* This thread is between app-level ncclGroupStart and ncclGroupEnd. */
bool ht__nccl_in_group(void);
/* An init was made inside this thread's group. */
void ht__nccl_group_note_init(void);

/* ---- nccl_init.c ------------------------------------------------------------ */

/* The outermost ncclGroupEnd of thread tid returned rc: the inits made in
 * its group end (or go pending, or fail). */
void ht__nccl_group_done(pid_t tid, int rc);
/* An app-level ncclCommGetAsyncError said st about e's comm. */
void ht__nccl_poll(struct ht_ncomm *e, ht_nccl_comm_t comm, int st);
/* e's comm was aborted or destroyed (by fn) while its init was pending. */
void ht__nccl_init_abandoned(struct ht_ncomm *e, ht_nccl_comm_t comm, const char *fn);

/* The body of ncclCommFinalize, ncclCommDestroy and ncclCommAbort (hook,
 * named fn): begin and end lines around the real call; removes: the comm
 * is gone afterwards (nccl.c). */
ht_nccl_result_t ht__nccl_teardown(int hook, const char *fn, ht_nccl_result_t (*real)(ht_nccl_comm_t),
				   ht_nccl_comm_t comm, bool removes);

/* ---- the family table's entries (nccl_family.c, hooks/families.h) ---------- */

void ht__nccl_activate(void);		/* nccl.c */
void ht__nccl_fork_child(void);		/* nccl.c */
void ht__nccl_dump(void);		/* nccl_dump.c */
void ht__nccl_dump_end(struct ht_jw *w);	/* nccl_dump.c */
void *ht__nccl_dlsym(void *handle, const char *name, void *found);	/* nccl_real.c */
void ht__nccl_real_fork_child(void);	/* nccl_real.c */

/* ---- nccl_coll.c ----------------------------------------------------------- */

void ht__nccl_coll_fork_child(void);

/* ---- the bracket of every hooked call into NCCL -------------------------------------- */

/*
 * Before the real call: in flight for the watchdog (ht_call_enter), and
 * NCCL's calls into itself not traced again (nccl_depth); with saved, the
 * caller's errno given back for the call. After it: the call's errno kept
 * in *saved (the hook's own work may change errno), out of flight.
 */
static inline __attribute__((always_inline)) void ht__nccl_call_begin(struct ht_call *c, int hook,
									const int *saved)
{
	ht_tls.nccl_depth++;
	ht_call_enter(c, hook);
	if (saved != NULL)
		errno = *saved;
}

static inline __attribute__((always_inline)) void ht__nccl_call_end(struct ht_call *c, int rc,
								      int *saved)
{
	if (saved != NULL)
		*saved = errno;
	ht_call_leave(c, rc);
	ht_tls.nccl_depth--;
}

#endif
