// SPDX-License-Identifier: MIT
// Plumbing for the fake NCCL: the last-error buffer, NCCL_DEBUG-style WARN/INFO lines, the FAKE_NCCL_LOG
// writer, address parsing, the ncclUniqueId encoding (64-bit magic followed by the root's sockaddr, as
// in real NCCL), NCCL-style connect with retries on ECONNREFUSED, and the two blocking receive
// functions (bootstrap_wait_peers, fake_coll_wait) that a stack dump of a hung rank shows.
#include "fake_nccl_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ errors, debug, log */

static pthread_mutex_t fn_err_lock = PTHREAD_MUTEX_INITIALIZER;
static char fn_last_error[1024];

void fn_set_error(const char *fmt, ...) {
  char buf[sizeof fn_last_error];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&fn_err_lock);
  memcpy(fn_last_error, buf, sizeof buf);
  pthread_mutex_unlock(&fn_err_lock);
  fn_debug(1, -1, "%s", buf);
}

const char *fn_get_error(void) { return fn_last_error; }

static int fn_debug_level(void) {
  const char *s = getenv("NCCL_DEBUG");
  if (!s) return 0;
  if (!strcasecmp(s, "WARN")) return 1;
  if (!strcasecmp(s, "INFO")) return 2;
  if (!strcasecmp(s, "TRACE")) return 3;
  return 0;
}

/* NCCL_DEBUG=WARN|INFO lines in NCCL's format: "host:pid:tid [dev] NCCL INFO ...". */
void fn_debug(int level, int dev, const char *fmt, ...) {
  if (fn_debug_level() < level) return;
  char host[64] = "localhost", msg[1024];
  gethostname(host, sizeof host - 1);
  char *dot = strchr(host, '.');
  if (dot) *dot = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  dprintf(2, "%s:%d:%d [%d] NCCL %s %s\n", host, (int)getpid(), (int)syscall(SYS_gettid), dev < 0 ? 0 : dev,
          level == 1 ? "WARN" : "INFO", msg);
}

/* One line per root decision, appended with a single write(2) so concurrent roots never interleave. */
void fn_log(const char *fmt, ...) {
  const char *path = getenv("FAKE_NCCL_LOG");
  if (!path || !*path) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t w = write(fd, buf, (size_t)n);
  (void)w;
  close(fd);
}

int fn_env_int(const char *name, int dflt) {
  const char *s = getenv(name);
  if (!s || !*s) return dflt;
  char *end;
  long v = strtol(s, &end, 0);
  return (*end || v < INT_MIN || v > INT_MAX) ? dflt : (int)v;
}

void fn_sleep_ms(long ms, atomic_bool *abort_flag) {
  while (ms > 0 && !(abort_flag && atomic_load(abort_flag))) {
    long step = ms > 50 ? 50 : ms;
    struct timespec ts = {step / 1000, (step % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    ms -= step;
  }
}

uint64_t fn_random64(void) {
  static _Atomic uint64_t counter;
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 16) ^ atomic_fetch_add(&counter, 1);
    v *= 0x9e3779b97f4a7c15ULL;
  }
  if (v == 0 || v == FN_NCCL_MAGIC) v ^= 0x5bd1e9955bd1e995ULL;
  return v;
}

/* NCCL >= 2.23 getHash() (src/include/bitops.h eatHash/digestHash), used for "commId 0x%llx". */
uint64_t fn_nccl_hash(const void *bytes, size_t size) {
  uint64_t a0 = 1 ^ size, a1 = 1;
  const unsigned char *p = bytes;
  while (size) {
    a0 += a1;
    a1 ^= a0;
    a0 ^= a0 >> 31;
    a0 *= 0x9de62bbc8cef3ce3ULL;
    a1 ^= a1 >> 32;
    a1 *= 0x485cd6311b599e79ULL;
    size_t n = size < 8 ? size : 8;
    uint64_t x = 0;
    memcpy(&x, p, n);
    p += n;
    size -= n;
    a0 += x;
  }
  uint64_t h = a0;
  h ^= h >> 31;
  h *= 0xbac3bd562846de6bULL;
  h += a1;
  h ^= h >> 32;
  h *= 0x995a187a14e7b445ULL;
  return h;
}

static const char *const fn_op_names[FN_OP_COUNT] = {
    "allreduce", "broadcast", "reduce", "allgather", "reducescatter", "alltoall",
    "gather",    "scatter",   "send",   "recv",      "split"};

const char *fn_op_name(int op) { return (op >= 0 && op < FN_OP_COUNT) ? fn_op_names[op] : "unknown"; }

/* ------------------------------------------------------------------ addresses and ids */

/* "ip", "ip:port", "[ipv6]", "[ipv6]:port", bare "ipv6", or "host:port"; default_port < 0: port required. */
int fn_parse_addr(const char *s, union fn_sockaddr *out, int default_port) {
  char host[256];
  const char *port = NULL;
  size_t len;
  if (!s || !*s) return -1;
  if (s[0] == '[') {
    const char *e = strchr(s, ']');
    if (!e) return -1;
    len = (size_t)(e - s - 1);
    if (e[1] == ':') port = e + 2;
    else if (e[1]) return -1;
    s++;
  } else {
    const char *c = strchr(s, ':');
    if (c && !strchr(c + 1, ':')) {
      len = (size_t)(c - s);
      port = c + 1;
    } else {
      len = strlen(s);
    }
  }
  if (len == 0 || len >= sizeof host) return -1;
  memcpy(host, s, len);
  host[len] = 0;
  long p = default_port;
  if (port) {
    char *end;
    p = strtol(port, &end, 10);
    if (!*port || *end || p < 0 || p > 65535) return -1;
  }
  if (p < 0) return -1; /* a port is required (NCCL_COMM_ID) */
  memset(out, 0, sizeof *out);
  if (inet_pton(AF_INET, host, &out->sin.sin_addr) == 1) {
    out->sin.sin_family = AF_INET;
    out->sin.sin_port = htons((uint16_t)p);
    return 0;
  }
  if (inet_pton(AF_INET6, host, &out->sin6.sin6_addr) == 1) {
    out->sin6.sin6_family = AF_INET6;
    out->sin6.sin6_port = htons((uint16_t)p);
    return 0;
  }
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
  if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res) return -1;
  int rc = -1;
  if (res->ai_family == AF_INET || res->ai_family == AF_INET6) {
    memcpy(out, res->ai_addr, res->ai_addrlen);
    if (res->ai_family == AF_INET) out->sin.sin_port = htons((uint16_t)p);
    else out->sin6.sin6_port = htons((uint16_t)p);
    rc = 0;
  }
  freeaddrinfo(res);
  return rc;
}

const char *fn_addr_str(const union fn_sockaddr *a, char *buf, size_t n) {
  char ip[INET6_ADDRSTRLEN] = "?";
  if (a->sa.sa_family == AF_INET) {
    inet_ntop(AF_INET, &a->sin.sin_addr, ip, sizeof ip);
    snprintf(buf, n, "%s:%u", ip, ntohs(a->sin.sin_port));
  } else if (a->sa.sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &a->sin6.sin6_addr, ip, sizeof ip);
    snprintf(buf, n, "[%s]:%u", ip, ntohs(a->sin6.sin6_port));
  } else {
    snprintf(buf, n, "<family %d>", a->sa.sa_family);
  }
  return buf;
}

socklen_t fn_addr_len(const union fn_sockaddr *a) {
  return a->sa.sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

/* Layout of NCCL's struct ncclBootstrapHandle: bytes 0-7 magic, bytes 8.. the root sockaddr, rest 0. */
void fn_id_encode(ncclUniqueId *id, uint64_t magic, const union fn_sockaddr *addr) {
  memset(id, 0, sizeof *id);
  memcpy(id->internal, &magic, sizeof magic);
  memcpy(id->internal + 8, addr, fn_addr_len(addr));
}

int fn_id_decode(const ncclUniqueId *id, uint64_t *magic, union fn_sockaddr *addr) {
  memcpy(magic, id->internal, sizeof *magic);
  memset(addr, 0, sizeof *addr);
  sa_family_t fam;
  memcpy(&fam, id->internal + 8, sizeof fam);
  if (fam == AF_INET) memcpy(addr, id->internal + 8, sizeof(struct sockaddr_in));
  else if (fam == AF_INET6) memcpy(addr, id->internal + 8, sizeof(struct sockaddr_in6));
  else return -1;
  return 0;
}

/* ------------------------------------------------------------------ sockets */

void fn_msg_init(struct fn_msg *m, uint32_t kind, uint64_t magic) {
  memset(m, 0, sizeof *m);
  m->tag = FN_WIRE_TAG;
  m->kind = kind;
  m->magic = magic;
  m->peer = -1;
  m->newrank = -1;
}

int fn_send_msg(int fd, const struct fn_msg *m) {
  size_t off = 0;
  while (off < sizeof *m) {
    ssize_t n = send(fd, (const char *)m + off, sizeof *m - off, MSG_NOSIGNAL);
    if (n > 0) off += (size_t)n;
    else if (n < 0 && errno == EINTR) continue;
    else return -1;
  }
  return 0;
}

static inline __attribute__((always_inline)) int fn_recv_all(int fd, struct fn_msg *out) {
  size_t got = 0;
  while (got < sizeof *out) {
    ssize_t n = recv(fd, (char *)out + got, sizeof *out - got, 0);
    if (n > 0) got += (size_t)n;
    else if (n < 0 && errno == EINTR) continue;
    else return -1;
  }
  return out->tag == FN_WIRE_TAG ? 0 : -1;
}

/* Where a rank sits while the bootstrap root waits for the missing ranks. */
__attribute__((noinline, noclone)) int bootstrap_wait_peers(int fd, struct fn_msg *out) {
  int rc = fn_recv_all(fd, out);
  __asm__ volatile("" ::: "memory");
  return rc;
}

/* Where a rank sits while the root waits for the other ranks to reach the same collective. */
__attribute__((noinline, noclone)) int fake_coll_wait(int fd, struct fn_msg *out) {
  int rc = fn_recv_all(fd, out);
  __asm__ volatile("" ::: "memory");
  return rc;
}

/* Like ncclSocketConnect: a new non-blocking socket per attempt, connect + poll + SO_ERROR, and on
 * ECONNREFUSED/ETIMEDOUT up to NCCL_SOCKET_RETRY_CNT retries sleeping n*NCCL_SOCKET_RETRY_SLEEP_MSEC. */
int fn_connect(const union fn_sockaddr *a, atomic_bool *abort_flag) {
  int max_retry = fn_env_int("NCCL_SOCKET_RETRY_CNT", 34);
  int sleep_ms = fn_env_int("NCCL_SOCKET_RETRY_SLEEP_MSEC", 100);
  char as[80];
  fn_addr_str(a, as, sizeof as);
  for (int retries = 0;;) {
    if (abort_flag && atomic_load(abort_flag)) {
      fn_set_error("socketConnect: connect to %s aborted", as);
      return -1;
    }
    int fd = socket(a->sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      fn_set_error("socketConnect: socket() failed: %s", strerror(errno));
      return -1;
    }
    int err = 0;
    if (connect(fd, &a->sa, fn_addr_len(a)) != 0) err = errno;
    while (err == EINPROGRESS || err == EINTR) {
      struct pollfd p = {.fd = fd, .events = POLLOUT};
      int pr = poll(&p, 1, 100);
      if (pr < 0 && errno != EINTR) {
        err = errno;
        break;
      }
      if (pr > 0) {
        socklen_t len = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
        break;
      }
      if (abort_flag && atomic_load(abort_flag)) err = ECANCELED;
      else err = EINPROGRESS;
    }
    if (err == 0) {
      int fl = fcntl(fd, F_GETFL);
      fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    close(fd);
    if ((err == ECONNREFUSED || err == ETIMEDOUT || err == EHOSTUNREACH) && retries < max_retry) {
      retries++;
      fn_debug(2, -1, "Call to connect returned %s, retrying", strerror(err));
      fn_sleep_ms((long)retries * sleep_ms, abort_flag);
      continue;
    }
    fn_set_error("socketPollConnect: connect to %s returned %s, exceeded retry count (%d)", as, strerror(err),
                 retries);
    return -1;
  }
}
