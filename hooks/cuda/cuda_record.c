// SPDX-License-Identifier: MIT
/*
 * cuda_record.c: what the CUDA wrappers (hooks/cuda/cuda.c) write: the
 * cuda_init, device and steady phases, driver and runtime versions, errors,
 * and the child forked after cuInit that touches CUDA. The first wrapped
 * call makes the process relevant. Facts that need the driver (version,
 * device count, UUID, PCI bus id) come from the libcuda that answered the
 * call, called only after a successful init, with our re-entry guard up.
 * The synchronize path takes no lock and allocates nothing; the rest runs
 * a few times per process. ht__cuda_dump runs in the watchdog thread and
 * only reads what is already here (a stalled thread may hold the loader
 * lock: no dl* calls there).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#include "clock.h"
#include "common.h"
#include "cuda.h"
#include "cudafacts.h"
#include "env.h"
#include "events.h"
#include "fmt.h"
#include "hook_types.h"
#include "inflight.h"
#include "jsonw.h"
#include "phase.h"
#include "real.h"
#include "state.h"
#include "writer.h"


#define ERROR_LINES_PER_HOOK 8	/* cuda error lines per wrapped function */
#define INIT_LINES 8		/* cuda lines for cuInit calls after the first */

_Atomic bool ht__cuda_collective;

static struct {
	_Atomic bool touched;		/* a wrapped call ran in this process */
	_Atomic bool device_done;	/* the device phase has its end line */
	_Atomic bool device_probed;	/* the first synchronize looked for it */
	_Atomic bool fork_noted;	/* the after_fork line is written */
	_Atomic bool hung_noted;	/* the after_fork hung line is written */
	_Atomic uint32_t init_lines;
	_Atomic uint32_t lookups;	/* cuGetProcAddress requests seen */
	_Atomic int runtime_version;	/* greatest cudaVersion requested */
	const void *_Atomic runtime_caller;
	_Atomic int runtime_written, driver_written;
	_Atomic uint8_t error_lines[HT_HOOK_COUNT];
	_Atomic bool visible_read;
	bool visible_set;
	char visible[512];		/* CUDA_VISIBLE_DEVICES at cuInit */
} cu;

/* Synchronizes that returned: progress for a look (families.h). */
static _Atomic uint64_t syncs_done;

uint64_t ht__cuda_progress(void)
{
	return atomic_load_explicit(&syncs_done, memory_order_relaxed);
}

void ht__cuda_fork_child(void)
{
	atomic_store(&syncs_done, 0);
	/* The child's trace starts from nothing; what the runtime looked up
	 * before the fork is still what the child's runtime uses. */
	atomic_store(&cu.touched, false);
	atomic_store(&cu.device_done, false);
	atomic_store(&cu.device_probed, false);
	atomic_store(&cu.fork_noted, false);
	atomic_store(&cu.hung_noted, false);
	atomic_store(&cu.init_lines, 0);
	atomic_store(&cu.runtime_written, 0);
	atomic_store(&cu.driver_written, 0);
	for (size_t i = 0; i < HT_ARRAY_SIZE(cu.error_lines); i++)
		atomic_store(&cu.error_lines[i], 0);
	atomic_store(&ht__cuda_collective, false);
}

/* ---- the driver that answered ----------------------------------------------- */

/* Functions we call ourselves, looked up in the libcuda that answered. */
struct drv {
	const char *path;		/* that libcuda ("" for the main program) */
	void *handle;
	ht_cu_result (*driver_version)(int *);
	ht_cu_result (*device_count)(int *);
	ht_cu_result (*uuid)(struct CUuuid_st *, ht_cu_device);
	ht_cu_result (*bus_id)(char *, int, ht_cu_device);
	ht_cu_result (*ctx_device)(ht_cu_device *);
	ht_cu_result (*ctx_current)(struct CUctx_st **);
};

struct uuid_buf {
	unsigned char bytes[16];
};

static void *drv_sym(struct drv *d, const char *name)
{
	void *p = ht_real_dlsym(d->handle, name);
	if (p == NULL)
		dlerror();
	return p;
}

/* Opens the object that holds real (the driver function just called). */
static bool drv_open(struct drv *d, const void *real)
{
	Dl_info info;
	struct link_map *lm = NULL;

	memset(d, 0, sizeof(*d));
	if (real == NULL || dladdr1(real, &info, (void **)&lm, RTLD_DL_LINKMAP) == 0 || lm == NULL)
		return false;
	d->path = lm->l_name;
	d->handle = dlopen(d->path[0] != '\0' ? d->path : NULL, RTLD_LAZY | RTLD_NOLOAD);
	if (d->handle == NULL) {
		dlerror();
		return true;	/* the path alone is still worth writing */
	}
	d->driver_version = (ht_cu_result (*)(int *))drv_sym(d, "cuDriverGetVersion");
	d->device_count = (ht_cu_result (*)(int *))drv_sym(d, "cuDeviceGetCount");
	/* The GPU's UUID, also under MIG (the _v2 gives the instance's). */
	d->uuid = (ht_cu_result (*)(struct CUuuid_st *, ht_cu_device))drv_sym(d, "cuDeviceGetUuid");
	if (d->uuid == NULL)
		d->uuid = (ht_cu_result (*)(struct CUuuid_st *, ht_cu_device))
			drv_sym(d, "cuDeviceGetUuid_v2");
	d->bus_id = (ht_cu_result (*)(char *, int, ht_cu_device))drv_sym(d, "cuDeviceGetPCIBusId");
	d->ctx_device = (ht_cu_result (*)(ht_cu_device *))drv_sym(d, "cuCtxGetDevice");
	d->ctx_current = (ht_cu_result (*)(struct CUctx_st **))drv_sym(d, "cuCtxGetCurrent");
	return true;
}

static void drv_close(struct drv *d)
{
	if (d->handle != NULL)
		dlclose(d->handle);
	d->handle = NULL;
}

/* The object that holds the address p, or NULL. */
static const char *object_of(const void *p)
{
	Dl_info info;
	if (p == NULL || dladdr(p, &info) == 0 || info.dli_fname == NULL)
		return NULL;
	return info.dli_fname;
}

/* ---- common ----------------------------------------------------------------- */

/* First wrapped call in this process: it is relevant now. */
static bool touch(void)
{
	if (atomic_load(&ht_g.state) == HT_OFF)
		return false;
	atomic_store(&ht_g.gpu_activity, true);
	bool on = ht_activate(HT_REASON_CUDA);
	atomic_store(&cu.touched, true);
	return on;
}

/* True when the call is to be recorded. */
static inline bool enter(void)
{
	if (ht_tls.depth > 0)
		return false;
	if (__builtin_expect(!atomic_load_explicit(&cu.touched, memory_order_relaxed), 0))
		return touch();
	return ht_active();
}

static void read_visible(void)
{
	if (atomic_load(&cu.visible_read))
		return;
	const char *v = ht_env(HT_ENV_CUDA_VISIBLE_DEVICES);
	cu.visible_set = v != NULL;
	if (v != NULL)
		ht_strlcpy(cu.visible, v, sizeof(cu.visible));
	atomic_store(&cu.visible_read, true);
}

static void put_error(struct ht_jw *w, ht_cu_result r)
{
	ht_jw_int(w, "result", r);
	ht_jw_str(w, "error", ht_cu_error_name((int)r));
}

static void put_runtime(struct ht_jw *w)
{
	int v = atomic_load(&cu.runtime_version);
	ht_jw_int_or_null(w, "runtime_version", v, v > 0);
}

static const char *via_name(enum ht_cu_via via)
{
	static const char *const names[] = { "cuInit", "cuGetProcAddress", "dlsym" };
	return names[via];
}

static void version_line(const char *what, int value, const char *provider)
{
	char buf[1536];
	struct ht_jw w;

	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_VERSION);
	ht_jw_str(&w, "what", what);
	ht_jw_int(&w, "value", value);
	ht_jw_str(&w, "provider", provider);
	ht_ev_emit(&w);
}

/* Version lines, each when its value is new to this process's trace. The
 * driver's path is driver_path, or else the object holding real. */
static void versions(int driver, const char *driver_path, const void *real)
{
	if (driver > 0 && atomic_load(&cu.driver_written) != driver &&
	    atomic_exchange(&cu.driver_written, driver) != driver)
		version_line("cuda_driver", driver, driver_path != NULL ? driver_path : object_of(real));
	int rt = atomic_load(&cu.runtime_version);
	if (rt > 0 && atomic_load(&cu.runtime_written) != rt &&
	    atomic_exchange(&cu.runtime_written, rt) != rt)
		version_line("cuda_runtime", rt, object_of(atomic_load(&cu.runtime_caller)));
}

/* A wrapped call returned an error besides the phases: a few lines each. */
static void error_line(const struct ht_cu_site *s, ht_cu_result r)
{
	char buf[512];
	struct ht_jw w;

	if ((unsigned)s->hook >= HT_ARRAY_SIZE(cu.error_lines) ||
	    atomic_load(&cu.error_lines[s->hook]) >= ERROR_LINES_PER_HOOK ||
	    atomic_fetch_add(&cu.error_lines[s->hook], 1) >= ERROR_LINES_PER_HOOK)
		return;
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_CUDA);
	ht_jw_str(&w, "fn", ht_hook_name(s->hook));
	put_error(&w, r);
	ht_ev_emit(&w);
}

/* In a child forked after its parent's cuInit: the first CUDA call that
 * returns says what the child got. */
static void fork_child_line(const struct ht_cu_site *s, ht_cu_result r)
{
	char buf[512];
	struct ht_jw w;

	if (!ht_g.cuda_inherited || atomic_exchange(&cu.fork_noted, true))
		return;
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_CUDA);
	ht_jw_str(&w, "fn", ht_hook_name(s->hook));
	put_error(&w, r);
	ht_jw_bool(&w, "after_fork", true);
	ht_jw_int(&w, "parent", ht_g.fork_parent);
	ht_ev_emit(&w);
}

/* ---- cuInit ----------------------------------------------------------------- */

/* In a child forked after its parent initialised CUDA: every wrapped call's
 * result may be the sign (fork_child_line decides; it writes once). */
static inline void after_fork_check(const struct ht_cu_site *s, ht_cu_result r)
{
	if (__builtin_expect(ht_g.cuda_inherited, 0)) {
		ht_tls.depth++;
		fork_child_line(s, r);
		ht_tls.depth--;
	}
}

static void init_site(struct ht_jw *w, const struct ht_cu_site *s)
{
	ht_jw_str(w, "fn", ht_hook_name(s->hook));
	ht_jw_str(w, "via", via_name(s->via));
	ht_jw_str(w, "caller", object_of(s->caller));
}

static void init_begin_line(const struct ht_cu_site *s)
{
	char buf[2048];
	struct ht_jw w;

	if (ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_CUDA_INIT, HT_BEGIN)) {
		init_site(&w, s);
		put_runtime(&w);
		ht_ev_emit(&w);
	}
}

bool ht__cu_init_begin(struct ht_cu_span *sp, const struct ht_cu_site *s)
{
	sp->err = errno;
	sp->call.counted = false;
	if (!enter())
		return false;
	ht_tls.depth++;
	read_visible();
	init_begin_line(s);
	ht_tls.depth--;
	ht_call_enter(&sp->call, s->hook);
	errno = sp->err;
	return true;
}

/* The outcome of a driver initialisation: the phase's end or error line
 * the first time, a cuda line for the next few. */
static void init_record(const struct ht_cu_site *s, ht_cu_result r)
{
	char buf[4096];
	struct ht_jw w;
	struct drv d;
	int dv = 0;

	bool line = ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_CUDA_INIT,
				  r == HT_CU_SUCCESS ? HT_END : HT_ERROR);
	if (!line && atomic_load(&cu.init_lines) < INIT_LINES &&
	    atomic_fetch_add(&cu.init_lines, 1) < INIT_LINES) {
		ht_ev_begin(&w, buf, sizeof(buf), HT_EV_CUDA);
		line = true;
	}
	if (!line)
		return;		/* a runtime retrying cuInit on every call */
	bool have = drv_open(&d, s->real);
	if (have && d.driver_version != NULL && d.driver_version(&dv) != HT_CU_SUCCESS)
		dv = 0;
	const char *path = have ? d.path : NULL;
	init_site(&w, s);
	put_error(&w, r);
	ht_jw_str(&w, "libcuda", path);
	ht_jw_bool(&w, "stub", ht_cu_is_stub((int)r, path));
	ht_jw_int_or_null(&w, "driver_version", dv, dv > 0);
	put_runtime(&w);
	ht_jw_uint(&w, "lookups", atomic_load(&cu.lookups));
	ht_ev_emit(&w);
	versions(dv, path, s->real);
	drv_close(&d);
}

ht_cu_result ht__cu_init_end(struct ht_cu_span *sp, const struct ht_cu_site *s, ht_cu_result r)
{
	int saved = errno;
	ht_call_leave(&sp->call, r);
	if (r == HT_CU_SUCCESS)
		atomic_store(&ht_g.cuda_initialized, true);
	ht_tls.depth++;
	init_record(s, r);
	fork_child_line(s, r);
	ht_tls.depth--;
	errno = saved;
	return r;
}

/* ---- cuDriverGetVersion and lookups ----------------------------------------- */

bool ht__cu_version_begin(struct ht_cu_span *sp)
{
	sp->err = errno;
	sp->call.counted = false;
	if (!enter())
		return false;
	errno = sp->err;
	return true;
}

ht_cu_result ht__cu_version_end(struct ht_cu_span *sp, const struct ht_cu_site *s,
				ht_cu_result r, const int *version)
{
	(void)sp;
	int saved = errno;
	ht_tls.depth++;
	if (r == HT_CU_SUCCESS && version != NULL) {
		versions(*version, NULL, s->real);
	} else {
		/* The runtime asks this before cuInit and stops when it fails
		 * (CUDA 13 on the toolkit's stub: 34, cuInit never called): that
		 * is its driver initialisation failing. */
		read_visible();
		init_begin_line(s);
		init_record(s, r);
	}
	fork_child_line(s, r);
	ht_tls.depth--;
	errno = saved;
	return r;
}

void ht__cu_lookup_seen(const char *symbol, int cuda_version, const void *caller)
{
	atomic_store_explicit(&ht_g.gpu_activity, true, memory_order_relaxed);
	atomic_fetch_add_explicit(&cu.lookups, 1, memory_order_relaxed);
	if (symbol == NULL || symbol[0] == '\0')
		return;		/* the probe */
	int cur = atomic_load(&cu.runtime_version);
	while (cuda_version > cur) {
		if (atomic_compare_exchange_weak(&cu.runtime_version, &cur, cuda_version)) {
			atomic_store(&cu.runtime_caller, caller);
			break;
		}
	}
}

/* ---- binding a device --------------------------------------------------------- */

static bool is_blocking_bind(int hook)
{
	return hook != HT_HOOK_ID_cuCtxSetCurrent && hook != HT_HOOK_ID_cuCtxPushCurrent &&
	       hook != HT_HOOK_ID_cuCtxPushCurrent_v2;
}

bool ht__cu_bind_begin(struct ht_cu_span *sp, const struct ht_cu_site *s, int dev,
		       const struct CUctx_st *ctx)
{
	char buf[512];
	struct ht_jw w;

	sp->err = errno;
	sp->call.counted = false;
	if ((dev < 0 && ctx == NULL) || !enter())
		return false;
	if (!atomic_load_explicit(&cu.device_done, memory_order_relaxed) &&
	    ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_DEVICE, HT_BEGIN)) {
		ht_jw_str(&w, "via", ht_hook_name(s->hook));
		ht_jw_int_or_null(&w, "ordinal", dev, dev >= 0);
		ht_ev_emit(&w);
	}
	if (is_blocking_bind(s->hook))
		ht_call_enter(&sp->call, s->hook);
	errno = sp->err;
	return true;
}

/* The device fields of a bind, the driver asked after it succeeded. */
static void device_fields(struct ht_jw *w, struct drv *d, int dev, bool bound)
{
	char uuid[HT_CU_UUID_LEN + 1], bus[64];
	int count = 0;
	bool have_uuid = false, have_bus = false, have_count = false;

	if (bound && dev >= 0) {
		struct uuid_buf u;
		if (d->uuid != NULL && d->uuid((struct CUuuid_st *)&u, dev) == HT_CU_SUCCESS) {
			ht_cu_uuid_format(uuid, u.bytes);
			have_uuid = true;
		}
		if (d->bus_id != NULL && d->bus_id(bus, (int)sizeof(bus), dev) == HT_CU_SUCCESS) {
			bus[sizeof(bus) - 1] = '\0';
			have_bus = true;
		}
	}
	if ((bound || atomic_load(&ht_g.cuda_initialized)) && d->device_count != NULL)
		have_count = d->device_count(&count) == HT_CU_SUCCESS;
	read_visible();
	ht_jw_int_or_null(w, "ordinal", dev, dev >= 0);
	ht_jw_str(w, "uuid", have_uuid ? uuid : NULL);
	ht_jw_str(w, "pci_bus_id", have_bus ? bus : NULL);
	ht_jw_int_or_null(w, "device_count", count, have_count);
	ht_jw_str(w, "visible_devices", cu.visible_set ? cu.visible : NULL);
	ht_jw_int_or_null(w, "local_rank", ht_g.id.local_rank, ht_g.id.local_rank >= 0);
}

static void bind_record(const struct ht_cu_site *s, ht_cu_result r, int dev,
			const struct CUctx_st *ctx)
{
	char buf[2048];
	struct ht_jw w;
	struct drv d;

	(void)ctx;
	drv_open(&d, s->real);
	if (r == HT_CU_SUCCESS && dev < 0 && d.ctx_device != NULL) {
		/* The context just made current is the calling thread's. */
		ht_cu_device cur = -1;
		if (d.ctx_device(&cur) == HT_CU_SUCCESS)
			dev = cur;
	}
	if (r == HT_CU_SUCCESS) {
		if (ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_DEVICE, HT_END)) {
			atomic_store(&cu.device_done, true);
			ht_jw_str(&w, "via", ht_hook_name(s->hook));
			device_fields(&w, &d, dev, true);
			ht_ev_emit(&w);
		}
	} else if (ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_DEVICE, HT_ERROR)) {
		ht_jw_str(&w, "via", ht_hook_name(s->hook));
		put_error(&w, r);
		device_fields(&w, &d, dev, false);
		ht_ev_emit(&w);
	} else {
		error_line(s, r);
	}
	drv_close(&d);
}

ht_cu_result ht__cu_bind_end(struct ht_cu_span *sp, const struct ht_cu_site *s,
			     ht_cu_result r, int dev, const struct CUctx_st *ctx)
{
	int saved = errno;
	ht_call_leave(&sp->call, r);
	if (r != HT_CU_SUCCESS || !atomic_load_explicit(&cu.device_done, memory_order_relaxed)) {
		ht_tls.depth++;
		bind_record(s, r, dev, ctx);
		ht_tls.depth--;
	}
	after_fork_check(s, r);
	errno = saved;
	return r;
}

/* ---- synchronize ---------------------------------------------------------------- */

bool ht__cu_sync_begin(struct ht_cu_span *sp, const struct ht_cu_site *s)
{
	sp->err = errno;
	sp->call.counted = false;
	if (!enter())
		return false;
	ht_call_enter(&sp->call, s->hook);
	errno = sp->err;
	return true;
}

/*
 * No bind was seen (the runtime may bind through tables the driver hands
 * it privately): at the first successful synchronize, the calling thread's
 * current context says which device it uses. Written as the device phase
 * while no later phase has begun, else as a cuda line.
 */
static void probe_device(const struct ht_cu_site *s)
{
	char buf[2048];
	struct ht_jw w;
	struct drv d;
	struct CUctx_st *ctx = NULL;
	ht_cu_device dev = -1;

	if (atomic_exchange(&cu.device_probed, true) || !drv_open(&d, s->real))
		return;
	if (d.ctx_current != NULL && d.ctx_current(&ctx) == HT_CU_SUCCESS && ctx != NULL &&
	    d.ctx_device != NULL && d.ctx_device(&dev) == HT_CU_SUCCESS) {
		bool line;
		if (atomic_load(&ht_g.phases.current) <= HT_PHASE_DEVICE) {
			if (ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_DEVICE, HT_BEGIN)) {
				ht_jw_str(&w, "via", "cuCtxGetCurrent");
				ht_jw_int(&w, "ordinal", dev);
				ht_ev_emit(&w);
			}
			line = ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_DEVICE, HT_END);
		} else {
			ht_ev_begin(&w, buf, sizeof(buf), HT_EV_CUDA);
			ht_jw_str(&w, "fn", "cuCtxGetCurrent");
			line = true;
		}
		if (line) {
			atomic_store(&cu.device_done, true);
			ht_jw_str(&w, "via", "cuCtxGetCurrent");
			device_fields(&w, &d, dev, true);
			ht_ev_emit(&w);
		}
	}
	drv_close(&d);
}

ht_cu_result ht__cu_sync_end(struct ht_cu_span *sp, const struct ht_cu_site *s, ht_cu_result r)
{
	char buf[256];
	struct ht_jw w;
	int saved = errno;

	ht_call_leave(&sp->call, r);
	atomic_fetch_add_explicit(&syncs_done, 1, memory_order_relaxed);
	if (r == HT_CU_SUCCESS) {
		if (atomic_load_explicit(&ht__cuda_collective, memory_order_relaxed) &&
		    !ht_phases_has_begun(&ht_g.phases, HT_PHASE_STEADY) &&
		    ht_phase_line(&w, buf, sizeof(buf), HT_PHASE_STEADY, HT_BEGIN)) {
			ht_jw_str(&w, "fn", ht_hook_name(s->hook));
			ht_ev_emit(&w);
		}
		if (__builtin_expect(!atomic_load_explicit(&cu.device_done, memory_order_relaxed) &&
				     !atomic_load_explicit(&cu.device_probed, memory_order_relaxed) &&
				     atomic_load_explicit(&ht_g.cuda_initialized, memory_order_relaxed), 0)) {
			ht_tls.depth++;
			probe_device(s);
			ht_tls.depth--;
		}
	} else {
		ht_tls.depth++;
		error_line(s, r);
		ht_tls.depth--;
	}
	after_fork_check(s, r);
	errno = saved;
	return r;
}

/* ---- dumps ------------------------------------------------------------------------ */

/*
 * In a child forked after its parent's cuInit, a CUDA call in flight at a
 * dump is the likely reason it hangs: one line says so. Watchdog thread;
 * reads only our tables.
 */
void ht__cuda_dump(void)
{
	char buf[512];
	struct ht_jw w;
	struct ht_inflight_view v[64];

	if (!ht_g.cuda_inherited || atomic_load(&cu.hung_noted))
		return;
	size_t n = ht_inflight_snapshot(&ht_g.inflight, v, HT_ARRAY_SIZE(v));
	for (size_t i = 0; i < n; i++) {
		if (!ht__cu_is_hook(v[i].hook) || atomic_exchange(&cu.hung_noted, true))
			continue;
		ht_ev_begin(&w, buf, sizeof(buf), HT_EV_CUDA);
		ht_jw_str(&w, "fn", ht_hook_name(v[i].hook));
		ht_jw_bool(&w, "after_fork", true);
		ht_jw_bool(&w, "hung", true);
		ht_jw_int(&w, "parent", ht_g.fork_parent);
		ht_jw_int(&w, "thread", v[i].tid);
		ht_jw_secs(&w, "age", ht_now_coarse() - v[i].start_ns);
		ht_ev_emit(&w);
		break;
	}
}
