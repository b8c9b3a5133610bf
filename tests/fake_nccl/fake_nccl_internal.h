// SPDX-License-Identifier: MIT
// Private declarations shared by fake_nccl.c (the NCCL API), fake_nccl_root.c (the TCP bootstrap root)
// and fake_nccl_boot.c (sockets, ids, logging). It defines the fixed 256-byte wire message exchanged
// between ranks and the bootstrap root, the communicator struct, and the ncclUniqueId layout.
// Nothing here is exported from libnccl.so.2 except the two stack-visible wait functions.
#ifndef FAKE_NCCL_INTERNAL_H_
#define FAKE_NCCL_INTERNAL_H_

#ifdef FAKE_NCCL_USE_FALLBACK
#include "nccl_fallback.h"
#else
#include <nccl.h>
#endif

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Everything declared below is internal to libnccl.so.2 (no export, no PLT), except what says otherwise. */
#pragma GCC visibility push(hidden)

#define FN_NCCL_MAGIC 0x0280028002800280ULL /* NCCL_MAGIC, used when NCCL_COMM_ID is set */
#define FN_CONFIG_MAGIC 0xcafebeefU
#define FN_WIRE_TAG 0x4c43464eU /* "NFCL" */
#define FN_COMM_COOKIE 0x636f6d6dU
#define FN_MSG_SIZE 256

union fn_sockaddr {
  struct sockaddr sa;
  struct sockaddr_in sin;
  struct sockaddr_in6 sin6;
};

/* Message kinds. HELLO: rank->root at init. WELCOME: root->rank once all ranks joined (or error).
 * COLL: rank->root per collective (keyed by seq). P2P: rank->root per send/recv, keyed by
 * (src, dst, index). REPLY: root->rank when a COLL/P2P is matched. SPLITID: a split color's new
 * rank 0 -> parent root, carrying the new root's id for the other members of the color. */
enum fn_kind { FN_HELLO = 1, FN_WELCOME = 2, FN_COLL = 3, FN_P2P = 4, FN_REPLY = 5, FN_SPLITID = 6 };

enum fn_op {
  FN_OP_ALLREDUCE = 0,
  FN_OP_BROADCAST,
  FN_OP_REDUCE,
  FN_OP_ALLGATHER,
  FN_OP_REDUCESCATTER,
  FN_OP_ALLTOALL,
  FN_OP_GATHER,
  FN_OP_SCATTER,
  FN_OP_SEND,
  FN_OP_RECV,
  FN_OP_SPLIT,
  FN_OP_COUNT
};

struct fn_msg {
  uint32_t tag;  /* FN_WIRE_TAG */
  uint32_t kind; /* enum fn_kind */
  uint64_t magic;
  int32_t rank, nranks, pid, status; /* status: ncclResult_t in WELCOME/REPLY */
  uint64_t seq;                      /* COLL: collective seq; P2P: index on the (src,dst) channel */
  uint64_t count;
  int32_t op, datatype, redop, peer; /* peer: root of rooted collectives, peer of p2p, else -1 */
  int32_t color, key, newrank, newnranks; /* ncclCommSplit */
  char data[FN_MSG_SIZE - 80];           /* error text, or the new ncclUniqueId of a split */
};
_Static_assert(sizeof(struct fn_msg) == FN_MSG_SIZE, "wire message must be 256 bytes");

struct ncclComm {
  uint32_t cookie;
  int rank, nranks, cudaDev, blocking;
  int fd; /* bootstrap connection to the root; -1 when closed */
  _Atomic int state; /* ncclResult_t; ncclInProgress while init runs */
  atomic_bool abort;
  bool finalized, init_thread_live;
  pthread_t init_thread;
  pthread_mutex_t lock; /* guards fd against Abort while init runs */
  ncclUniqueId id;
  uint64_t magic, hash, coll_seq;
  uint64_t *send_seq, *recv_seq; /* per peer p2p channel indexes */
  char name[64];
  const char *func; /* API name that created it, for log lines */
};

/* fake_nccl_root.c */
int fn_root_start(const union fn_sockaddr *bind_addr, uint64_t magic, union fn_sockaddr *actual);

/* fake_nccl_boot.c */
void fn_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *fn_get_error(void);
void fn_debug(int level, int dev, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void fn_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fn_env_int(const char *name, int dflt);
uint64_t fn_random64(void);
uint64_t fn_nccl_hash(const void *bytes, size_t size);
int fn_parse_addr(const char *s, union fn_sockaddr *out, int default_port);
const char *fn_addr_str(const union fn_sockaddr *a, char *buf, size_t n);
socklen_t fn_addr_len(const union fn_sockaddr *a);
void fn_id_encode(ncclUniqueId *id, uint64_t magic, const union fn_sockaddr *addr);
int fn_id_decode(const ncclUniqueId *id, uint64_t *magic, union fn_sockaddr *addr);
int fn_connect(const union fn_sockaddr *a, atomic_bool *abort_flag);
int fn_send_msg(int fd, const struct fn_msg *m);
void fn_msg_init(struct fn_msg *m, uint32_t kind, uint64_t magic);
void fn_sleep_ms(long ms, atomic_bool *abort_flag);
const char *fn_op_name(int op);

/* Exported (protected visibility: visible to dladdr/backtrace, bound locally, no PLT) so that stack
 * dumps of a hung rank name the wait. Both are a plain blocking recv() of one message. */
#define FN_STACK_VISIBLE __attribute__((visibility("protected"), noinline, noclone))
FN_STACK_VISIBLE int bootstrap_wait_peers(int fd, struct fn_msg *out);
FN_STACK_VISIBLE int fake_coll_wait(int fd, struct fn_msg *out);

#pragma GCC visibility pop

#endif /* FAKE_NCCL_INTERNAL_H_ */
