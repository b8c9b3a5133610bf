// SPDX-License-Identifier: MIT
// The NCCL API of the fake libnccl.so.2 used by hangtrace's tests: it hangs like real NCCL without a GPU.
// Every function is exported as a strong pncclX plus a weak ncclX alias (NCCL's PROFAPI layout), and
// ncclBcast, ncclCommInitAll and non-blocking enqueues call ncclBroadcast, ncclGetUniqueId and
// ncclCommGetAsyncError through the PLT, as real NCCL does. Init and every collective/p2p call block in
// a real recv() on the TCP connection to the bootstrap root (fake_nccl_boot.c) until all ranks agree.
#include "fake_nccl_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Same shape as NCCL's src/include/core.h: strong pncclX aliasing the weak, default-visibility ncclX. */
#define NCCL_API(ret, func, args...)                                                         \
  __attribute__((visibility("default"))) __attribute__((alias(#func))) ret p##func(args); \
  __attribute__((visibility("default"))) __attribute__((weak)) ret func(args)

#define UNUSED(x) (void)(x)

/* ------------------------------------------------------------------ communicators */

static bool comm_ok(const struct ncclComm *c) { return c && c->cookie == FN_COMM_COOKIE; }

#define CHECK_COMM(c, fn)                                                              \
  do {                                                                                 \
    if (!comm_ok(c)) {                                                                 \
      fn_set_error("%s : comm %p is not a valid communicator", fn, (const void *)(c)); \
      return ncclInvalidArgument;                                                      \
    }                                                                                  \
  } while (0)

#define CHECK_PTR(p, fn, what)                           \
  do {                                                   \
    if (!(p)) {                                          \
      fn_set_error("%s : %s argument is NULL", fn, what); \
      return ncclInvalidArgument;                        \
    }                                                    \
  } while (0)

static int default_dev(void) { return fn_env_int("LOCAL_RANK", 0); }

static struct ncclComm *comm_alloc(int nranks, int rank, int dev, int blocking) {
  struct ncclComm *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->send_seq = calloc((size_t)nranks, sizeof *c->send_seq);
  c->recv_seq = calloc((size_t)nranks, sizeof *c->recv_seq);
  if (!c->send_seq || !c->recv_seq) {
    free(c->send_seq);
    free(c->recv_seq);
    free(c);
    return NULL;
  }
  c->cookie = FN_COMM_COOKIE;
  c->nranks = nranks;
  c->rank = rank;
  c->cudaDev = dev;
  c->blocking = blocking;
  c->fd = -1;
  atomic_init(&c->state, ncclInProgress);
  atomic_init(&c->abort, false);
  pthread_mutex_init(&c->lock, NULL);
  return c;
}

/* Stop a background init: unblock it (abort) if it is still running, then join it. */
static void comm_stop_init(struct ncclComm *c, bool abort) {
  if (!c->init_thread_live) return;
  if (abort || atomic_load(&c->state) == ncclInProgress) {
    atomic_store(&c->abort, true);
    pthread_mutex_lock(&c->lock);
    if (c->fd >= 0) shutdown(c->fd, SHUT_RDWR);
    pthread_mutex_unlock(&c->lock);
  }
  pthread_join(c->init_thread, NULL);
  c->init_thread_live = false;
}

static void comm_close_free(struct ncclComm *c) {
  comm_stop_init(c, false);
  if (c->fd >= 0) close(c->fd); /* the root sees EOF; it exits after every rank closed */
  c->fd = -1;
  c->cookie = 0;
  pthread_mutex_destroy(&c->lock);
  free(c->send_seq);
  free(c->recv_seq);
  free(c);
}

static ncclResult_t comm_bootstrap(struct ncclComm *c) {
  int delay = fn_env_int("FAKE_NCCL_INIT_DELAY_MS", 0);
  if (delay > 0) fn_sleep_ms(delay, &c->abort);
  uint64_t magic;
  union fn_sockaddr root;
  if (fn_id_decode(&c->id, &magic, &root) != 0) {
    fn_set_error("%s : invalid ncclUniqueId (no root address)", c->func);
    return ncclInvalidArgument;
  }
  c->magic = magic;
  char rs[80];
  fn_addr_str(&root, rs, sizeof rs);
  if (magic == FN_NCCL_MAGIC && c->rank == 0 && getenv("NCCL_COMM_ID")) {
    union fn_sockaddr actual; /* NCCL_COMM_ID: rank 0 hosts the root, created at init */
    if (fn_root_start(&root, magic, &actual) != 0) return ncclSystemError;
  }
  int fd = fn_connect(&root, &c->abort);
  if (fd < 0) return atomic_load(&c->abort) ? ncclInvalidUsage : ncclRemoteError;
  pthread_mutex_lock(&c->lock);
  bool aborted = atomic_load(&c->abort);
  if (!aborted) c->fd = fd;
  pthread_mutex_unlock(&c->lock);
  if (aborted) {
    close(fd);
    fn_set_error("%s : communicator aborted during init", c->func);
    return ncclInvalidUsage;
  }
  struct fn_msg m, w;
  fn_msg_init(&m, FN_HELLO, magic);
  m.rank = c->rank;
  m.nranks = c->nranks;
  m.pid = (int32_t)getpid();
  if (fn_send_msg(fd, &m) != 0) {
    fn_set_error("Bootstrap : sending hello to root %s failed: %s", rs, strerror(errno));
    return ncclRemoteError;
  }
  if (bootstrap_wait_peers(fd, &w) != 0 || w.kind != FN_WELCOME) {
    if (atomic_load(&c->abort)) {
      fn_set_error("%s : communicator aborted during init", c->func);
      return ncclInvalidUsage;
    }
    fn_set_error("Bootstrap : connection to root %s closed while waiting for peers", rs);
    return ncclRemoteError;
  }
  if (w.status != ncclSuccess) {
    w.data[sizeof w.data - 1] = 0;
    fn_set_error("%s", w.data);
    return (ncclResult_t)w.status;
  }
  return ncclSuccess;
}

static ncclResult_t comm_run_init(struct ncclComm *c) {
  unsigned long busid = (unsigned long)(0x18 + c->cudaDev) << 12;
  fn_debug(2, c->cudaDev, "%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init START",
           c->func, (void *)c, c->rank, c->nranks, c->cudaDev, c->cudaDev, busid, (unsigned long long)c->hash);
  ncclResult_t r = comm_bootstrap(c);
  if (r == ncclSuccess)
    fn_debug(2, c->cudaDev,
             "%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init COMPLETE", c->func,
             (void *)c, c->rank, c->nranks, c->cudaDev, c->cudaDev, busid, (unsigned long long)c->hash);
  atomic_store(&c->state, r);
  return r;
}

static void *init_thread_main(void *arg) {
  comm_run_init(arg);
  return NULL;
}

/* ------------------------------------------------------------------ groups and the exchange */

struct fn_pending {
  struct ncclComm *c;
  struct fn_msg m, reply;
  bool done;
};

static __thread int fn_group_depth;
static __thread struct fn_pending *fn_gops;
static __thread int fn_gn, fn_gcap;
static __thread struct ncclComm **fn_ginits;
static __thread int fn_gin, fn_gicap;

static int group_push(const struct fn_pending *p) {
  if (fn_gn == fn_gcap) {
    int cap = fn_gcap ? fn_gcap * 2 : 16;
    struct fn_pending *n = realloc(fn_gops, (size_t)cap * sizeof *n);
    if (!n) return -1;
    fn_gops = n, fn_gcap = cap;
  }
  fn_gops[fn_gn++] = *p;
  return 0;
}

static int group_push_init(struct ncclComm *c) {
  if (fn_gin == fn_gicap) {
    int cap = fn_gicap ? fn_gicap * 2 : 8;
    struct ncclComm **n = realloc(fn_ginits, (size_t)cap * sizeof *n);
    if (!n) return -1;
    fn_ginits = n, fn_gicap = cap;
  }
  fn_ginits[fn_gin++] = c;
  return 0;
}

static ncclResult_t comm_init(ncclComm_t *newcomm, int nranks, const ncclUniqueId *id, int rank,
                              const ncclConfig_t *cfg, int inherit_blocking, int dev, const char *func) {
  CHECK_PTR(newcomm, func, "newcomm");
  CHECK_PTR(id, func, "commId");
  *newcomm = NULL;
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    fn_set_error("%s : Invalid rank requested : %d/%d", func, rank, nranks);
    return ncclInvalidArgument;
  }
  if (cfg && cfg->magic != FN_CONFIG_MAGIC) {
    fn_set_error("%s : ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER", func);
    return ncclInvalidArgument;
  }
  int blocking = NCCL_CONFIG_UNDEF_INT;
  const char *name = NULL;
  if (cfg && cfg->size >= offsetof(ncclConfig_t, blocking) + sizeof(int)) blocking = cfg->blocking;
  if (cfg && cfg->size >= offsetof(ncclConfig_t, commName) + sizeof(char *)) name = cfg->commName;
  if (blocking == NCCL_CONFIG_UNDEF_INT && inherit_blocking >= 0) blocking = inherit_blocking;
  if (blocking == NCCL_CONFIG_UNDEF_INT) blocking = fn_env_int("NCCL_COMM_BLOCKING", 1);
  struct ncclComm *c = comm_alloc(nranks, rank, dev, blocking != 0);
  if (!c) {
    fn_set_error("%s : out of memory", func);
    return ncclSystemError;
  }
  c->id = *id;
  c->hash = fn_nccl_hash(id, sizeof *id);
  c->func = func;
  if (name) snprintf(c->name, sizeof c->name, "%s", name);
  *newcomm = c;
  if (c->blocking && fn_group_depth == 0) {
    ncclResult_t r = comm_run_init(c);
    if (r != ncclSuccess) {
      comm_close_free(c);
      *newcomm = NULL;
    }
    return r;
  }
  /* Non-blocking, or inside a group: init runs in a thread; ncclGroupEnd joins blocking ones. */
  int rc = pthread_create(&c->init_thread, NULL, init_thread_main, c);
  if (rc != 0) {
    fn_set_error("%s : pthread_create failed: %s", func, strerror(rc));
    comm_close_free(c);
    *newcomm = NULL;
    return ncclSystemError;
  }
  c->init_thread_live = true;
  if (fn_group_depth > 0 && group_push_init(c) != 0) {
    comm_stop_init(c, false);
    return atomic_load(&c->state);
  }
  return c->blocking ? ncclSuccess : ncclInProgress;
}

static bool reply_matches(const struct fn_msg *req, const struct fn_msg *rep) {
  if (rep->seq != req->seq || rep->op != req->op) return false;
  return req->kind == FN_P2P ? rep->peer == req->peer : true;
}

/* Send every request, then block in fake_coll_wait() until the root answered each of them. */
static ncclResult_t exchange(struct fn_pending *ops, int n) {
  for (int i = 0; i < n; i++) {
    struct ncclComm *c = ops[i].c;
    if (c->fd < 0 || fn_send_msg(c->fd, &ops[i].m) != 0) {
      fn_set_error("%s : rank %d lost its connection to the bootstrap root", fn_op_name(ops[i].m.op), c->rank);
      ops[i].done = true;
      ops[i].reply.status = ncclRemoteError;
    }
  }
  for (int i = 0; i < n; i++) {
    while (!ops[i].done) {
      struct fn_msg rep;
      if (fake_coll_wait(ops[i].c->fd, &rep) != 0 || rep.kind != FN_REPLY) {
        fn_set_error("%s : rank %d: bootstrap root closed the connection", fn_op_name(ops[i].m.op), ops[i].c->rank);
        for (int j = i; j < n; j++)
          if (!ops[j].done && ops[j].c == ops[i].c) ops[j].done = true, ops[j].reply.status = ncclRemoteError;
        break;
      }
      for (int j = i; j < n; j++) {
        if (!ops[j].done && ops[j].c == ops[i].c && reply_matches(&ops[j].m, &rep)) {
          ops[j].done = true;
          ops[j].reply = rep;
          break;
        }
      }
    }
  }
  for (int i = 0; i < n; i++)
    if (ops[i].reply.status != ncclSuccess) return (ncclResult_t)ops[i].reply.status;
  return ncclSuccess;
}

static ncclResult_t enqueue(const char *fn, struct ncclComm *c, int op, size_t count, ncclDataType_t dt, int redop,
                            int peer, int color, int key, struct fn_msg *reply) {
  CHECK_COMM(c, fn);
  ncclResult_t st = atomic_load(&c->state);
  if (!c->blocking) {
    /* Like ncclCommEnsureReady(): through the PLT, so an interposed ncclCommGetAsyncError sees it. */
    ncclResult_t r = ncclCommGetAsyncError(c, &st);
    if (r != ncclSuccess) return r;
  }
  if (st == ncclInProgress) {
    fn_set_error("%s : Attempt to use communicator before the previous operation returned ncclSuccess", fn);
    return ncclInvalidArgument;
  }
  if (st != ncclSuccess) return st;
  if (c->finalized || c->fd < 0) {
    fn_set_error("%s : communicator %p was finalized", fn, (void *)c);
    return ncclInvalidUsage;
  }
  if ((int)dt < 0 || (int)dt >= (int)ncclNumTypes) {
    fn_set_error("%s : invalid type %d", fn, (int)dt);
    return ncclInvalidArgument;
  }
  bool rooted = op == FN_OP_BROADCAST || op == FN_OP_REDUCE || op == FN_OP_GATHER || op == FN_OP_SCATTER ||
                op == FN_OP_SEND || op == FN_OP_RECV;
  if (rooted && (peer < 0 || peer >= c->nranks)) {
    fn_set_error("%s : invalid root %d (root should be in the 0..%d range)", fn, peer, c->nranks);
    return ncclInvalidArgument;
  }
  struct fn_pending p;
  memset(&p, 0, sizeof p);
  p.c = c;
  bool p2p = op == FN_OP_SEND || op == FN_OP_RECV;
  fn_msg_init(&p.m, p2p ? FN_P2P : FN_COLL, c->magic);
  p.m.rank = c->rank;
  p.m.nranks = c->nranks;
  p.m.pid = (int32_t)getpid();
  p.m.op = op;
  p.m.count = count;
  p.m.datatype = (int32_t)dt;
  p.m.redop = redop;
  p.m.peer = rooted ? peer : -1;
  p.m.color = color;
  p.m.key = key;
  p.m.seq = op == FN_OP_SEND ? c->send_seq[peer]++ : op == FN_OP_RECV ? c->recv_seq[peer]++ : c->coll_seq++;
  if (fn_group_depth > 0) {
    if (group_push(&p) != 0) {
      fn_set_error("%s : out of memory", fn);
      return ncclSystemError;
    }
    return ncclSuccess;
  }
  ncclResult_t r = exchange(&p, 1);
  if (reply) *reply = p.reply;
  return r;
}

/* ------------------------------------------------------------------ API: misc */

NCCL_API(ncclResult_t, ncclGetVersion, int *version);
ncclResult_t ncclGetVersion(int *version) {
  CHECK_PTR(version, "ncclGetVersion", "version");
  *version = fn_env_int("FAKE_NCCL_VERSION", 22809);
  return ncclSuccess;
}

NCCL_API(const char *, ncclGetErrorString, ncclResult_t code);
const char *ncclGetErrorString(ncclResult_t code) {
  switch (code) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
  }
}

NCCL_API(const char *, ncclGetLastError, ncclComm_t comm);
const char *ncclGetLastError(ncclComm_t comm) {
  UNUSED(comm); /* like NCCL: one process-wide "last WARN" buffer */
  return fn_get_error();
}

/* A new root listening on bind (port 0 = any), with a random magic, encoded into *out. */
static ncclResult_t make_root_id(const union fn_sockaddr *bind, ncclUniqueId *out) {
  union fn_sockaddr actual;
  uint64_t magic = fn_random64();
  if (fn_root_start(bind, magic, &actual) != 0) return ncclSystemError;
  fn_id_encode(out, magic, &actual);
  return ncclSuccess;
}

/* NCCL_COMM_ID=ip:port: fixed magic, that address, no listener (rank 0 creates the root at init).
 * Otherwise a random magic and a new root listening on FAKE_NCCL_ROOT_ADDR (default 127.0.0.1). */
NCCL_API(ncclResult_t, ncclGetUniqueId, ncclUniqueId *out);
ncclResult_t ncclGetUniqueId(ncclUniqueId *out) {
  CHECK_PTR(out, "ncclGetUniqueId", "uniqueId");
  union fn_sockaddr a;
  const char *env = getenv("NCCL_COMM_ID");
  if (env && *env) {
    if (fn_parse_addr(env, &a, -1) != 0) {
      fn_set_error("Invalid NCCL_COMM_ID [%s], please use format: <ipv4>:<port> or [<ipv6>]:<port> or "
                   "<hostname>:<port>",
                   env);
      return ncclInvalidArgument;
    }
    fn_id_encode(out, FN_NCCL_MAGIC, &a);
    return ncclSuccess;
  }
  const char *ra = getenv("FAKE_NCCL_ROOT_ADDR");
  if (!ra || !*ra) ra = "127.0.0.1";
  if (fn_parse_addr(ra, &a, 0) != 0) {
    fn_set_error("ncclGetUniqueId : invalid FAKE_NCCL_ROOT_ADDR [%s]", ra);
    return ncclInvalidArgument;
  }
  return make_root_id(&a, out);
}

/* ------------------------------------------------------------------ API: init */

NCCL_API(ncclResult_t, ncclCommInitRank, ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank) {
  return comm_init(comm, nranks, &commId, rank, NULL, -1, default_dev(), "ncclCommInitRank");
}

NCCL_API(ncclResult_t, ncclCommInitRankConfig, ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank,
         ncclConfig_t *config);
ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank,
                                    ncclConfig_t *config) {
  return comm_init(comm, nranks, &commId, rank, config, -1, default_dev(), "ncclCommInitRankConfig");
}

/* The fake bootstraps every rank through commIds[0]; the other ids are accepted and ignored. */
NCCL_API(ncclResult_t, ncclCommInitRankScalable, ncclComm_t *newcomm, int nranks, int myrank, int nId,
         ncclUniqueId *commIds, ncclConfig_t *config);
ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks, int myrank, int nId, ncclUniqueId *commIds,
                                      ncclConfig_t *config) {
  if (nId < 1 || !commIds) {
    fn_set_error("ncclCommInitRankScalable : invalid nId %d / commIds %p", nId, (void *)commIds);
    return ncclInvalidArgument;
  }
  return comm_init(newcomm, nranks, &commIds[0], myrank, config, -1, default_dev(), "ncclCommInitRankScalable");
}

struct initall_arg {
  ncclComm_t *slot;
  const ncclUniqueId *id;
  int n, rank, dev;
  ncclResult_t res;
};

static void *initall_main(void *p) {
  struct initall_arg *a = p;
  a->res = comm_init(a->slot, a->n, a->id, a->rank, NULL, 1, a->dev, "ncclCommInitAll");
  return NULL;
}

NCCL_API(ncclResult_t, ncclCommInitAll, ncclComm_t *comms, int ndev, const int *devlist);
ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist) {
  CHECK_PTR(comms, "ncclCommInitAll", "comms");
  if (ndev < 1) {
    fn_set_error("ncclCommInitAll : invalid ndev %d", ndev);
    return ncclInvalidArgument;
  }
  ncclUniqueId id;
  ncclResult_t res = ncclGetUniqueId(&id); /* through the PLT, like NCCL's init.cc */
  if (res != ncclSuccess) return res;
  struct initall_arg *args = calloc((size_t)ndev, sizeof *args);
  pthread_t *tids = calloc((size_t)ndev, sizeof *tids);
  bool *started = calloc((size_t)ndev, sizeof *started);
  if (!args || !tids || !started) {
    free(args), free(tids), free(started);
    fn_set_error("ncclCommInitAll : out of memory");
    return ncclSystemError;
  }
  for (int i = 0; i < ndev; i++) {
    args[i] = (struct initall_arg){&comms[i], &id, ndev, i, devlist ? devlist[i] : i, ncclSuccess};
    comms[i] = NULL;
    started[i] = pthread_create(&tids[i], NULL, initall_main, &args[i]) == 0;
    if (!started[i]) args[i].res = ncclSystemError;
  }
  for (int i = 0; i < ndev; i++)
    if (started[i]) pthread_join(tids[i], NULL);
  for (int i = 0; i < ndev && res == ncclSuccess; i++) res = args[i].res;
  if (res != ncclSuccess)
    for (int i = 0; i < ndev; i++)
      if (comms[i]) comm_close_free(comms[i]), comms[i] = NULL;
  free(args), free(tids), free(started);
  return res;
}

/* Split = a collective on the parent comm. Its root groups ranks by color and orders each group by
 * (key, rank); the group's new rank 0 starts a new root (on the parent root's IP, port 0) and sends its
 * id back through the parent root, which forwards it to the rest of the color; then all init. */
NCCL_API(ncclResult_t, ncclCommSplit, ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config);
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config) {
  CHECK_COMM(comm, "ncclCommSplit");
  CHECK_PTR(newcomm, "ncclCommSplit", "newcomm");
  *newcomm = NULL;
  if (color < 0 && color != NCCL_SPLIT_NOCOLOR) {
    fn_set_error("ncclCommSplit : invalid color %d", color);
    return ncclInvalidArgument;
  }
  if (fn_group_depth > 0) {
    fn_set_error("ncclCommSplit : calls inside ncclGroupStart/ncclGroupEnd are not supported by the fake NCCL");
    return ncclInvalidUsage;
  }
  struct fn_msg rep;
  memset(&rep, 0, sizeof rep);
  ncclResult_t r = enqueue("ncclCommSplit", comm, FN_OP_SPLIT, 0, (ncclDataType_t)0, 0, -1, color, key, &rep);
  if (r != ncclSuccess || rep.newrank < 0) return r;
  ncclUniqueId id;
  if (rep.count == 1) { /* this rank hosts the new root */
    uint64_t pmagic;
    union fn_sockaddr bind;
    fn_id_decode(&comm->id, &pmagic, &bind);
    if (bind.sa.sa_family == AF_INET) bind.sin.sin_port = 0;
    else bind.sin6.sin6_port = 0;
    struct fn_msg m;
    fn_msg_init(&m, FN_SPLITID, comm->magic);
    m.rank = comm->rank;
    m.seq = rep.seq;
    m.color = color;
    m.status = make_root_id(&bind, &id);
    memcpy(m.data, &id, sizeof id);
    if (fn_send_msg(comm->fd, &m) != 0) {
      fn_set_error("ncclCommSplit : rank %d lost its connection to the bootstrap root", comm->rank);
      return ncclRemoteError;
    }
    if (m.status != ncclSuccess) return (ncclResult_t)m.status;
  } else {
    memcpy(&id, rep.data, sizeof id);
  }
  return comm_init(newcomm, rep.newnranks, &id, rep.newrank, config, comm->blocking, comm->cudaDev, "ncclCommSplit");
}

/* ------------------------------------------------------------------ API: queries and teardown */

NCCL_API(ncclResult_t, ncclCommGetAsyncError, ncclComm_t comm, ncclResult_t *asyncError);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError) {
  CHECK_COMM(comm, "ncclCommGetAsyncError");
  CHECK_PTR(asyncError, "ncclCommGetAsyncError", "asyncError");
  *asyncError = atomic_load(&comm->state);
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommCount, const ncclComm_t comm, int *count);
ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  CHECK_COMM(comm, "ncclCommCount");
  CHECK_PTR(count, "ncclCommCount", "count");
  *count = comm->nranks;
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommUserRank, const ncclComm_t comm, int *rank);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  CHECK_COMM(comm, "ncclCommUserRank");
  CHECK_PTR(rank, "ncclCommUserRank", "rank");
  *rank = comm->rank;
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommCuDevice, const ncclComm_t comm, int *device);
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device) {
  CHECK_COMM(comm, "ncclCommCuDevice");
  CHECK_PTR(device, "ncclCommCuDevice", "device");
  *device = comm->cudaDev;
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommFinalize, ncclComm_t comm);
ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  CHECK_COMM(comm, "ncclCommFinalize");
  if (atomic_load(&comm->state) == ncclInProgress) {
    fn_set_error("ncclCommFinalize : communicator %p is still initializing", (void *)comm);
    return ncclInvalidUsage;
  }
  comm_stop_init(comm, false);
  pthread_mutex_lock(&comm->lock);
  if (comm->fd >= 0) close(comm->fd);
  comm->fd = -1;
  pthread_mutex_unlock(&comm->lock);
  comm->finalized = true;
  return comm->blocking ? ncclSuccess : ncclInProgress; /* async error stays ncclSuccess: poll sees "done" */
}

NCCL_API(ncclResult_t, ncclCommDestroy, ncclComm_t comm);
ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (comm == NULL) return ncclSuccess;
  CHECK_COMM(comm, "ncclCommDestroy");
  comm_close_free(comm);
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommAbort, ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (comm == NULL) return ncclSuccess;
  CHECK_COMM(comm, "ncclCommAbort");
  comm_stop_init(comm, true);
  comm_close_free(comm);
  return ncclSuccess;
}

/* ------------------------------------------------------------------ API: groups */

NCCL_API(ncclResult_t, ncclGroupStart, void);
ncclResult_t ncclGroupStart(void) {
  fn_group_depth++;
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclGroupEnd, void);
ncclResult_t ncclGroupEnd(void) {
  if (fn_group_depth <= 0) {
    fn_set_error("ncclGroupEnd: not in a group call.");
    return ncclInvalidUsage;
  }
  if (--fn_group_depth > 0) return ncclSuccess;
  ncclResult_t res = ncclSuccess;
  bool in_progress = false;
  for (int i = 0; i < fn_gin; i++) {
    struct ncclComm *c = fn_ginits[i];
    if (!comm_ok(c)) continue;
    if (!c->blocking) {
      in_progress = true;
      continue;
    }
    if (c->init_thread_live) { /* wait for it: blocking semantics, no abort */
      pthread_join(c->init_thread, NULL);
      c->init_thread_live = false;
    }
    ncclResult_t r = atomic_load(&c->state);
    if (r != ncclSuccess && res == ncclSuccess) res = r;
  }
  fn_gin = 0;
  int n = fn_gn;
  fn_gn = 0;
  if (n > 0) {
    ncclResult_t r = exchange(fn_gops, n);
    if (r != ncclSuccess && res == ncclSuccess) res = r;
  }
  return (res == ncclSuccess && in_progress) ? ncclInProgress : res;
}

/* ------------------------------------------------------------------ API: collectives and p2p */

NCCL_API(ncclResult_t, ncclAllReduce, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  UNUSED(sendbuff), UNUSED(recvbuff), UNUSED(stream);
  return enqueue("ncclAllReduce", comm, FN_OP_ALLREDUCE, count, datatype, (int)op, -1, 0, 0, NULL);
}

NCCL_API(ncclResult_t, ncclBroadcast, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         int root, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream) {
  UNUSED(sendbuff), UNUSED(recvbuff), UNUSED(stream);
  return enqueue("ncclBroadcast", comm, FN_OP_BROADCAST, count, datatype, 0, root, 0, 0, NULL);
}

NCCL_API(ncclResult_t, ncclBcast, void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
         cudaStream_t stream);
ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                       cudaStream_t stream) {
  return ncclBroadcast(buff, buff, count, datatype, root, comm, stream); /* PLT, like collectives.cc */
}

NCCL_API(ncclResult_t, ncclReduce, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t stream) {
  UNUSED(sendbuff), UNUSED(recvbuff), UNUSED(stream);
  return enqueue("ncclReduce", comm, FN_OP_REDUCE, count, datatype, (int)op, root, 0, 0, NULL);
}

NCCL_API(ncclResult_t, ncclAllGather, const void *sendbuff, void *recvbuff, size_t sendcount,
         ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream) {
  UNUSED(sendbuff), UNUSED(recvbuff), UNUSED(stream);
  return enqueue("ncclAllGather", comm, FN_OP_ALLGATHER, sendcount, datatype, 0, -1, 0, 0, NULL);
}

NCCL_API(ncclResult_t, ncclReduceScatter, const void *sendbuff, void *recvbuff, size_t recvcount,
         ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  UNUSED(sendbuff), UNUSED(recvbuff), UNUSED(stream);
  return enqueue("ncclReduceScatter", comm, FN_OP_REDUCESCATTER, recvcount, datatype, (int)op, -1, 0, 0, NULL);
}

NCCL_API(ncclResult_t, ncclAlltoAll, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                          ncclComm_t comm, cudaStream_t stream) {
  UNUSED(sendbuff), UNUSED(recvbuff), UNUSED(stream);
  return enqueue("ncclAlltoAll", comm, FN_OP_ALLTOALL, count, datatype, 0, -1, 0, 0, NULL);
}

NCCL_API(ncclResult_t, ncclGather, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         int root, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclGather(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                        ncclComm_t comm, cudaStream_t stream) {
  UNUSED(sendbuff), UNUSED(recvbuff), UNUSED(stream);
  return enqueue("ncclGather", comm, FN_OP_GATHER, count, datatype, 0, root, 0, 0, NULL);
}

NCCL_API(ncclResult_t, ncclScatter, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         int root, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                         ncclComm_t comm, cudaStream_t stream) {
  UNUSED(sendbuff), UNUSED(recvbuff), UNUSED(stream);
  return enqueue("ncclScatter", comm, FN_OP_SCATTER, count, datatype, 0, root, 0, 0, NULL);
}

NCCL_API(ncclResult_t, ncclSend, const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
         ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  UNUSED(sendbuff), UNUSED(stream);
  return enqueue("ncclSend", comm, FN_OP_SEND, count, datatype, 0, peer, 0, 0, NULL);
}

NCCL_API(ncclResult_t, ncclRecv, void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
         cudaStream_t stream);
ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  UNUSED(recvbuff), UNUSED(stream);
  return enqueue("ncclRecv", comm, FN_OP_RECV, count, datatype, 0, peer, 0, 0, NULL);
}
