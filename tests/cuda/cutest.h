// SPDX-License-Identifier: MIT
/*
 * cutest.h: what the CUDA test programs share: the few driver types they
 * use (declared here, so the programs build without the toolkit), a way to
 * get each driver function by one of the routes a real program takes, the
 * pass-through script run over all of them, and a call of the 4-argument
 * resolver with a poisoned fifth argument register.
 */
#ifndef HT_TESTS_CUTEST_H
#define HT_TESTS_CUTEST_H

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

typedef CUresult (*gpa4_t)(const char *, void **, int, uint64_t);
typedef CUresult (*gpa5_t)(const char *, void **, int, uint64_t, int *);

/* How a program reaches the driver. */
enum route {
	ROUTE_DLSYM,	/* dlsym(libcuda handle, exported name) */
	ROUTE_GPA,	/* the resolver cudart gets back from its self-lookup at 12000 */
	ROUTE_GPA4,	/* the one it gets at 11030 (4 arguments) */
	ROUTE_LINKED,	/* the program's own references (linked.c supplies them) */
};

/* The exported name, and the (base, version, flags) a resolver is asked. */
struct fn {
	const char *name, *base;
	int ver;
	uint64_t flags;
};

static void *cu_lib __attribute__((unused));
static gpa5_t cu_gpa5 __attribute__((unused));
static gpa4_t cu_gpa4 __attribute__((unused));
/* For ROUTE_LINKED: the program's own address of an exported name. */
static void *(*cu_linked)(const char *name) __attribute__((unused));

static inline void cu_open(const char *path, int mode)
{
	cu_lib = dlopen(path, mode);
	if (cu_lib == NULL) {
		fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
		exit(2);
	}
	gpa5_t first = (gpa5_t)dlsym(cu_lib, "cuGetProcAddress_v2");
	if (first == NULL) {
		fprintf(stderr, "no cuGetProcAddress_v2\n");
		exit(2);
	}
	/* As cudart does: ask the resolver for itself, use what comes back. */
	void *p = NULL;
	if (first("cuGetProcAddress", &p, 12000, 0, NULL) != 0 || p == NULL)
		exit(2);
	cu_gpa5 = (gpa5_t)p;
	if (cu_gpa5("cuGetProcAddress", &p, 11030, 0, NULL) != 0 || p == NULL)
		exit(2);
	cu_gpa4 = (gpa4_t)p;
}

static inline void *cu_get(enum route r, const struct fn *f)
{
	void *p = NULL;
	switch (r) {
	case ROUTE_DLSYM:
		p = dlsym(cu_lib, f->name);
		break;
	case ROUTE_GPA:
		if (cu_gpa5(f->base, &p, f->ver, f->flags, NULL) != 0)
			p = NULL;
		break;
	case ROUTE_GPA4:
		if (cu_gpa4(f->base, &p, f->ver, f->flags) != 0)
			p = NULL;
		break;
	case ROUTE_LINKED:
		p = cu_linked(f->name);
		break;
	}
	if (p == NULL)
		printf("%s (%s@%d flags %d): absent\n", f->name, f->base, f->ver, (int)f->flags);
	return p;
}

#define FN(name, base, ver, flags) (&(const struct fn){ name, base, ver, flags })
#define GET(r, type, name, base, ver, flags) ((type)cu_get(r, FN(name, base, ver, flags)))

/* As cu_get, for a function the scenario cannot do without. */
static inline void *cu_need(enum route r, const struct fn *f)
{
	void *p = cu_get(r, f);
	if (p == NULL)
		exit(2);
	return p;
}
#define NEED(r, type, name, base, ver, flags) ((type)cu_need(r, FN(name, base, ver, flags)))

/* A context/stream/event the fake driver rejects by its magic number. */
static char cu_bogus[64] __attribute__((unused));

/* Prints "what -> result errno=E" with errno set to a sentinel before the
 * call: the library must leave both as the driver did. */
#define SHOW(what, fp, call)                                                    \
	do {                                                                    \
		if ((fp) == NULL)                                               \
			break;                                                  \
		errno = 4242;                                                   \
		CUresult r_ = (call);                                           \
		int e_ = errno;                                                 \
		printf("%-44s -> %d errno=%d\n", what, r_, e_);                 \
	} while (0)

/*
 * The pass-through script: every wrapped function, before and after
 * cuInit, with good and bad arguments, each reached by route r. Run with
 * and without the library, the output must be the same.
 */
static inline void cu_passthru(enum route r)
{
	typedef CUresult (*init_t)(unsigned);
	typedef CUresult (*ver_t)(int *);
	typedef CUresult (*retain_t)(CUcontext *, CUdevice);
	typedef CUresult (*create_t)(CUcontext *, unsigned, CUdevice);
	typedef CUresult (*create3_t)(CUcontext *, void *, int, unsigned, CUdevice);
	typedef CUresult (*create4_t)(CUcontext *, void *, unsigned, CUdevice);
	typedef CUresult (*ctx_t)(CUcontext);
	typedef CUresult (*stream_t)(CUstream);
	typedef CUresult (*event_t)(CUevent);
	typedef CUresult (*void_t)(void);

	init_t init = GET(r, init_t, "cuInit", "cuInit", 2000, 0);
	ver_t ver = GET(r, ver_t, "cuDriverGetVersion", "cuDriverGetVersion", 2020, 0);
	retain_t retain = GET(r, retain_t, "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain", 7000, 0);
	create_t create1 = GET(r, create_t, "cuCtxCreate", "cuCtxCreate", 2000, 0);
	create_t create2 = GET(r, create_t, "cuCtxCreate_v2", "cuCtxCreate", 3020, 0);
	create3_t create3 = GET(r, create3_t, "cuCtxCreate_v3", "cuCtxCreate", 11040, 0);
	create4_t create4 = GET(r, create4_t, "cuCtxCreate_v4", "cuCtxCreate", 12050, 0);
	ctx_t set = GET(r, ctx_t, "cuCtxSetCurrent", "cuCtxSetCurrent", 4000, 0);
	ctx_t push1 = GET(r, ctx_t, "cuCtxPushCurrent", "cuCtxPushCurrent", 2000, 0);
	ctx_t push2 = GET(r, ctx_t, "cuCtxPushCurrent_v2", "cuCtxPushCurrent", 4000, 0);
	stream_t ssync = GET(r, stream_t, "cuStreamSynchronize", "cuStreamSynchronize", 2000, 0);
	stream_t ssync_pt = GET(r, stream_t, "cuStreamSynchronize_ptsz", "cuStreamSynchronize", 7000, 2);
	event_t esync = GET(r, event_t, "cuEventSynchronize", "cuEventSynchronize", 2000, 0);
	void_t csync1 = GET(r, void_t, "cuCtxSynchronize", "cuCtxSynchronize", 2000, 0);
	ctx_t csync2 = GET(r, ctx_t, "cuCtxSynchronize_v2", "cuCtxSynchronize", 13000, 0);
	CUcontext c = NULL;
	int v = 0;

	/* Before cuInit. */
	SHOW("cuDriverGetVersion(&v)", ver, ver(&v));
	printf("version %d\n", v);
	SHOW("cuDriverGetVersion(NULL)", ver, ver(NULL));
	SHOW("cuDevicePrimaryCtxRetain(&c, 0) before init", retain, retain(&c, 0));
	SHOW("cuCtxSetCurrent(NULL) before init", set, set(NULL));
	SHOW("cuStreamSynchronize(NULL) before init", ssync, ssync(NULL));
	SHOW("cuCtxSynchronize() before init", csync1, csync1());
	SHOW("cuInit(1)", init, init(1));
	SHOW("cuInit(0)", init, init(0));
	SHOW("cuInit(0) again", init, init(0));

	/* Binding. */
	SHOW("cuDevicePrimaryCtxRetain(&c, 7)", retain, retain(&c, 7));
	SHOW("cuDevicePrimaryCtxRetain(NULL, 0)", retain, retain(NULL, 0));
	SHOW("cuCtxSetCurrent(bogus)", set, set((CUcontext)cu_bogus));
	SHOW("cuDevicePrimaryCtxRetain(&c, 0)", retain, retain(&c, 0));
	SHOW("cuCtxSetCurrent(c)", set, set(c));
	CUcontext made = NULL;
	SHOW("cuCtxCreate(&made, 0, 1)", create1, create1(&made, 0, 1));
	SHOW("cuCtxCreate(&made, 0, 9)", create1, create1(&made, 0, 9));
	SHOW("cuCtxCreate_v2(&made, 0, 1)", create2, create2(&made, 0, 1));
	SHOW("cuCtxCreate_v2(NULL, 0, 1)", create2, create2(NULL, 0, 1));
	SHOW("cuCtxCreate_v3(&made, NULL, 0, 0, 1)", create3, create3(&made, NULL, 0, 0, 1));
	SHOW("cuCtxCreate_v3(&made, NULL, 1, 0, 1)", create3, create3(&made, NULL, 1, 0, 1));
	SHOW("cuCtxCreate_v4(&made, NULL, 0, 1)", create4, create4(&made, NULL, 0, 1));
	SHOW("cuCtxCreate_v4(&made, NULL, 0, -1)", create4, create4(&made, NULL, 0, -1));
	SHOW("cuCtxPushCurrent(c)", push1, push1(c));
	SHOW("cuCtxPushCurrent_v2(c)", push2, push2(c));
	SHOW("cuCtxPushCurrent_v2(bogus)", push2, push2((CUcontext)cu_bogus));

	/* Synchronizing. */
	SHOW("cuStreamSynchronize(NULL)", ssync, ssync(NULL));
	SHOW("cuStreamSynchronize(bogus)", ssync, ssync((CUstream)cu_bogus));
	SHOW("cuStreamSynchronize_ptsz(NULL)", ssync_pt, ssync_pt(NULL));
	SHOW("cuStreamSynchronize_ptsz(bogus)", ssync_pt, ssync_pt((CUstream)cu_bogus));
	SHOW("cuEventSynchronize(bogus)", esync, esync((CUevent)cu_bogus));
	SHOW("cuEventSynchronize(NULL)", esync, esync(NULL));
	SHOW("cuCtxSynchronize()", csync1, csync1());
	SHOW("cuCtxSynchronize_v2(NULL)", csync2, csync2(NULL));
	SHOW("cuCtxSynchronize_v2(c)", csync2, csync2(c));
	SHOW("cuCtxSynchronize_v2(bogus)", csync2, csync2((CUcontext)cu_bogus));
	SHOW("cuCtxSetCurrent(NULL)", set, set(NULL));
}

/* The resolvers themselves, by the same route, with their odd requests. */
static inline void cu_passthru_gpa(enum route r)
{
	gpa5_t g5 = GET(r, gpa5_t, "cuGetProcAddress_v2", "cuGetProcAddress", 12000, 0);
	gpa4_t g4 = GET(r, gpa4_t, "cuGetProcAddress", "cuGetProcAddress", 11030, 0);
	void *p = (void *)1;
	int st = -7;

	SHOW("gpa5(\"\", 0, 0, NULL)", g5, g5("", &p, 0, 0, NULL));
	printf("pfn %s\n", p == NULL ? "NULL" : "set");
	SHOW("gpa5(\"\", 0, 0, &st)", g5, g5("", &p, 0, 0, &st));
	printf("status %d\n", st);
	SHOW("gpa5(\"cuNoSuchFunction\", 12000)", g5, g5("cuNoSuchFunction", &p, 12000, 0, &st));
	printf("pfn %s status %d\n", p == NULL ? "NULL" : "set", st);
	SHOW("gpa5(\"cuInit\", 13010)", g5, g5("cuInit", &p, 13010, 0, &st));
	SHOW("gpa5(NULL, 2000)", g5, g5(NULL, &p, 2000, 0, NULL));
	SHOW("gpa5(\"cuInit\", 2000, pfn NULL)", g5, g5("cuInit", NULL, 2000, 0, NULL));
	SHOW("gpa5(\"cuDeviceGetUuid\", 9000)", g5, g5("cuDeviceGetUuid", &p, 9000, 0, &st));
	printf("pfn %s status %d\n", p == NULL ? "NULL" : "set", st);
	SHOW("gpa5(\"cuInit\", 2000)", g5, g5("cuInit", &p, 2000, 0, &st));
	printf("pfn %s status %d\n", p == NULL ? "NULL" : "set", st);
	SHOW("gpa4(\"\", 0, 0)", g4, g4("", &p, 0, 0));
	SHOW("gpa4(\"cuNoSuchFunction\", 12000)", g4, g4("cuNoSuchFunction", &p, 12000, 0));
	printf("pfn %s\n", p == NULL ? "NULL" : "set");
	SHOW("gpa4(\"cuInit\", 13010)", g4, g4("cuInit", &p, 13010, 0));
	SHOW("gpa4(\"cuStreamSynchronize\", 7000, 2)", g4, g4("cuStreamSynchronize", &p, 7000, 2));
	printf("pfn %s\n", p == NULL ? "NULL" : "set");
}

#if defined(__x86_64__)
/*
 * Calls the 4-argument resolver fn with `canary` in %r8, the register of a
 * fifth argument, loaded in the same asm block as the call so nothing in
 * between can change it. A resolver that believed it had five arguments
 * would write its status through it.
 */
static inline CUresult cu_call4_poisoned(void *fn, const char *s, void **pfn, int ver, uint64_t flags,
				  void *canary)
{
	register const char *rdi __asm__("rdi") = s;
	register void **rsi __asm__("rsi") = pfn;
	register long rdx __asm__("rdx") = ver;
	register uint64_t rcx __asm__("rcx") = flags;
	register void *r11 __asm__("r11") = fn;
	unsigned long rax;

	__asm__ volatile("mov %[canary], %%r8\n\t"
			 "mov %%rsp, %%rbx\n\t"
			 "lea -128(%%rsp), %%rsp\n\t" /* past the red zone */
			 "and $-16, %%rsp\n\t"
			 "call *%%r11\n\t"
			 "mov %%rbx, %%rsp\n\t"
			 : "=a"(rax), "+r"(rdi), "+r"(rsi), "+r"(rdx), "+r"(rcx), "+r"(r11)
			 : [canary] "m"(canary)
			 : "rbx", "r8", "r9", "r10", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3",
			   "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
			   "xmm12", "xmm13", "xmm14", "xmm15");
	return (CUresult)(int)rax;
}
#define CU_POISON_EXACT 1
#else
/* Elsewhere the best we can do: a 5-argument call just before. */
__attribute__((noinline)) static void cu_five(const char *a, void **b, int c, uint64_t d, void *e)
{
	__asm__ volatile("" ::"r"(a), "r"(b), "r"(c), "r"(d), "r"(e) : "memory");
}
static inline CUresult cu_call4_poisoned(void *fn, const char *s, void **pfn, int ver, uint64_t flags,
				  void *canary)
{
	cu_five(s, pfn, ver, flags, canary);
	return ((gpa4_t)fn)(s, pfn, ver, flags);
}
#define CU_POISON_EXACT 0
#endif

/* The 4-argument resolver never writes through a fifth argument: 0 if so. */
static inline int cu_check_gpa4(void *g4)
{
	static const char *const names[] = { "cuInit", "cuStreamSynchronize", "cuNoSuchFunction", "" };
	int bad = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		volatile int canary = 0x5a5a5a5a;
		void *p = (void *)1;
		CUresult r = cu_call4_poisoned(g4, names[i], &p, 12000, 0, (void *)&canary);
		if (canary != 0x5a5a5a5a || r != 0) {
			printf("gpa4(\"%s\") -> %d canary %#x\n", names[i], r, canary);
			bad = 1;
		}
	}
	return bad;
}

#endif
