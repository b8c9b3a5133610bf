// SPDX-License-Identifier: MIT
/*
 * selftest.c: the NCCL self-test of `hangtrace check`, "a minimal NCCL
 * script separate from your training code": a one-element all-reduce over
 * every rank, on the GPU the local rank would take. NCCL is reached by
 * dlopen (libnccl.so.2), the device through the driver already loaded by
 * facts.c. It runs on a thread of its own because NCCL may hang; the
 * caller watches ht_chk_nccl_state against its deadline and the process
 * ends with _exit, whatever the thread does.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

struct nccl_id {
	char internal[128];	/* NCCL_UNIQUE_ID_BYTES */
};

typedef int (*id_fn)(struct nccl_id *);
typedef int (*init_fn)(void **, int, struct nccl_id, int);
typedef int (*allreduce_fn)(const void *, void *, size_t, int, int, void *, void *);
typedef const char *(*errstr_fn)(int);
typedef int (*cu_fn1)(void *);
typedef int (*cu_retain_fn)(void **, int);
typedef int (*cu_alloc_fn)(unsigned long long *, size_t);
typedef int (*cu_get_fn)(int *, int);

#define NCCL_INT32 2
#define NCCL_SUM 0

static _Atomic int state;
static char fail_why[200];
static struct chk *me;

static const char *nccl_err(void *h, int r)
{
	errstr_fn f = (errstr_fn)dlsym(h, "ncclGetErrorString");
	return f != NULL ? f(r) : "?";
}

static void fail(const char *what)
{
	ht_strlcpy(fail_why, what, sizeof(fail_why));
	atomic_store(&state, -1);
}

int ht_chk_nccl_id(struct chk *c, char *why, size_t cap)
{
	void *h = ht_chk_libnccl();
	id_fn f = h != NULL ? (id_fn)dlsym(h, "ncclGetUniqueId") : NULL;
	struct nccl_id id;
	if (f == NULL) {
		snprintf(why, cap, "libnccl.so.2 cannot be loaded: %s", h == NULL ? dlerror() : "?");
		return -1;
	}
	int r = f(&id);
	if (r != 0) {
		snprintf(why, cap, "ncclGetUniqueId failed: %d (%s)", r, nccl_err(h, r));
		return -1;
	}
	for (int i = 0; i < 128; i++)
		snprintf(c->nccl_id + 2 * i, 3, "%02x", (unsigned char)id.internal[i]);
	return 0;
}

/* The GPU the local rank takes, made current; a device buffer when the
 * driver can give one (the fake driver cannot: the fake NCCL needs none). */
static int host_buf[2];

static void *device_buffer(void)
{
	void *cu = ht_chk_libcuda();
	if (cu == NULL || !me->f.cuda || me->f.ordinal < 0)
		return host_buf;
	cu_get_fn get = (cu_get_fn)dlsym(cu, "cuDeviceGet");
	cu_retain_fn retain = (cu_retain_fn)dlsym(cu, "cuDevicePrimaryCtxRetain");
	cu_fn1 set = (cu_fn1)dlsym(cu, "cuCtxSetCurrent");
	int (*sync)(void) = (int (*)(void))dlsym(cu, "cuCtxSynchronize");
	cu_alloc_fn alloc = (cu_alloc_fn)dlsym(cu, "cuMemAlloc_v2");
	int dev = 0;
	void *ctx = NULL;
	if (get == NULL || retain == NULL || set == NULL || get(&dev, me->f.ordinal) != 0 ||
	    retain(&ctx, dev) != 0 || set(ctx) != 0)
		return host_buf;
	/* The device must answer before NCCL is asked to use it. */
	if (sync != NULL && sync() != 0)
		return NULL;
	unsigned long long p = 0;
	if (alloc != NULL && alloc(&p, sizeof(host_buf)) == 0)
		return (void *)(uintptr_t)p;
	return host_buf;
}

static void *run(void *arg)
{
	(void)arg;
	void *h = ht_chk_libnccl();
	init_fn init = h != NULL ? (init_fn)dlsym(h, "ncclCommInitRank") : NULL;
	allreduce_fn ar = h != NULL ? (allreduce_fn)dlsym(h, "ncclAllReduce") : NULL;
	cu_fn1 ssync = ht_chk_libcuda() != NULL ?
		(cu_fn1)dlsym(ht_chk_libcuda(), "cuStreamSynchronize") : NULL;
	struct nccl_id id;
	char msg[200];
	void *comm = NULL;

	if (init == NULL || ar == NULL) {
		fail("libnccl.so.2 lacks ncclCommInitRank or ncclAllReduce");
		return NULL;
	}
	for (int i = 0; i < 128; i++) {
		unsigned v = 0;
		sscanf(me->nccl_id + 2 * i, "%2x", &v);
		id.internal[i] = (char)v;
	}
	void *buf = device_buffer();
	if (buf == NULL) {
		fail(": the GPU did not answer cuCtxSynchronize");
		return NULL;
	}
	atomic_store(&state, 1);
	int r = init(&comm, (int)me->id.world_size, id, (int)me->id.rank);
	if (r != 0) {
		snprintf(msg, sizeof(msg), ": ncclCommInitRank returned %d (%s)", r, nccl_err(h, r));
		fail(msg);
		return NULL;
	}
	atomic_store(&state, 2);
	r = ar(buf, buf, 1, NCCL_INT32, NCCL_SUM, comm, NULL);
	if (r != 0) {
		snprintf(msg, sizeof(msg), ": ncclAllReduce returned %d (%s)", r, nccl_err(h, r));
		fail(msg);
		return NULL;
	}
	/* On device memory, the all-reduce ends when the stream does. */
	if (ssync != NULL && buf != host_buf && (r = ssync(NULL)) != 0) {
		snprintf(msg, sizeof(msg), ": cuStreamSynchronize after ncclAllReduce returned %d", r);
		fail(msg);
		return NULL;
	}
	atomic_store(&state, 3);
	return NULL;
}

void ht_chk_nccl_start(struct chk *c)
{
	pthread_t t;
	me = c;
	if (pthread_create(&t, NULL, run, NULL) != 0) {
		fail(": no thread for the self-test");
		return;
	}
	pthread_detach(t);
}

int ht_chk_nccl_state(char *why, size_t cap)
{
	int s = atomic_load(&state);
	if (s < 0)
		ht_strlcpy(why, fail_why, cap);
	return s;
}
