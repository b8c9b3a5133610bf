// SPDX-License-Identifier: MIT
/*
 * nccl_real.c: reaching the real NCCL however the job loaded it. NCCL >=
 * 2.16 exports a strong pncclX and a weak ncclX at one address (the
 * NCCL_API macro of NVIDIA/nccl src/include/core.h with PROFAPI=1, the
 * default of makefiles/common.mk since v2.16): we call pncclX, else ncclX
 * (older builds). Python loads
 * extension modules RTLD_LOCAL, so dlsym(RTLD_NEXT) misses libnccl: the
 * provider is found among the loaded objects (a libnccl* first, then any
 * object exporting NCCL, e.g. a framework with NCCL linked in) and opened
 * RTLD_NOLOAD. JAX and XGBoost dlopen libnccl and dlsym each function: the
 * dlsym hook hands them our wrapper for ncclX and pncclX asked on the
 * provider. Resolution runs once, under a mutex, in normal context only.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "common.h"
#include "elfsym.h"
#include "fmt.h"
#include "hook_types.h"
#include "nccl.h"
#include "real.h"
#include "state.h"

struct ht_nccl_provider ht__nccl_prov;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool resolved;
static void *prov_handle;

typedef ht_nccl_result_t (*version_fn)(int *);
typedef const char *(*errstr_fn)(ht_nccl_result_t);
typedef const char *(*lasterr_fn)(ht_nccl_comm_t);
typedef ht_nccl_result_t (*commint_fn)(ht_nccl_comm_t, int *);

/* Functions we call but do not wrap. */
static struct {
	version_fn get_version;
	errstr_fn error_string;
	lasterr_fn last_error;
	commint_fn count, user_rank;
} aux;

/* The NCCL entries of hooks.def: name, id, and our wrapper. */
struct nccl_fn {
	const char *name;
	int id;
	void *wrapper;
};

static const struct nccl_fn fns[] = {
#define HT_HOOK_NCCL(ret, name, params, args) { #name, HT_HOOK_ID_##name, (void *)name },
#include "hooks_of.h"
};

static void *real_of(int id)
{
	switch (id) {
#define HT_HOOK_NCCL(ret, name, params, args) \
	case HT_HOOK_ID_##name:               \
		return (void *)ht_real.name;
#include "hooks_of.h"
	default:
		return NULL;
	}
}

/* pnccl<name> then <name> in handle h; never our own wrapper. */
static void *lookup(void *h, const char *name)
{
	char p[64] = "p";
	void *f;

	ht_strlcpy(p + 1, name, sizeof(p) - 1);
	f = ht_real_dlsym(h, p);
	if (f == NULL || ht_is_ours(f))
		f = ht_real_dlsym(h, name);
	return f != NULL && !ht_is_ours(f) ? f : NULL;
}

/* ---- finding the provider -------------------------------------------------- */

#define MAX_OBJS 256
static char obj_names[MAX_OBJS][256];
static size_t nobjs;

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (nobjs < MAX_OBJS && info->dlpi_name != NULL && info->dlpi_name[0] == '/' &&
	    strlen(info->dlpi_name) < sizeof(obj_names[0]) &&
	    !ht_is_ours((const void *)(info->dlpi_addr + info->dlpi_phdr[0].p_vaddr)))
		ht_strlcpy(obj_names[nobjs++], info->dlpi_name, sizeof(obj_names[0]));
	return 0;
}

static bool is_libnccl(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b != NULL ? b + 1 : path;
	return strncmp(b, "libnccl", 7) == 0 && strstr(b, ".so") != NULL;
}

/* Makes the object holding sym the provider. */
static bool adopt(const void *sym)
{
	Dl_info di;
	uintptr_t lo = 0, hi = 0;

	if (sym == NULL || dladdr(sym, &di) == 0 || di.dli_fname == NULL)
		return false;
	void *h = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (h == NULL)
		return false;
	prov_handle = h;
	ht_strlcpy(ht__nccl_prov.path, di.dli_fname, sizeof(ht__nccl_prov.path));
	ht__nccl_prov.dedicated = is_libnccl(di.dli_fname);
	ht_object_span(sym, &lo, &hi);
	ht__nccl_prov.lo = lo;
	ht__nccl_prov.hi = hi;
	return true;
}

static bool find_provider(const void *hint)
{
	if (hint != NULL && adopt(hint))
		return true;
	nobjs = 0;
	dl_iterate_phdr(collect, NULL);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < nobjs; i++) {
			if (is_libnccl(obj_names[i]) != (pass == 0))
				continue;
			void *h = dlopen(obj_names[i], RTLD_LAZY | RTLD_NOLOAD);
			if (h == NULL)
				continue;
			void *f = lookup(h, "ncclGetUniqueId");
			dlclose(h);
			if (f != NULL && adopt(f))
				return true;
		}
	}
	/* Last, whatever follows us in the global scope. */
	return adopt(lookup(RTLD_NEXT, "ncclGetUniqueId"));
}

static void fill_table(void)
{
	void *h = prov_handle;

#define HT_HOOK_NCCL(ret, name, params, args) \
	if (ht_real.name == NULL)             \
		ht_real.name = (ret (*) params)lookup(h, #name);
#include "hooks_of.h"
	aux.get_version = (version_fn)lookup(h, "ncclGetVersion");
	aux.error_string = (errstr_fn)lookup(h, "ncclGetErrorString");
	aux.last_error = (lasterr_fn)lookup(h, "ncclGetLastError");
	aux.count = (commint_fn)lookup(h, "ncclCommCount");
	aux.user_rank = (commint_fn)lookup(h, "ncclCommUserRank");
	int v = 0;
	if (aux.get_version != NULL && aux.get_version(&v) == HT_NCCL_SUCCESS)
		ht__nccl_prov.version = v;
}

bool ht__nccl_resolve(const void *hint)
{
	if (atomic_load_explicit(&resolved, memory_order_acquire))
		return true;
	/* The dlsym hook may get here first in a process not yet relevant:
	 * ht_is_ours needs our own span, which ht_real_init finds. */
	ht_real_init();
	int saved = errno;
	ht_tls.depth++;
	pthread_mutex_lock(&lock);
	if (!atomic_load(&resolved) && find_provider(hint)) {
		fill_table();
		atomic_store_explicit(&resolved, true, memory_order_release);
	}
	pthread_mutex_unlock(&lock);
	ht_tls.depth--;
	errno = saved;
	return atomic_load(&resolved);
}

void *ht__nccl_real_slow(int id)
{
	void *f = real_of(id);

	if (f != NULL || ht_tls.depth > 0)
		return f;
	ht__nccl_resolve(NULL);
	f = real_of(id);
	if (f == NULL) {
		/* Not in the provider: another copy of NCCL may have it. */
		int saved = errno;
		ht_tls.depth++;
		f = lookup(RTLD_NEXT, ht_hook_name(id));
		if (f == NULL)
			f = lookup(RTLD_DEFAULT, ht_hook_name(id));
		ht_tls.depth--;
		errno = saved;
	}
	return f;
}

/* ---- the dlsym redirect ------------------------------------------------------ */

void *ht__nccl_dlsym(void *handle, const char *name, void *found)
{
	(void)handle;
	const char *base = name[0] == 'p' ? name + 1 : name;

	if (strncmp(base, "nccl", 4) != 0)
		return found;
	for (size_t i = 0; i < HT_ARRAY_SIZE(fns); i++) {
		if (strcmp(base, fns[i].name) != 0)
			continue;
		if (!ht__nccl_resolve(found))
			return found;
		/* Only the provider's own function becomes our wrapper: a
		 * second copy of NCCL in the process is left alone. */
		return real_of(fns[i].id) == found ? fns[i].wrapper : found;
	}
	return found;
}

/* ---- what we call ourselves ------------------------------------------------- */

const char *ht__nccl_error_string(int result)
{
	return aux.error_string != NULL ? aux.error_string(result) : NULL;
}

const char *ht__nccl_last_error(ht_nccl_comm_t comm)
{
	return aux.last_error != NULL ? aux.last_error(comm) : NULL;
}

int ht__nccl_comm_count(ht_nccl_comm_t comm)
{
	int n = -1;
	if (comm == NULL || aux.count == NULL || aux.count(comm, &n) != HT_NCCL_SUCCESS)
		return -1;
	return n;
}

int ht__nccl_comm_rank(ht_nccl_comm_t comm)
{
	int r = -1;
	if (comm == NULL || aux.user_rank == NULL || aux.user_rank(comm, &r) != HT_NCCL_SUCCESS)
		return -1;
	return r;
}

/* In a forked child: a resolution cut short by the fork starts over. */
void ht__nccl_real_fork_child(void)
{
	pthread_mutex_init(&lock, NULL);
}
