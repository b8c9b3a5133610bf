// SPDX-License-Identifier: MIT
/*
 * nccl.c: the NCCL family's frame: first contact (activation, provider,
 * version), HANGTRACE_NCCL_LOG, unique ids (the nccl_id phase), the
 * asynchronous-error poll that ends a non-blocking init, teardown, groups,
 * and the helpers the other nccl_*.c files share. NCCL calls its own
 * exports through the PLT (ncclCommInitAll -> ncclGetUniqueId, every
 * non-blocking enqueue -> ncclCommGetAsyncError): a thread-local depth marks
 * such calls nested; they never open or close a phase. Hooks run in normal
 * context (never in signal handlers), never print, and keep errno.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "env.h"
#include "events.h"
#include "fmt.h"
#include "hook_types.h"
#include "inflight.h"
#include "jsonw.h"
#include "nccl.h"
#include "nccl_wrap.h"
#include "ncclid.h"
#include "nccltab.h"
#include "net.h"
#include "real.h"
#include "state.h"
#include "writer.h"

_Atomic bool ht__nccl_seen;
struct ht_ncomms ht__nccl_comms;

static _Atomic bool version_written;
static char debug_file[sizeof(ht_g.trace_path) + 64];	/* NCCL_DEBUG_FILE we set */
static pthread_mutex_t add_lock = PTHREAD_MUTEX_INITIALIZER;

/* Groups of this thread: depth of app-level ncclGroupStart, and inits made
 * inside the group that complete at the outermost ncclGroupEnd. */
static __thread int grp_depth, grp_pending;
/* The id a nested ncclGetUniqueId produced (ncclCommInitAll uses it). */
static __thread struct ht_ncclid nested_id;
static __thread bool nested_id_valid;


/* ---- activation --------------------------------------------------------------- */

/* HANGTRACE_NCCL_LOG=1 and NCCL_DEBUG unset: NCCL's own log of this process
 * lands beside its trace, nccl.<host>.<pid>.log (NCCL expands %h and %p). */
static void nccl_log_env(void)
{
	char dir[sizeof(ht_g.trace_path)], path[sizeof(ht_g.trace_path) + 64];
	size_t n;

	if (ht_env(HT_ENV_NCCL_DEBUG) != NULL)
		return;
	n = ht_strlcpy(dir, ht_g.trace_path, sizeof(dir));
	while (n > 0 && dir[n - 1] != '/')
		n--;
	dir[n] = '\0';
	if (dir[0] != '/') {
		/* Relative to the cwd now, not where NCCL runs later. */
		char cwd[PATH_MAX];
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return;
		size_t k = ht_append(path, sizeof(path), 0, cwd);
		k = ht_append(path, sizeof(path), k, "/");
		ht_append(path, sizeof(path), k, n > 0 ? dir : "./");
	} else {
		ht_append(path, sizeof(path), 0, dir);
	}
	n = strlen(path);
	if (ht_append(path, sizeof(path), n, "nccl.%h.%p.log") != n + 14)
		return;		/* too long: no log rather than a wrong path */
	setenv("NCCL_DEBUG_FILE", path, 1);
	ht_strlcpy(debug_file, path, sizeof(debug_file));
	setenv("NCCL_DEBUG_SUBSYS", "INIT,BOOTSTRAP,ENV,NET", 0);
	setenv("NCCL_DEBUG", "INFO", 1);
}

void ht__nccl_activate(void)
{
	if (ht_g.fork_parent != 0)
		return;
	if (ht_g.opt.nccl_log)
		nccl_log_env();
	/* NCCL names its threads ("NCCL BootstrapR", "NCCL Proxy...") only
	 * when asked (src/debug.cc): stack dumps then say whose they are. */
	setenv("NCCL_SET_THREAD_NAME", "1", 0);
}

pid_t ht__nccl_tid(void)
{
	if (ht_tls.tid == 0)
		ht_tls.tid = (pid_t)syscall(SYS_gettid);
	return ht_tls.tid;
}

void ht__nccl_first_contact(void)
{
	if (ht_tls.depth > 0)
		return;
	int saved = errno;	/* activation creates files, dlopen may fail */
	ht_real_init();
	ht__nccl_resolve(NULL);
	if (atomic_load(&ht_g.state) != HT_OFF)
		ht_activate(HT_REASON_NCCL);
	atomic_store(&ht_g.gpu_activity, true);
	if (ht_active() && !atomic_exchange(&version_written, true)) {
		char buf[1024];
		struct ht_jw w;
		ht_ev_begin(&w, buf, sizeof(buf), HT_EV_VERSION);
		ht_jw_str(&w, "what", "nccl");
		ht_jw_int_or_null(&w, "value", ht__nccl_prov.version, ht__nccl_prov.version > 0);
		ht_jw_str(&w, "provider", ht__nccl_prov.path[0] != '\0' ? ht__nccl_prov.path : NULL);
		ht_jw_bool(&w, "dedicated", ht__nccl_prov.dedicated);
		if (debug_file[0] != '\0')
			ht_jw_str(&w, "nccl_debug_file", debug_file);
		ht_ev_emit(&w);
	}
	atomic_store_explicit(&ht__nccl_seen, true, memory_order_release);
	errno = saved;
}

/* ---- shared field writers -------------------------------------------------------- */

void ht__nccl_result_fields(struct ht_jw *w, int result, ht_nccl_comm_t comm)
{
	ht_jw_int(w, "result", result);
	ht_jw_str(w, "error", ht__nccl_error_string(result));
	if (result != HT_NCCL_SUCCESS && result != HT_NCCL_IN_PROGRESS) {
		const char *last = ht__nccl_last_error(comm);
		ht_jw_str(w, "last_error", last != NULL && last[0] != '\0' ? last : NULL);
	}
}

void ht__nccl_error_event(const char *fn, ht_nccl_comm_t comm, int result)
{
	char buf[2048];
	struct ht_jw w;

	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_NCCL);
	ht_jw_str(&w, "fn", fn);
	ht_jw_str(&w, "state", "error");
	if (comm != NULL)
		ht_jw_hex(&w, "comm", (uintptr_t)comm);
	ht__nccl_result_fields(&w, result, comm);
	ht_ev_emit(&w);
}

void ht__nccl_id_fields(struct ht_jw *w, const struct ht_ncclid *id)
{
	ht_jw_str(w, "root", id->root[0] != '\0' ? id->root : NULL);
	ht_jw_hex(w, "magic", id->magic);
	ht_jw_bool(w, "fixed_magic", id->fixed_magic);
	ht_jw_hex(w, "id_hash", id->id_hash);
	ht_jw_hex(w, "commid", id->commid);
	ht_jw_hex(w, "commid_mid", id->commid_mid);
	ht_jw_hex(w, "commid_old", id->commid_old);
	if (ht__nccl_prov.version > 0)
		ht_jw_hex(w, "commid_nccl", ht_ncclid_commid_for(id, ht__nccl_prov.version));
}

void ht__nccl_note_root(const struct ht_ncclid *id)
{
	/* Connects to this root are then attributed "nccl_bootstrap" (net.h). */
	if (id->family != 0)
		ht_net_add_endpoint((const struct sockaddr *)&id->addr, id->addr_len,
				    "nccl_bootstrap");
}

/* ---- communicators ------------------------------------------------------------------ */

struct ht_ncomm *ht__nccl_comm_add(ht_nccl_comm_t comm)
{
	bool added;

	if (comm == NULL)
		return NULL;
	pthread_mutex_lock(&add_lock);
	struct ht_ncomm *e = ht_ncomm_add(&ht__nccl_comms, (uintptr_t)comm, &added);
	pthread_mutex_unlock(&add_lock);
	if (e == NULL && atomic_load(&ht__nccl_comms.dropped) == 1)
		ht_ev_warning("more NCCL communicators than hangtrace tracks: "
			      "sequence numbers of the others are not recorded");
	return e;
}

void ht__nccl_comm_remove(struct ht_ncomm *e)
{
	pthread_mutex_lock(&add_lock);
	ht_ncomm_remove(&ht__nccl_comms, e);
	pthread_mutex_unlock(&add_lock);
}

struct ht_ncomm *ht__nccl_comm_get(ht_nccl_comm_t comm)
{
	struct ht_ncomm *e = ht_ncomm_find(&ht__nccl_comms, (uintptr_t)comm);
	if (__builtin_expect(e != NULL, 1) || comm == NULL)
		return e;
	return ht__nccl_comm_add(comm);
}

/* A pending init is watched like a blocking call in flight: the watchdog
 * ages it from the init's start, named by the init function. */
struct ht_slot *ht__nccl_pending_claim(int hook, int64_t start_ns)
{
	struct ht_slot *s = ht_inflight_claim(&ht_g.inflight, ht__nccl_tid());
	if (s != NULL)
		ht_inflight_enter(s, hook, start_ns);
	return s;
}

void ht__nccl_pending_release(struct ht_ncomm *e)
{
	struct ht_slot *s = e->pending;
	e->pending = NULL;
	if (s != NULL)
		ht_inflight_release(s);
}

/* ---- ncclGetUniqueId: the nccl_id phase -------------------------------------------- */

static void id_line(struct ht_jw *w, const struct ht_ncclid *id, int rc, int64_t t0)
{
	if (rc == HT_NCCL_SUCCESS) {
		ht__nccl_id_fields(w, id);
		/* The process that made an id hosts its bootstrap root, except
		 * in NCCL_COMM_ID mode where rank 0 creates it at init. */
		ht_jw_bool(w, "bootstrap_root", !id->fixed_magic);
	} else {
		ht__nccl_result_fields(w, rc, NULL);
	}
	ht_jw_secs(w, "dur", ht_now() - t0);
}

ht_nccl_result_t ht__nccl_wrap_ncclGetUniqueId(HT_NCCL_REAL_T(ncclGetUniqueId) real,
				 const void *caller,
				 ht_nccl_uid_t *uniqueId)
{
	if (ht_tls.depth > 0 || !ht_active())
		return real(uniqueId);

	bool nested = ht_tls.nccl_depth > 0 || ht__nccl_from_provider(caller);
	int saved = errno;
	char buf[2048];
	struct ht_jw w;
	struct ht_call c;
	int64_t t0 = ht_now();

	if (!nested && ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_NCCL_ID, HT_BEGIN))
		ht_ev_emit(&w);
	ht__nccl_call_begin(&c, HT_HOOK_ID_ncclGetUniqueId, &saved);
	ht_nccl_result_t rc = real(uniqueId);
	ht__nccl_call_end(&c, rc, &saved);

	struct ht_ncclid id;
	if (rc == HT_NCCL_SUCCESS && uniqueId != NULL) {
		ht_ncclid_decode(uniqueId, &id);
		ht__nccl_note_root(&id);
		if (nested) {
			nested_id = id;
			nested_id_valid = true;
		}
	}
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_NCCL);
	ht_jw_str(&w, "fn", "ncclGetUniqueId");
	ht_jw_str(&w, "state", rc == HT_NCCL_SUCCESS ? "end" : "error");
	ht_jw_bool(&w, "nested", nested);
	id_line(&w, &id, rc, t0);
	ht_ev_emit(&w);
	if (!nested && ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_NCCL_ID,
				     rc == HT_NCCL_SUCCESS ? HT_END : HT_ERROR)) {
		id_line(&w, &id, rc, t0);
		ht_ev_emit(&w);
	}
	errno = saved;
	return rc;
}

bool ht__nccl_take_nested_id(struct ht_ncclid *out)
{
	bool v = nested_id_valid;
	if (v)
		*out = nested_id;
	nested_id_valid = false;
	return v;
}

/* ---- groups -------------------------------------------------------------------------- */

bool ht__nccl_in_group(void)
{
	return grp_depth > 0;
}

void ht__nccl_group_note_init(void)
{
	grp_pending++;
}

ht_nccl_result_t ht__nccl_wrap_ncclGroupStart(HT_NCCL_REAL_T(ncclGroupStart) real, const void *caller)
{
	(void)caller;
	if (ht_tls.nccl_depth > 0 || ht_tls.depth > 0 || !ht_active())
		return real();
	ht_nccl_result_t rc = real();
	if (rc == HT_NCCL_SUCCESS)
		grp_depth++;
	else
		ht__nccl_error_event("ncclGroupStart", NULL, rc);
	return rc;
}

ht_nccl_result_t ht__nccl_wrap_ncclGroupEnd(HT_NCCL_REAL_T(ncclGroupEnd) real, const void *caller)
{
	(void)caller;
	if (ht_tls.nccl_depth > 0 || ht_tls.depth > 0 || !ht_active())
		return real();
	struct ht_call c;
	int saved = errno;
	ht__nccl_call_begin(&c, HT_HOOK_ID_ncclGroupEnd, &saved);
	ht_nccl_result_t rc = real();
	ht__nccl_call_end(&c, rc, &saved);
	if (grp_depth > 0)
		grp_depth--;
	if (grp_depth == 0 && grp_pending > 0) {
		grp_pending = 0;
		ht__nccl_group_done(ht__nccl_tid(), rc);
	}
	if (rc != HT_NCCL_SUCCESS && rc != HT_NCCL_IN_PROGRESS)
		ht__nccl_error_event("ncclGroupEnd", NULL, rc);
	errno = saved;
	return rc;
}

/* ---- ncclCommGetAsyncError: where a non-blocking init ends --------------------------- */

ht_nccl_result_t ht__nccl_wrap_ncclCommGetAsyncError(HT_NCCL_REAL_T(ncclCommGetAsyncError) real,
				 const void *caller,
				 ht_nccl_comm_t comm, ht_nccl_result_t *asyncError)
{
	if (ht_tls.nccl_depth > 0 || ht_tls.depth > 0 || !ht_active() ||
	    ht__nccl_from_provider(caller))
		return real(comm, asyncError);
	ht_nccl_result_t rc = real(comm, asyncError);
	struct ht_ncomm *e = comm != NULL ? ht_ncomm_find(&ht__nccl_comms, (uintptr_t)comm) : NULL;
	if (e == NULL)
		return rc;
	int saved = errno;
	int st = rc != HT_NCCL_SUCCESS ? rc : asyncError != NULL ? *asyncError : HT_NCCL_IN_PROGRESS;
	ht__nccl_poll(e, comm, st);
	errno = saved;
	return rc;
}

/* ---- teardown --------------------------------------------------------------------------- */

static void teardown_line(const char *fn, const char *state, ht_nccl_comm_t comm,
			  const struct ht_ncomm *e, int rc, int64_t t0)
{
	char buf[2048];
	struct ht_jw w;

	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_NCCL);
	ht_jw_str(&w, "fn", fn);
	ht_jw_str(&w, "state", state);
	ht_jw_hex(&w, "comm", (uintptr_t)comm);
	if (e != NULL) {
		ht_jw_uint(&w, "seq", atomic_load(&e->seq));
		ht_jw_bool(&w, "pending_init", atomic_load(&e->state) == HT_NCOMM_PENDING);
	}
	if (t0 != 0) {
		ht__nccl_result_fields(&w, rc, comm);
		ht_jw_secs(&w, "dur", ht_now() - t0);
	}
	ht_ev_emit(&w);
}

ht_nccl_result_t ht__nccl_teardown(int hook, const char *fn, ht_nccl_result_t (*real)(ht_nccl_comm_t),
				   ht_nccl_comm_t comm, bool removes)
{
	if (ht_tls.nccl_depth > 0 || ht_tls.depth > 0 || !ht_active() || comm == NULL)
		return real(comm);
	int saved = errno;
	struct ht_ncomm *e = ht_ncomm_find(&ht__nccl_comms, (uintptr_t)comm);
	struct ht_call c;
	int64_t t0 = ht_now();

	teardown_line(fn, "begin", comm, e, 0, 0);
	ht__nccl_call_begin(&c, hook, &saved);
	ht_nccl_result_t rc = real(comm);
	ht__nccl_call_end(&c, rc, &saved);
	bool ok = rc == HT_NCCL_SUCCESS || rc == HT_NCCL_IN_PROGRESS;
	teardown_line(fn, ok ? "end" : "error", comm, e, rc, t0);
	if (e != NULL && removes && ok) {
		/* A comm given up during its init: the init failed. */
		if (atomic_exchange(&e->state, HT_NCOMM_FAILED) == HT_NCOMM_PENDING)
			ht__nccl_init_abandoned(e, comm, fn);
		ht__nccl_pending_release(e);
		ht__nccl_comm_remove(e);
	}
	errno = saved;
	return rc;
}

/* ---- fork ---------------------------------------------------------------------------------- */

void ht__nccl_fork_child(void)
{
	/* The parent's communicators are unusable here; the child starts
	 * over, and its own first NCCL call makes it relevant again. */
	ht_ncomm_reset(&ht__nccl_comms);
	pthread_mutex_init(&add_lock, NULL);
	grp_depth = grp_pending = 0;
	nested_id_valid = false;
	atomic_store(&ht__nccl_seen, false);
	atomic_store(&version_written, false);
	ht__nccl_real_fork_child();
	ht__nccl_coll_fork_child();
}
