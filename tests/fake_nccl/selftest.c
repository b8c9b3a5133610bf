// SPDX-License-Identifier: MIT
// Selftest program for the fake libnccl.so.2, run by selftest.sh as several processes (env RANK,
// WORLD_SIZE; rank 0 writes the 128-byte ncclUniqueId to $FAKE_ID_FILE, the others wait for it).
// argv[1] picks the scenario (job, allops, groupinit, p2p, split, nonblocking, abort, plt, uid, commid,
// freeport); it prints "rank R: ..." progress lines and dumps its stack (backtrace) on SIGUSR1.
// Built with -DFAKE_NCCL_SHIM the same file is instead an LD_PRELOAD shim that counts calls to
// ncclBroadcast / ncclGetUniqueId / ncclCommGetAsyncError and forwards them to the pnccl symbols.
#ifdef FAKE_NCCL_USE_FALLBACK
#include "nccl_fallback.h"
#else
#include <nccl.h>
#endif

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

enum { CNT_BCAST, CNT_UID, CNT_ASYNC, CNT_N };

#ifdef FAKE_NCCL_SHIM
/* ------------------------------------------------------------------ LD_PRELOAD shim */
static int shim_counts_[CNT_N];

int fake_nccl_shim_counts(int which) { return __atomic_load_n(&shim_counts_[which], __ATOMIC_SEQ_CST); }

#define SHIM_REAL(type, name) \
  static type real;           \
  if (!real) real = (type)dlsym(RTLD_NEXT, name);

ncclResult_t ncclBroadcast(const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c,
                           cudaStream_t st) {
  typedef ncclResult_t (*fn_t)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  SHIM_REAL(fn_t, "pncclBroadcast");
  __atomic_add_fetch(&shim_counts_[CNT_BCAST], 1, __ATOMIC_SEQ_CST);
  return real ? real(s, r, n, t, root, c, st) : ncclInternalError;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  typedef ncclResult_t (*fn_t)(ncclUniqueId *);
  SHIM_REAL(fn_t, "pncclGetUniqueId");
  __atomic_add_fetch(&shim_counts_[CNT_UID], 1, __ATOMIC_SEQ_CST);
  return real ? real(id) : ncclInternalError;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *st) {
  typedef ncclResult_t (*fn_t)(ncclComm_t, ncclResult_t *);
  SHIM_REAL(fn_t, "pncclCommGetAsyncError");
  __atomic_add_fetch(&shim_counts_[CNT_ASYNC], 1, __ATOMIC_SEQ_CST);
  return real ? real(c, st) : ncclInternalError;
}

#else
/* ------------------------------------------------------------------ test program */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int rank_, world_;
static char buf_[1 << 16]; /* stands in for device buffers; the fake never touches them */

static void out(const char *fmt, ...) {
  char line[1200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  printf("rank %d: %s\n", rank_, line);
  fflush(stdout);
}

#define FAIL(...)      \
  do {                 \
    out(__VA_ARGS__);  \
    return 1;          \
  } while (0)

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static int env_int(const char *n, int d) {
  const char *s = getenv(n);
  return (s && *s) ? atoi(s) : d;
}

static void on_usr1(int sig) {
  (void)sig;
  void *bt[64];
  int n = backtrace(bt, 64);
  static const char b[] = "STACK_BEGIN\n", e[] = "STACK_END\n";
  ssize_t w = write(1, b, sizeof b - 1);
  backtrace_symbols_fd(bt, n, 1);
  w = write(1, e, sizeof e - 1);
  (void)w;
}

/* rank 0 creates the id and publishes it atomically; the others wait up to 15 s for the file.
 * OWN_ID=1: this rank makes its own id (another root), i.e. it was handed the wrong id. */
static int get_id(ncclUniqueId *id) {
  const char *path = getenv("FAKE_ID_FILE");
  if (!path) FAIL("FAKE_ID_FILE not set");
  if (env_int("OWN_ID", 0)) return ncclGetUniqueId(id) == ncclSuccess ? 0 : 1;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
  if (rank_ == 0) {
    ncclResult_t rc = ncclGetUniqueId(id);
    if (rc != ncclSuccess) FAIL("ncclGetUniqueId rc=%d", rc);
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(id, sizeof *id, 1, f) != 1 || fclose(f) != 0 || rename(tmp, path) != 0)
      FAIL("cannot write id file %s", path);
    return 0;
  }
  for (int i = 0; i < 1500; i++, sleep_ms(10)) {
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    size_t n = fread(id, sizeof *id, 1, f);
    fclose(f);
    if (n == 1) return 0;
  }
  FAIL("timed out waiting for id file %s", path);
}

static int do_init(ncclComm_t *comm, ncclUniqueId id, int nranks) {
  out("INIT_START nranks %d", nranks);
  double t0 = now_ms();
  ncclResult_t rc = ncclCommInitRank(comm, nranks, id, rank_);
  if (rc != ncclSuccess) {
    out("INIT_FAIL rc=%d (%s) err=%s", rc, ncclGetErrorString(rc), ncclGetLastError(NULL));
    return 3;
  }
  int cnt = -1, r = -1;
  ncclCommCount(*comm, &cnt);
  ncclCommUserRank(*comm, &r);
  if (cnt != nranks || r != rank_) FAIL("count %d rank %d, expected %d %d", cnt, r, nranks, rank_);
  out("INIT_DONE ms=%d", (int)(now_ms() - t0));
  return 0;
}

/* init + ITERS allreduces (rank MISMATCH_RANK calls broadcast at seq 0) + destroy */
static int mode_job(void) {
  ncclUniqueId id;
  ncclComm_t comm;
  if (get_id(&id)) return 1;
  int rc = do_init(&comm, id, env_int("NRANKS", world_));
  if (rc) return rc;
  int iters = env_int("ITERS", 3), bad = env_int("MISMATCH_RANK", -1);
  for (int i = 0; i < iters; i++) {
    ncclResult_t r = (i == 0 && rank_ == bad) ? ncclBroadcast(buf_, buf_, 1024, ncclFloat, 0, comm, NULL)
                                              : ncclAllReduce(buf_, buf_, 1024, ncclFloat, ncclSum, comm, NULL);
    if (r != ncclSuccess) FAIL("collective %d rc=%d err=%s", i, r, ncclGetLastError(comm));
    out("COLL_DONE %d", i);
  }
  if (ncclCommDestroy(comm) != ncclSuccess) FAIL("destroy failed");
  out("DESTROY_DONE");
  return 0;
}

/* every other collective once, error paths, init via ncclCommInitRankScalable, finalize + destroy */
static int mode_allops(void) {
  ncclUniqueId id;
  ncclComm_t comm;
  ncclResult_t r;
  if (get_id(&id)) return 1;
  out("INIT_START nranks %d", world_);
  if ((r = ncclCommInitRankScalable(&comm, world_, rank_, 1, &id, NULL)) != ncclSuccess)
    FAIL("InitRankScalable rc=%d err=%s", r, ncclGetLastError(NULL));
  if (ncclAllReduce(buf_, buf_, 1, ncclFloat, ncclSum, NULL, NULL) != ncclInvalidArgument) FAIL("NULL comm accepted");
  if (ncclBroadcast(buf_, buf_, 1, ncclFloat, world_, comm, NULL) != ncclInvalidArgument) FAIL("bad root accepted");
  if (ncclAllReduce(buf_, buf_, 1, (ncclDataType_t)99, ncclSum, comm, NULL) != ncclInvalidArgument) FAIL("bad type");
  if (ncclGroupEnd() != ncclInvalidUsage) FAIL("ncclGroupEnd without ncclGroupStart accepted");
#define OP(call)                                                                      \
  if ((r = (call)) != ncclSuccess) FAIL("%s rc=%d err=%s", #call, r, ncclGetLastError(comm));
  OP(ncclReduce(buf_, buf_, 32, ncclFloat, ncclMax, 1 % world_, comm, NULL));
  OP(ncclReduceScatter(buf_, buf_, 8, ncclBfloat16, ncclSum, comm, NULL));
  OP(ncclAlltoAll(buf_, buf_, 4, ncclInt64, comm, NULL));
  OP(ncclGather(buf_, buf_, 4, ncclUint8, 0, comm, NULL));
  OP(ncclScatter(buf_, buf_, 4, ncclUint8, 0, comm, NULL));
  OP(ncclAllGather(buf_, buf_, 4, ncclDouble, comm, NULL));
  OP(ncclBcast(buf_, 4, ncclHalf, 0, comm, NULL));
#undef OP
  if (ncclCommFinalize(comm) != ncclSuccess) FAIL("finalize");
  if (ncclAllReduce(buf_, buf_, 1, ncclFloat, ncclSum, comm, NULL) != ncclInvalidUsage) FAIL("use after finalize");
  if (ncclCommDestroy(comm) != ncclSuccess) FAIL("destroy");
  out("ALLOPS_DONE");
  return 0;
}

/* one process drives WORLD_SIZE ranks: ncclCommInitRank inside a group, then grouped allreduces */
static int mode_groupinit(void) {
  ncclUniqueId id;
  ncclComm_t comms[16];
  ncclResult_t r;
  int n = world_ < 16 ? world_ : 16;
  if (ncclGetUniqueId(&id) != ncclSuccess) FAIL("GetUniqueId");
  ncclGroupStart();
  for (int i = 0; i < n; i++)
    if ((r = ncclCommInitRank(&comms[i], n, id, i)) != ncclSuccess) FAIL("grouped init %d rc=%d", i, r);
  if ((r = ncclGroupEnd()) != ncclSuccess) FAIL("init group end rc=%d err=%s", r, ncclGetLastError(NULL));
  for (int it = 0; it < 2; it++) {
    ncclGroupStart();
    for (int i = 0; i < n; i++) ncclAllReduce(buf_, buf_, 16, ncclFloat, ncclSum, comms[i], NULL);
    if ((r = ncclGroupEnd()) != ncclSuccess) FAIL("allreduce group end rc=%d err=%s", r, ncclGetLastError(NULL));
  }
  for (int i = 0; i < n; i++) ncclCommDestroy(comms[i]);
  out("GROUPINIT_DONE %d ranks", n);
  return 0;
}

/* a grouped ring send/recv + allgather, then ungrouped blocking send/recv (even ranks send first) */
static int mode_p2p(void) {
  ncclUniqueId id;
  ncclComm_t comm;
  if (get_id(&id)) return 1;
  int rc = do_init(&comm, id, world_);
  if (rc) return rc;
  int next = (rank_ + 1) % world_, prev = (rank_ + world_ - 1) % world_;
  ncclGroupStart();
  ncclSend(buf_, 256, ncclInt8, next, comm, NULL);
  ncclRecv(buf_, 256, ncclInt8, prev, comm, NULL);
  ncclAllGather(buf_, buf_, 16, ncclInt32, comm, NULL);
  ncclResult_t r = ncclGroupEnd();
  if (r != ncclSuccess) FAIL("group rc=%d err=%s", r, ncclGetLastError(comm));
  out("GROUP_DONE");
  if (rank_ % 2 == 0) {
    r = ncclSend(buf_, 8, ncclInt64, next, comm, NULL);
    if (r == ncclSuccess) r = ncclRecv(buf_, 8, ncclInt64, prev, comm, NULL);
  } else {
    r = ncclRecv(buf_, 8, ncclInt64, prev, comm, NULL);
    if (r == ncclSuccess) r = ncclSend(buf_, 8, ncclInt64, next, comm, NULL);
  }
  if (r != ncclSuccess) FAIL("send/recv rc=%d err=%s", r, ncclGetLastError(comm));
  out("P2P_DONE");
  ncclCommDestroy(comm);
  return 0;
}

/* split by parity with keys reversing the order, then a split where the last rank opts out */
static int mode_split(void) {
  ncclUniqueId id;
  ncclComm_t comm, sub, sub2;
  if (get_id(&id)) return 1;
  int rc = do_init(&comm, id, world_);
  if (rc) return rc;
  int color = rank_ % 2, key = world_ - rank_, expect_n = 0, expect_r = 0;
  for (int r = 0; r < world_; r++)
    if (r % 2 == color) expect_n++, expect_r += (world_ - r) < key;
  ncclResult_t res = ncclCommSplit(comm, color, key, &sub, NULL);
  if (res != ncclSuccess || !sub) FAIL("split rc=%d err=%s", res, ncclGetLastError(comm));
  int n = -1, me = -1;
  ncclCommCount(sub, &n);
  ncclCommUserRank(sub, &me);
  if (n != expect_n || me != expect_r) FAIL("split gave rank %d of %d, expected %d of %d", me, n, expect_r, expect_n);
  if ((res = ncclAllReduce(buf_, buf_, 4, ncclFloat, ncclSum, sub, NULL)) != ncclSuccess)
    FAIL("sub allreduce rc=%d", res);
  res = ncclCommSplit(comm, rank_ == world_ - 1 ? NCCL_SPLIT_NOCOLOR : 7, 0, &sub2, NULL);
  if (res != ncclSuccess) FAIL("split2 rc=%d err=%s", res, ncclGetLastError(comm));
  if ((rank_ == world_ - 1) != (sub2 == NULL)) FAIL("NOCOLOR handling wrong (sub2=%p)", (void *)sub2);
  if (sub2 && ncclAllReduce(buf_, buf_, 4, ncclFloat, ncclSum, sub2, NULL) != ncclSuccess) FAIL("sub2 allreduce");
  if (ncclAllReduce(buf_, buf_, 4, ncclFloat, ncclSum, comm, NULL) != ncclSuccess) FAIL("parent allreduce");
  out("SPLIT_DONE newrank %d of %d", me, n);
  ncclCommDestroy(sub2);
  ncclCommDestroy(sub);
  ncclCommDestroy(comm);
  return 0;
}

static int nb_init(ncclComm_t *comm, ncclUniqueId id, int nranks) {
  ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
  cfg.blocking = 0;
  cfg.commName = "selftest-nb";
  ncclResult_t rc = ncclCommInitRankConfig(comm, nranks, id, rank_, &cfg);
  if (rc != ncclInProgress) FAIL("non-blocking init returned %d, expected ncclInProgress", rc);
  return 0;
}

static int mode_nonblocking(void) {
  ncclUniqueId id;
  ncclComm_t comm;
  ncclResult_t st = ncclInProgress;
  if (get_id(&id) || nb_init(&comm, id, world_)) return 1;
  int polls = 0;
  for (double t0 = now_ms(); st == ncclInProgress && now_ms() - t0 < 15000; polls++, sleep_ms(10))
    if (ncclCommGetAsyncError(comm, &st) != ncclSuccess) FAIL("GetAsyncError failed");
  if (st != ncclSuccess) FAIL("async state %d err=%s", st, ncclGetLastError(comm));
  out("POLLS %d", polls);
  if (ncclAllReduce(buf_, buf_, 64, ncclFloat, ncclSum, comm, NULL) != ncclSuccess) FAIL("allreduce failed");
  ncclCommDestroy(comm);
  out("NB_DONE");
  return 0;
}

/* non-blocking init that can never finish (a missing rank), then ncclCommAbort must return promptly */
static int mode_abort(void) {
  ncclUniqueId id;
  ncclComm_t comm;
  ncclResult_t st;
  if (get_id(&id) || nb_init(&comm, id, world_)) return 1;
  sleep_ms(300);
  ncclCommGetAsyncError(comm, &st);
  if (st != ncclInProgress) FAIL("state %d after 300 ms, expected in progress", st);
  double t0 = now_ms();
  if (ncclCommAbort(comm) != ncclSuccess) FAIL("abort failed");
  if (now_ms() - t0 > 1000) FAIL("abort took %d ms", (int)(now_ms() - t0));
  out("ABORT_DONE ms=%d", (int)(now_ms() - t0));
  return 0;
}

/* needs the shim preloaded: library-internal calls must reach the shim's ncclX through the PLT */
static int mode_plt(void) {
  int (*cnt)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "fake_nccl_shim_counts");
  if (!cnt) FAIL("shim not preloaded");
  ncclComm_t comms[2];
  int devs[2] = {0, 1}, dev = -1;
  int u0 = cnt(CNT_UID);
  ncclResult_t rc = ncclCommInitAll(comms, 2, devs);
  if (rc != ncclSuccess) FAIL("InitAll rc=%d err=%s", rc, ncclGetLastError(NULL));
  if (cnt(CNT_UID) - u0 != 1) FAIL("ncclCommInitAll -> ncclGetUniqueId seen %d times, expected 1", cnt(CNT_UID) - u0);
  ncclCommCuDevice(comms[1], &dev);
  if (dev != 1) FAIL("CuDevice %d", dev);
  int b0 = cnt(CNT_BCAST);
  ncclGroupStart();
  ncclBcast(buf_, 8, ncclInt, 0, comms[0], NULL);
  ncclBcast(buf_, 8, ncclInt, 0, comms[1], NULL);
  if ((rc = ncclGroupEnd()) != ncclSuccess) FAIL("group bcast rc=%d", rc);
  if (cnt(CNT_BCAST) - b0 != 2) FAIL("ncclBcast -> ncclBroadcast seen %d times, expected 2", cnt(CNT_BCAST) - b0);
  int a0 = cnt(CNT_ASYNC);
  ncclGroupStart();
  ncclAllReduce(buf_, buf_, 8, ncclInt, ncclSum, comms[0], NULL);
  ncclAllReduce(buf_, buf_, 8, ncclInt, ncclSum, comms[1], NULL);
  if (ncclGroupEnd() != ncclSuccess) FAIL("blocking allreduce");
  ncclCommDestroy(comms[0]);
  ncclCommDestroy(comms[1]);
  if (cnt(CNT_ASYNC) != a0) FAIL("blocking comm called ncclCommGetAsyncError");
  ncclUniqueId id;
  ncclComm_t nb;
  ncclResult_t st = ncclInProgress;
  if (pncclGetUniqueId(&id) != ncclSuccess || nb_init(&nb, id, 1)) FAIL("nb init");
  for (int i = 0; i < 1000 && st == ncclInProgress; i++, sleep_ms(5)) pncclCommGetAsyncError(nb, &st);
  if (st != ncclSuccess) FAIL("nb state %d", st);
  a0 = cnt(CNT_ASYNC);
  if (ncclAllReduce(buf_, buf_, 8, ncclInt, ncclSum, nb, NULL) != ncclSuccess) FAIL("nb allreduce");
  if (cnt(CNT_ASYNC) - a0 < 1) FAIL("non-blocking enqueue did not call ncclCommGetAsyncError via the PLT");
  ncclCommDestroy(nb);
  out("PLT_OK uid=%d bcast=%d async=%d", cnt(CNT_UID), cnt(CNT_BCAST), cnt(CNT_ASYNC));
  return 0;
}

static int port_listening(int port, int v6) {
  FILE *f = fopen(v6 ? "/proc/net/tcp6" : "/proc/net/tcp", "r");
  char line[512];
  int found = 0;
  if (!f) return -1;
  while (fgets(line, sizeof line, f)) {
    unsigned lport, state;
    if (sscanf(line, " %*d: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x", &lport, &state) == 2 && (int)lport == port &&
        state == 0x0A)
      found = 1;
  }
  fclose(f);
  return found;
}

static const char *const api_names[] = {
    "ncclGetVersion", "ncclGetUniqueId", "ncclCommInitRank", "ncclCommInitRankConfig", "ncclCommInitRankScalable",
    "ncclCommInitAll", "ncclCommSplit", "ncclCommGetAsyncError", "ncclCommDestroy", "ncclCommAbort",
    "ncclCommFinalize", "ncclCommCount", "ncclCommUserRank", "ncclCommCuDevice", "ncclGetErrorString",
    "ncclGetLastError", "ncclGroupStart", "ncclGroupEnd", "ncclAllReduce", "ncclBroadcast", "ncclBcast",
    "ncclReduce", "ncclAllGather", "ncclReduceScatter", "ncclAlltoAll", "ncclGather", "ncclScatter", "ncclSend",
    "ncclRecv"};

/* the id layout, the listening root, aliases, version, thread name */
static int mode_uid(void) {
  int v6 = env_int("EXPECT_FAMILY", 4) == 6, ver = 0;
  void *h = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD);
  if (!h) FAIL("libnccl.so.2 not loaded");
  for (size_t i = 0; i < sizeof api_names / sizeof *api_names; i++) {
    char p[64];
    snprintf(p, sizeof p, "p%s", api_names[i]);
    void *a = dlsym(h, api_names[i]), *b = dlsym(h, p);
    if (!a || a != b) FAIL("%s=%p %s=%p: not aliases", api_names[i], a, p, b);
  }
  if (ncclGetVersion(&ver) != ncclSuccess || ver != env_int("FAKE_NCCL_VERSION", 22809)) FAIL("version %d", ver);
  if (strcmp(ncclGetErrorString(ncclInProgress), "NCCL operation in progress")) FAIL("error string");
  ncclUniqueId id;
  ncclResult_t rc = ncclGetUniqueId(&id);
  if (rc != ncclSuccess) {
    out("SKIP ncclGetUniqueId rc=%d err=%s", rc, ncclGetLastError(NULL));
    return v6 ? 77 : 1;
  }
  const unsigned char *u = (const unsigned char *)id.internal;
  uint64_t magic;
  sa_family_t fam;
  memcpy(&magic, u, 8);
  memcpy(&fam, u + 8, sizeof fam);
  if (magic == 0 || magic == 0x0280028002800280ULL) FAIL("magic 0x%016llx is not random", (unsigned long long)magic);
  char ip[INET6_ADDRSTRLEN] = "";
  int port = 0;
  size_t end;
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  if (!v6 && fam == AF_INET) {
    struct sockaddr_in sin;
    memcpy(&sin, u + 8, sizeof sin);
    inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof ip);
    port = ntohs(sin.sin_port), end = 8 + sizeof sin;
    memcpy(&ss, &sin, sizeof sin);
  } else if (v6 && fam == AF_INET6) {
    struct sockaddr_in6 sin6;
    memcpy(&sin6, u + 8, sizeof sin6);
    inet_ntop(AF_INET6, &sin6.sin6_addr, ip, sizeof ip);
    port = ntohs(sin6.sin6_port), end = 8 + sizeof sin6;
    memcpy(&ss, &sin6, sizeof sin6);
  } else {
    FAIL("family %d", fam);
  }
  if (strcmp(ip, v6 ? "::1" : "127.0.0.1") || port == 0) FAIL("root %s:%d", ip, port);
  for (size_t i = end; i < sizeof id.internal; i++)
    if (u[i]) FAIL("byte %zu of the id is nonzero", i);
  if (port_listening(port, v6) != 1) FAIL("port %d is not in LISTEN state", port);
  int fd = socket(fam, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&ss, v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in)))
    FAIL("connect to root: %s", strerror(errno));
  close(fd);
  if (env_int("NCCL_SET_THREAD_NAME", 0) == 1) {
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int named = 0;
    while (d && (e = readdir(d))) {
      char p[300], name[32] = "";
      snprintf(p, sizeof p, "/proc/self/task/%s/comm", e->d_name);
      FILE *f = fopen(p, "r");
      if (f && fgets(name, sizeof name, f) && !strcmp(name, "NCCL BootstrapR\n")) named = 1;
      if (f) fclose(f);
    }
    if (d) closedir(d);
    if (!named) FAIL("no thread named 'NCCL BootstrapR'");
  }
  out("UID_OK magic=0x%016llx root=%s%s%s:%d", (unsigned long long)magic, v6 ? "[" : "", ip, v6 ? "]" : "", port);
  return 0;
}

/* NCCL_COMM_ID: every rank computes the same id; nobody listens until rank 0 inits */
static int mode_commid(void) {
  const char *env = getenv("NCCL_COMM_ID");
  if (!env) FAIL("NCCL_COMM_ID not set");
  ncclUniqueId id;
  ncclComm_t comm;
  if (ncclGetUniqueId(&id) != ncclSuccess) FAIL("GetUniqueId: %s", ncclGetLastError(NULL));
  uint64_t magic;
  struct sockaddr_in sin;
  char ip[INET_ADDRSTRLEN], want[64];
  memcpy(&magic, id.internal, 8);
  memcpy(&sin, id.internal + 8, sizeof sin);
  inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof ip);
  snprintf(want, sizeof want, "%s:%d", ip, ntohs(sin.sin_port));
  if (magic != 0x0280028002800280ULL || sin.sin_family != AF_INET || strcmp(want, env))
    FAIL("id magic 0x%016llx addr %s, expected NCCL_MAGIC %s", (unsigned long long)magic, want, env);
  if (port_listening(ntohs(sin.sin_port), 0) != 0) FAIL("something listens on %s before init", env);
  int rc = do_init(&comm, id, world_);
  if (rc) return rc;
  if (ncclAllReduce(buf_, buf_, 4, ncclFloat, ncclSum, comm, NULL) != ncclSuccess) FAIL("allreduce");
  ncclCommDestroy(comm);
  out("COMMID_DONE");
  return 0;
}

static int mode_freeport(void) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || getsockname(fd, (struct sockaddr *)&a, &len)) return 1;
  printf("%d\n", ntohs(a.sin_port));
  close(fd);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s job|allops|groupinit|p2p|split|nonblocking|abort|plt|uid|commid|freeport\n", argv[0]);
    return 2;
  }
  rank_ = env_int("RANK", 0);
  world_ = env_int("WORLD_SIZE", 1);
  void *warm[1];
  backtrace(warm, 1); /* load libgcc_s now, not inside the signal handler */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, NULL);
  alarm(60); /* never outlive a broken test harness */
  const char *m = argv[1];
  if (!strcmp(m, "job")) return mode_job();
  if (!strcmp(m, "p2p")) return mode_p2p();
  if (!strcmp(m, "allops")) return mode_allops();
  if (!strcmp(m, "groupinit")) return mode_groupinit();
  if (!strcmp(m, "split")) return mode_split();
  if (!strcmp(m, "nonblocking")) return mode_nonblocking();
  if (!strcmp(m, "abort")) return mode_abort();
  if (!strcmp(m, "plt")) return mode_plt();
  if (!strcmp(m, "uid")) return mode_uid();
  if (!strcmp(m, "commid")) return mode_commid();
  if (!strcmp(m, "freeport")) return mode_freeport();
  fprintf(stderr, "unknown mode %s\n", m);
  return 2;
}
#endif
