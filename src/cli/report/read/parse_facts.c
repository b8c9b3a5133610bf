// SPDX-License-Identifier: MIT
/*
 * parse_facts.c: the events that describe a process's surroundings, into
 * its record: network (connect, aggregated per destination and result;
 * listen, accept, resolve; the host facts), GPU (versions, driver errors,
 * the fork-after-init facts) and NCCL (each communicator init, its ids,
 * its end or error with NCCL's own message). Called by the reader for one
 * parsed event at a time; no allocation but the reading thread's arena.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "reader.h"

#define MAX_CONNECTS 64
#define MAX_LISTENS 16
#define MAX_RESOLVES 8
#define MAX_CUDA_ERRS 16
#define MAX_COMMS 64
#define MAX_WARNS 8

/* ---- network ------------------------------------------------------------------ */

void ht_rep__on_connect(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		       const struct rep_loc *loc, double ts)
{
	const char *dest = json_string_value(json_object_get(o, "dest"));
	const char *result = json_string_value(json_object_get(o, "result"));
	int64_t count = ht_rep__int(o, "count");
	struct rep_connect *k = NULL;

	if (dest == NULL || result == NULL)
		return;
	if (count == REP_UNKNOWN || count < 1)
		count = 1;
	if (count > INT_MAX)
		count = INT_MAX;
	for (size_t i = 0; i < p->nconn && k == NULL; i++)
		if (strcmp(rep_cd(&p->conn[i])->dest, dest) == 0 &&
		    strcmp(rep_cd(&p->conn[i])->result, result) == 0)
			k = &p->conn[i];
	struct rep_conndest to;
	if (k == NULL) {
		if (p->nconn >= MAX_CONNECTS)
			return;
		k = REP_PUSH(&c->a, p->conn, p->nconn);
		to = ht_rep_cd_none;
		to.dest = ht_rep_intern(&c->a, dest, strlen(dest));
		to.result = ht_rep_intern(&c->a, result, strlen(result));
		k->first = INFINITY;
		k->last = -INFINITY;
	} else if (count < k->count) {
		return;
	} else {
		to = *rep_cd(k);
	}
	k->count = (int)count;
	ht_rep__set_str(&c->a, o, "role", &to.role);
	ht_rep__set_str(&c->a, o, "error", &to.error);
	ht_rep__set_str(&c->a, o, "tcp_state", &to.tcp_state);
	ht_rep__set_int(o, "errno", &to.err);
	if (ht_rep__bool(o, "probe") == 1)
		to.probe = true;
	k->to = ht_rep_cd_share(&c->a, &c->cds, &to);
	double first = ht_rep__num(o, "first"), last = ht_rep__num(o, "last");
	if (first < k->first)
		k->first = first;
	if (last > k->last)
		k->last = last;
	k->ts = ts;
	k->loc = *loc;
}

void ht_rep__on_listen(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		      const struct rep_loc *loc, bool accept)
{
	const char *addr = json_string_value(json_object_get(o, "addr"));
	if (addr == NULL)
		return;
	const char *result = json_string_value(json_object_get(o, "result"));
	if (!accept && result != NULL && strcmp(result, "ok") != 0) {
		/* A bind that failed listens on nothing. */
		if (rep_rare(p)->bind_fail != NULL)
			return;
		struct rep_bindfail *b = ht_rep_alloc(&c->a, sizeof(*b));
		json_t *h = json_object_get(o, "holder");
		b->addr = ht_rep_strdup(&c->a, addr);
		b->role = ht_rep__str(&c->a, o, "role");
		b->error = ht_rep__str(&c->a, o, "error");
		b->holder_pid = h != NULL ? ht_rep__int(h, "pid") : REP_UNKNOWN;
		b->holder_cmd = h != NULL ? ht_rep__str(&c->a, h, "cmd") : NULL;
		b->loc = *loc;
		ht_rep_rare_w(&c->a, p)->bind_fail = b;
		return;
	}
	for (size_t i = 0; i < rep_rare(p)->nlisten; i++)
		if (strcmp(rep_rare(p)->listen[i].addr, addr) == 0) {
			if (accept && ht_rep__int(o, "count") > rep_rare(p)->listen[i].accepted)
				rep_rare(p)->listen[i].accepted = ht_rep__int(o, "count");
			return;
		}
	if (rep_rare(p)->nlisten >= MAX_LISTENS)
		return;
	struct rep_rare *rr = ht_rep_rare_w(&c->a, p);
	struct rep_listen *l = REP_PUSH(&c->a, rr->listen, rr->nlisten);
	l->addr = ht_rep_strdup(&c->a, addr);
	l->role = ht_rep__str(&c->a, o, "role");
	l->accepted = accept ? ht_rep__int(o, "count") : 0;
	if (l->accepted == REP_UNKNOWN)
		l->accepted = 1;
	l->loc = *loc;
}

void ht_rep__on_store(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		     const struct rep_loc *loc)
{
	const char *path = json_string_value(json_object_get(o, "path"));
	double mtime = ht_rep__num(o, "mtime");
	if (rep_rare(p)->store != NULL || path == NULL || isnan(mtime))
		return;
	struct rep_store *s = ht_rep_alloc(&c->a, sizeof(*s));
	s->path = ht_rep_strdup(&c->a, path);
	s->size = ht_rep__int(o, "size");
	s->mtime = mtime;
	s->loc = *loc;
	ht_rep_rare_w(&c->a, p)->store = s;
}

static const char *join_strings(struct rep_arena *a, json_t *arr, const char *field, size_t max)
{
	struct rep_buf b = { 0 };
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) {
		const char *s = field != NULL ? json_string_value(json_object_get(v, field))
					      : json_string_value(v);
		if (s == NULL || i >= max)
			continue;
		if (b.n > 0)
			ht_rep_buf_add(&b, ",");
		ht_rep_buf_add(&b, s);
	}
	const char *r = ht_rep_strdup(a, b.s != NULL ? b.s : "");
	ht_rep_buf_free(&b);
	return r;
}

void ht_rep__on_resolve(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		       const struct rep_loc *loc)
{
	if (rep_rare(p)->nres >= MAX_RESOLVES)
		return;
	struct rep_rare *rr = ht_rep_rare_w(&c->a, p);
	struct rep_resolve *r = REP_PUSH(&c->a, rr->res, rr->nres);
	r->what = ht_rep__str(&c->a, o, "what");
	r->name = ht_rep__str(&c->a, o, "name");
	r->error = ht_rep__str(&c->a, o, "error");
	r->loopback = ht_rep__bool(o, "loopback") == 1;
	json_t *addrs = json_object_get(o, "addrs");
	r->addrs = json_is_array(addrs) ? join_strings(&c->a, addrs, NULL, 4) : NULL;
	r->loc = *loc;
}

void ht_rep__on_host(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc)
{
	struct rep_hostfacts hf = { 0 }, *h = &hf;
	json_t *ifs = json_object_get(o, "ifaces");
	json_t *m;

	h->have = true;
	/* (interned, as the other strings: processes that say the same share it) */
	const char *names = json_is_array(ifs) ? join_strings(&c->a, ifs, "name", 32) : NULL;
	h->ifaces = names != NULL ? ht_rep_intern(&c->a, names, strlen(names)) : NULL;
	h->nccl_ifname = ht_rep__str(&c->a, o, "nccl_socket_ifname");
	h->gloo_ifname = ht_rep__str(&c->a, o, "gloo_socket_ifname");
	m = json_object_get(o, "nccl_ifname_match");
	h->nccl_match = json_is_array(m) ? (int)json_array_size(m) : -1;
	m = json_object_get(o, "gloo_ifname_match");
	h->gloo_match = json_is_array(m) ? (int)json_array_size(m) : -1;
	h->shm_total = ht_rep__int(o, "shm_total");
	h->cpus = ht_rep__int(o, "cpus");
	p->hf = ht_rep_hf_share(&c->a, &c->hfs, h);
	p->hf_shm_free = ht_rep__int(o, "shm_free");
	p->hf_loc = *loc;
}

/* ---- GPU -------------------------------------------------------------------------- */

void ht_rep__on_version(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc)
{
	const char *what = json_string_value(json_object_get(o, "what"));
	int k = -1;

	if (what == NULL)
		return;
	if (strcmp(what, "cuda_driver") == 0)
		k = REP_VER_DRIVER;
	else if (strcmp(what, "cuda_runtime") == 0)
		k = REP_VER_RUNTIME;
	else if (strcmp(what, "nccl") == 0)
		k = REP_VER_NCCL;
	int64_t v = ht_rep__int(o, "value");
	if (k < 0 || v == REP_UNKNOWN)
		return;
	ht_rep_ver_set(&c->a, &c->vers, p, k, v, ht_rep__str(&c->a, o, "provider"), loc);
}

void ht_rep__on_cuda(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc)
{
	int64_t result = ht_rep__int(o, "result");
	int64_t count = ht_rep__int(o, "count");
	bool after_fork = ht_rep__bool(o, "after_fork") == 1;
	bool hung = ht_rep__bool(o, "hung") == 1;

	if (count == REP_UNKNOWN)
		count = ht_rep__int(o, "device_count");
	if (count != REP_UNKNOWN && (result == REP_UNKNOWN || result == 0) &&
	    count != rep_cuda(p)->device_count) {
		struct rep_cudainit ci = *rep_cuda(p);
		ci.device_count = count;
		p->cuda_init = ht_rep_cuda_share(&c->a, &c->cudas, &ci);
	}
	if (after_fork || hung) {
		struct rep_rare *r = ht_rep_rare_w(&c->a, p);
		if (!r->cuda_after_fork && !r->cuda_hung)
			r->cuda_fork_loc = *loc;
		if (hung && !r->cuda_hung)
			r->cuda_fork_loc = *loc;
		r->cuda_after_fork |= after_fork;
		r->cuda_hung |= hung;
	}
	if ((result == REP_UNKNOWN || result == 0) && !hung)
		return;
	if (rep_rare(p)->ncerr >= MAX_CUDA_ERRS)
		return;
	struct rep_rare *rr = ht_rep_rare_w(&c->a, p);
	struct rep_cuda_err *e = REP_PUSH(&c->a, rr->cerr, rr->ncerr);
	e->fn = ht_rep__str(&c->a, o, "fn");
	e->error = ht_rep__str(&c->a, o, "error");
	e->result = result;
	e->ordinal = ht_rep__int(o, "ordinal");
	e->after_fork = after_fork;
	e->hung = hung;
	e->loc = *loc;
}

/* ---- NCCL ------------------------------------------------------------------------- */

static bool is_init_fn(const char *fn)
{
	return fn != NULL && (strncmp(fn, "ncclCommInit", 12) == 0 ||
			      strcmp(fn, "ncclCommSplit") == 0 ||
			      strcmp(fn, "ncclCommShrink") == 0);
}

/* The fields of an init's line o into k (fn: its function, when k is new). */
static void comm_fields(struct rep_rctx *c, struct rep_comm *k, json_t *o, const char *fn)
{
	struct rep_arena *a = &c->a;
	struct rep_commid id = *rep_cid(k);
	if (fn != NULL)
		id.fn = ht_rep_intern(a, fn, strlen(fn));
	ht_rep__set_str(a, o, "root", &id.root);
	ht_rep__set_str(a, o, "id_hash", &id.id_hash);
	ht_rep__set_str(a, o, "commid", &id.commid);
	ht_rep__set_str(a, o, "parent", &id.parent);
	ht_rep__set_str(a, o, "comm_name", &id.comm_name);
	ht_rep__set_int(o, "nranks", &id.nranks);
	ht_rep__set_int(o, "color", &id.color);
	k->id = ht_rep_cid_share(a, &c->cids, &id);
	ht_rep__set_str(a, o, "comm", &k->comm);
	ht_rep__set_int(o, "rank", &k->rank);
}

void ht_rep__on_nccl(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		    const struct rep_loc *loc, double ts, double mono)
{
	const char *fn = json_string_value(json_object_get(o, "fn"));
	const char *state = json_string_value(json_object_get(o, "state"));
	int64_t tid = c->tid;	/* the head's (lines.c) */
	int64_t ver = ht_rep__int(o, "nccl_version");

	if (ver != REP_UNKNOWN && rep_vers(p)->value[REP_VER_NCCL] == REP_UNKNOWN)
		ht_rep_ver_set(&c->a, &c->vers, p, REP_VER_NCCL, ver,
			       ht_rep__str(&c->a, o, "provider"), loc);
	if (fn != NULL && strcmp(fn, "not_observable") == 0) {
		const char *why = ht_rep__str(&c->a, o, "reason");
		struct rep_rare *rr = ht_rep_rare_w(&c->a, p);
		if (rr->nwarns < MAX_WARNS)
			*REP_PUSH(&c->a, rr->warns, rr->nwarns) =
				ht_rep_printf(&c->a, "NCCL not observable: %s", why != NULL ? why : "?");
		return;
	}
	bool begin = state != NULL && strcmp(state, "begin") == 0;
	bool error = state != NULL && strcmp(state, "error") == 0;
	bool end = state != NULL && strcmp(state, "end") == 0;
	bool async = fn != NULL && strcmp(fn, "ncclCommGetAsyncError") == 0;
	if (!is_init_fn(fn) && !(async && error))
		return;
	struct rep_comm *k = NULL;
	/* A stand-in from the nccl_init phase line gives way to the real one. */
	if (p->ncomms == 1 && p->comms[0].tid == -1 && !async)
		p->ncomms = 0;
	if (!begin) {
		const char *comm = json_string_value(json_object_get(o, "comm"));
		for (size_t i = p->ncomms; i-- > 0 && k == NULL;) {
			struct rep_comm *x = &p->comms[i];
			if (async ? (comm != NULL && x->comm != NULL && strcmp(x->comm, comm) == 0)
				  : (!x->ended && !x->failed && rep_cid(x)->fn != NULL &&
				     strcmp(rep_cid(x)->fn, fn) == 0 &&
				     (tid == REP_UNKNOWN || x->tid == tid)))
				k = x;
		}
	}
	const char *new_fn = NULL;
	if (k == NULL) {
		if (p->ncomms >= MAX_COMMS)
			return;
		k = REP_PUSH(&c->a, p->comms, p->ncomms);
		new_fn = fn;
		k->rank = k->result = REP_UNKNOWN;
		k->tid = tid;
		k->ts = ts;
		k->mono = mono;
		k->begin = *loc;
		k->nested = ht_rep__bool(o, "nested") == 1;
	}
	comm_fields(c, k, o, new_fn);
	if (end) {
		k->ended = true;
		k->end = *loc;
		ht_rep__set_int(o, "result", &k->result);
	} else if (error) {
		k->failed = true;
		k->end = *loc;
		ht_rep__set_int(o, "result", &k->result);
		struct rep_commid e = *rep_cid(k);
		ht_rep__set_str(&c->a, o, "error", &e.error);
		ht_rep__set_str(&c->a, o, "last_error", &e.last_error);
		k->id = ht_rep_cid_share(&c->a, &c->cids, &e);
	}
}
