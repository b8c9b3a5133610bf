// SPDX-License-Identifier: MIT
/*
 * selftest.c: checks the fake CUDA driver without hangtrace. Built normally it
 * dlopen()s the fake libcuda.so.1 by path (RTLD_NOW|RTLD_LOCAL) and runs one named
 * check, walking the same cuGetProcAddress_v2 path as cudart 13; selftest.sh runs
 * the checks and greps FAKE_CUDA_LOG for the variants reached. Built with
 * -DFAKE_CUDA_SELFTEST_CUDART it instead links the real libcudart and calls
 * cudaGetDeviceCount, to record what cudart asks of the fake.
 */

#ifdef FAKE_CUDA_SELFTEST_CUDART

#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void)
{
    int n = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    printf("cudaGetDeviceCount -> %d (%s: %s) count=%d\n", (int)e, cudaGetErrorName(e), cudaGetErrorString(e), n);
    int rv = -1, dv = -1;
    cudaError_t e2 = cudaRuntimeGetVersion(&rv);
    cudaError_t e3 = cudaDriverGetVersion(&dv);
    printf("cudaRuntimeGetVersion -> %d version=%d; cudaDriverGetVersion -> %d version=%d\n", (int)e2, rv, (int)e3,
           dv);
    return 0;
}

#else /* the dlopen self-test */

#include <cuda.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef CUresult (*gpa4_t)(const char *, void **, int, cuuint64_t);
typedef CUresult (*gpa5_t)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*init_t)(unsigned int);

static void *lib;
static gpa5_t gpa;
static int failures;

#define CHECK(cond, ...)                                             \
    do {                                                             \
        if (!(cond)) {                                               \
            failures++;                                              \
            fprintf(stderr, "  check failed (%s:%d): ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                            \
            fputc('\n', stderr);                                     \
        }                                                            \
    } while (0)

static void *sym(const char *name)
{
    void *p = dlsym(lib, name);
    if (p == NULL) {
        fprintf(stderr, "dlsym(%s): %s\n", name, dlerror());
        exit(2);
    }
    return p;
}

/* Resolve through cuGetProcAddress_v2 and expect CUDA_SUCCESS. */
static void *resolve(const char *name, int ver, cuuint64_t flags)
{
    void *p = NULL;
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
    CUresult r = gpa(name, &p, ver, flags, &st);
    CHECK(r == CUDA_SUCCESS, "gpa(%s,%d,%llu) = %d", name, ver, (unsigned long long)flags, (int)r);
    return p;
}

#define CALL(type, fp, ...) ((type)(fp))(__VA_ARGS__)

static void init_or_die(void)
{
    CUresult r = CALL(init_t, resolve("cuInit", 2000, 0), 0);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cuInit = %d\n", (int)r);
        exit(1);
    }
}

static CUcontext primary_current(int dev)
{
    CUcontext c = NULL;
    CUresult r = CALL(CUresult(*)(CUcontext *, CUdevice), resolve("cuDevicePrimaryCtxRetain", 7000, 0), &c, dev);
    CHECK(r == CUDA_SUCCESS && c != NULL, "cuDevicePrimaryCtxRetain = %d", (int)r);
    r = CALL(CUresult(*)(CUcontext), resolve("cuCtxSetCurrent", 4000, 0), c);
    CHECK(r == CUDA_SUCCESS, "cuCtxSetCurrent = %d", (int)r);
    return c;
}

/* ---- calling the 4-argument resolver with a poisoned 5th argument register ---- */

static CUdriverProcAddressQueryResult canary_target = (CUdriverProcAddressQueryResult)0x5a5a5a5a;

__attribute__((noinline)) static int dummy5(const char *a, void **b, int c, cuuint64_t d, void *e)
{
    __asm__ volatile("" ::"r"(a), "r"(b), "r"(c), "r"(d), "r"(e) : "memory");
    return 0;
}

#if defined(__x86_64__)
/* Load the canary into %r8 (the 5th integer argument register) in the same asm
 * block as the call, so nothing between can overwrite it. The red zone is skipped
 * and the stack realigned because the compiler does not know a call happens here. */
static CUresult call4_poisoned(void *fn, const char *s, void **pfn, int ver, cuuint64_t flags, void *canary)
{
    register const char *rdi __asm__("rdi") = s;
    register void **rsi __asm__("rsi") = pfn;
    register long rdx __asm__("rdx") = ver;
    register cuuint64_t rcx __asm__("rcx") = flags;
    register void *r11 __asm__("r11") = fn;
    unsigned long rax;
    __asm__ volatile("mov %[canary], %%r8\n\t"
                     "mov %%rsp, %%rbx\n\t"
                     "lea -128(%%rsp), %%rsp\n\t"
                     "and $-16, %%rsp\n\t"
                     "call *%%r11\n\t"
                     "mov %%rbx, %%rsp\n\t"
                     : "=a"(rax), "+r"(rdi), "+r"(rsi), "+r"(rdx), "+r"(rcx), "+r"(r11)
                     : [canary] "m"(canary)
                     : "rbx", "r8", "r9", "r10", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
                       "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
    return (CUresult)(int)rax;
}
#else
/* Elsewhere: leave the canary in the 5th argument register by a 5-argument call
 * just before (best effort; the compiler may reuse the register in between). */
static CUresult call4_poisoned(void *fn, const char *s, void **pfn, int ver, cuuint64_t flags, void *canary)
{
    dummy5(s, pfn, ver, flags, canary);
    return ((gpa4_t)fn)(s, pfn, ver, flags);
}
#endif

static int check_gpa(void)
{
    void *p = (void *)1;
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;

    /* 1. the "" probe, with and without a status pointer */
    CUresult r = gpa("", &p, 0, 0, NULL);
    printf("probe \"\" (status NULL) -> %d pfn=%p\n", (int)r, p);
    CHECK(p == NULL, "probe pfn not NULL");
    r = gpa("", &p, 0, 0, &st);
    printf("probe \"\" -> %d status=%d\n", (int)r, (int)st);
    CHECK(p == NULL && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, "probe status %d", (int)st);

    /* 2. cuInit at 2000, as cudart asks */
    void *init = resolve("cuInit", 2000, 0);
    CHECK(init == sym("cuInit"), "cuInit pointer");
    r = CALL(init_t, init, 0);
    CHECK(r == CUDA_SUCCESS, "cuInit = %d", (int)r);

    /* 3. self-lookups */
    void *g4 = resolve("cuGetProcAddress", 11030, 0);
    void *g5 = resolve("cuGetProcAddress", 12000, 0);
    void *g4b = resolve("cuGetProcAddress", 11080, 0);
    CHECK(g4 == sym("cuGetProcAddress") && g4b == g4, "11030 self-lookup is not the 4-arg cuGetProcAddress");
    CHECK(g5 == sym("cuGetProcAddress_v2"), "12000 self-lookup is not cuGetProcAddress_v2");
    p = (void *)1;
    r = gpa("cuGetProcAddress", &p, 11020, 0, &st);
    CHECK(r == CUDA_SUCCESS && p == NULL && st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
          "cuGetProcAddress@11020 r=%d st=%d", (int)r, (int)st);

    /* 4. the 4-argument resolver must not write through a poisoned 5th register */
    static const char *const names[] = {"cuInit", "cuStreamSynchronize", "no_such_symbol", ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        canary_target = (CUdriverProcAddressQueryResult)0x5a5a5a5a;
        dummy5("x", &p, 1, 2, &canary_target);
        p = (void *)1;
        r = call4_poisoned(g4, names[i], &p, 12000, 0, &canary_target);
        CHECK((int)canary_target == 0x5a5a5a5a, "4-arg resolver wrote status for \"%s\"", names[i]);
        CHECK(r == CUDA_SUCCESS, "4-arg resolver(\"%s\") = %d", names[i], (int)r);
        if (i == 0)
            CHECK(p == init, "4-arg resolver cuInit pointer");
        else if (i >= 2)
            CHECK(p == NULL, "4-arg resolver(\"%s\") pfn", names[i]);
    }
    /* through the 4-argument function pointer type, as cudart 11.x would */
    p = NULL;
    r = ((gpa4_t)g4)("cuDeviceGetCount", &p, 11030, 0);
    CHECK(r == CUDA_SUCCESS && p == sym("cuDeviceGetCount"), "4-arg typed call");
    /* and the 5-argument one returned at 12000 */
    p = NULL;
    st = (CUdriverProcAddressQueryResult)-1;
    r = ((gpa5_t)g5)("cuDeviceGetCount", &p, 12000, 0, &st);
    CHECK(r == CUDA_SUCCESS && p == sym("cuDeviceGetCount") && st == CU_GET_PROC_ADDRESS_SUCCESS, "5-arg typed call");

    /* 5. unknown symbol, too-new version, NULL arguments */
    p = (void *)1;
    r = gpa("cuNoSuchFunction", &p, 12000, 0, &st);
    CHECK(r == CUDA_SUCCESS && p == NULL && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, "unknown symbol r=%d st=%d",
          (int)r, (int)st);
    r = gpa("cuInit", &p, 13010, 0, &st);
    CHECK(r == CUDA_ERROR_INVALID_VALUE, "cudaVersion > driver: %d", (int)r);
    r = gpa(NULL, &p, 2000, 0, NULL);
    CHECK(r == CUDA_ERROR_INVALID_VALUE, "NULL symbol: %d", (int)r);
    r = gpa("cuInit", NULL, 2000, 0, NULL);
    CHECK(r == CUDA_ERROR_INVALID_VALUE, "NULL pfn: %d", (int)r);
    return failures;
}

static int check_variants(void)
{
    static const struct {
        const char *base;
        int ver;
        cuuint64_t flags;
        const char *want; /* NULL: expect pfn NULL */
    } cases[] = {
        {"cuCtxSynchronize", 2000, 0, "cuCtxSynchronize"},
        {"cuCtxSynchronize", 12090, 0, "cuCtxSynchronize"},
        {"cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2"},
        {"cuCtxSynchronize", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuCtxSynchronize_v2"},
        {"cuCtxGetDevice", 2000, 0, "cuCtxGetDevice"},
        {"cuCtxGetDevice", 13000, 0, "cuCtxGetDevice_v2"},
        {"cuStreamSynchronize", 2000, 0, "cuStreamSynchronize"},
        {"cuStreamSynchronize", 7000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, "cuStreamSynchronize"},
        {"cuStreamSynchronize", 7000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuStreamSynchronize_ptsz"},
        {"cuStreamSynchronize", 6050, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuStreamSynchronize"},
        {"cuStreamQuery", 12000, 0, "cuStreamQuery"},
        {"cuStreamQuery", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuStreamQuery_ptsz"},
        {"cuEventRecord", 12000, 0, "cuEventRecord"},
        {"cuEventRecord", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuEventRecord_ptsz"},
        {"cuEventSynchronize", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuEventSynchronize"},
        {"cuDeviceGetUuid", 9020, 0, "cuDeviceGetUuid"},
        {"cuDeviceGetUuid", 11040, 0, "cuDeviceGetUuid_v2"},
        {"cuDeviceGetUuid", 9000, 0, NULL},
        {"cuCtxCreate", 2000, 0, "cuCtxCreate"},
        {"cuCtxCreate", 3020, 0, "cuCtxCreate_v2"},
        {"cuCtxCreate", 11040, 0, "cuCtxCreate_v3"},
        {"cuCtxCreate", 12050, 0, "cuCtxCreate_v4"},
        {"cuCtxCreate", 13000, 0, "cuCtxCreate_v4"},
        {"cuDevicePrimaryCtxRelease", 7000, 0, "cuDevicePrimaryCtxRelease"},
        {"cuDevicePrimaryCtxRelease", 11000, 0, "cuDevicePrimaryCtxRelease_v2"},
        {"cuDeviceTotalMem", 3020, 0, "cuDeviceTotalMem_v2"},
        {"cuDeviceTotalMem", 2000, 0, NULL},
        {"cuCtxDestroy", 4000, 0, "cuCtxDestroy_v2"},
        {"cuCtxPushCurrent", 4000, 0, "cuCtxPushCurrent_v2"},
        {"cuGetExportTable", 3000, 0, "cuGetExportTable"},
        {"cuCtxSynchronize_v2", 13000, 0, NULL}, /* versioned names are not base names */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        void *p = (void *)1;
        CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
        CUresult r = gpa(cases[i].base, &p, cases[i].ver, cases[i].flags, &st);
        void *want = cases[i].want ? sym(cases[i].want) : NULL;
        CHECK(r == CUDA_SUCCESS && p == want, "%s@%d flags=%llu -> r=%d st=%d, want %s", cases[i].base, cases[i].ver,
              (unsigned long long)cases[i].flags, (int)r, (int)st, cases[i].want ? cases[i].want : "NULL");
    }
    return failures;
}

/* Calls the legacy and per-thread variants; selftest.sh reads FAKE_CUDA_LOG. */
static int check_ptsz(void)
{
    init_or_die();
    primary_current(0);
    typedef CUresult (*s_t)(CUstream);
    typedef CUresult (*er_t)(CUevent, CUstream);
    CUevent ev = NULL;
    CUresult r = CALL(CUresult(*)(CUevent *, unsigned), resolve("cuEventCreate", 2000, 0), &ev, 0);
    CHECK(r == CUDA_SUCCESS, "cuEventCreate = %d", (int)r);
    for (int f = 0; f <= 2; f += 2) {
        r = CALL(s_t, resolve("cuStreamSynchronize", f ? 7000 : 2000, (cuuint64_t)f), NULL);
        CHECK(r == CUDA_SUCCESS, "cuStreamSynchronize flags=%d = %d", f, (int)r);
        r = CALL(s_t, resolve("cuStreamQuery", f ? 7000 : 2000, (cuuint64_t)f), NULL);
        CHECK(r == CUDA_SUCCESS, "cuStreamQuery flags=%d = %d", f, (int)r);
        r = CALL(er_t, resolve("cuEventRecord", f ? 7000 : 2000, (cuuint64_t)f), ev, NULL);
        CHECK(r == CUDA_SUCCESS, "cuEventRecord flags=%d = %d", f, (int)r);
    }
    r = CALL(CUresult(*)(CUevent), resolve("cuEventDestroy", 4000, 0), ev);
    CHECK(r == CUDA_SUCCESS, "cuEventDestroy_v2 = %d", (int)r);
    return failures;
}

/* Calls cuCtxSynchronize at 2000 and 13000; prints the context for the log grep. */
static int check_ctxsync(void)
{
    init_or_die();
    CUcontext c0 = primary_current(0);
    CUcontext c1 = NULL;
    CUresult r = CALL(CUresult(*)(CUcontext *, CUdevice), resolve("cuDevicePrimaryCtxRetain", 7000, 0), &c1, 1);
    CHECK(r == CUDA_SUCCESS, "retain dev 1 = %d", (int)r);
    r = CALL(CUresult(*)(void), resolve("cuCtxSynchronize", 2000, 0));
    CHECK(r == CUDA_SUCCESS, "cuCtxSynchronize = %d", (int)r);
    r = CALL(CUresult(*)(CUcontext), resolve("cuCtxSynchronize", 13000, 0), c1);
    CHECK(r == CUDA_SUCCESS, "cuCtxSynchronize_v2 = %d", (int)r);
    CUdevice d = -1;
    r = CALL(CUresult(*)(CUdevice *, CUcontext), resolve("cuCtxGetDevice", 13000, 0), &d, c1);
    CHECK(r == CUDA_SUCCESS && d == 1, "cuCtxGetDevice_v2(ctx of dev 1) = %d dev %d", (int)r, d);
    r = CALL(CUresult(*)(CUdevice *), resolve("cuCtxGetDevice", 2000, 0), &d);
    CHECK(r == CUDA_SUCCESS && d == 0, "cuCtxGetDevice = %d dev %d", (int)r, d);
    printf("ctx0=%p ctx1=%p\n", (void *)c0, (void *)c1);
    return failures;
}

static int check_uuid(void)
{
    init_or_die();
    int n = 0;
    CUresult r = CALL(CUresult(*)(int *), resolve("cuDeviceGetCount", 2000, 0), &n);
    CHECK(r == CUDA_SUCCESS && n > 0, "count");
    void *gu = resolve("cuDeviceGetUuid", 11040, 0), *gu1 = resolve("cuDeviceGetUuid", 9020, 0);
    void *gb = resolve("cuDeviceGetPCIBusId", 4010, 0);
    for (int d = 0; d < n; d++) {
        CUuuid u, u1;
        char bus[32] = "";
        r = CALL(CUresult(*)(CUuuid *, CUdevice), gu, &u, d);
        CHECK(r == CUDA_SUCCESS, "uuid dev %d = %d", d, (int)r);
        r = CALL(CUresult(*)(CUuuid *, CUdevice), gu1, &u1, d);
        CHECK(r == CUDA_SUCCESS && memcmp(&u, &u1, sizeof u) == 0, "legacy uuid dev %d differs", d);
        r = CALL(CUresult(*)(char *, int, CUdevice), gb, bus, (int)sizeof bus, d);
        CHECK(r == CUDA_SUCCESS, "bus id dev %d = %d", d, (int)r);
        printf("dev%d ", d);
        for (int i = 0; i < 16; i++)
            printf("%02x", (unsigned char)u.bytes[i]);
        printf(" %s\n", bus);
    }
    return failures;
}

static int child_status(pid_t pid)
{
    int ws = 0;
    if (waitpid(pid, &ws, 0) != pid)
        return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static int check_fork(void)
{
    typedef CUresult (*cnt_t)(int *);
    void *init = resolve("cuInit", 2000, 0), *cnt = resolve("cuDeviceGetCount", 2000, 0);
    void *errname = resolve("cuGetErrorName", 6000, 0);

    /* fork before any cuInit: the child may initialize normally */
    pid_t pid = fork();
    if (pid == 0)
        _exit(CALL(init_t, init, 0) == CUDA_SUCCESS ? 0 : 1);
    CHECK(child_status(pid) == 0, "child forked before init could not cuInit");

    init_or_die();
    int n = 0;
    CHECK(CALL(cnt_t, cnt, &n) == CUDA_SUCCESS && n > 0, "parent count");

    pid = fork();
    if (pid == 0) {
        int bad = 0;
        void *p = NULL;
        const char *s = NULL;
        CUresult a = CALL(init_t, init, 0), b = CALL(cnt_t, cnt, &n), c = gpa("cuInit", &p, 2000, 0, NULL);
        CUresult e = CALL(CUresult(*)(CUresult, const char **), errname, CUDA_ERROR_NOT_INITIALIZED, &s);
        printf("child after init: cuInit=%d cuDeviceGetCount=%d cuGetProcAddress_v2=%d cuGetErrorName(3)=%d %s\n",
               (int)a, (int)b, (int)c, (int)e, s ? s : "(null)");
        bad |= a != CUDA_ERROR_NOT_INITIALIZED || b != CUDA_ERROR_NOT_INITIALIZED;
        bad |= c != CUDA_ERROR_NOT_INITIALIZED || p != NULL;
        /* a grandchild is no better off */
        pid_t g = fork();
        if (g == 0)
            _exit(CALL(init_t, init, 0) == CUDA_ERROR_NOT_INITIALIZED ? 0 : 1);
        bad |= child_status(g) != 0;
        fflush(stdout);
        _exit(bad);
    }
    CHECK(child_status(pid) == 0, "child forked after init did not get CUDA_ERROR_NOT_INITIALIZED");
    CHECK(CALL(cnt_t, cnt, &n) == CUDA_SUCCESS, "parent broken after fork");
    return failures;
}

static int check_preinit(void)
{
    int v = 0, n = 0;
    void *p = NULL;
    const char *s = NULL;
    CUresult r = CALL(CUresult(*)(int *), resolve("cuDeviceGetCount", 2000, 0), &n);
    CHECK(r == CUDA_ERROR_NOT_INITIALIZED, "cuDeviceGetCount before init = %d", (int)r);
    r = CALL(CUresult(*)(CUcontext *), resolve("cuCtxGetCurrent", 4000, 0), (CUcontext *)&p);
    CHECK(r == CUDA_ERROR_NOT_INITIALIZED, "cuCtxGetCurrent before init = %d", (int)r);
    r = CALL(CUresult(*)(CUstream), resolve("cuStreamSynchronize", 2000, 0), NULL);
    CHECK(r == CUDA_ERROR_NOT_INITIALIZED, "cuStreamSynchronize before init = %d", (int)r);
    r = CALL(CUresult(*)(int *), resolve("cuDriverGetVersion", 2020, 0), &v);
    CHECK(r == CUDA_SUCCESS && v == 13000, "cuDriverGetVersion before init = %d (%d)", (int)r, v);
    r = CALL(CUresult(*)(CUresult, const char **), resolve("cuGetErrorString", 6000, 0), CUDA_ERROR_NO_DEVICE, &s);
    CHECK(r == CUDA_SUCCESS && s != NULL, "cuGetErrorString before init = %d", (int)r);
    r = CALL(CUresult(*)(const void **, const CUuuid *), resolve("cuGetExportTable", 3000, 0), (const void **)&p,
             &(CUuuid){{0}});
    CHECK(r == CUDA_ERROR_NOT_SUPPORTED && p == NULL, "cuGetExportTable = %d", (int)r);
    return failures;
}

static int check_init(int expect)
{
    CUresult r = CALL(init_t, resolve("cuInit", 2000, 0), 0);
    int n = -1;
    CUresult rc = CALL(CUresult(*)(int *), resolve("cuDeviceGetCount", 2000, 0), &n);
    printf("cuInit -> %d; cuDeviceGetCount -> %d count=%d\n", (int)r, (int)rc, n);
    CHECK((int)r == expect, "cuInit = %d, expected %d", (int)r, expect);
    CHECK(r == CUDA_SUCCESS ? rc == CUDA_SUCCESS : rc == CUDA_ERROR_NOT_INITIALIZED, "count after init = %d",
          (int)rc);
    return failures;
}

static int check_driver_version(int expect)
{
    int v = 0;
    void *p = NULL;
    CUresult r = CALL(CUresult(*)(int *), resolve("cuDriverGetVersion", 2020, 0), &v);
    CHECK(r == CUDA_SUCCESS && v == expect, "cuDriverGetVersion = %d (%d), expected %d", (int)r, v, expect);
    r = gpa("cuInit", &p, expect, 0, NULL);
    CHECK(r == CUDA_SUCCESS && p != NULL, "gpa at the driver version = %d", (int)r);
    r = gpa("cuInit", &p, expect + 10, 0, NULL);
    CHECK(r == CUDA_ERROR_INVALID_VALUE, "gpa above the driver version = %d", (int)r);
    if (expect < 13000) {
        r = gpa("cuCtxSynchronize", &p, 13000, 0, NULL);
        CHECK(r == CUDA_ERROR_INVALID_VALUE, "cuCtxSynchronize@13000 on a %d driver = %d", expect, (int)r);
    }
    return failures;
}

static int do_hang(const char *what)
{
    if (strcmp(what, "init") == 0) {
        CALL(init_t, resolve("cuInit", 2000, 0), 0);
        return 1; /* not reached */
    }
    init_or_die();
    primary_current(0);
    CUresult r = CUDA_SUCCESS;
    if (strcmp(what, "stream_ptsz") == 0) {
        r = CALL(CUresult(*)(CUstream), resolve("cuStreamSynchronize", 7000, 2), NULL);
    } else if (strcmp(what, "stream") == 0) {
        r = CALL(CUresult(*)(CUstream), resolve("cuStreamSynchronize", 2000, 0), NULL);
    } else if (strcmp(what, "ctx") == 0) {
        r = CALL(CUresult(*)(CUcontext), resolve("cuCtxSynchronize", 13000, 0), NULL);
    } else if (strcmp(what, "event") == 0) {
        CUevent ev = NULL;
        CALL(CUresult(*)(CUevent *, unsigned), resolve("cuEventCreate", 2000, 0), &ev, 0);
        r = CALL(CUresult(*)(CUevent), resolve("cuEventSynchronize", 2000, 0), ev);
    } else if (strcmp(what, "query") == 0) {
        r = CALL(CUresult(*)(CUstream), resolve("cuStreamQuery", 2000, 0), NULL);
        printf("cuStreamQuery -> %d\n", (int)r);
        return r == CUDA_ERROR_NOT_READY ? 0 : 1;
    }
    printf("%s returned %d\n", what, (int)r);
    return 1; /* a hang check that returns has failed */
}

static int check_errors(void)
{
    typedef CUresult (*e_t)(CUresult, const char **);
    void *en = resolve("cuGetErrorName", 6000, 0), *es = resolve("cuGetErrorString", 6000, 0);
    static const struct {
        int code;
        const char *name;
    } want[] = {{0, "CUDA_SUCCESS"},
                {1, "CUDA_ERROR_INVALID_VALUE"},
                {3, "CUDA_ERROR_NOT_INITIALIZED"},
                {34, "CUDA_ERROR_STUB_LIBRARY"},
                {35, "CUDA_ERROR_INSUFFICIENT_DRIVER"},
                {100, "CUDA_ERROR_NO_DEVICE"},
                {101, "CUDA_ERROR_INVALID_DEVICE"},
                {201, "CUDA_ERROR_INVALID_CONTEXT"},
                {999, "CUDA_ERROR_UNKNOWN"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *n = NULL, *s = NULL;
        CUresult a = CALL(e_t, en, (CUresult)want[i].code, &n), b = CALL(e_t, es, (CUresult)want[i].code, &s);
        CHECK(a == CUDA_SUCCESS && n && strcmp(n, want[i].name) == 0, "name(%d) = %s", want[i].code, n ? n : "NULL");
        CHECK(b == CUDA_SUCCESS && s && *s, "string(%d)", want[i].code);
    }
    const char *n = (const char *)1;
    CUresult a = CALL(e_t, en, (CUresult)12345, &n);
    CHECK(a == CUDA_ERROR_INVALID_VALUE && n == NULL, "unknown error code = %d", (int)a);
    return failures;
}

struct thr_arg {
    void *getcur;
    CUcontext seen;
    CUresult r;
};

static void *thr_main(void *p)
{
    struct thr_arg *a = p;
    a->r = CALL(CUresult(*)(CUcontext *), a->getcur, &a->seen);
    return NULL;
}

static int check_contexts(void)
{
    init_or_die();
    void *retain = resolve("cuDevicePrimaryCtxRetain", 7000, 0);
    void *getcur = resolve("cuCtxGetCurrent", 4000, 0);
    typedef CUresult (*rt_t)(CUcontext *, CUdevice);
    CUcontext a = NULL, b = NULL, c = NULL, cur = NULL;
    CHECK(CALL(rt_t, retain, &a, 0) == CUDA_SUCCESS && CALL(rt_t, retain, &b, 0) == CUDA_SUCCESS && a == b,
          "primary context not unique per device");
    CHECK(CALL(rt_t, retain, &c, 1) == CUDA_SUCCESS && c != a, "devices share a primary context");
    CHECK(CALL(rt_t, retain, &c, 2) == CUDA_ERROR_INVALID_DEVICE, "device 2 of 2 accepted");
    CHECK(CALL(CUresult(*)(CUcontext *), getcur, &cur) == CUDA_SUCCESS && cur == NULL, "current before set");
    CHECK(CALL(CUresult(*)(CUcontext), resolve("cuCtxSetCurrent", 4000, 0), a) == CUDA_SUCCESS, "set current");
    CHECK(CALL(CUresult(*)(CUcontext *), getcur, &cur) == CUDA_SUCCESS && cur == a, "current after set");

    struct thr_arg ta = {getcur, (CUcontext)1, (CUresult)-1};
    pthread_t t;
    pthread_create(&t, NULL, thr_main, &ta);
    pthread_join(t, NULL);
    CHECK(ta.r == CUDA_SUCCESS && ta.seen == NULL, "current context leaked to another thread");

    CUcontext made = NULL;
    CUresult r = CALL(CUresult(*)(CUcontext *, CUctxCreateParams *, unsigned, CUdevice),
                      resolve("cuCtxCreate", 12050, 0), &made, NULL, 0, 1);
    CHECK(r == CUDA_SUCCESS && made != NULL, "cuCtxCreate_v4 = %d", (int)r);
    CUdevice d = -1;
    CHECK(CALL(CUresult(*)(CUdevice *), resolve("cuCtxGetDevice", 2000, 0), &d) == CUDA_SUCCESS && d == 1,
          "created context not current / wrong device %d", d);
    CHECK(CALL(CUresult(*)(CUcontext), resolve("cuCtxDestroy", 4000, 0), made) == CUDA_SUCCESS, "destroy");
    CHECK(CALL(CUresult(*)(CUcontext *), getcur, &cur) == CUDA_SUCCESS && cur == a, "current after destroy");
    CHECK(CALL(CUresult(*)(CUcontext), resolve("cuCtxDestroy", 4000, 0), a) == CUDA_ERROR_INVALID_CONTEXT,
          "destroying a primary context accepted");
    CHECK(CALL(CUresult(*)(CUdevice), resolve("cuDevicePrimaryCtxRelease", 11000, 0), 0) == CUDA_SUCCESS,
          "release");
    CUstream s = NULL;
    r = CALL(CUresult(*)(CUstream *, unsigned), resolve("cuStreamCreate", 2000, 0), &s, 0);
    CHECK(r == CUDA_SUCCESS && s != NULL, "cuStreamCreate = %d", (int)r);
    r = CALL(CUresult(*)(CUstream), resolve("cuStreamSynchronize", 7000, 2), s);
    CHECK(r == CUDA_SUCCESS, "cuStreamSynchronize_ptsz(created stream) = %d", (int)r);
    r = CALL(CUresult(*)(CUstream), resolve("cuStreamDestroy", 4000, 0), s);
    CHECK(r == CUDA_SUCCESS, "cuStreamDestroy_v2 = %d", (int)r);
    size_t mem = 0;
    r = CALL(CUresult(*)(size_t *, CUdevice), resolve("cuDeviceTotalMem", 3020, 0), &mem, 0);
    CHECK(r == CUDA_SUCCESS && mem > 0, "cuDeviceTotalMem_v2 = %d", (int)r);
    char name[64] = "";
    r = CALL(CUresult(*)(char *, int, CUdevice), resolve("cuDeviceGetName", 2000, 0), name, (int)sizeof name, 1);
    CHECK(r == CUDA_SUCCESS && name[0], "cuDeviceGetName = %d", (int)r);
    int cc = 0;
    r = CALL(CUresult(*)(int *, CUdevice_attribute, CUdevice), resolve("cuDeviceGetAttribute", 2000, 0), &cc,
             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
    CHECK(r == CUDA_SUCCESS && cc >= 7, "compute capability = %d", cc);
    return failures;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr,
                "usage: %s path/to/libcuda.so.1 CHECK [arg]\n"
                "checks: gpa variants ptsz ctxsync uuid fork preinit errors contexts\n"
                "        init EXPECTED | driver_version EXPECTED | hang init|stream|stream_ptsz|ctx|event|query\n",
                argv[0]);
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen(%s): %s\n", argv[1], dlerror());
        return 2;
    }
    gpa = (gpa5_t)sym("cuGetProcAddress_v2");
    const char *c = argv[2];
    const char *arg = argc > 3 ? argv[3] : "";
    int rc;
    if (strcmp(c, "gpa") == 0)
        rc = check_gpa();
    else if (strcmp(c, "variants") == 0)
        rc = check_variants();
    else if (strcmp(c, "ptsz") == 0)
        rc = check_ptsz();
    else if (strcmp(c, "ctxsync") == 0)
        rc = check_ctxsync();
    else if (strcmp(c, "uuid") == 0)
        rc = check_uuid();
    else if (strcmp(c, "fork") == 0)
        rc = check_fork();
    else if (strcmp(c, "preinit") == 0)
        rc = check_preinit();
    else if (strcmp(c, "errors") == 0)
        rc = check_errors();
    else if (strcmp(c, "contexts") == 0)
        rc = check_contexts();
    else if (strcmp(c, "init") == 0)
        rc = check_init(atoi(arg));
    else if (strcmp(c, "driver_version") == 0)
        rc = check_driver_version(atoi(arg));
    else if (strcmp(c, "hang") == 0)
        rc = do_hang(arg);
    else {
        fprintf(stderr, "unknown check %s\n", c);
        return 2;
    }
    fflush(stdout);
    return rc != 0;
}

#endif
