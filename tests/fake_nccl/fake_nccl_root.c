// SPDX-License-Identifier: MIT
// The fake NCCL bootstrap root: one detached thread per ncclUniqueId, polling a listening TCP socket and
// one connection per rank. It answers all HELLOs once nranks ranks checked in (or answers everyone with
// an error on an nranks mismatch or a duplicate rank), then decides collectives by sequence number and
// send/recv pairs by (src, dst, index), answering only when all parties agree; a disagreement is logged
// to FAKE_NCCL_LOG and never answered, so the job hangs like a real mismatch. Replies go to ranks in
// other processes before ranks in this one, and exit() lingers while remote ranks still use a root.
#include "fake_nccl_internal.h"

#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct fn_conn {
  int fd, rank; /* rank -1 until a valid HELLO joined it */
  bool hello, notified, remote; /* remote: the rank lives in another process */
};

struct fn_qent {
  struct fn_msg m;
  struct fn_qent *next;
};

struct fn_split_wait { /* a split color whose new rank 0 has not sent its new id yet */
  uint64_t seq;
  int color, n, *ranks;
  struct fn_split_wait *next;
};

struct fn_root {
  int lfd;
  uint64_t magic;
  char name[80]; /* "ip:port" for log lines */
  int nranks, joined, hellos, fail_status, max_nranks;
  bool failed, fail_linger; /* fail_linger: failed, and some ranks have not been told yet */
  char err[160];
  struct fn_conn *conns;
  int nconns, capconns;
  bool *rank_joined;
  struct fn_qent **qhead, **qtail; /* per-rank FIFO of undecided COLL messages */
  uint64_t next_seq;
  bool stuck;          /* a collective mismatch was seen: never answer again */
  struct fn_qent *p2p; /* unmatched send/recv halves */
  struct fn_split_wait *splits;
};

/* ------------------------------------------------------------------ linger at exit */

static pthread_mutex_t linger_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t linger_cond = PTHREAD_COND_INITIALIZER;
static int linger_remote; /* connections from other processes' ranks, over all roots */
static pid_t linger_pid;  /* the process that owns the roots (fork children must not wait) */

static void linger_add(int d) {
  pthread_mutex_lock(&linger_lock);
  linger_remote += d;
  pthread_cond_broadcast(&linger_cond);
  pthread_mutex_unlock(&linger_lock);
}

/* Real NCCL ranks no longer need the root after init; here they do, so a root-hosting process that
 * exits first waits (FAKE_NCCL_ROOT_LINGER_MS, default 5000) for the other ranks to disconnect. */
__attribute__((destructor)) static void fn_root_linger(void) {
  if (linger_pid != getpid()) return;
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  long ms = fn_env_int("FAKE_NCCL_ROOT_LINGER_MS", 5000);
  dl.tv_sec += ms / 1000;
  dl.tv_nsec += (ms % 1000) * 1000000L;
  if (dl.tv_nsec >= 1000000000L) dl.tv_sec++, dl.tv_nsec -= 1000000000L;
  pthread_mutex_lock(&linger_lock);
  while (linger_remote > 0)
    if (pthread_cond_timedwait(&linger_cond, &linger_lock, &dl) == ETIMEDOUT) break;
  pthread_mutex_unlock(&linger_lock);
}

/* ------------------------------------------------------------------ sending */

static struct fn_conn *root_conn_of(struct fn_root *r, int rank) {
  for (int i = 0; i < r->nconns; i++)
    if (r->conns[i].rank == rank && r->conns[i].fd >= 0) return &r->conns[i];
  return NULL;
}

/* Send msgs[i] to rank msgs[i].rank: other processes first, so that a rank in this process cannot
 * finish and exit (taking the root thread with it) before its peers' answers are in their sockets. */
static void root_send_all(struct fn_root *r, struct fn_msg *msgs, int n) {
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n; i++) {
      struct fn_conn *c = root_conn_of(r, msgs[i].rank);
      if (c && c->remote == (pass == 0)) fn_send_msg(c->fd, &msgs[i]);
    }
}

static void reply_init(struct fn_root *r, struct fn_msg *rep, const struct fn_msg *req, int status) {
  fn_msg_init(rep, FN_REPLY, r->magic);
  rep->rank = req->rank;
  rep->seq = req->seq;
  rep->op = req->op;
  rep->peer = req->peer;
  rep->status = status;
}

static void root_ranks_str(char *buf, size_t n, int cnt) {
  size_t o = 0;
  buf[0] = 0;
  for (int i = 0; i < cnt && o + 16 < n; i++) o += (size_t)snprintf(buf + o, n - o, i ? ",%d" : "%d", i);
  if (cnt > 0 && o + 16 >= n) snprintf(buf + o, n - o, ",...");
}

/* ------------------------------------------------------------------ init (HELLO / WELCOME) */

static void root_fail(struct fn_root *r, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void root_fail(struct fn_root *r, int status, const char *fmt, ...) {
  if (!r->failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    r->failed = true;
    r->fail_status = status;
    fn_debug(1, -1, "%s", r->err);
    fn_log("init error: %s [root %s]", r->err, r->name);
  }
  struct fn_msg w;
  fn_msg_init(&w, FN_WELCOME, r->magic);
  w.status = r->fail_status;
  snprintf(w.data, sizeof w.data, "%s", r->err);
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < r->nconns; i++) {
      struct fn_conn *c = &r->conns[i];
      if (c->fd >= 0 && c->hello && !c->notified && c->remote == (pass == 0)) {
        w.rank = c->rank;
        fn_send_msg(c->fd, &w);
        c->notified = true;
      }
    }
}

/* A failed root keeps this process from exiting (up to the linger time) until every rank it expects
 * has checked in and received the error. */
static void root_fail_linger(struct fn_root *r) {
  bool want = r->failed && r->hellos < r->max_nranks;
  if (want != r->fail_linger) linger_add(want ? 1 : -1);
  r->fail_linger = want;
}

static void root_hello(struct fn_root *r, struct fn_conn *c, const struct fn_msg *m) {
  c->hello = true;
  c->remote = m->pid != (int32_t)getpid();
  if (c->remote) linger_add(1);
  r->hellos++;
  if (m->nranks > r->max_nranks) r->max_nranks = m->nranks;
  if (r->failed) {
    root_fail(r, r->fail_status, "%s", r->err);
    root_fail_linger(r);
    return;
  }
  if (r->nranks == 0) {
    if (m->nranks <= 0) {
      root_fail(r, ncclInvalidArgument, "Bootstrap Root : invalid nranks %d", m->nranks);
      return;
    }
    r->nranks = m->nranks;
    r->rank_joined = calloc((size_t)r->nranks, sizeof *r->rank_joined);
    r->qhead = calloc((size_t)r->nranks, sizeof *r->qhead);
    r->qtail = calloc((size_t)r->nranks, sizeof *r->qtail);
  }
  if (m->nranks != r->nranks) {
    root_fail(r, ncclInvalidUsage, "Bootstrap Root : mismatch in info from procs, nranks %d vs %d", r->nranks,
              m->nranks);
  } else if (m->rank < 0 || m->rank >= r->nranks) {
    root_fail(r, ncclInvalidArgument, "Bootstrap Root : invalid rank %d of %d ranks", m->rank, r->nranks);
  } else if (r->rank_joined[m->rank]) {
    root_fail(r, ncclInvalidUsage, "Bootstrap Root : rank %d of %d ranks has already checked in", m->rank,
              r->nranks);
  } else {
    c->rank = m->rank; /* joined; completes the init below once all nranks are in */
    r->rank_joined[m->rank] = true;
    if (++r->joined == r->nranks) {
      struct fn_msg *w = calloc((size_t)r->nranks, sizeof *w);
      for (int i = 0; i < r->nranks; i++) {
        fn_msg_init(&w[i], FN_WELCOME, r->magic);
        w[i].rank = i;
        w[i].nranks = r->nranks;
      }
      root_send_all(r, w, r->nranks);
      free(w);
      for (int i = 0; i < r->nconns; i++) r->conns[i].notified = r->conns[i].rank >= 0;
      close(r->lfd); /* like NCCL's root: stop listening once everybody checked in */
      r->lfd = -1;
      fn_log("init nranks %d ok [root %s]", r->nranks, r->name);
    }
  }
  root_fail_linger(r);
}

/* ------------------------------------------------------------------ split */

/* Group ranks by color, order each group by (key, rank); the group's new rank 0 is told to host the
 * new root (count = 1) and later sends FN_SPLITID, which root_split_id() forwards to the others. */
static void root_split(struct fn_root *r, struct fn_msg **h) {
  int n = r->nranks;
  int *ord = malloc((size_t)n * sizeof *ord);
  struct fn_msg *reps = calloc((size_t)n, sizeof *reps);
  int nrep = 0;
  for (int i = 0; i < n; i++) ord[i] = i;
  for (int i = 1; i < n; i++) { /* insertion sort by (color, key, rank) */
    int v = ord[i], j = i - 1;
    while (j >= 0 && (h[ord[j]]->color > h[v]->color ||
                      (h[ord[j]]->color == h[v]->color && h[ord[j]]->key > h[v]->key)))
      ord[j + 1] = ord[j], j--;
    ord[j + 1] = v;
  }
  for (int s = 0; s < n;) {
    int e = s, color = h[ord[s]]->color;
    while (e < n && h[ord[e]]->color == color) e++;
    if (color < 0) { /* NCCL_SPLIT_NOCOLOR */
      for (int k = s; k < e; k++) reply_init(r, &reps[nrep++], h[ord[k]], ncclSuccess);
    } else {
      struct fn_msg *rep = &reps[nrep++];
      reply_init(r, rep, h[ord[s]], ncclSuccess);
      rep->color = color;
      rep->newrank = 0;
      rep->newnranks = e - s;
      rep->count = 1; /* you host the new root */
      if (e - s > 1) {
        struct fn_split_wait *w = calloc(1, sizeof *w);
        w->seq = h[ord[s]]->seq;
        w->color = color;
        w->n = e - s;
        w->ranks = malloc((size_t)w->n * sizeof *w->ranks);
        memcpy(w->ranks, ord + s, (size_t)w->n * sizeof *w->ranks);
        w->next = r->splits;
        r->splits = w;
      }
      fn_log("split seq %llu color %d ranks %d: new root hosted by rank %d [root %s]",
             (unsigned long long)h[ord[s]]->seq, color, e - s, ord[s], r->name);
    }
    s = e;
  }
  root_send_all(r, reps, nrep);
  free(reps);
  free(ord);
}

static void root_split_id(struct fn_root *r, const struct fn_msg *m) {
  for (struct fn_split_wait **pp = &r->splits; *pp; pp = &(*pp)->next) {
    struct fn_split_wait *w = *pp;
    if (w->seq != m->seq || w->color != m->color || w->ranks[0] != m->rank) continue;
    struct fn_msg *reps = calloc((size_t)w->n, sizeof *reps);
    for (int k = 1; k < w->n; k++) {
      struct fn_msg *rep = &reps[k - 1];
      fn_msg_init(rep, FN_REPLY, r->magic);
      rep->rank = w->ranks[k];
      rep->seq = w->seq;
      rep->op = FN_OP_SPLIT;
      rep->status = m->status;
      rep->color = w->color;
      rep->newrank = k;
      rep->newnranks = w->n;
      memcpy(rep->data, m->data, sizeof rep->data);
    }
    root_send_all(r, reps, w->n - 1);
    free(reps);
    *pp = w->next;
    free(w->ranks);
    free(w);
    return;
  }
}

/* ------------------------------------------------------------------ collectives and p2p */

static bool coll_same(const struct fn_msg *a, const struct fn_msg *b) {
  return a->op == b->op && a->count == b->count && a->datatype == b->datatype && a->peer == b->peer;
}

static void coll_desc(char *buf, size_t n, const struct fn_msg *m, const struct fn_msg *ref) {
  int o = snprintf(buf, n, "%s", fn_op_name(m->op));
  if (m->op != ref->op) return;
  if (m->count != ref->count) o += snprintf(buf + o, n - (size_t)o, " count %llu", (unsigned long long)m->count);
  if (m->datatype != ref->datatype) o += snprintf(buf + o, n - (size_t)o, " datatype %d", m->datatype);
  if (m->peer != ref->peer) snprintf(buf + o, n - (size_t)o, " root %d", m->peer);
}

/* Decide as many collectives as possible: seq s is decided once every rank has sent it. */
static void root_try_decide(struct fn_root *r) {
  int n = r->nranks;
  struct fn_msg **h = malloc((size_t)n * sizeof *h), *reps = calloc((size_t)n, sizeof *reps);
  while (!r->stuck) {
    int i;
    for (i = 0; i < n && r->qhead[i]; i++) h[i] = &r->qhead[i]->m;
    if (i < n) break;
    int ref = 0, best = -1;
    for (i = 0; i < n; i++) { /* the reference is the majority (lowest rank on ties) */
      int agree = 0;
      for (int j = 0; j < n; j++) agree += coll_same(h[i], h[j]);
      if (agree > best) best = agree, ref = i;
    }
    if (best == n) {
      char rs[600];
      root_ranks_str(rs, sizeof rs, n);
      fn_log("seq %llu op %s ranks %s ok [root %s]", (unsigned long long)r->next_seq, fn_op_name(h[0]->op), rs,
             r->name);
      if (h[0]->op == FN_OP_SPLIT) {
        root_split(r, h);
      } else {
        for (i = 0; i < n; i++) reply_init(r, &reps[i], h[i], ncclSuccess);
        root_send_all(r, reps, n);
      }
      for (i = 0; i < n; i++) {
        struct fn_qent *q = r->qhead[i];
        r->qhead[i] = q->next;
        if (!r->qhead[i]) r->qtail[i] = NULL;
        free(q);
      }
      r->next_seq++;
      continue;
    }
    char line[900], d1[160], d2[160];
    int o = 0, first = 1;
    for (i = 0; i < n && o < (int)sizeof line - 200; i++) {
      if (coll_same(h[i], h[ref])) continue;
      coll_desc(d1, sizeof d1, h[i], h[ref]);
      coll_desc(d2, sizeof d2, h[ref], h[i]);
      if (first)
        o += snprintf(line + o, sizeof line - (size_t)o, "seq %llu mismatch rank %d %s vs %s",
                      (unsigned long long)r->next_seq, i, d1, d2);
      else o += snprintf(line + o, sizeof line - (size_t)o, "; rank %d %s", i, d1);
      first = 0;
    }
    fn_log("%s [root %s]", line, r->name);
    fn_debug(1, -1, "fake NCCL root: %s", line);
    r->stuck = true;
  }
  free(h);
  free(reps);
}

static void root_p2p(struct fn_root *r, const struct fn_msg *m) {
  int src = m->op == FN_OP_SEND ? m->rank : m->peer, dst = m->op == FN_OP_SEND ? m->peer : m->rank;
  struct fn_qent **pp = &r->p2p;
  for (; *pp; pp = &(*pp)->next) {
    const struct fn_msg *o = &(*pp)->m;
    int osrc = o->op == FN_OP_SEND ? o->rank : o->peer, odst = o->op == FN_OP_SEND ? o->peer : o->rank;
    if (osrc == src && odst == dst && o->seq == m->seq && o->op != m->op) break;
  }
  if (!*pp) { /* first half: wait for the peer */
    struct fn_qent *q = calloc(1, sizeof *q);
    q->m = *m;
    q->next = r->p2p;
    r->p2p = q;
    return;
  }
  struct fn_qent *q = *pp;
  *pp = q->next;
  if (q->m.count == m->count && q->m.datatype == m->datatype) {
    fn_log("p2p %d->%d #%llu send/recv count %llu ok [root %s]", src, dst, (unsigned long long)m->seq,
           (unsigned long long)m->count, r->name);
    struct fn_msg reps[2];
    reply_init(r, &reps[0], &q->m, ncclSuccess);
    reply_init(r, &reps[1], m, ncclSuccess);
    root_send_all(r, reps, 2);
  } else {
    fn_log("p2p %d->%d #%llu mismatch rank %d %s count %llu datatype %d vs rank %d %s count %llu datatype %d "
           "[root %s]",
           src, dst, (unsigned long long)m->seq, m->rank, fn_op_name(m->op), (unsigned long long)m->count,
           m->datatype, q->m.rank, fn_op_name(q->m.op), (unsigned long long)q->m.count, q->m.datatype, r->name);
  }
  free(q);
}

static void root_message(struct fn_root *r, struct fn_conn *c, const struct fn_msg *m) {
  if (m->magic != r->magic) { /* another communicator's id: drop it, like NCCL's magic check */
    close(c->fd);
    c->fd = -1;
    return;
  }
  if (m->kind == FN_HELLO && !c->hello) {
    root_hello(r, c, m);
    return;
  }
  if (c->rank < 0 || m->rank != c->rank || r->joined != r->nranks) return; /* not part of the comm */
  if (m->kind == FN_COLL) {
    struct fn_qent *q = calloc(1, sizeof *q);
    q->m = *m;
    if (r->qtail[c->rank]) r->qtail[c->rank]->next = q;
    else r->qhead[c->rank] = q;
    r->qtail[c->rank] = q;
    root_try_decide(r);
  } else if (m->kind == FN_P2P && m->peer >= 0 && m->peer < r->nranks) {
    root_p2p(r, m);
  } else if (m->kind == FN_SPLITID) {
    root_split_id(r, m);
  }
}

/* ------------------------------------------------------------------ thread */

static void root_close_conn(struct fn_conn *c) {
  if (c->fd < 0) return;
  close(c->fd);
  c->fd = -1;
  if (c->remote) linger_add(-1);
}

static void root_free(struct fn_root *r) {
  if (r->lfd >= 0) close(r->lfd);
  for (int i = 0; i < r->nconns; i++) root_close_conn(&r->conns[i]);
  if (r->fail_linger) linger_add(-1);
  for (int i = 0; r->qhead && i < r->nranks; i++)
    for (struct fn_qent *q = r->qhead[i], *nx; q; q = nx) nx = q->next, free(q);
  for (struct fn_qent *q = r->p2p, *nx; q; q = nx) nx = q->next, free(q);
  for (struct fn_split_wait *w = r->splits, *nx; w; w = nx) nx = w->next, free(w->ranks), free(w);
  free(r->qhead);
  free(r->qtail);
  free(r->rank_joined);
  free(r->conns);
  free(r);
}

static void *root_thread(void *arg) {
  struct fn_root *r = arg;
  struct pollfd *pfd = NULL;
  int cap = 0;
  for (;;) {
    /* Ends once every rank of the communicator checked in and closed its connection. */
    if (r->nconns == 0 && r->nranks > 0 && (r->joined == r->nranks || (r->failed && r->hellos >= r->max_nranks))) break;
    int np = r->nconns + 1;
    if (np > cap) {
      cap = np * 2;
      pfd = realloc(pfd, (size_t)cap * sizeof *pfd);
    }
    pfd[0] = (struct pollfd){.fd = r->lfd, .events = POLLIN};
    for (int i = 0; i < r->nconns; i++) pfd[i + 1] = (struct pollfd){.fd = r->conns[i].fd, .events = POLLIN};
    if (poll(pfd, (nfds_t)np, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    int polled = r->nconns;
    for (int i = 0; i < polled; i++) {
      struct fn_conn *c = &r->conns[i];
      if (c->fd < 0 || !(pfd[i + 1].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      struct fn_msg m;
      size_t got = 0;
      ssize_t k;
      while (got < sizeof m && (k = recv(c->fd, (char *)&m + got, sizeof m - got, 0)) != 0) {
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) break;
        got += (size_t)k;
      }
      if (got < sizeof m || m.tag != FN_WIRE_TAG) root_close_conn(c); /* EOF, error or garbage */
      else root_message(r, c, &m);
    }
    if (r->lfd >= 0 && (pfd[0].revents & POLLIN)) {
      int fd = accept4(r->lfd, NULL, NULL, SOCK_CLOEXEC);
      if (fd >= 0) {
        if (r->nconns == r->capconns) {
          r->capconns = r->capconns ? r->capconns * 2 : 16;
          r->conns = realloc(r->conns, (size_t)r->capconns * sizeof *r->conns);
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        r->conns[r->nconns++] = (struct fn_conn){.fd = fd, .rank = -1};
      }
    }
    int k = 0; /* drop closed connections */
    for (int i = 0; i < r->nconns; i++)
      if (r->conns[i].fd >= 0) r->conns[k++] = r->conns[i];
    r->nconns = k;
  }
  free(pfd);
  root_free(r);
  return NULL;
}

/* Listen on bind_addr (port 0 = any) and start the root thread; *actual gets the bound address. */
int fn_root_start(const union fn_sockaddr *bind_addr, uint64_t magic, union fn_sockaddr *actual) {
  char as[80];
  fn_addr_str(bind_addr, as, sizeof as);
  int fd = socket(bind_addr->sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    fn_set_error("Bootstrap : socket() failed: %s", strerror(errno));
    return -1;
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  socklen_t len = sizeof *actual;
  if (bind(fd, &bind_addr->sa, fn_addr_len(bind_addr)) != 0 || listen(fd, 16384) != 0 ||
      getsockname(fd, &actual->sa, &len) != 0) {
    fn_set_error("Bootstrap : cannot listen on %s: %s", as, strerror(errno));
    close(fd);
    return -1;
  }
  struct fn_root *r = calloc(1, sizeof *r);
  r->lfd = fd;
  r->magic = magic;
  fn_addr_str(actual, r->name, sizeof r->name);
  pthread_mutex_lock(&linger_lock);
  linger_pid = getpid();
  pthread_mutex_unlock(&linger_lock);
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  pthread_t tid;
  int rc = pthread_create(&tid, &at, root_thread, r);
  pthread_attr_destroy(&at);
  if (rc != 0) {
    fn_set_error("Bootstrap : pthread_create failed: %s", strerror(rc));
    close(fd);
    free(r);
    return -1;
  }
  const char *tn = getenv("NCCL_SET_THREAD_NAME");
  if (tn && atoi(tn) == 1) pthread_setname_np(tid, "NCCL BootstrapR");
  fn_debug(2, -1, "Bootstrap root listening on %s magic 0x%016llx", r->name, (unsigned long long)magic);
  return 0;
}
