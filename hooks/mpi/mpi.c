// SPDX-License-Identifier: MIT
/*
 * mpi.c: the MPI wrappers (hooks_mpi.def). The real function is resolved
 * at its first call, in normal context: PMPI_<name> then <name>, from the
 * next object after us and then the default scope, never our own address;
 * where the MPI library was loaded RTLD_LOCAL (a Python extension's
 * dependency), from the loaded object whose name starts with libmpi,
 * opened RTLD_NOLOAD. Without an MPI library nothing calls these (a
 * program that calls MPI links one), and a dlsym probe for an MPI name
 * that would find only our wrapper finds nothing (ht__mpi_dlsym).
 *
 * Per call: the blocking-call bracket (src/core/events.c: thread-locals and
 * atomics) and one relaxed atomic add; no lock, no allocation, no system
 * call.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>

#include "common.h"
#include "events.h"
#include "hook_types.h"
#include "mpi.h"
#include "real.h"
#include "state.h"

/* MPI_ERR_OTHER of Open MPI (MPICH's is 15): no MPI provides the call. */
#define HT_MPI_ERR_OTHER 16

static _Atomic uint64_t done;

uint64_t ht__mpi_progress(void)
{
	return atomic_load_explicit(&done, memory_order_relaxed);
}

void ht__mpi_fork_child(void)
{
	atomic_store(&done, 0);
}

static int find_libmpi(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	const char *slash = info->dlpi_name != NULL ? strrchr(info->dlpi_name, '/') : NULL;
	const char *base = slash != NULL ? slash + 1 : info->dlpi_name;
	if (base != NULL && strncmp(base, "libmpi.so", 9) == 0) {
		*(const char **)arg = info->dlpi_name;
		return 1;
	}
	return 0;
}

static void *lookup(void *handle, const char *name)
{
	void *p = ht_real_dlsym(handle, name);
	return p != NULL && !ht_is_ours(p) ? p : NULL;
}

/* PMPI_<name>, else <name>, never ours; NULL when no MPI provides it. */
static void *resolve(const char *name)
{
	char pname[64] = "P";
	size_t n = strlen(name);
	if (n + 2 > sizeof(pname))
		return NULL;
	memcpy(pname + 1, name, n + 1);
	void *p = lookup(RTLD_NEXT, pname);
	if (p == NULL)
		p = lookup(RTLD_DEFAULT, pname);
	if (p == NULL)
		p = lookup(RTLD_NEXT, name);
	if (p == NULL)
		p = lookup(RTLD_DEFAULT, name);
	if (p == NULL) {
		const char *lib = NULL;
		dl_iterate_phdr(find_libmpi, &lib);
		void *h = lib != NULL ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : NULL;
		if (h != NULL) {
			p = lookup(h, pname);
			if (p == NULL)
				p = lookup(h, name);
			dlclose(h);	/* RTLD_NOLOAD: only the reference just taken */
		}
	}
	return p;
}

static __attribute__((noinline, cold)) void *real_slow(void **slot, const char *name)
{
	ht_tls.depth++;	/* the resolver's own calls are not the job's */
	void *p = resolve(name);
	ht_tls.depth--;
	if (p != NULL)
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	return p;
}

static inline void *real_of(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	return __builtin_expect(p != NULL, 1) ? p : real_slow(slot, name);
}

#define HT_MPI_REAL(name) ((__typeof__(ht_real.name))real_of((void **)&ht_real.name, #name))

/* The wrappers' prototypes: ours, since mpi.h may be absent. */
#define HT_HOOK_MPI(ret, name, params, args) HT_EXPORT ret name params;
#include "hooks_of.h"
#define HT_HOOK_MPI(ret, name, params, args)                                  \
	HT_EXPORT ret name params                                              \
	{                                                                      \
		__typeof__(ht_real.name) real = HT_MPI_REAL(name);             \
		if (__builtin_expect(real == NULL, 0))                         \
			return HT_MPI_ERR_OTHER;                               \
		struct ht_call c;                                              \
		ht_call_enter(&c, HT_HOOK_ID_##name);                          \
		ret r = real args;                                             \
		ht_call_leave(&c, r);                                          \
		atomic_fetch_add_explicit(&done, 1, memory_order_relaxed);     \
		return r;                                                      \
	}
#include "hooks_of.h"

void *ht__mpi_dlsym(void *handle, const char *name, void *found)
{
	(void)handle;
	if (found == NULL || !ht_is_ours(found))
		return found;
	/* Our wrapper: only where a real MPI is there behind it. */
	if (resolve(name) != NULL)
		return found;
	/* A NULL from dlsym comes with its dlerror() message (ctypes reads
	 * it, and crashes on none): a lookup that fails says it. */
	(void)ht_real_dlsym(RTLD_NEXT, name);
	return NULL;
}
