// SPDX-License-Identifier: MIT
/*
 * store.c: the network family's flock hook, for PyTorch's FileStore
 * (init_method="file:///path", torch.distributed.FileStore). The store
 * keeps the rendezvous in one file and takes an exclusive flock around
 * every read and write of it; it removes the file only when every rank
 * ends cleanly. A file left by a run that was killed hands the next run
 * dead peers' addresses, or a barrier count that is never met.
 *
 * The first time this process takes an exclusive lock from libtorch (or
 * libc10) on a file, before its own first write to it, one "store" line
 * says which file and how it was: size and mtime. The report compares them
 * with the job's first start (stale_store, SPEC section 8). Locks taken by
 * anything else (Python's fcntl.flock under filelock, build locks) are
 * passed through untouched: a lock file that outlives its run is normal.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "events.h"
#include "jsonw.h"
#include "real.h"
#include "state.h"
#include "writer.h"

#define MAX_STORES 4
#define MAX_CALLERS 8

/* Files already written about, by device and inode (FileStore locks its
 * file around every read and write: one fstat each, no readlink). */
static _Atomic uint64_t seen[MAX_STORES];
/* Return addresses already classified: the address, and whether it lies
 * in libtorch or libc10 (bit 0 of the stored value). */
static _Atomic uintptr_t callers[MAX_CALLERS];

static bool from_torch_lib(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base != NULL ? base + 1 : name;
	return strncmp(base, "libtorch", 8) == 0 || strncmp(base, "libc10", 6) == 0;
}

/* Whether ret, a return address, lies in libtorch or libc10. */
static bool torch_caller(uintptr_t ret)
{
	for (int i = 0; i < MAX_CALLERS; i++) {
		uintptr_t c = atomic_load_explicit(&callers[i], memory_order_relaxed);
		if (c == 0)
			break;
		if ((c & ~(uintptr_t)1) == (ret & ~(uintptr_t)1))
			return c & 1;
	}
	Dl_info info;
	bool yes = dladdr((void *)ret, &info) != 0 && info.dli_fname != NULL &&
		   from_torch_lib(info.dli_fname);
	uintptr_t v = (ret & ~(uintptr_t)1) | (yes ? 1 : 0);
	for (int i = 0; i < MAX_CALLERS; i++) {
		uintptr_t expect = 0;
		if (atomic_compare_exchange_strong(&callers[i], &expect, v))
			break;
	}
	return yes;
}

/* Claims the file's slot; false when it was written about already (or the
 * table is full). */
static bool first_time(const struct stat *st)
{
	uint64_t h = ((uint64_t)st->st_dev * 0x9E3779B97F4A7C15ull ^ (uint64_t)st->st_ino) | 1;
	for (int i = 0; i < MAX_STORES; i++) {
		uint64_t expect = 0;
		if (atomic_compare_exchange_strong(&seen[i], &expect, h))
			return true;
		if (expect == h)
			return false;
	}
	return false;
}

static __attribute__((noinline)) void store_locked(int fd, uintptr_t ret)
{
	char link[64], path[1024], buf[1536];
	struct stat st;
	struct ht_jw w;

	if (!torch_caller(ret) || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !first_time(&st))
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || path[0] != '/')
		return;
	path[n] = '\0';
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_STORE);
	ht_jw_str(&w, "kind", "file");
	ht_jw_str(&w, "path", path);
	ht_jw_int(&w, "size", (int64_t)st.st_size);
	ht_jw_secs(&w, "mtime", (int64_t)st.st_mtim.tv_sec * HT_NS_PER_SEC + st.st_mtim.tv_nsec);
	ht_ev_emit(&w);
}

HT_EXPORT int flock(int fd, int op)
{
	ht_real_init();
	int r = ht_real.flock(fd, op);
	if (r != 0 || (op & LOCK_EX) == 0 || !ht_active() || ht_tls.depth > 0)
		return r;
	int err = errno;
	ht_tls.depth++;
	store_locked(fd, (uintptr_t)__builtin_return_address(0));
	ht_tls.depth--;
	errno = err;
	return r;
}
