// SPDX-License-Identifier: MIT
/*
 * nccl_job: one rank of a small NCCL job, linked against (fake) libnccl,
 * launched by mpirun or with RANK/WORLD_SIZE. argv[1] picks what it does:
 *   job          init, ITERS allreduces (rank MISMATCH_RANK broadcasts at
 *                seq 0), a CUDA synchronize when FAKE_CUDA_LIB names a
 *                driver, destroy
 *   nonblocking  ncclCommInitRankConfig with blocking=0, polled with
 *                ncclCommGetAsyncError (ABORT_AFTER_MS: give up, abort)
 *   bcast        init, ITERS ncclBcast
 *   initall      ncclCommInitAll of NDEV comms, one grouped allreduce
 *   group        init inside ncclGroupStart/End, grouped send/recv ring
 *   split        init, ncclCommSplit(color rank%2), allreduce on both
 *   configs      four 1-rank ncclCommInitRankConfig: config NULL, the
 *                initializer (blocking INT_MIN), an older NCCL's shorter
 *                struct, a wrong magic (NCCL refuses it)
 *   ring         init, ITERS allreduces counting mallocs (when the
 *                malloc counter is preloaded), then STALL_S seconds in
 *                stall_after_collectives
 *   idle         init, one allreduce, a CUDA synchronize (steady), then
 *                IDLE_S seconds idle (a rank in steady state)
 *   loop         init, then 700 allreduces a second of LOOP_S, one a
 *                millisecond, never a CUDA synchronize (a healthy loop
 *                whose steady state the library cannot see begin)
 * CUDA_FIRST=1 makes a rank take its device through the driver of
 * FAKE_CUDA_LIB before NCCL (cuInit, cuDeviceGet of LOCAL_RANK,
 * cuDevicePrimaryCtxRetain), as frameworks do at startup.
 * NRANKS overrides the nranks passed to init; OWN_ID=1 makes a rank use an
 * id of its own; LOAD_S=N makes it first spend N seconds in load_checkpoint
 * (a rank late to init). Prints "rank R: ..." lines; exits 0 on success.
 */
#include <dlfcn.h>
#include <poll.h>
#include <stddef.h>

#include "nccl/nccl_test.h"

static char buf[1 << 16];	/* stands in for device memory: the fake never reads it */

#define CHECK(call)                                                                   \
	do {                                                                          \
		ncclResult_t r_ = (call);                                             \
		if (r_ != ncclSuccess) {                                              \
			t_say("%s failed: %d %s (%s)", #call, (int)r_,                \
			      ncclGetErrorString(r_), ncclGetLastError(NULL));       \
			return 3;                                                     \
		}                                                                     \
	} while (0)

static int nranks(void)
{
	return t_env_int("NRANKS", t_world);
}

/* A rank reading its checkpoint before it joins (a straggler when slow). */
__attribute__((noinline)) void load_checkpoint(int secs);
__attribute__((noinline)) void load_checkpoint(int secs)
{
	for (int i = 0; i < secs * 10; i++)
		poll(NULL, 0, 100);
}

static void *cuda_take(void);

static int init(ncclComm_t *comm)
{
	ncclUniqueId id;

	load_checkpoint(t_env_int("LOAD_S", 0));
	if (t_env_int("CUDA_FIRST", 0) == 1 && cuda_take() != NULL)
		t_say("CUDA_TAKEN");
	if (t_get_id(&id, ncclGetUniqueId) != 0)
		return 2;
	t_say("INIT_START");
	CHECK(ncclCommInitRank(comm, nranks(), id, t_rank));
	t_say("INIT_DONE");
	return 0;
}

/* The device LOCAL_RANK (default 0) through the (fake) driver of
 * FAKE_CUDA_LIB: cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain,
 * cuCtxSetCurrent; the driver's handle, or NULL. */
static void *cuda_take(void)
{
	const char *lib = getenv("FAKE_CUDA_LIB");
	if (lib == NULL || *lib == '\0')
		return NULL;
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		return NULL;
	int (*cu_init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
	int (*dev_get)(int *, int) = (int (*)(int *, int))dlsym(h, "cuDeviceGet");
	int (*retain)(void **, int) = (int (*)(void **, int))dlsym(h, "cuDevicePrimaryCtxRetain");
	int (*set)(void *) = (int (*)(void *))dlsym(h, "cuCtxSetCurrent");
	int dev = 0, ordinal = t_env_int("LOCAL_RANK", 0);
	void *ctx = NULL;
	if (cu_init && dev_get && retain && set && cu_init(0) == 0 &&
	    dev_get(&dev, ordinal) == 0 && retain(&ctx, dev) == 0 && set(ctx) == 0)
		return h;
	return NULL;
}

/* A context synchronize on that device, so the cuda family can record
 * `steady` after the collectives. */
static void cuda_sync(void)
{
	void *h = cuda_take();
	int (*sync)(void) = h != NULL ? (int (*)(void))dlsym(h, "cuCtxSynchronize") : NULL;
	if (sync != NULL)
		t_say("CUDA_SYNC %d", sync());
}

static int mode_job(void)
{
	ncclComm_t comm;
	int rc = init(&comm), iters = t_env_int("ITERS", 3), bad = t_env_int("MISMATCH_RANK", -1);

	if (rc != 0)
		return rc;
	for (int i = 0; i < iters; i++) {
		if (i == 0 && t_rank == bad)
			CHECK(ncclBroadcast(buf, buf, 256, ncclFloat32, 0, comm, NULL));
		else
			CHECK(ncclAllReduce(buf, buf, 1024, ncclFloat32, ncclSum, comm, NULL));
		t_say("COLL_DONE %d", i);
	}
	cuda_sync();
	CHECK(ncclCommDestroy(comm));
	t_say("DONE");
	return 0;
}

static int mode_nonblocking(void)
{
	ncclUniqueId id;
	ncclComm_t comm = NULL;
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	ncclResult_t st = ncclInProgress;
	int abort_ms = t_env_int("ABORT_AFTER_MS", -1), waited = 0;

	if (t_get_id(&id, ncclGetUniqueId) != 0)
		return 2;
	cfg.blocking = 0;
	cfg.commName = "ht-nonblocking";
	ncclResult_t r = ncclCommInitRankConfig(&comm, nranks(), id, t_rank, &cfg);
	t_say("INIT_RETURNED %d", (int)r);
	if (r != ncclInProgress && r != ncclSuccess)
		return 3;
	while (st == ncclInProgress) {
		CHECK(ncclCommGetAsyncError(comm, &st));
		if (st != ncclInProgress)
			break;
		if (abort_ms >= 0 && waited >= abort_ms) {
			CHECK(ncclCommAbort(comm));
			t_say("ABORTED");
			return 0;
		}
		t_sleep_ms(10);
		waited += 10;
	}
	if (st != ncclSuccess)
		return 3;
	t_say("INIT_DONE");
	for (int i = 0; i < t_env_int("ITERS", 3); i++)
		CHECK(ncclAllReduce(buf, buf, 64, ncclInt32, ncclMax, comm, NULL));
	CHECK(ncclCommDestroy(comm));
	t_say("DONE");
	return 0;
}

static int mode_bcast(void)
{
	ncclComm_t comm;
	int rc = init(&comm);

	if (rc != 0)
		return rc;
	for (int i = 0; i < t_env_int("ITERS", 3); i++)
		CHECK(ncclBcast(buf, 128, ncclUint8, 0, comm, NULL));
	CHECK(ncclCommDestroy(comm));
	t_say("DONE");
	return 0;
}

static int mode_initall(void)
{
	ncclComm_t comms[8];
	int n = t_env_int("NDEV", 2);

	CHECK(ncclCommInitAll(comms, n, NULL));
	t_say("INIT_DONE");
	CHECK(ncclGroupStart());
	for (int i = 0; i < n; i++)
		CHECK(ncclAllReduce(buf, buf, 16, ncclFloat64, ncclSum, comms[i], NULL));
	CHECK(ncclGroupEnd());
	for (int i = 0; i < n; i++)
		CHECK(ncclCommDestroy(comms[i]));
	t_say("DONE");
	return 0;
}

static int mode_group(void)
{
	ncclUniqueId id;
	ncclComm_t comm;
	int next = (t_rank + 1) % t_world, prev = (t_rank + t_world - 1) % t_world;

	if (t_get_id(&id, ncclGetUniqueId) != 0)
		return 2;
	CHECK(ncclGroupStart());
	CHECK(ncclCommInitRank(&comm, nranks(), id, t_rank));
	t_say("INIT_QUEUED");
	CHECK(ncclGroupEnd());
	t_say("INIT_DONE");
	CHECK(ncclGroupStart());
	CHECK(ncclSend(buf, 32, ncclInt8, next, comm, NULL));
	CHECK(ncclRecv(buf, 32, ncclInt8, prev, comm, NULL));
	CHECK(ncclGroupEnd());
	CHECK(ncclCommDestroy(comm));
	t_say("DONE");
	return 0;
}

static int mode_split(void)
{
	ncclComm_t comm, sub;
	int rc = init(&comm);

	if (rc != 0)
		return rc;
	CHECK(ncclCommSplit(comm, t_rank % 2, t_rank, &sub, NULL));
	CHECK(ncclAllReduce(buf, buf, 8, ncclBfloat16, ncclSum, sub, NULL));
	CHECK(ncclAllReduce(buf, buf, 8, ncclFloat16, ncclProd, comm, NULL));
	CHECK(ncclCommDestroy(sub));
	CHECK(ncclCommDestroy(comm));
	t_say("DONE");
	return 0;
}

static int config_init(ncclConfig_t *cfg, const char *what)
{
	ncclUniqueId id;
	ncclComm_t comm = NULL;

	if (ncclGetUniqueId(&id) != ncclSuccess)
		return 2;
	ncclResult_t r = ncclCommInitRankConfig(&comm, 1, id, 0, cfg);
	t_say("%s: %d", what, (int)r);
	if (r == ncclSuccess)
		ncclCommDestroy(comm);
	return 0;
}

static int mode_configs(void)
{
	ncclConfig_t dflt = NCCL_CONFIG_INITIALIZER, old = NCCL_CONFIG_INITIALIZER,
		     bad = NCCL_CONFIG_INITIALIZER;

	dflt.commName = "dflt";
	/* What a program built against NCCL 2.14 passes: the struct ends
	 * after `blocking`; what lies beyond is not the caller's. */
	old.size = offsetof(ncclConfig_t, blocking) + sizeof(int);
	old.blocking = 1;
	old.commName = "beyond-size";
	bad.magic = 0x12345678;
	bad.blocking = 0;
	bad.commName = "bad-magic";
	return config_init(NULL, "null") || config_init(&dflt, "dflt") ||
	       config_init(&old, "old") || config_init(&bad, "bad");
}

__attribute__((noinline)) void stall_after_collectives(int secs);
__attribute__((noinline)) void stall_after_collectives(int secs)
{
	for (int i = 0; i < secs * 10; i++)
		poll(NULL, 0, 100);
}

static int mode_ring(void)
{
	ncclComm_t comm;
	int rc = init(&comm), iters = t_env_int("ITERS", 10000);
	long (*count)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "ht_test_malloc_count");

	if (rc != 0)
		return rc;
	/* Warm up: the first call of each kind may allocate (lazy binding,
	 * NCCL's own first-use work); the steady state must not. */
	CHECK(ncclAllReduce(buf, buf, 0, ncclInt64, ncclSum, comm, NULL));
	long before = count != NULL ? count() : -1;
	for (int i = 1; i < iters; i++)
		CHECK(ncclAllReduce(buf, buf, (size_t)i, ncclInt64, ncclSum, comm, NULL));
	long after = count != NULL ? count() : -1;
	t_say("MALLOCS %ld", count != NULL ? after - before : -1);
	stall_after_collectives(t_env_int("STALL_S", 0));
	t_say("DONE");
	return 0;
}

static int mode_idle(void)
{
	ncclComm_t comm;
	int rc = init(&comm);

	if (rc != 0)
		return rc;
	CHECK(ncclAllReduce(buf, buf, 1, ncclFloat32, ncclSum, comm, NULL));
	cuda_sync();
	stall_after_collectives(t_env_int("IDLE_S", 0));
	t_say("DONE");
	return 0;
}

static int mode_loop(void)
{
	ncclComm_t comm;
	int rc = init(&comm);
	/* The same count on every rank (each ends its loop on its own: by
	 * the clock, one would issue an allreduce its peer never joins). */
	int n = 700 * t_env_int("LOOP_S", 1);

	if (rc != 0)
		return rc;
	for (int i = 0; i < n; i++) {
		CHECK(ncclAllReduce(buf, buf, sizeof buf / 4, ncclFloat32, ncclSum, comm, NULL));
		t_sleep_ms(1);
	}
	t_say("%d allreduces", n);
	CHECK(ncclCommDestroy(comm));
	t_say("DONE");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "job";

	t_identity();
	if (strcmp(mode, "job") == 0)
		return mode_job();
	if (strcmp(mode, "nonblocking") == 0)
		return mode_nonblocking();
	if (strcmp(mode, "bcast") == 0)
		return mode_bcast();
	if (strcmp(mode, "initall") == 0)
		return mode_initall();
	if (strcmp(mode, "group") == 0)
		return mode_group();
	if (strcmp(mode, "split") == 0)
		return mode_split();
	if (strcmp(mode, "configs") == 0)
		return mode_configs();
	if (strcmp(mode, "ring") == 0)
		return mode_ring();
	if (strcmp(mode, "loop") == 0)
		return mode_loop();
	if (strcmp(mode, "idle") == 0)
		return mode_idle();
	fprintf(stderr, "nccl_job: unknown mode %s\n", mode);
	return 2;
}
