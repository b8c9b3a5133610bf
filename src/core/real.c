// SPDX-License-Identifier: MIT
/*
 * real.c: the one resolver of real functions for the LIBC family of
 * hooks.def. The real dlsym comes from dlvsym at the baseline glibc version
 * first, because a failed dlvsym allocates and a malloc interposer may call
 * dlsym back; the rest from RTLD_NEXT, then the default scope, rejecting our
 * own address. Runs under pthread_once with the re-entry guard held.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "abi.h"
#include "common.h"
#include "elfsym.h"
#include "real.h"
#include "state.h"

struct ht_real_table ht_real;

static _Atomic(ht_dlsym_fn) real_dlsym;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static uintptr_t self_lo, self_hi;

static const char *const hook_names[] = {
#define HT_HOOK(fam, ret, name, params, args) #name,
#include "hooks.def"
#undef HT_HOOK
};

const char *ht_hook_name(int id)
{
	return id >= 0 && id < HT_HOOK_COUNT ? hook_names[id] : "?";
}

ht_dlsym_fn ht_real_dlsym_fn(void)
{
	ht_dlsym_fn f = atomic_load_explicit(&real_dlsym, memory_order_acquire);
	if (f != NULL)
		return f;
	for (size_t i = 0; f == NULL && i < HT_ARRAY_SIZE(ht_glibc_dlsym_versions); i++)
		f = (ht_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", ht_glibc_dlsym_versions[i]);
	atomic_store_explicit(&real_dlsym, f, memory_order_release);
	return f;
}

void *ht_real_dlsym(void *handle, const char *name)
{
	ht_dlsym_fn f = ht_real_dlsym_fn();
	return f != NULL ? f(handle, name) : NULL;
}

bool ht_is_ours(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	return a >= self_lo && a < self_hi;
}

static void *resolve(const char *name)
{
	void *p = ht_real_dlsym(RTLD_NEXT, name);
	if (p == NULL || ht_is_ours(p))
		p = ht_real_dlsym(RTLD_DEFAULT, name);
	return p != NULL && !ht_is_ours(p) ? p : NULL;
}

static void resolve_all(void)
{
	ht_tls.depth++;
	/* Our own object: the span of all its segments. */
	uintptr_t lo, hi;
	if (ht_object_span((const void *)(uintptr_t)&resolve_all, &lo, &hi)) {
		self_lo = lo;
		self_hi = hi;
	}
#define HT_HOOK_LIBC(ret, name, params, args) ht_real.name = (ret (*) params)resolve(#name);
#include "hooks_of.h"
	ht_tls.depth--;
}

void ht_real_init(void)
{
	pthread_once(&once, resolve_all);
}
