// SPDX-License-Identifier: MIT
/*
 * verdicts_nccl.c: the rules about NCCL communicators. A communicator is
 * recognised across ranks by its unique id (commid, else id_hash) and root
 * address, a split by its parent and colour; each process's communicator
 * pointers map to that key. Rules: unique_id_mismatch (ranks meant for one
 * communicator holding different ids), nccl_init_error (NCCL's own message
 * quoted), a communicator's size disagreeing (world_size_mismatch), and,
 * aligning each communicator's collectives by sequence number,
 * collective_mismatch and collective_lag.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules.h"

static bool is_split(const struct rep_comm *c)
{
	const char *fn = rep_cid(c)->fn;
	return fn != NULL && (strcmp(fn, "ncclCommSplit") == 0 || strcmp(fn, "ncclCommShrink") == 0);
}

static const char *id_of(const struct rep_comm *c)
{
	const struct rep_commid *id = rep_cid(c);
	return id->commid != NULL ? id->commid : id->id_hash;
}

static int64_t nranks_of(const struct rep_comm *c)
{
	return rep_cid(c)->nranks;
}

/* A key: the last one made when the text is the same (thousands of ranks
 * share a communicator), so that comparing keys is mostly comparing
 * pointers (same_key). */
static const char *key_text(struct rep_job *job, const char **last, const char *a, const char *sep,
			    const char *b, bool num, long long color)
{
	char buf[512];
	int n = num ? snprintf(buf, sizeof(buf), "%s%s%lld", a, sep, color) :
		      snprintf(buf, sizeof(buf), "%s%s%s", a, sep, b);
	if (n < 0)
		return NULL;
	if ((size_t)n >= sizeof(buf))
		return num ? ht_rep_printf(&job->a, "%s%s%lld", a, sep, color) :
			     ht_rep_printf(&job->a, "%s%s%s", a, sep, b);
	if (*last == NULL || strcmp(*last, buf) != 0)
		*last = ht_rep_strdup(&job->a, buf);
	return *last;
}

static int same_key(const char *a, const char *b)
{
	return a == b ? 0 : strcmp(a, b);
}

/* The keys made last: the text, and the init's ids it was made of. */
struct keys_last {
	const char *text;
	const struct rep_commid *id;	/* (an init's key is its ids': shared) */
	const char *key;
};

/* Gives every communicator of p its key (splits after their parents). */
static void keys(struct rep_job *job, struct rep_proc *p, struct keys_last *kl)
{
	const char **last = &kl->text;
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < p->ncomms; i++) {
			struct rep_comm *c = &p->comms[i];
			if (c->key != NULL)
				continue;
			if (!is_split(c)) {
				if (c->id != NULL && c->id == kl->id) {
					c->key = kl->key;
				} else if (id_of(c) != NULL) {
					c->key = key_text(job, last, id_of(c), "@",
							  rep_cid(c)->root != NULL ? rep_cid(c)->root : "?", false, 0);
					kl->id = c->id;
					kl->key = c->key;
				}
				continue;
			}
			for (size_t k = 0; k < p->ncomms && rep_cid(c)->parent != NULL; k++) {
				struct rep_comm *q = &p->comms[k];
				if (q->key != NULL && q->comm != NULL && strcmp(q->comm, rep_cid(c)->parent) == 0) {
					c->key = key_text(job, last, q->key, "/split", NULL, true,
							  (long long)rep_cid(c)->color);
					break;
				}
			}
		}
}

static const struct rep_comm *comm_by_ptr(const struct rep_proc *p, const char *ptr)
{
	if (ptr == NULL)
		return NULL;
	for (size_t i = p->ncomms; i-- > 0;)
		if (p->comms[i].comm != NULL && p->comms[i].key != NULL &&
		    strcmp(p->comms[i].comm, ptr) == 0)
			return &p->comms[i];
	return NULL;
}

/* ---- unique_id_mismatch ------------------------------------------------------------ */

struct member {
	struct rep_proc *p;
	struct rep_comm *c;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	if (nranks_of(x->c) != nranks_of(y->c))
		return nranks_of(x->c) < nranks_of(y->c) ? -1 : 1;
	int k = same_key(x->c->key, y->c->key);
	if (k != 0)
		return k;
	return x->c->rank < y->c->rank ? -1 : x->c->rank > y->c->rank;
}

struct idset {
	size_t from, to;	/* members [from, to) */
	size_t distinct;	/* distinct communicator ranks */
	bool waits;
	int64_t lo, hi;		/* communicator ranks seen */
};

static bool disjoint(const struct member *m, const struct idset *a, const struct idset *b)
{
	if (a->hi < b->lo || b->hi < a->lo)
		return true;
	for (size_t i = a->from; i < a->to; i++)
		for (size_t k = b->from; k < b->to; k++)
			if (m[i].c->rank == m[k].c->rank)
				return false;
	return true;
}

static void id_mismatch(struct rep_job *job, struct member *m, size_t n)
{
	/* m: sorted by (nranks, key, rank). Per nranks, the id sets that are
	 * incomplete, hold waiting ranks and are pairwise disjoint in their
	 * communicator ranks were meant to be one communicator. */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && nranks_of(m[j].c) == nranks_of(m[i].c))
			j++;
		struct idset sets[16];
		size_t ns = 0;
		for (size_t a = i; a < j;) {
			size_t b = a;
			while (b < j && same_key(m[b].c->key, m[a].c->key) == 0)
				b++;
			struct idset s = { a, b, 0, false, INT64_MAX, INT64_MIN };
			for (size_t k = a; k < b; k++) {
				s.distinct += k == a || m[k].c->rank != m[k - 1].c->rank;
				s.waits |= rep_waited(m[k].p) || m[k].p->failed;
				if (m[k].c->rank < s.lo)
					s.lo = m[k].c->rank;
				if (m[k].c->rank > s.hi)
					s.hi = m[k].c->rank;
			}
			if ((int64_t)s.distinct < nranks_of(m[a].c) && s.waits && ns < 16)
				sets[ns++] = s;
			a = b;
		}
		bool ok = ns >= 2;
		for (size_t x = 0; x < ns && ok; x++)
			for (size_t y = x + 1; y < ns && ok; y++)
				ok = disjoint(m, &sets[x], &sets[y]);
		if (ok) {
			size_t big = 0;
			for (size_t x = 1; x < ns; x++)
				if (sets[x].to - sets[x].from > sets[big].to - sets[big].from)
					big = x;
			struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_UNIQUE_ID_MISMATCH,
								   REP_ERROR);
			const struct rep_comm *major = m[sets[big].from].c, *minor = NULL;
			int64_t *mr = malloc((sets[big].to - sets[big].from) * sizeof(*mr));
			size_t nmr = 0;
			if (mr == NULL)
				abort();
			for (size_t k = sets[big].from; k < sets[big].to; k++)
				if (m[k].p->rank != REP_UNKNOWN)
					mr[nmr++] = m[k].p->rank;
			nmr = ht_rep_ranks_sort(mr, nmr);
			for (size_t x = 0; x < ns; x++) {
				if (x == big)
					continue;
				for (size_t k = sets[x].from; k < sets[x].to; k++) {
					ht_rep_blame(job, v, m[k].p);
					if (minor == NULL)
						minor = m[k].c;
					if (m[k].c->ts < v->t)
						v->t = m[k].c->ts;
				}
				ht_rep_verdict_evidence(job, v, &m[sets[x].from].c->begin, NULL);
			}
			ht_rep_verdict_evidence(job, v, &m[sets[big].from].c->begin, NULL);
			v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
			v->summary = ht_rep_printf(&job->a, "%s joined a communicator of %lld ranks with "
						   "unique id %s (root %s), %s with id %s (root %s)",
						   ht_rep_ranks_phrase(job, v->ranks, v->nranks),
						   (long long)nranks_of(major), id_of(minor),
						   rep_cid(minor)->root != NULL ? rep_cid(minor)->root : "?",
						   ht_rep_ranks_phrase(job, mr, nmr), id_of(major),
						   rep_cid(major)->root != NULL ? rep_cid(major)->root : "?");
			free(mr);
			v->advice = "All ranks of a communicator must use the id one ncclGetUniqueId "
				    "made, broadcast from its root; here there are several. Check that "
				    "only global rank 0 creates it and every rank receives it through "
				    "the same store (same MASTER_ADDR/MASTER_PORT and run id): a store "
				    "left from an earlier run, two jobs on one port, or a per-node "
				    "'rank 0' each make their own. With NCCL_COMM_ID, use one value "
				    "everywhere.";
		}
		i = j;
	}
}

/* ---- a communicator's size ------------------------------------------------------------ */

static int cmp_member_key(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int k = same_key(x->c->key, y->c->key);
	if (k != 0)
		return k;
	return x->p->rank < y->p->rank ? -1 : x->p->rank > y->p->rank;
}

static void comm_size(struct rep_job *job, struct member *m, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && same_key(m[j].c->key, m[i].c->key) == 0)
			j++;
		/* The size most members were given (a vote, then its count). */
		int64_t major = nranks_of(m[i].c);
		size_t votes = 0;
		for (size_t a = i; a < j; a++) {
			if (votes == 0)
				major = nranks_of(m[a].c);
			votes += nranks_of(m[a].c) == major ? 1 : (size_t)-1;
		}
		struct rep_verdict *v = NULL;
		for (size_t a = i; a < j; a++) {
			if (nranks_of(m[a].c) == major || nranks_of(m[a].c) == REP_UNKNOWN)
				continue;
			if (v == NULL) {
				v = ht_rep_verdict_new(job, HT_VERDICT_WORLD_SIZE_MISMATCH,
						       job->stuck || job->failed ? REP_ERROR : REP_WARNING);
				v->summary = ht_rep_printf(&job->a, "ranks of one communicator (id %s) "
							   "disagree on its size: %lld for most, %lld "
							   "for some", id_of(m[a].c), (long long)major,
							   (long long)nranks_of(m[a].c));
			}
			ht_rep_blame(job, v, m[a].p);
			if (v->nevidence < 3)
				ht_rep_verdict_evidence(job, v, &m[a].c->begin, NULL);
		}
		if (v != NULL) {
			for (size_t a = i; a < j; a++)
				if (nranks_of(m[a].c) == major) {
					ht_rep_verdict_evidence(job, v, &m[a].c->begin, NULL);
					break;
				}
			v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
			v->summary = ht_rep_printf(&job->a, "%s: %s", v->summary,
						   ht_rep_ranks_phrase(job, v->ranks, v->nranks));
			v->advice = "Every rank must pass the same nranks to ncclCommInitRank (the "
				    "world size or the group's size): a rank launched with another "
				    "WORLD_SIZE, or a group built from a different rank list.";
		}
		i = j;
	}
}

/* ---- nccl_init_error ------------------------------------------------------------------- */

static const char *nccl_advice(const char *msg, int64_t result)
{
	if (msg != NULL && strstr(msg, "Duplicate GPU") != NULL)
		return "Two ranks use one GPU: select the device by the local rank before init "
		       "(see duplicate_gpu).";
	if (msg != NULL && (strstr(msg, "shm") != NULL || strstr(msg, "No space left") != NULL ||
			    strstr(msg, "shared memory") != NULL))
		return "Shared memory ran out: give the container a bigger /dev/shm "
		       "(--shm-size, --ipc=host) or set NCCL_SHM_DISABLE=1.";
	if (msg != NULL && (strstr(msg, "socket interface") != NULL || strstr(msg, "IFNAME") != NULL))
		return "NCCL found no usable network interface: fix NCCL_SOCKET_IFNAME (see the "
		       "host's interfaces) or unset it.";
	if (msg != NULL && (strstr(msg, "refused") != NULL || strstr(msg, "timed out") != NULL ||
			    strstr(msg, "Connect to") != NULL))
		return "NCCL could not connect between ranks: firewalls between hosts, the "
		       "interface it picked (NCCL_SOCKET_IFNAME), or a peer that died.";
	if (msg != NULL && strstr(msg, "version") != NULL)
		return "NCCL versions differ between ranks: load one NCCL everywhere.";
	switch (result) {
	case 1:
		return "A CUDA call inside NCCL failed: check the GPU and driver on that host "
		       "(nvidia-smi, dmesg).";
	case 2:
		return "A system call inside NCCL failed (sockets, shared memory, memory locking): "
		       "rerun with NCCL_DEBUG=INFO for the call; check ulimit -l, /dev/shm.";
	case 4:
		return "Invalid arguments to NCCL: nranks, rank or the unique id passed by the "
		       "framework are wrong on these ranks.";
	case 5:
		return "Invalid usage: typically two ranks on one GPU, or a rank outside [0, nranks).";
	case 6:
		return "A remote rank failed: look at the verdicts about the other ranks first.";
	default:
		return "NCCL's message above says why; rerun with NCCL_DEBUG=INFO "
		       "NCCL_DEBUG_SUBSYS=INIT,BOOTSTRAP,NET for more.";
	}
}

struct nerr {
	struct rep_proc *p;
	const struct rep_comm *c;
	const char *msg;
};

static int cmp_nerr(const void *a, const void *b)
{
	const struct nerr *x = a, *y = b;
	int k = strcmp(x->msg, y->msg);
	if (k != 0)
		return k;
	return x->p->rank < y->p->rank ? -1 : x->p->rank > y->p->rank;
}

static bool same_msg(const void *a, const void *b)
{
	return strcmp(((const struct nerr *)a)->msg, ((const struct nerr *)b)->msg) == 0;
}

static void init_errors(struct rep_job *job)
{
	struct rep_list l = REP_LIST(struct nerr);
	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *p = job->procs.v[i];
		REP_AHEAD_P(job->procs.v, job->procs.n, i, ncomms);
		REP_AHEAD_P(job->procs.v, job->procs.n, i, comms);
		REP_AHEAD_IN_AT(job->procs.v, job->procs.n, i, comms, struct rep_comm, failed);
		for (size_t k = 0; k < p->ncomms; k++) {
			const struct rep_comm *c = &p->comms[k];
			if (!c->failed || c->nested)
				continue;
			const char *le = rep_cid(c)->last_error, *er = rep_cid(c)->error;
			const char *msg = le != NULL && le[0] != '\0' ? le :
					  er != NULL ? er : "no message";
			*(struct nerr *)ht_rep_list_push(&l) = (struct nerr){ p, c, msg };
		}
		if (rep_ph(p, HT_PHASE_NCCL_ID)->errored)
			*(struct nerr *)ht_rep_list_push(&l) = (struct nerr){
				p, NULL, rep_rare(p)->nccl_id.last_error != NULL ? rep_rare(p)->nccl_id.last_error :
				rep_rare(p)->nccl_id.error != NULL ? rep_rare(p)->nccl_id.error : "no message" };
	}
	ht_rep_list_sort(&l, cmp_nerr);
	struct nerr *e = l.v;
	size_t n = l.n;
	for (size_t i = 0; i < n;) {
		size_t j = ht_rep_list_run(&l, i, same_msg);
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_NCCL_INIT_ERROR, REP_ERROR);
		for (size_t k = i; k < j; k++) {
			ht_rep_blame(job, v, e[k].p);
			const struct rep_loc *l = e[k].c != NULL ? &e[k].c->end : &rep_rare(e[k].p)->nccl_id.loc;
			if (k < i + 3)
				ht_rep_verdict_evidence(job, v, l, NULL);
			double t = e[k].c != NULL ? e[k].c->ts : rep_ph(e[k].p, HT_PHASE_NCCL_ID)->ts;
			if (t < v->t)
				v->t = t;
		}
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		const struct rep_comm *c = e[i].c;
		const char *fn = c == NULL ? "ncclGetUniqueId" :
				 rep_cid(c)->fn != NULL ? rep_cid(c)->fn : "NCCL init";
		const char *err = c != NULL ? rep_cid(c)->error : rep_rare(e[i].p)->nccl_id.error;
		int64_t result = c != NULL ? c->result : rep_rare(e[i].p)->nccl_id.result;
		v->summary = ht_rep_printf(&job->a, "%s failed on %s: %s%s%s\"%s\"", fn,
					   v->nranks > 0 ? ht_rep_ranks_phrase(job, v->ranks, v->nranks) :
					   ht_rep_who(job, e[i].p), err != NULL ? err : "",
					   result != REP_UNKNOWN ? ht_rep_printf(&job->a, " (%lld)",
										 (long long)result) : "",
					   err != NULL || result != REP_UNKNOWN ? ": " : "", e[i].msg);
		v->advice = nccl_advice(e[i].msg, result);
		i = j;
	}
	ht_rep_list_free(&l);
}

/* ---- collectives ----------------------------------------------------------------------- */

struct centry {
	int64_t seq;
	size_t member;
	const struct rep_coll *k;
};

static int cmp_centry(const void *a, const void *b)
{
	const struct centry *x = a, *y = b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->member < y->member ? -1 : x->member > y->member;
}

/* An op name compared without case and without NCCL's "nccl" prefix. */
static bool op_is(const char *op, const char *name)
{
	if (op == NULL)
		return false;
	if (strncasecmp(op, "nccl", 4) == 0)
		op += 4;
	return strcasecmp(op, name) == 0;
}

static bool p2p(const char *op)
{
	return op_is(op, "send") || op_is(op, "recv");
}

static bool rooted(const char *op)
{
	return op_is(op, "broadcast") || op_is(op, "bcast") || op_is(op, "reduce");
}

static bool same_coll(const struct rep_coll *a, const struct rep_coll *b)
{
	if (p2p(a->op) && p2p(b->op))
		return true;
	if (a->op == NULL || b->op == NULL || strcmp(a->op, b->op) != 0)
		return false;
	if (a->count != b->count)
		return false;
	if ((a->dtype != NULL) != (b->dtype != NULL) || (a->dtype != NULL && strcmp(a->dtype, b->dtype) != 0))
		return false;
	if ((a->redop != NULL) != (b->redop != NULL) || (a->redop != NULL && strcmp(a->redop, b->redop) != 0))
		return false;
	return !rooted(a->op) || a->peer == b->peer;
}

static const char *coll_text(struct rep_job *job, const struct rep_coll *k)
{
	return ht_rep_printf(&job->a, "%s(count %lld, %s%s%s%s)", k->op != NULL ? k->op : "?",
			     (long long)k->count, k->dtype != NULL ? k->dtype : "?",
			     k->redop != NULL ? ", " : "", k->redop != NULL ? k->redop : "",
			     rooted(k->op) ? ht_rep_printf(&job->a, ", root %lld", (long long)k->peer) : "");
}

static const char *comm_text(struct rep_job *job, const struct rep_comm *c)
{
	if (rep_cid(c)->comm_name != NULL)
		return ht_rep_printf(&job->a, "communicator '%s'", rep_cid(c)->comm_name);
	const char *id = id_of(c);
	return ht_rep_printf(&job->a, "communicator %.12s%s (%lld ranks)", id != NULL ? id : "?",
			     id != NULL && strlen(id) > 12 ? "..." : "", (long long)nranks_of(c));
}

static void add_entry(struct centry **e, size_t *n, size_t *cap, struct centry x)
{
	if (*n == *cap) {
		*cap = *cap != 0 ? *cap * 2 : 256;
		if ((*e = realloc(*e, *cap * sizeof(**e))) == NULL)
			abort();
	}
	(*e)[(*n)++] = x;
}

/* One communicator: its members m[0..nm). */
static void collectives(struct rep_job *job, struct member *m, size_t nm)
{
	struct centry *e = NULL;
	size_t n = 0, cap = 0;
	int64_t *last = malloc(nm * sizeof(*last));
	if (last == NULL)
		abort();
	const char *key = m[0].c->key;
	for (size_t i = 0; i < nm; i++) {
		struct rep_proc *p = m[i].p;
		last[i] = p->colls_total != REP_UNKNOWN || p->nring > 0 ? -1 : REP_UNKNOWN;
		bool first_in_ring = false;
		for (size_t r = 0; r < p->nring; r++) {
			const struct rep_comm *c = comm_by_ptr(p, p->ring[r].comm);
			if (c == NULL || strcmp(c->key, key) != 0 || p->ring[r].seq == REP_UNKNOWN)
				continue;
			add_entry(&e, &n, &cap, (struct centry){ p->ring[r].seq, i, &p->ring[r] });
			if (p->ring[r].seq > last[i])
				last[i] = p->ring[r].seq;
			first_in_ring |= p->ring[r].seq == rep_rare(p)->first_coll.seq;
		}
		/* The first collective from its phase line, unless the ring has it. */
		if (rep_rare(p)->have_first_coll && p->rare->first_coll.seq != REP_UNKNOWN && !first_in_ring) {
			const struct rep_comm *c = comm_by_ptr(p, p->rare->first_coll.comm);
			if (c != NULL && strcmp(c->key, key) == 0) {
				add_entry(&e, &n, &cap, (struct centry){ p->rare->first_coll.seq, i, &p->rare->first_coll });
				if (last[i] == REP_UNKNOWN || p->rare->first_coll.seq > last[i])
					last[i] = p->rare->first_coll.seq;
			}
		}
	}
	if (n > 0)
		rep_sort(e, n, sizeof(*e), cmp_centry);
	bool waiting = false;
	for (size_t i = 0; i < nm; i++)
		waiting |= rep_waited(m[i].p);
	enum rep_severity sev = waiting ? REP_ERROR : REP_WARNING;
	/* The first sequence number at which members disagree. */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && e[j].seq == e[i].seq)
			j++;
		/* The majority's collective at this seq: a vote, then its count. */
		size_t best = i, best_n = 0, votes = 0;
		for (size_t a = i; a < j; a++) {
			if (votes == 0)
				best = a;
			votes += same_coll(e[a].k, e[best].k) ? 1 : (size_t)-1;
		}
		for (size_t a = i; a < j; a++)
			best_n += same_coll(e[a].k, e[best].k);
		if (best_n < j - i) {
			struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_COLLECTIVE_MISMATCH, sev);
			const struct rep_coll *odd = NULL;
			int64_t *mr = malloc((j - i) * sizeof(*mr));
			size_t nmr = 0;
			if (mr == NULL)
				abort();
			for (size_t a = i; a < j; a++) {
				struct rep_proc *p = m[e[a].member].p;
				if (same_coll(e[a].k, e[best].k)) {
					mr[nmr++] = p->rank;
					continue;
				}
				if (odd == NULL)
					odd = e[a].k;
				ht_rep_blame(job, v, p);
				if (v->nevidence < 3 && p->last_dump != NULL)
					ht_rep_verdict_note(job, v, "%s: collective #%lld on rank %lld: %s",
							    job->files[p->file].name, (long long)e[a].seq,
							    (long long)p->rank, coll_text(job, e[a].k));
			}
			struct rep_proc *mp = m[e[best].member].p;
			ht_rep_verdict_note(job, v, "%s: collective #%lld on rank %lld: %s",
					    job->files[mp->file].name, (long long)e[best].seq,
					    (long long)mp->rank, coll_text(job, e[best].k));
			nmr = ht_rep_ranks_sort(mr, nmr);
			v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
			v->summary = ht_rep_printf(&job->a, "at collective #%lld of %s, %s issued %s while "
						   "%s issued %s", (long long)e[i].seq,
						   comm_text(job, m[0].c),
						   ht_rep_ranks_phrase(job, v->ranks, v->nranks),
						   coll_text(job, odd), ht_rep_ranks_phrase(job, mr, nmr),
						   coll_text(job, e[best].k));
			free(mr);
			v->advice = "Ranks issued different collectives at the same step: a branch "
				    "taken on some ranks only (a condition on the rank, uneven data or "
				    "batches), different configuration or tensor shapes per rank. "
				    "Compare the ranks' code paths at that step; in PyTorch "
				    "TORCH_DISTRIBUTED_DEBUG=DETAIL checks this as it runs.";
			goto out;
		}
		i = j;
	}
	/* Lag: members behind the ones that wait in the latest collective. */
	int64_t hi = REP_UNKNOWN;
	for (size_t i = 0; i < nm; i++)
		if (last[i] != REP_UNKNOWN && (hi == REP_UNKNOWN || last[i] > hi))
			hi = last[i];
	if (hi == REP_UNKNOWN || hi < 0)
		goto out;
	bool ahead_wait = false, behind = false;
	for (size_t i = 0; i < nm; i++) {
		if (last[i] == hi)
			ahead_wait |= rep_waited(m[i].p);
		else if (last[i] != REP_UNKNOWN)
			behind = true;
	}
	if (!ahead_wait || !behind)
		goto out;
	struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_COLLECTIVE_LAG, REP_ERROR);
	const struct rep_coll *waiting_in = NULL;
	int64_t *ar = malloc(nm * sizeof(*ar));
	size_t nar = 0;
	int64_t lag_at = hi;
	if (ar == NULL)
		abort();
	for (size_t i = 0; i < nm; i++) {
		if (last[i] == REP_UNKNOWN)
			continue;
		if (last[i] == hi) {
			ar[nar++] = m[i].p->rank;
			continue;
		}
		ht_rep_blame(job, v, m[i].p);
		if (last[i] < lag_at)
			lag_at = last[i];
		if (v->nevidence < 3 && m[i].p->last_dump != NULL)
			ht_rep_verdict_evidence(job, v, &m[i].p->last_dump->end_loc, ht_rep_keep_dump_end);
	}
	for (size_t a = 0; a < n; a++)
		if (e[a].seq == hi)
			waiting_in = e[a].k;
	nar = ht_rep_ranks_sort(ar, nar);
	v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
	v->summary = ht_rep_printf(&job->a, "on %s, %s wait in collective #%lld%s%s, which %s %s "
				   "not issued (%s at #%lld)", comm_text(job, m[0].c),
				   ht_rep_ranks_phrase(job, ar, nar), (long long)hi,
				   waiting_in != NULL ? " " : "",
				   waiting_in != NULL ? coll_text(job, waiting_in) : "",
				   ht_rep_ranks_phrase(job, v->ranks, v->nranks),
				   v->nranks == 1 ? "has" : "have", lag_at < 0 ? "none issued, " : "last",
				   (long long)lag_at);
	free(ar);
	for (size_t i = 0; i < nm; i++)
		if (last[i] == hi && m[i].p->last_dump != NULL) {
			ht_rep_verdict_evidence(job, v, &m[i].p->last_dump->loc, ht_rep_keep_stall);
			break;
		}
	v->advice = "The ranks behind have not issued the collective the others wait in: see their "
		    "stacks (stuck, or busy elsewhere). A rank that skipped a collective, or issues "
		    "collectives of several communicators in another order than its peers, leaves "
		    "them waiting.";
out:
	free(last);
	free(e);
}

void ht_rep_rules_nccl(struct rep_job *job)
{
	size_t n = 0, cap = 64;
	struct member *m = malloc(cap * sizeof(*m));
	if (m == NULL)
		abort();
	struct keys_last last = { 0 };
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		REP_AHEAD_P(job->mains.v, job->mains.n, i, ncomms);
		REP_AHEAD_P(job->mains.v, job->mains.n, i, comms);
		REP_AHEAD_IN(job->mains.v, job->mains.n, i, comms);
		REP_AHEAD_IN_AT(job->mains.v, job->mains.n, i, comms, struct rep_comm, key);
		keys(job, p, &last);
		for (size_t k = 0; k < p->ncomms; k++) {
			struct rep_comm *c = &p->comms[k];
			if (c->key == NULL || c->nested)
				continue;
			if (n == cap) {
				cap *= 2;
				if ((m = realloc(m, cap * sizeof(*m))) == NULL)
					abort();
			}
			m[n++] = (struct member){ p, c };
		}
	}
	init_errors(job);
	if (n > 0) {
		/* Ids: inits only (a split has no id of its own), size known. */
		struct member *ids = malloc(n * sizeof(*ids));
		size_t ni = 0;
		if (ids == NULL)
			abort();
		for (size_t i = 0; i < n; i++)
			if (!is_split(m[i].c) && nranks_of(m[i].c) != REP_UNKNOWN &&
			    m[i].c->rank != REP_UNKNOWN)
				ids[ni++] = m[i];
		rep_sort(ids, ni, sizeof(*ids), cmp_member);
		id_mismatch(job, ids, ni);
		free(ids);
		rep_sort(m, n, sizeof(*m), cmp_member_key);
		/* A process counts once per communicator (an init retried). */
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (k == 0 || m[i].p != m[k - 1].p || same_key(m[i].c->key, m[k - 1].c->key) != 0)
				m[k++] = m[i];
			else
				m[k - 1] = m[i];	/* the later init */
		n = k;
		comm_size(job, m, n);
		for (size_t i = 0; i < n;) {
			size_t j = i;
			while (j < n && same_key(m[j].c->key, m[i].c->key) == 0)
				j++;
			if (j - i >= 2)
				collectives(job, &m[i], j - i);
			i = j;
		}
	}
	free(m);
}
