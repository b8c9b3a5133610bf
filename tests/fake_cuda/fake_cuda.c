// SPDX-License-Identifier: MIT
/*
 * fake_cuda.c: a fake CUDA driver, built as libcuda.so.1, for hangtrace tests on
 * machines without a GPU. It implements the small part of the driver API that the
 * real libcudart and the test programs reach (init, devices, contexts, streams,
 * events, cuGetProcAddress[_v2] with its version and per-thread variants), compiled
 * against the real cuda.h with __CUDA_API_VERSION_INTERNAL so every versioned name
 * (_v2, _v3, _v4, _ptsz) is defined with its exact prototype. Behaviour is set by
 * FAKE_CUDA_* environment variables read once (see the "Configuration" section);
 * FAKE_CUDA_LOG records one line per driver call so tests can see which variant was
 * reached and with what arguments.
 */

#include <cuda.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(__CUDA_API_VERSION_INTERNAL)
#error "build with -D__CUDA_API_VERSION_INTERNAL (see fake_cuda.mk)"
#endif
#if CUDA_VERSION < 13000
#error "fake_cuda.c expects the CUDA 13 cuda.h (cuCtxSynchronize_v2, cuCtxGetDevice_v2)"
#endif

/* How the prototypes match cuda.h 13 under __CUDA_API_VERSION_INTERNAL:
 * - cuda.h:89-260 #define the plain names to their newest ABI (cuCtxCreate ->
 *   cuCtxCreate_v4, cuDeviceGetUuid -> _v2, ...). INTERNAL also defines
 *   __CUDA_API_PER_THREAD_DEFAULT_STREAM, so the main declarations of
 *   cuStreamSynchronize, cuStreamQuery and cuEventRecord become the _ptsz ones.
 * - cuda.h:25407-25830 (#if INTERNAL) #undef those names and declare the older
 *   ABIs under the plain names: cuCtxCreate/_v2 (3 args), _v3 (affinity),
 *   cuDeviceGetUuid, cuDevicePrimaryCtxRelease, the legacy-stream functions and
 *   the 4-argument cuGetProcAddress.
 * Every function below matches its declaration exactly. Not implemented on
 * purpose: the 2000 ABI cuDeviceTotalMem(unsigned int *, CUdevice).
 */

/* cuda.h 13 has no CUresult for 35: it is the runtime's cudaErrorInsufficientDriver.
 * The fake still names it, because cudart and tests print it. */
#define FAKE_ERROR_INSUFFICIENT_DRIVER ((CUresult)35)

#define FAKE_MAX_DEVICES 64
#define FAKE_DEFAULT_DEVICES 2
#define FAKE_DEFAULT_DRIVER_VERSION 13000
#define FAKE_CTX_STACK_MAX 32

#define FAKE_CTX_MAGIC 0x58544346u    /* "FCTX" */
#define FAKE_STREAM_MAGIC 0x4d525453u /* "STRM" */
#define FAKE_EVENT_MAGIC 0x544e5645u  /* "EVNT" */

#if defined(__clang__)
#define FAKE_NOINLINE __attribute__((noinline))
#else
#define FAKE_NOINLINE __attribute__((noinline, noclone))
#endif

/* Where FAKE_CUDA_INIT_HANG / FAKE_CUDA_SYNC_HANG block: exported and never
 * inlined, so a stack walker sees them under the driver call that blocked. */
void fake_cuda_init_wait(void);
void fake_cuda_sync_wait(void);

/* ------------------------------------------------------------------------- */
/* Configuration: read once, at the first call into the library.             */
/*   FAKE_CUDA_DEVICES=N         device count, 0..64 (default 2; 0: cuInit=100) */
/*   FAKE_CUDA_DRIVER_VERSION=N  cuDriverGetVersion and the cuGetProcAddress   */
/*                               version ceiling (default 13000)               */
/*   FAKE_CUDA_INIT_RESULT=N     cuInit returns N                              */
/*   FAKE_CUDA_INIT_HANG=1       cuInit blocks in fake_cuda_init_wait          */
/*   FAKE_CUDA_SYNC_HANG=1       stream/context/event synchronize block in     */
/*                               fake_cuda_sync_wait; cuStreamQuery: NOT_READY  */
/*   FAKE_CUDA_HOST_ID=s         UUID seed with the ordinal (default hostname) */
/*   FAKE_CUDA_LOG=path          one appended line per call                    */
/* Unparsable or out-of-range numbers are ignored (the default applies).     */
/* ------------------------------------------------------------------------- */

static struct {
    int devices;
    int driver_version;
    int init_result_set;
    int init_result;
    int init_hang;
    int sync_hang;
    int log_fd;
    char host_id[256];
} cfg;

static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;

/* 1 and *out set when NAME holds an integer in [lo, hi]; else 0. */
static int env_int_opt(const char *name, int lo, int hi, int *out)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return 0;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

static int env_int(const char *name, int dflt, int lo, int hi)
{
    int v = dflt;
    env_int_opt(name, lo, hi, &v);
    return v;
}

static void cfg_load(void)
{
    cfg.devices = env_int("FAKE_CUDA_DEVICES", FAKE_DEFAULT_DEVICES, 0, FAKE_MAX_DEVICES);
    cfg.driver_version = env_int("FAKE_CUDA_DRIVER_VERSION", FAKE_DEFAULT_DRIVER_VERSION, 0, INT_MAX);
    cfg.init_result_set = env_int_opt("FAKE_CUDA_INIT_RESULT", INT_MIN, INT_MAX, &cfg.init_result);
    cfg.init_hang = env_int("FAKE_CUDA_INIT_HANG", 0, INT_MIN, INT_MAX) != 0;
    cfg.sync_hang = env_int("FAKE_CUDA_SYNC_HANG", 0, INT_MIN, INT_MAX) != 0;

    const char *host = getenv("FAKE_CUDA_HOST_ID");
    if (host != NULL && *host != '\0') {
        snprintf(cfg.host_id, sizeof cfg.host_id, "%s", host);
    } else if (gethostname(cfg.host_id, sizeof cfg.host_id - 1) != 0) {
        snprintf(cfg.host_id, sizeof cfg.host_id, "%s", "unknown-host");
    }
    cfg.host_id[sizeof cfg.host_id - 1] = '\0';

    cfg.log_fd = -1;
    const char *log = getenv("FAKE_CUDA_LOG");
    if (log != NULL && *log != '\0')
        cfg.log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

#define CFG() pthread_once(&cfg_once, cfg_load)

/* ------------------------------------------------------------------------- */
/* Logging: "name pid=N args... -> result [outputs...]", one write(2) a line. */
/* ------------------------------------------------------------------------- */

__attribute__((format(printf, 2, 3)))
static void logline(const char *name, const char *fmt, ...)
{
    if (cfg.log_fd < 0)
        return;
    int saved = errno;
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s pid=%d ", name, (int)getpid());
    if (n < 0 || (size_t)n >= sizeof buf)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = (m < 0) ? (size_t)n : (size_t)n + (size_t)m;
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    buf[len++] = '\n';
    ssize_t w;
    do {
        w = write(cfg.log_fd, buf, len);
    } while (w < 0 && errno == EINTR);
    errno = saved;
}

/* ------------------------------------------------------------------------- */
/* Init / fork state.                                                        */
/* ------------------------------------------------------------------------- */

static atomic_int g_init_ok;      /* a cuInit succeeded in this process */
static atomic_int g_forked_child; /* forked after a successful cuInit */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void atfork_child(void)
{
    if (atomic_load(&g_init_ok) || atomic_load(&g_forked_child))
        atomic_store(&g_forked_child, 1);
}

static void atfork_register(void)
{
    pthread_atfork(NULL, NULL, atfork_child);
}

/* For calls that work before cuInit. */
static CUresult gate_noinit(void)
{
    CFG();
    return atomic_load(&g_forked_child) ? CUDA_ERROR_NOT_INITIALIZED : CUDA_SUCCESS;
}

/* For calls that need a successful cuInit. */
static CUresult gate(void)
{
    CFG();
    if (atomic_load(&g_forked_child) || !atomic_load(&g_init_ok))
        return CUDA_ERROR_NOT_INITIALIZED;
    return CUDA_SUCCESS;
}

FAKE_NOINLINE void fake_cuda_init_wait(void)
{
    for (;;)
        pause();
}

FAKE_NOINLINE void fake_cuda_sync_wait(void)
{
    for (;;)
        pause();
}

/* Logs "-> HANG" and blocks forever when FAKE_CUDA_SYNC_HANG is set. The call is
 * made from each exported function itself so the stack reads
 * fake_cuda_sync_wait <- cuStreamSynchronize_ptsz (or whichever was reached). */
#define SYNC_HANG_POINT(name, fmt, ...)                      \
    do {                                                     \
        if (cfg.sync_hang) {                                 \
            logline(name, fmt " -> HANG", ##__VA_ARGS__);    \
            fake_cuda_sync_wait();                           \
            __asm__ volatile("" ::: "memory");               \
        }                                                    \
    } while (0)

/* ------------------------------------------------------------------------- */
/* Handles.                                                                  */
/* ------------------------------------------------------------------------- */

struct CUctx_st {
    unsigned magic;
    int ordinal;
    int primary;
    unsigned flags;
    int refcount; /* primary contexts only */
};

struct CUstream_st {
    unsigned magic;
    CUcontext ctx;
    unsigned flags;
};

struct CUevent_st {
    unsigned magic;
    CUcontext ctx;
    unsigned flags;
};

static __thread CUcontext tls_ctx_stack[FAKE_CTX_STACK_MAX];
static __thread int tls_ctx_depth;

static pthread_mutex_t g_primary_mu = PTHREAD_MUTEX_INITIALIZER;
static CUcontext g_primary[FAKE_MAX_DEVICES];

static CUcontext cur_ctx(void)
{
    return tls_ctx_depth > 0 ? tls_ctx_stack[tls_ctx_depth - 1] : NULL;
}

static int ctx_ok(CUcontext c)
{
    return c != NULL && c->magic == FAKE_CTX_MAGIC;
}

static int dev_ok(CUdevice d)
{
    return d >= 0 && d < cfg.devices;
}

/* NULL, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD name the default stream, which
 * needs a current context; anything else must be a stream from cuStreamCreate. */
static CUresult stream_check(CUstream s)
{
    if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
        return cur_ctx() != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
    return s->magic == FAKE_STREAM_MAGIC ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult event_check(CUevent e)
{
    return (e != NULL && e->magic == FAKE_EVENT_MAGIC) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult ctx_push(CUcontext c)
{
    if (tls_ctx_depth >= FAKE_CTX_STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    tls_ctx_stack[tls_ctx_depth++] = c;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Initialization and version.                                               */
/* ------------------------------------------------------------------------- */

CUresult CUDAAPI cuInit(unsigned int Flags)
{
    CFG();
    pthread_once(&atfork_once, atfork_register);
    CUresult r;
    if (atomic_load(&g_forked_child)) {
        r = CUDA_ERROR_NOT_INITIALIZED;
    } else if (Flags != 0) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else if (cfg.init_hang) {
        logline("cuInit", "flags=%u -> HANG", Flags);
        fake_cuda_init_wait();
        __asm__ volatile("" ::: "memory");
        r = CUDA_ERROR_UNKNOWN;
    } else if (cfg.init_result_set) {
        r = (CUresult)cfg.init_result;
    } else if (cfg.devices == 0) {
        r = CUDA_ERROR_NO_DEVICE;
    } else {
        r = CUDA_SUCCESS;
    }
    if (r == CUDA_SUCCESS)
        atomic_store(&g_init_ok, 1);
    logline("cuInit", "flags=%u -> %d", Flags, (int)r);
    return r;
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    CUresult r = gate_noinit();
    if (r == CUDA_SUCCESS) {
        if (driverVersion == NULL)
            r = CUDA_ERROR_INVALID_VALUE;
        else
            *driverVersion = cfg.driver_version;
    }
    logline("cuDriverGetVersion", "-> %d version=%d", (int)r, cfg.driver_version);
    return r;
}

/* ------------------------------------------------------------------------- */
/* Devices.                                                                  */
/* ------------------------------------------------------------------------- */

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        if (count == NULL)
            r = CUDA_ERROR_INVALID_VALUE;
        else
            *count = cfg.devices;
    }
    logline("cuDeviceGetCount", "-> %d count=%d", (int)r, r == CUDA_SUCCESS ? cfg.devices : -1);
    return r;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        if (device == NULL)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (!dev_ok(ordinal))
            r = CUDA_ERROR_INVALID_DEVICE;
        else
            *device = ordinal;
    }
    logline("cuDeviceGet", "ordinal=%d -> %d", ordinal, (int)r);
    return r;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        if (name == NULL || len <= 0)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (!dev_ok(dev))
            r = CUDA_ERROR_INVALID_DEVICE;
        else
            snprintf(name, (size_t)len, "Fake CUDA Device %d", dev);
    }
    logline("cuDeviceGetName", "dev=%d len=%d -> %d", dev, len, (int)r);
    return r;
}

static uint64_t fnv1a64(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* Deterministic in (host id, ordinal): same host id and ordinal, same UUID. */
static void make_uuid(CUuuid *u, CUdevice dev)
{
    uint64_t h = fnv1a64(0xcbf29ce484222325ull, cfg.host_id, strlen(cfg.host_id));
    unsigned char sep = 0;
    h = fnv1a64(h, &sep, 1);
    uint32_t ord = (uint32_t)dev;
    unsigned char ob[4] = {(unsigned char)ord, (unsigned char)(ord >> 8), (unsigned char)(ord >> 16),
                           (unsigned char)(ord >> 24)};
    h = fnv1a64(h, ob, sizeof ob);
    uint64_t a = mix64(h ^ 0x1111111111111111ull), b = mix64(h ^ 0x2222222222222222ull);
    for (int i = 0; i < 8; i++) {
        u->bytes[i] = (char)(a >> (8 * i));
        u->bytes[8 + i] = (char)(b >> (8 * i));
    }
}

static CUresult uuid_common(const char *name, CUuuid *uuid, CUdevice dev)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        if (uuid == NULL)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (!dev_ok(dev))
            r = CUDA_ERROR_INVALID_DEVICE;
        else
            make_uuid(uuid, dev);
    }
    char hex[33] = "";
    if (r == CUDA_SUCCESS)
        for (int i = 0; i < 16; i++)
            snprintf(hex + 2 * i, 3, "%02x", (unsigned char)uuid->bytes[i]);
    logline(name, "dev=%d -> %d uuid=%s", dev, (int)r, hex);
    return r;
}

/* Before 11.4 the UUID came from a different (pre-MIG) path; the fake gives the same. */
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return uuid_common("cuDeviceGetUuid", uuid, dev);
}

CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    return uuid_common("cuDeviceGetUuid_v2", uuid, dev);
}

CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        if (pciBusId == NULL || len <= 0)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (!dev_ok(dev))
            r = CUDA_ERROR_INVALID_DEVICE;
        else
            snprintf(pciBusId, (size_t)len, "0000:%02X:00.0", 0x18 + dev);
    }
    logline("cuDeviceGetPCIBusId", "dev=%d len=%d -> %d", dev, len, (int)r);
    return r;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        if (pi == NULL || (int)attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (!dev_ok(dev))
            r = CUDA_ERROR_INVALID_DEVICE;
    }
    if (r == CUDA_SUCCESS) {
        int v; /* loosely an H100-class device; 0 for what the fake does not model */
        switch (attrib) {
        case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: v = 1024; break;
        case CU_DEVICE_ATTRIBUTE_WARP_SIZE: v = 32; break;
        case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: v = 1980000; break;
        case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: v = 132; break;
        case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: v = 0x18 + dev; break;
        case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: v = 0; break;
        case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: v = 0; break;
        case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: v = 1; break;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: v = 9; break;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: v = 0; break;
        case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: v = 1; break;
        case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: v = 1; break;
        default: v = 0; break;
        }
        *pi = v;
    }
    logline("cuDeviceGetAttribute", "attrib=%d dev=%d -> %d value=%d", (int)attrib, dev, (int)r,
            (r == CUDA_SUCCESS) ? *pi : 0);
    return r;
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        if (bytes == NULL)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (!dev_ok(dev))
            r = CUDA_ERROR_INVALID_DEVICE;
        else
            *bytes = (size_t)80 << 30;
    }
    logline("cuDeviceTotalMem_v2", "dev=%d -> %d", dev, (int)r);
    return r;
}

/* ------------------------------------------------------------------------- */
/* Contexts.                                                                 */
/* ------------------------------------------------------------------------- */

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult r = gate();
    CUcontext c = NULL;
    if (r == CUDA_SUCCESS) {
        if (pctx == NULL)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (!dev_ok(dev))
            r = CUDA_ERROR_INVALID_DEVICE;
    }
    if (r == CUDA_SUCCESS) {
        pthread_mutex_lock(&g_primary_mu);
        c = g_primary[dev];
        if (c == NULL) {
            c = calloc(1, sizeof *c);
            if (c != NULL) {
                c->magic = FAKE_CTX_MAGIC;
                c->ordinal = dev;
                c->primary = 1;
                g_primary[dev] = c;
            }
        }
        if (c != NULL)
            c->refcount++;
        pthread_mutex_unlock(&g_primary_mu);
        if (c == NULL)
            r = CUDA_ERROR_OUT_OF_MEMORY;
        else
            *pctx = c;
    }
    logline("cuDevicePrimaryCtxRetain", "dev=%d -> %d ctx=%p", dev, (int)r, (void *)c);
    return r;
}

static CUresult primary_release(const char *name, CUdevice dev)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS && !dev_ok(dev))
        r = CUDA_ERROR_INVALID_DEVICE;
    if (r == CUDA_SUCCESS) {
        pthread_mutex_lock(&g_primary_mu);
        if (g_primary[dev] == NULL || g_primary[dev]->refcount <= 0)
            r = CUDA_ERROR_INVALID_CONTEXT;
        else
            g_primary[dev]->refcount--;
        pthread_mutex_unlock(&g_primary_mu);
    }
    logline(name, "dev=%d -> %d", dev, (int)r);
    return r;
}

/* Version 7000 ABI; identical arguments, kept as its own symbol like the driver. */
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return primary_release("cuDevicePrimaryCtxRelease", dev);
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    return primary_release("cuDevicePrimaryCtxRelease_v2", dev);
}

/* Creates a context and pushes it on the calling thread's stack, as cuCtxCreate does. */
static CUresult ctx_create(CUcontext *pctx, unsigned int flags, CUdevice dev, CUcontext *made)
{
    *made = NULL;
    CUresult r = gate();
    if (r != CUDA_SUCCESS)
        return r;
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    CUcontext c = calloc(1, sizeof *c);
    if (c == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->magic = FAKE_CTX_MAGIC;
    c->ordinal = dev;
    c->flags = flags;
    r = ctx_push(c);
    if (r != CUDA_SUCCESS) {
        free(c);
        return r;
    }
    *pctx = c;
    *made = c;
    return CUDA_SUCCESS;
}

/* cudaVersion 2000 ABI (cuda.h declares it only under __CUDA_API_VERSION_INTERNAL). */
CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    CUcontext c;
    CUresult r = ctx_create(pctx, flags, dev, &c);
    logline("cuCtxCreate", "flags=%u dev=%d -> %d ctx=%p", flags, dev, (int)r, (void *)c);
    return r;
}

/* cudaVersion 3020 ABI: same arguments as cuCtxCreate. */
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    CUcontext c;
    CUresult r = ctx_create(pctx, flags, dev, &c);
    logline("cuCtxCreate_v2", "flags=%u dev=%d -> %d ctx=%p", flags, dev, (int)r, (void *)c);
    return r;
}

/* cudaVersion 11040 ABI: execution-affinity parameters (accepted, ignored). */
CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                                unsigned int flags, CUdevice dev)
{
    CUcontext c = NULL;
    CUresult r = gate();
    if (r == CUDA_SUCCESS && (numParams < 0 || (numParams > 0 && paramsArray == NULL)))
        r = CUDA_ERROR_INVALID_VALUE;
    else if (r == CUDA_SUCCESS)
        r = ctx_create(pctx, flags, dev, &c);
    logline("cuCtxCreate_v3", "numParams=%d flags=%u dev=%d -> %d ctx=%p", numParams, flags, dev, (int)r,
            (void *)c);
    return r;
}

/* cudaVersion 12050 ABI (what plain cuCtxCreate means in CUDA 13 headers). */
CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags,
                                CUdevice dev)
{
    CUcontext c;
    CUresult r = ctx_create(pctx, flags, dev, &c);
    logline("cuCtxCreate_v4", "params=%p flags=%u dev=%d -> %d ctx=%p", (void *)ctxCreateParams, flags, dev,
            (int)r, (void *)c);
    return r;
}

CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS && (!ctx_ok(ctx) || ctx->primary))
        r = CUDA_ERROR_INVALID_CONTEXT;
    if (r == CUDA_SUCCESS) {
        /* Drop it from this thread's stack; other threads keep a dangling handle,
         * as they would with the real driver. */
        int j = 0;
        for (int i = 0; i < tls_ctx_depth; i++)
            if (tls_ctx_stack[i] != ctx)
                tls_ctx_stack[j++] = tls_ctx_stack[i];
        tls_ctx_depth = j;
        ctx->magic = 0;
        free(ctx);
    }
    logline("cuCtxDestroy_v2", "ctx=%p -> %d", (void *)ctx, (int)r);
    return r;
}

CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS)
        r = ctx_ok(ctx) ? ctx_push(ctx) : CUDA_ERROR_INVALID_CONTEXT;
    logline("cuCtxPushCurrent_v2", "ctx=%p -> %d", (void *)ctx, (int)r);
    return r;
}

CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx)
{
    CUresult r = gate();
    CUcontext c = NULL;
    if (r == CUDA_SUCCESS) {
        if (tls_ctx_depth == 0) {
            r = CUDA_ERROR_INVALID_CONTEXT;
        } else {
            c = tls_ctx_stack[--tls_ctx_depth];
            if (pctx != NULL)
                *pctx = c;
        }
    }
    logline("cuCtxPopCurrent_v2", "-> %d ctx=%p", (int)r, (void *)c);
    return r;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        if (ctx == NULL) {
            if (tls_ctx_depth > 0)
                tls_ctx_depth--;
        } else if (!ctx_ok(ctx)) {
            r = CUDA_ERROR_INVALID_CONTEXT;
        } else if (tls_ctx_depth == 0) {
            r = ctx_push(ctx);
        } else {
            tls_ctx_stack[tls_ctx_depth - 1] = ctx;
        }
    }
    logline("cuCtxSetCurrent", "ctx=%p -> %d", (void *)ctx, (int)r);
    return r;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
    CUresult r = gate();
    CUcontext c = cur_ctx();
    if (r == CUDA_SUCCESS) {
        if (pctx == NULL)
            r = CUDA_ERROR_INVALID_VALUE;
        else
            *pctx = c;
    }
    logline("cuCtxGetCurrent", "-> %d ctx=%p", (int)r, (void *)c);
    return r;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
    CUresult r = gate();
    CUcontext c = cur_ctx();
    if (r == CUDA_SUCCESS) {
        if (device == NULL)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (c == NULL)
            r = CUDA_ERROR_INVALID_CONTEXT;
        else
            *device = c->ordinal;
    }
    logline("cuCtxGetDevice", "-> %d device=%d", (int)r, (r == CUDA_SUCCESS) ? c->ordinal : -1);
    return r;
}

/* cudaVersion 13000 ABI: explicit context; NULL means the current one. */
CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    CUresult r = gate();
    CUcontext c = ctx != NULL ? ctx : cur_ctx();
    if (r == CUDA_SUCCESS) {
        if (device == NULL)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (!ctx_ok(c))
            r = CUDA_ERROR_INVALID_CONTEXT;
        else
            *device = c->ordinal;
    }
    logline("cuCtxGetDevice_v2", "ctx=%p -> %d device=%d", (void *)ctx, (int)r,
            (r == CUDA_SUCCESS) ? c->ordinal : -1);
    return r;
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        SYNC_HANG_POINT("cuCtxSynchronize", "ctx=%p", (void *)cur_ctx());
        if (cur_ctx() == NULL)
            r = CUDA_ERROR_INVALID_CONTEXT;
    }
    logline("cuCtxSynchronize", "ctx=%p -> %d", (void *)cur_ctx(), (int)r);
    return r;
}

/* cudaVersion 13000 ABI: synchronizes ctx (NULL: the current context). */
CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        SYNC_HANG_POINT("cuCtxSynchronize_v2", "ctx=%p", (void *)ctx);
        if (!ctx_ok(ctx != NULL ? ctx : cur_ctx()))
            r = CUDA_ERROR_INVALID_CONTEXT;
    }
    logline("cuCtxSynchronize_v2", "ctx=%p -> %d", (void *)ctx, (int)r);
    return r;
}

/* ------------------------------------------------------------------------- */
/* Streams and events. No work is ever queued, so everything is complete,     */
/* except under FAKE_CUDA_SYNC_HANG where nothing ever completes.             */
/* ------------------------------------------------------------------------- */

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    CUresult r = gate();
    CUstream s = NULL;
    if (r == CUDA_SUCCESS) {
        if (phStream == NULL)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (cur_ctx() == NULL)
            r = CUDA_ERROR_INVALID_CONTEXT;
        else if ((s = calloc(1, sizeof *s)) == NULL)
            r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (r == CUDA_SUCCESS) {
        s->magic = FAKE_STREAM_MAGIC;
        s->ctx = cur_ctx();
        s->flags = Flags;
        *phStream = s;
    }
    logline("cuStreamCreate", "flags=%u -> %d stream=%p", Flags, (int)r, (void *)s);
    return r;
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS)
        r = (hStream != NULL && hStream->magic == FAKE_STREAM_MAGIC) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
    if (r == CUDA_SUCCESS) {
        hStream->magic = 0;
        free(hStream);
    }
    logline("cuStreamDestroy_v2", "stream=%p -> %d", (void *)hStream, (int)r);
    return r;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        SYNC_HANG_POINT("cuStreamSynchronize", "stream=%p", (void *)hStream);
        r = stream_check(hStream);
    }
    logline("cuStreamSynchronize", "stream=%p -> %d", (void *)hStream, (int)r);
    return r;
}

CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        SYNC_HANG_POINT("cuStreamSynchronize_ptsz", "stream=%p", (void *)hStream);
        r = stream_check(hStream);
    }
    logline("cuStreamSynchronize_ptsz", "stream=%p -> %d", (void *)hStream, (int)r);
    return r;
}

static CUresult stream_query(CUstream hStream)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS)
        r = stream_check(hStream);
    if (r == CUDA_SUCCESS && cfg.sync_hang)
        r = CUDA_ERROR_NOT_READY;
    return r;
}

CUresult CUDAAPI cuStreamQuery(CUstream hStream)
{
    CUresult r = stream_query(hStream);
    logline("cuStreamQuery", "stream=%p -> %d", (void *)hStream, (int)r);
    return r;
}

CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream)
{
    CUresult r = stream_query(hStream);
    logline("cuStreamQuery_ptsz", "stream=%p -> %d", (void *)hStream, (int)r);
    return r;
}

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    CUresult r = gate();
    CUevent e = NULL;
    if (r == CUDA_SUCCESS) {
        if (phEvent == NULL)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (cur_ctx() == NULL)
            r = CUDA_ERROR_INVALID_CONTEXT;
        else if ((e = calloc(1, sizeof *e)) == NULL)
            r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (r == CUDA_SUCCESS) {
        e->magic = FAKE_EVENT_MAGIC;
        e->ctx = cur_ctx();
        e->flags = Flags;
        *phEvent = e;
    }
    logline("cuEventCreate", "flags=%u -> %d event=%p", Flags, (int)r, (void *)e);
    return r;
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS)
        r = event_check(hEvent);
    if (r == CUDA_SUCCESS) {
        hEvent->magic = 0;
        free(hEvent);
    }
    logline("cuEventDestroy_v2", "event=%p -> %d", (void *)hEvent, (int)r);
    return r;
}

static CUresult event_record(CUevent hEvent, CUstream hStream)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS)
        r = event_check(hEvent);
    if (r == CUDA_SUCCESS)
        r = stream_check(hStream);
    return r;
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
    CUresult r = event_record(hEvent, hStream);
    logline("cuEventRecord", "event=%p stream=%p -> %d", (void *)hEvent, (void *)hStream, (int)r);
    return r;
}

CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent, CUstream hStream)
{
    CUresult r = event_record(hEvent, hStream);
    logline("cuEventRecord_ptsz", "event=%p stream=%p -> %d", (void *)hEvent, (void *)hStream, (int)r);
    return r;
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
    CUresult r = gate();
    if (r == CUDA_SUCCESS) {
        SYNC_HANG_POINT("cuEventSynchronize", "event=%p", (void *)hEvent);
        r = event_check(hEvent);
    }
    logline("cuEventSynchronize", "event=%p -> %d", (void *)hEvent, (int)r);
    return r;
}

/* ------------------------------------------------------------------------- */
/* Errors. These work before cuInit and also in a child forked after init:    */
/* they only map numbers to strings.                                          */
/* ------------------------------------------------------------------------- */

static const struct {
    CUresult code;
    const char *name;
    const char *text;
} err_table[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {FAKE_ERROR_INSUFFICIENT_DRIVER, "CUDA_ERROR_INSUFFICIENT_DRIVER",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static CUresult err_lookup(const char *fn, CUresult error, const char **pStr, int want_name)
{
    CFG();
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    const char *s = NULL;
    for (size_t i = 0; i < sizeof err_table / sizeof err_table[0]; i++) {
        if (err_table[i].code == error) {
            s = want_name ? err_table[i].name : err_table[i].text;
            r = CUDA_SUCCESS;
            break;
        }
    }
    if (pStr == NULL)
        r = CUDA_ERROR_INVALID_VALUE;
    else
        *pStr = s;
    logline(fn, "error=%d -> %d", (int)error, (int)r);
    return r;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    return err_lookup("cuGetErrorName", error, pStr, 1);
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    return err_lookup("cuGetErrorString", error, pStr, 0);
}

/* The private tables cudart asks for are not emulated. */
CUresult CUDAAPI cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    CUresult r = gate_noinit();
    if (r == CUDA_SUCCESS)
        r = CUDA_ERROR_NOT_SUPPORTED;
    if (ppExportTable != NULL)
        *ppExportTable = NULL;
    char hex[33] = "(null)";
    if (pExportTableId != NULL)
        for (int i = 0; i < 16; i++)
            snprintf(hex + 2 * i, 3, "%02x", (unsigned char)pExportTableId->bytes[i]);
    logline("cuGetExportTable", "id=%s -> %d", hex, (int)r);
    return r;
}

/* ------------------------------------------------------------------------- */
/* cuGetProcAddress: one table maps (base name, minimum cudaVersion,          */
/* per-thread) to a function; the highest minimum <= cudaVersion wins.        */
/* Versions are those of the PFN_<name>_v<ver> typedefs in cudaTypedefs.h.    */
/* ------------------------------------------------------------------------- */

struct proc_entry {
    const char *base;
    int minver;
    int ptsz; /* 1: chosen only with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM */
    void *fn;
    const char *name;
};

#define PE(base, ver, ptsz, fn) {base, ver, ptsz, (void *)(fn), #fn}

static const struct proc_entry proc_table[] = {
    PE("cuInit", 2000, 0, cuInit),
    PE("cuDriverGetVersion", 2020, 0, cuDriverGetVersion),
    PE("cuDeviceGet", 2000, 0, cuDeviceGet),
    PE("cuDeviceGetCount", 2000, 0, cuDeviceGetCount),
    PE("cuDeviceGetName", 2000, 0, cuDeviceGetName),
    PE("cuDeviceGetUuid", 9020, 0, cuDeviceGetUuid),
    PE("cuDeviceGetUuid", 11040, 0, cuDeviceGetUuid_v2),
    PE("cuDeviceGetPCIBusId", 4010, 0, cuDeviceGetPCIBusId),
    PE("cuDeviceGetAttribute", 2000, 0, cuDeviceGetAttribute),
    /* The 2000 ABI (unsigned int *bytes) is not implemented: below 3020 -> not found. */
    PE("cuDeviceTotalMem", 3020, 0, cuDeviceTotalMem_v2),
    PE("cuDevicePrimaryCtxRetain", 7000, 0, cuDevicePrimaryCtxRetain),
    PE("cuDevicePrimaryCtxRelease", 7000, 0, cuDevicePrimaryCtxRelease),
    PE("cuDevicePrimaryCtxRelease", 11000, 0, cuDevicePrimaryCtxRelease_v2),
    PE("cuCtxCreate", 2000, 0, cuCtxCreate),
    PE("cuCtxCreate", 3020, 0, cuCtxCreate_v2),
    PE("cuCtxCreate", 11040, 0, cuCtxCreate_v3),
    PE("cuCtxCreate", 12050, 0, cuCtxCreate_v4),
    PE("cuCtxDestroy", 4000, 0, cuCtxDestroy_v2),
    PE("cuCtxPushCurrent", 4000, 0, cuCtxPushCurrent_v2),
    PE("cuCtxPopCurrent", 4000, 0, cuCtxPopCurrent_v2),
    PE("cuCtxSetCurrent", 4000, 0, cuCtxSetCurrent),
    PE("cuCtxGetCurrent", 4000, 0, cuCtxGetCurrent),
    PE("cuCtxGetDevice", 2000, 0, cuCtxGetDevice),
    PE("cuCtxGetDevice", 13000, 0, cuCtxGetDevice_v2),
    PE("cuCtxSynchronize", 2000, 0, cuCtxSynchronize),
    PE("cuCtxSynchronize", 13000, 0, cuCtxSynchronize_v2),
    PE("cuStreamCreate", 2000, 0, cuStreamCreate),
    PE("cuStreamDestroy", 4000, 0, cuStreamDestroy_v2),
    PE("cuStreamSynchronize", 2000, 0, cuStreamSynchronize),
    PE("cuStreamSynchronize", 7000, 1, cuStreamSynchronize_ptsz),
    PE("cuStreamQuery", 2000, 0, cuStreamQuery),
    PE("cuStreamQuery", 7000, 1, cuStreamQuery_ptsz),
    PE("cuEventCreate", 2000, 0, cuEventCreate),
    PE("cuEventDestroy", 4000, 0, cuEventDestroy_v2),
    PE("cuEventRecord", 2000, 0, cuEventRecord),
    PE("cuEventRecord", 7000, 1, cuEventRecord_ptsz),
    PE("cuEventSynchronize", 2000, 0, cuEventSynchronize),
    PE("cuGetErrorString", 6000, 0, cuGetErrorString),
    PE("cuGetErrorName", 6000, 0, cuGetErrorName),
    PE("cuGetExportTable", 3000, 0, cuGetExportTable),
    PE("cuGetProcAddress", 11030, 0, cuGetProcAddress),
    PE("cuGetProcAddress", 12000, 0, cuGetProcAddress_v2),
};

static CUresult proc_resolve(const char *who, int five_args, const char *symbol, void **pfn, int cudaVersion,
                             cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    CUresult r = gate_noinit();
    const struct proc_entry *best = NULL;
    int known = 0;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;

    if (r != CUDA_SUCCESS) {
        if (pfn != NULL)
            *pfn = NULL;
    } else if (symbol == NULL || pfn == NULL || cudaVersion > cfg.driver_version) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        /* PER_THREAD searches the _ptsz variants first and falls back to the
         * legacy ones; DEFAULT (this library is not a per-thread build) and
         * LEGACY search only the legacy ones. */
        int want_ptsz = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
        for (int pass = want_ptsz ? 1 : 0; pass >= 0 && best == NULL; pass--) {
            for (size_t i = 0; i < sizeof proc_table / sizeof proc_table[0]; i++) {
                const struct proc_entry *e = &proc_table[i];
                if (e->ptsz != pass || strcmp(e->base, symbol) != 0)
                    continue;
                known = 1;
                if (e->minver <= cudaVersion && (best == NULL || e->minver > best->minver))
                    best = e;
            }
        }
        *pfn = best != NULL ? best->fn : NULL;
        st = best != NULL ? CU_GET_PROC_ADDRESS_SUCCESS
             : known      ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                          : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        if (symbolStatus != NULL)
            *symbolStatus = st;
    }
    /* status: what was (5 arguments) or would have been (4) reported; -1 on error */
    logline(who, "symbol=\"%.128s\" version=%d flags=%llu -> %d pfn=%s status=%d%s", symbol ? symbol : "(null)",
            cudaVersion, (unsigned long long)flags, (int)r, best != NULL ? best->name : "NULL",
            r == CUDA_SUCCESS ? (int)st : -1, five_args ? "" : " (not written)");
    return r;
}

/* The CUDA 11.3-11.8 ABI: four arguments, so it never touches a fifth one. */
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return proc_resolve("cuGetProcAddress", 0, symbol, pfn, cudaVersion, flags, NULL);
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult *symbolStatus)
{
    return proc_resolve("cuGetProcAddress_v2", 1, symbol, pfn, cudaVersion, flags, symbolStatus);
}
