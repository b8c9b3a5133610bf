// SPDX-License-Identifier: MIT
/*
 * cuda.c: the CUDA driver wrappers and how they reach the program. The CUDA
 * runtime, NCCL and PyTorch never call cuInit by name: cudart dlopens
 * libcuda RTLD_LOCAL, takes cuGetProcAddress_v2 with dlsym, asks it for
 * "cuGetProcAddress" itself and gets every other entry point through the
 * pointer it got back (tests/cuda/cudart.sh runs that path with the real
 * libcudart). So every ABI variant of hooks_cuda.def has
 * three wrappers, generated here, that differ only in where their real
 * function comes from:
 *
 *   - the exported symbol, for programs linked to libcuda: the real function
 *     is looked up by name in the libcuda actually loaded (ht_real.<name>);
 *   - one handed out by our resolvers when cuGetProcAddress[_v2] answers a
 *     request with this variant's ABI: the real function is that answer;
 *   - one handed out by the dlsym hook for the variant's symbol name (the
 *     stub fallback, JAX-style stubs): the real function is what dlsym found.
 *
 * A wrapper's real pointer is claimed once (compare-and-swap); an answer
 * that differs from the claimed one is handed out unwrapped, so a wrapper
 * always calls exactly what the driver gave for it. Unknown (symbol,
 * version) pairs and everything else pass through untouched. The bodies
 * only bracket the real call (hooks/cuda/cuda_record.c writes the events).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#include "common.h"
#include "cuda.h"
#include "cudafacts.h"
#include "hook_types.h"
#include "real.h"
#include "state.h"

/* The variants, by index; generated, never counted by hand. */
enum cu_variant {
#define HT_CUDA(ret, name, params, args, base, ver, ptsz) CV_##name,
#include "hooks_cuda.def"
#undef HT_CUDA
	CV_COUNT
};

static const struct ht_cu_abi abi[CV_COUNT] = {
#define HT_CUDA(ret, name, params, args, base, ver, ptsz) [CV_##name] = { #base, ver, ptsz },
#include "hooks_cuda.def"
#undef HT_CUDA
};

static const char *const variant_name[CV_COUNT] = {
#define HT_CUDA(ret, name, params, args, base, ver, ptsz) [CV_##name] = #name,
#include "hooks_cuda.def"
#undef HT_CUDA
};

/* Real functions as a resolver answered them, and as dlsym found them. */
static void *gpa_real[CV_COUNT];
static void *dl_real[CV_COUNT];

/* The libcuda handle the exported wrappers resolve from (RTLD_NOLOAD, kept). */
static void *_Atomic libcuda;

/* ---- finding the real functions of the exported wrappers ------------------ */

static int find_libcuda(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	const char *base = strrchr(info->dlpi_name, '/');
	base = base != NULL ? base + 1 : info->dlpi_name;
	if (strncmp(base, "libcuda.so", 10) != 0)
		return 0;
	*(const char **)arg = info->dlpi_name;
	return 1;
}

/* The loaded libcuda, found among the loaded objects, whatever scope it
 * was loaded in; NULL when none is loaded. */
static void *libcuda_handle(void)
{
	void *h = atomic_load_explicit(&libcuda, memory_order_acquire);
	if (h != NULL)
		return h;
	const char *path = NULL;
	dl_iterate_phdr(find_libcuda, &path);
	if (path == NULL)
		return NULL;
	h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
	if (h == NULL) {
		dlerror();	/* ours: the application must not read it */
		return NULL;
	}
	void *none = NULL;
	if (!atomic_compare_exchange_strong(&libcuda, &none, h))
		dlclose(h);	/* another thread was first: one reference is enough */
	return atomic_load(&libcuda);
}

static bool is_ours(const void *p);

static void *resolve_by_name(enum cu_variant v, void **slot)
{
	int saved = errno;
	const char *name = variant_name[v];
	void *h, *p = NULL;

	ht_tls.depth++;
	if ((h = libcuda_handle()) != NULL)
		p = ht_real_dlsym(h, name);
	/* Never RTLD_NEXT alone: it misses a libcuda loaded RTLD_LOCAL. */
	if (p == NULL || is_ours(p)) {
		if (p == NULL)
			dlerror();	/* our failed lookup is not the application's */
		if ((p = ht_real_dlsym(RTLD_NEXT, name)) == NULL)
			dlerror();
	}
	if (p == NULL || is_ours(p)) {
		p = NULL;
	} else {
		void *none = NULL;
		if (!__atomic_compare_exchange_n(slot, &none, p, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			p = none;
	}
	ht_tls.depth--;
	errno = saved;
	return p;
}

static inline void *real_by_name(enum cu_variant v, void **slot)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	return __builtin_expect(p != NULL, 1) ? p : resolve_by_name(v, slot);
}

/* Claims slot for fn: true when the slot is (now) fn's. */
static bool claim(void **slot, void *fn)
{
	void *cur = NULL;
	if (__atomic_compare_exchange_n(slot, &cur, fn, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return true;
	return cur == fn;
}

/* ---- the bodies: one per variant, shared by its three wrappers ------------ */

#define REAL(name) __typeof__(ht_real.name)

static inline ht_cu_result body_cuInit(const struct ht_cu_site *s, REAL(cuInit) real,
				       unsigned int flags)
{
	struct ht_cu_span sp;
	if (!ht__cu_init_begin(&sp, s))
		return real(flags);
	return ht__cu_init_end(&sp, s, real(flags));
}

static inline ht_cu_result body_cuDriverGetVersion(const struct ht_cu_site *s,
						   REAL(cuDriverGetVersion) real, int *version)
{
	struct ht_cu_span sp;
	if (!ht__cu_version_begin(&sp))
		return real(version);
	return ht__cu_version_end(&sp, s, real(version), version);
}

static void answer(const char *symbol, void **pfn, int ver, uint64_t flags, ht_cu_result r,
		   const void *caller);

static inline ht_cu_result body_cuGetProcAddress(const struct ht_cu_site *s,
						 REAL(cuGetProcAddress) real, const char *symbol,
						 void **pfn, int ver, uint64_t flags)
{
	ht_cu_result r = real(symbol, pfn, ver, flags);
	answer(symbol, pfn, ver, flags, r, s->caller);
	return r;
}

static inline ht_cu_result body_cuGetProcAddress_v2(const struct ht_cu_site *s,
						    REAL(cuGetProcAddress_v2) real,
						    const char *symbol, void **pfn, int ver,
						    uint64_t flags, ht_cu_proc_status *status)
{
	ht_cu_result r = real(symbol, pfn, ver, flags, status);
	answer(symbol, pfn, ver, flags, r, s->caller);
	return r;
}

/*
 * The other bodies have one of two shapes, generated from hooks_cuda.def:
 * a bind (the device it names, or the context it makes current) or a
 * synchronize, bracketed by cuda_record.c's begin and end. SHAPE_<name>
 * says which: OWN (written above), BIND with the device argument or -1
 * and the context argument or NULL, or SYNC.
 */
#define SHAPE_cuInit OWN, -1, NULL
#define SHAPE_cuDriverGetVersion OWN, -1, NULL
#define SHAPE_cuGetProcAddress OWN, -1, NULL
#define SHAPE_cuGetProcAddress_v2 OWN, -1, NULL
#define SHAPE_cuDevicePrimaryCtxRetain BIND, dev, NULL
#define SHAPE_cuCtxCreate BIND, dev, NULL
#define SHAPE_cuCtxCreate_v2 BIND, dev, NULL
#define SHAPE_cuCtxCreate_v3 BIND, dev, NULL
#define SHAPE_cuCtxCreate_v4 BIND, dev, NULL
#define SHAPE_cuCtxSetCurrent BIND, -1, ctx
#define SHAPE_cuCtxPushCurrent BIND, -1, ctx
#define SHAPE_cuCtxPushCurrent_v2 BIND, -1, ctx
#define SHAPE_cuStreamSynchronize SYNC, -1, NULL
#define SHAPE_cuStreamSynchronize_ptsz SYNC, -1, NULL
#define SHAPE_cuEventSynchronize SYNC, -1, NULL
#define SHAPE_cuCtxSynchronize SYNC, -1, NULL
#define SHAPE_cuCtxSynchronize_v2 SYNC, -1, NULL

/* f(a, b, args...) for a parenthesised argument list that may be empty. */
#define CU_ARGS(...) __VA_ARGS__
#define CU_CALL(f, a, b, args) CU_CALL_(f, a, b, CU_ARGS args)
#define CU_CALL_(f, a, b, ...) CU_CALL__(f, a, b, __VA_ARGS__)
#define CU_CALL__(f, a, b, ...) f(a, b __VA_OPT__(,) __VA_ARGS__)

/* A body's parameters: the site, the real function, then the variant's
 * own (none for a (void) one: its argument list is empty). */
#define CU_HEAD(name, params, args) CU_HEAD_(name, params, CU_ARGS args)
#define CU_HEAD_(name, params, ...) CU_HEAD__(name, params, __VA_ARGS__)
#define CU_HEAD__(name, params, ...) \
	(const struct ht_cu_site *s, REAL(name) real __VA_OPT__(, CU_ARGS params))

#define CU_BODY(name, params, args, ...) CU_BODY_(name, params, args, __VA_ARGS__)
#define CU_BODY_(name, params, args, shape, dev, ctx) CU_BODY_##shape(name, params, args, dev, ctx)
#define CU_BODY_OWN(name, params, args, dev, ctx)
#define CU_BODY_BIND(name, params, args, dev, ctx)                                \
	static inline ht_cu_result body_##name CU_HEAD(name, params, args)        \
	{                                                                         \
		struct ht_cu_span sp;                                             \
		if (!ht__cu_bind_begin(&sp, s, dev, ctx))                         \
			return real args;                                         \
		return ht__cu_bind_end(&sp, s, real args, dev, ctx);              \
	}
#define CU_BODY_SYNC(name, params, args, dev, ctx)                                \
	static inline ht_cu_result body_##name CU_HEAD(name, params, args)        \
	{                                                                         \
		struct ht_cu_span sp;                                             \
		if (!ht__cu_sync_begin(&sp, s))                                   \
			return real args;                                         \
		return ht__cu_sync_end(&sp, s, real args);                        \
	}

#define HT_CUDA(ret, name, params, args, base, ver, ptsz) CU_BODY(name, params, args, SHAPE_##name)
#include "hooks_cuda.def"
#undef HT_CUDA

/* ---- the wrappers, three per variant -------------------------------------- */

#define HT_CUDA(ret, name, params, args, base, ver, ptsz) HT_EXPORT ret name params;
#include "hooks_cuda.def"
#undef HT_CUDA

#define HT_CUDA(ret, name, params, args, base, ver, ptsz)                                   \
	HT_EXPORT ret name params                                                           \
	{                                                                                   \
		void *real = real_by_name(CV_##name, (void **)&ht_real.name);               \
		if (real == NULL)                                                           \
			return HT_CU_MISSING;                                               \
		const struct ht_cu_site s = { HT_HOOK_ID_##name, HT_CU_VIA_NAME,            \
					      __builtin_return_address(0), real };          \
		return CU_CALL(body_##name, &s, (REAL(name))real, args);                    \
	}                                                                                   \
	static ret gpa_##name params                                                        \
	{                                                                                   \
		void *real = __atomic_load_n(&gpa_real[CV_##name], __ATOMIC_ACQUIRE);       \
		const struct ht_cu_site s = { HT_HOOK_ID_##name, HT_CU_VIA_GPA,             \
					      __builtin_return_address(0), real };          \
		return CU_CALL(body_##name, &s, (REAL(name))real, args);                    \
	}                                                                                   \
	static ret dl_##name params                                                         \
	{                                                                                   \
		void *real = __atomic_load_n(&dl_real[CV_##name], __ATOMIC_ACQUIRE);        \
		const struct ht_cu_site s = { HT_HOOK_ID_##name, HT_CU_VIA_DLSYM,           \
					      __builtin_return_address(0), real };          \
		return CU_CALL(body_##name, &s, (REAL(name))real, args);                    \
	}
#include "hooks_cuda.def"
#undef HT_CUDA

static void *const export_fn[CV_COUNT] = {
#define HT_CUDA(ret, name, params, args, base, ver, ptsz) [CV_##name] = (void *)name,
#include "hooks_cuda.def"
#undef HT_CUDA
};

static void *const gpa_fn[CV_COUNT] = {
#define HT_CUDA(ret, name, params, args, base, ver, ptsz) [CV_##name] = (void *)gpa_##name,
#include "hooks_cuda.def"
#undef HT_CUDA
};

static void *const dl_fn[CV_COUNT] = {
#define HT_CUDA(ret, name, params, args, base, ver, ptsz) [CV_##name] = (void *)dl_##name,
#include "hooks_cuda.def"
#undef HT_CUDA
};

bool ht__cu_is_hook(int id)
{
	switch (id) {
#define HT_CUDA(ret, name, params, args, base, ver, ptsz) case HT_HOOK_ID_##name:
#include "hooks_cuda.def"
#undef HT_CUDA
		return true;
	default:
		return false;
	}
}

/* True when p is one of our wrappers: never wrapped again. */
static bool is_ours(const void *p)
{
	for (int i = 0; i < CV_COUNT; i++)
		if (p == export_fn[i] || p == gpa_fn[i] || p == dl_fn[i])
			return true;
	return false;
}

/* ---- handing the wrappers out ------------------------------------------------ */

static bool handing_out(void)
{
	return ht_tls.depth == 0 &&
	       atomic_load_explicit(&ht_g.state, memory_order_relaxed) != HT_OFF;
}

/*
 * A resolver answered (symbol, ver, flags) with *pfn: hand out the wrapper
 * of that ABI variant instead. This is also where the runtime's own lookup
 * of "cuGetProcAddress" (at 11030 and 12000) gets our resolvers back, so
 * every later lookup comes through here too. The empty-symbol probe, an
 * error, an unknown pair and a version past HT_CUDA_ABI_MAX pass through.
 */
static void answer(const char *symbol, void **pfn, int ver, uint64_t flags, ht_cu_result r,
		   const void *caller)
{
	if (!handing_out())
		return;
	int saved = errno;
	ht__cu_lookup_seen(symbol, ver, caller);
	if (r == HT_CU_SUCCESS && pfn != NULL && *pfn != NULL && !is_ours(*pfn)) {
		int v = ht_cu_pick(abi, CV_COUNT, symbol, ver, flags, HT_CUDA_ABI_MAX);
		if (v >= 0 && claim(&gpa_real[v], *pfn))
			*pfn = gpa_fn[v];
	}
	errno = saved;
}

static int variant_by_name(const char *name)
{
	for (int i = 0; i < CV_COUNT; i++)
		if (strcmp(variant_name[i], name) == 0)
			return i;
	return -1;
}

/*
 * The dlsym hook (hooks/dl.c) found `found` for a name starting "cu". A
 * wrapped symbol gets its dlsym wrapper, whichever handle it came from: a
 * symbol name fixes its ABI. When the answer is our own export (RTLD_DEFAULT,
 * the program's handle), the caller gets it only if a definition exists
 * past us, as it would have found without the library.
 */
void *ht__cuda_dlsym(void *handle, const char *name, void *found)
{
	(void)handle;
	int v = variant_by_name(name);
	if (v < 0)
		return found;
	int saved = errno;
	void *out = found;
	atomic_store_explicit(&ht_g.gpu_activity, true, memory_order_relaxed);
	if (found == export_fn[v]) {
		if (ht_real_dlsym(RTLD_NEXT, name) == NULL)
			out = NULL;	/* dlerror() says what it would have said */
	} else if (!is_ours(found) && claim(&dl_real[v], found)) {
		out = dl_fn[v];
	}
	errno = saved;
	return out;
}
