// SPDX-License-Identifier: MIT
/*
 * unwind.c: native stacks, captured inside each thread's signal handler as
 * bare return addresses (symbolised later, outside any handler). libunwind
 * is loaded RTLD_LOCAL when the first dump is due, never linked: as a
 * DT_NEEDED of a preload it would take _Unwind_RaiseException for every C++
 * exception of the host process (libunwind.so.8 exports it, and the
 * loader binds libstdc++'s reference to the first definition:
 * tests/core/cxx.sh throws through a traced process). A wheel carries its
 * own copy beside the library. Without it, libgcc's
 * _Unwind_Backtrace, lock-free on glibc >= 2.35 with libgcc >= 12.
 */
#include <dlfcn.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "abi.h"
#include "real.h"
#include "self.h"
#include "state.h"
#include "unwind.h"

struct ht_uslot ht_uslots[HT_USLOTS];

static int (*u_init2)(unw_cursor_t *, unw_context_t *, int);
static int (*u_step)(unw_cursor_t *);
static int (*u_get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
static int (*u_is_signal_frame)(unw_cursor_t *);
/* libgcc's unwinder, declared here: libunwind-dev ships an unwind.h of its
 * own that shadows gcc's. The values are the Itanium ABI's. */
struct _Unwind_Context;
enum { URC_NO_REASON = 0, URC_END_OF_STACK = 5 };
typedef int (*gcc_trace_fn)(struct _Unwind_Context *, void *);
static int (*g_backtrace)(gcc_trace_fn, void *);
static uintptr_t (*g_get_ip_info)(struct _Unwind_Context *, int *);
static const char *which = "none";
static bool prepared;

const char *ht_unwind_name(void)
{
	return which;
}

/*
 * skip_signal: the thread was interrupted inside our SIGTERM handler, which
 * waits for this dump: its interesting stack starts past that handler's
 * signal frame.
 */
static int unw_capture(void *uc, uintptr_t *ip, int max, bool skip_signal)
{
	unw_cursor_t c;
	unw_word_t pc;
	int n = 0;

	if (u_init2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0)
		return 0;
	/* libunwind calls "signal frame" the frame a signal interrupted (the
	 * one above __restore_rt), so: leave our handler's own interrupted
	 * frame, then stop at the next such frame. */
	if (skip_signal && u_is_signal_frame != NULL) {
		if (u_step(&c) <= 0)
			return 0;
		for (int i = 0; i < HT_MAX_FRAMES && u_is_signal_frame(&c) <= 0; i++)
			if (u_step(&c) <= 0)
				return 0;
	}
	do {
		if (u_get_reg(&c, UNW_REG_IP, &pc) < 0 || pc == 0)
			break;
		ip[n++] = (uintptr_t)pc;
	} while (n < max && u_step(&c) > 0);
	return n;
}

struct gcc_state {
	uintptr_t target;	/* the interrupted instruction */
	int skip;		/* signal frames still to pass (SIGTERM wait) */
	bool found;
	uintptr_t *ip;
	int n, max, all;
	uintptr_t seen[HT_MAX_FRAMES];
};

static int gcc_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct gcc_state *st = arg;
	int before = 0;
	uintptr_t pc = (uintptr_t)g_get_ip_info(ctx, &before);

	if (st->all < HT_MAX_FRAMES)
		st->seen[st->all++] = pc;
	/* The handler's own frames come first: start at the signal frame,
	 * or past the SIGTERM handler's one (libgcc flags the frame a signal
	 * interrupted with before != 0). */
	if (!st->found && pc == st->target && before)
		st->found = st->skip == 0;
	else if (st->found == false && before && st->skip > 0 && pc != st->target)
		st->found = --st->skip == 0;
	if (st->found && st->n < st->max)
		st->ip[st->n++] = pc;
	return st->n < st->max ? URC_NO_REASON : URC_END_OF_STACK;
}

static int gcc_capture(void *uc, uintptr_t *ip, int max, bool skip_signal)
{
	struct gcc_state st = { .target = HT_REG_IP(uc), .ip = ip, .max = max,
				.skip = skip_signal ? 1 : 0 };

	g_backtrace(gcc_frame, &st);
	if (st.found)
		return st.n;
	/* The signal frame was not recognised: keep what we have, handler first. */
	memcpy(ip, st.seen, (size_t)(st.all < max ? st.all : max) * sizeof(*ip));
	return st.all < max ? st.all : max;
}

static int capture(void *uc, uintptr_t *ip, int max, bool skip_signal)
{
	if (u_init2 != NULL)
		return unw_capture(uc, ip, max, skip_signal);
	if (g_backtrace != NULL)
		return gcc_capture(uc, ip, max, skip_signal);
	ip[0] = HT_REG_IP(uc);
	return 1;
}

/*
 * The wheel's own copy beside the library (hangtrace/lib/libunwind.so.8, its
 * liblzma found through its $ORIGIN run path), by its full path: neither
 * LD_LIBRARY_PATH nor the host's cache can put another in its place. Else
 * the host's, by name (the build tree, make install).
 */
static void *open_libunwind(void)
{
	static const char name[] = "/libunwind.so.8";
	char path[1024];

	if (ht_self_folder(path, sizeof(path) - sizeof(name))) {
		strcat(path, name);
		if (access(path, R_OK) == 0) {
			void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
			if (h != NULL)
				return h;
		}
	}
	return dlopen(name + 1, RTLD_NOW | RTLD_LOCAL);
}

void ht_unwind_prepare(void)
{
	if (prepared)
		return;
	prepared = true;
	void *h = open_libunwind();
	if (h != NULL) {
		u_init2 = ht_real_dlsym(h, HT_UNW("init_local2"));
		u_step = ht_real_dlsym(h, HT_UNW("step"));
		u_get_reg = ht_real_dlsym(h, HT_UNW("get_reg"));
		u_is_signal_frame = ht_real_dlsym(h, HT_UNW("is_signal_frame"));
		int (*policy)(unw_addr_space_t, unw_caching_policy_t) =
			ht_real_dlsym(h, HT_UNW("set_caching_policy"));
		unw_addr_space_t *as = ht_real_dlsym(h, HT_UNW("local_addr_space"));
		if (u_init2 == NULL || u_step == NULL || u_get_reg == NULL) {
			u_init2 = NULL;
		} else {
			/* No cache. libunwind builds without per-thread caches
			 * (Debian's 1.6) turn UNW_CACHE_PER_THREAD into the
			 * global cache, whose lock is held across
			 * dl_iterate_phdr: a handler holding it then waits for
			 * the loader's write lock that a thread interrupted in
			 * dlclose holds, while that thread's handler waits for
			 * the cache lock (tests/trust/storms.sh). Without a
			 * cache the only lock is the loader's, which is
			 * recursive: an interrupted holder takes it again. */
			if (policy != NULL && as != NULL)
				policy(*as, UNW_CACHE_NONE);
			which = "libunwind";
		}
	}
	if (u_init2 == NULL) {
		void *g = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
		if (g != NULL) {
			g_backtrace = ht_real_dlsym(g, "_Unwind_Backtrace");
			g_get_ip_info = ht_real_dlsym(g, "_Unwind_GetIPInfo");
			if (g_backtrace != NULL && g_get_ip_info != NULL)
				which = "libgcc";
			else
				g_backtrace = NULL;
		}
	}
	/* Warm up here, outside any handler: lazy binding and first-use
	 * allocations of the unwinder happen now, not in a signal context. */
	ucontext_t uc;
	uintptr_t ip[4];
	if (getcontext(&uc) == 0 && (u_init2 != NULL || g_backtrace != NULL))
		capture(&uc, ip, 4, false);
}

void ht_unwind_in_handler(void *uc, uint32_t slot, uint32_t gen)
{
	if (slot >= HT_USLOTS)
		return;
	struct ht_uslot *s = &ht_uslots[slot];
	pid_t me = (pid_t)syscall(SYS_gettid);
	if (atomic_load(&s->tid) != me)
		return;
	atomic_store(&s->answered, gen);
	if (atomic_load(&s->want) != gen)
		return;		/* a late answer to an older dump */
	s->pthread = (uint64_t)pthread_self();
	s->n = capture(uc, s->ip, HT_MAX_FRAMES, ht_tls.in_term > 0);
	atomic_store_explicit(&s->done, gen, memory_order_release);
}
