// SPDX-License-Identifier: MIT
/*
 * parse.c: one trace event (already parsed by jansson) into the process
 * record it belongs to (doc/trace-format.md). Only what the rules, the
 * stacks and the timeline use is kept, as plain structs in the reading
 * thread's arena: a record costs a few KiB however long its file is.
 * Dump lines (thread, dump_end) are not parsed here: the reader notes
 * where they are and ht_rep__proc_end parses only the ones that matter.
 */
#include <math.h>
#include <string.h>

#include "reader.h"

#define MAX_CONNECTS 64
#define MAX_LISTENS 16
#define MAX_RESOLVES 8
#define MAX_CUDA_ERRS 16
#define MAX_COMMS 64
#define MAX_CALLS 64
#define MAX_WARNS 8
#define MAX_FRAMES 256

/* ---- field access ----------------------------------------------------------- */

const char *ht_rep__str(struct rep_arena *a, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		return NULL;
	return ht_rep_strndup(a, json_string_value(v), json_string_length(v));
}

int64_t ht_rep__int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (json_is_integer(v))
		return (int64_t)json_integer_value(v);
	if (json_is_real(v)) {
		double d = json_real_value(v);
		if (d > -9e18 && d < 9e18)
			return (int64_t)d;
	}
	return REP_UNKNOWN;
}

double ht_rep__num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

int ht_rep__bool(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_boolean(v) ? json_is_true(v) : -1;
}

/* Grows an arena array of n items of size sz to hold one more (doubling). */
static void *grow(struct rep_arena *a, void *arr, size_t n, size_t sz)
{
	if (n == 0 || (n & (n - 1)) != 0)
		return arr;		/* room left: capacities are powers of two */
	void *p = ht_rep_alloc(a, 2 * n * sz);
	memcpy(p, arr, n * sz);
	return p;
}
#define PUSH(a, arr, n) ((arr) = (n) == 0 ? ht_rep_alloc((a), sizeof(*(arr))) : \
			 grow((a), (arr), (n), sizeof(*(arr))), &(arr)[(n)++])

/* ---- header ----------------------------------------------------------------- */

static const char *fw_from_text(const char *s)
{
	if (s == NULL)
		return NULL;
	if (strstr(s, "deepspeed") != NULL)
		return "deepspeed";
	if (strstr(s, "horovod") != NULL)
		return "horovod";
	if (strstr(s, "jax") != NULL)
		return "jax";
	if (strstr(s, "torchrun") != NULL || strstr(s, "torch.distributed") != NULL ||
	    strstr(s, "accelerate") != NULL)
		return "pytorch";
	return NULL;
}

static void header_cmd(struct rep_rctx *c, struct rep_proc *p, json_t *cmd)
{
	struct rep_buf b = { 0 };
	size_t i;
	json_t *arg;

	json_array_foreach(cmd, i, arg) {
		const char *s = json_string_value(arg);
		if (s == NULL)
			continue;
		if (p->fw_hint == NULL)
			p->fw_hint = fw_from_text(s);
		if (b.n < 160) {
			if (i == 0 && strrchr(s, '/') != NULL)
				s = strrchr(s, '/') + 1;
			if (b.n > 0)
				ht_rep_buf_add(&b, " ");
			ht_rep_buf_add(&b, s);
		}
	}
	if (b.n > 160)
		memcpy(b.s + 157, "...", 4);
	p->cmd = ht_rep_strdup(&c->a, b.s != NULL ? b.s : "");
	ht_rep_buf_free(&b);
}

static void header_env(struct rep_rctx *c, struct rep_proc *p, json_t *env)
{
	p->cvd = ht_rep__str(&c->a, env, "CUDA_VISIBLE_DEVICES");
	p->master_addr = ht_rep__str(&c->a, env, "MASTER_ADDR");
	p->master_port = ht_rep__str(&c->a, env, "MASTER_PORT");
	p->nccl_comm_id = ht_rep__str(&c->a, env, "NCCL_COMM_ID");
	if (p->fw_hint != NULL)
		return;
	const char *k;
	json_t *v;
	json_object_foreach(env, k, v) {
		if (strncmp(k, "JAX_", 4) == 0)
			p->fw_hint = "jax";
		else if (strncmp(k, "TORCHELASTIC_", 13) == 0 || strncmp(k, "TORCH_", 6) == 0)
			p->fw_hint = "pytorch";
	}
}

void ht_rep__header(struct rep_rctx *c, json_t *o, const struct rep_loc *loc)
{
	struct rep_proc *p = ht_rep_alloc(&c->a, sizeof(*p));

	p->file = c->file;
	p->hdr = *loc;
	p->host = ht_rep__str(&c->a, o, "host");
	if (p->host == NULL)
		p->host = "?";
	p->boot_id = ht_rep__str(&c->a, o, "boot_id");
	p->launcher = ht_rep__str(&c->a, o, "launcher");
	p->job = ht_rep__str(&c->a, o, "job");
	p->relevant = ht_rep__str(&c->a, o, "relevant");
	p->exe = ht_rep__str(&c->a, o, "exe");
	p->pid = ht_rep__int(o, "pid");
	p->ppid = ht_rep__int(o, "ppid");
	p->fork_parent = ht_rep__int(o, "fork_parent");
	p->rank = ht_rep__int(o, "rank");
	p->world_size = ht_rep__int(o, "world_size");
	p->local_rank = ht_rep__int(o, "local_rank");
	if (p->rank != REP_UNKNOWN && p->rank < 0)
		p->rank = REP_UNKNOWN;
	if (p->rank != REP_UNKNOWN) {
		p->id_kind = p->launcher != NULL ? p->launcher : "unknown";
		p->id_loc = *loc;
	}
	p->ts0 = p->last_ts = ht_rep__num(o, "ts");
	p->mono0 = p->last_mono = ht_rep__num(o, "mono");
	p->timeout = ht_rep__num(o, "timeout");
	if (!(p->timeout > 0))
		p->timeout = 300;
	p->cuda_inherited = ht_rep__bool(o, "cuda_inherited") == 1;
	p->cur_phase = -1;
	p->cuda_init.result = p->cuda_init.driver_version = p->cuda_init.runtime_version = REP_UNKNOWN;
	p->cuda_init.stub = -1;
	p->device.ordinal = p->device.count = p->device.local_rank = REP_UNKNOWN;
	p->nccl_id.result = REP_UNKNOWN;
	p->cuda_count = REP_UNKNOWN;
	p->exit_status = REP_UNKNOWN;
	for (int i = 0; i < REP_VER_COUNT; i++)
		p->ver[i].value = REP_UNKNOWN;
	p->work = -1;
	json_t *cmd = json_object_get(o, "cmdline");
	if (json_is_array(cmd))
		header_cmd(c, p, cmd);
	json_t *env = json_object_get(o, "env");
	if (json_is_object(env))
		header_env(c, p, env);
	if (p->fw_hint == NULL)
		p->fw_hint = fw_from_text(p->exe);
	c->p = p;
	c->open_dump = -1;
	ht_rep_vec_push(&c->procs, p);
}

/* ---- phases ------------------------------------------------------------------ */

static void coll_fields(struct rep_arena *a, json_t *o, struct rep_coll *k)
{
	k->comm = ht_rep__str(a, o, "comm");
	k->op = ht_rep__str(a, o, "op");
	k->dtype = ht_rep__str(a, o, "dtype");
	k->redop = ht_rep__str(a, o, "redop");
	k->seq = ht_rep__int(o, "seq");
	k->count = ht_rep__int(o, "count");
	k->peer = ht_rep__int(o, "peer");
	if (k->peer == REP_UNKNOWN)
		k->peer = ht_rep__int(o, "root");
}

static void set_str(struct rep_arena *a, json_t *o, const char *key, const char **dst)
{
	const char *s = ht_rep__str(a, o, key);
	if (s != NULL)
		*dst = s;
}

static void set_int(json_t *o, const char *key, int64_t *dst)
{
	int64_t v = ht_rep__int(o, key);
	if (v != REP_UNKNOWN)
		*dst = v;
}

static void phase_details(struct rep_rctx *c, struct rep_proc *p, int ph, json_t *o,
			  const struct rep_loc *loc)
{
	struct rep_arena *a = &c->a;

	switch (ph) {
	case HT_PHASE_CUDA_INIT:
		set_str(a, o, "via", &p->cuda_init.via);
		set_str(a, o, "error", &p->cuda_init.error);
		set_str(a, o, "libcuda", &p->cuda_init.libcuda);
		set_int(o, "result", &p->cuda_init.result);
		set_int(o, "driver_version", &p->cuda_init.driver_version);
		set_int(o, "runtime_version", &p->cuda_init.runtime_version);
		if (ht_rep__bool(o, "stub") >= 0)
			p->cuda_init.stub = ht_rep__bool(o, "stub");
		if (json_object_get(o, "result") != NULL || json_object_get(o, "stub") != NULL)
			p->cuda_init.loc = *loc;
		break;
	case HT_PHASE_DEVICE:
		set_str(a, o, "uuid", &p->device.uuid);
		set_str(a, o, "pci_bus_id", &p->device.pci);
		set_str(a, o, "visible_devices", &p->device.visible);
		set_str(a, o, "via", &p->device.via);
		set_int(o, "ordinal", &p->device.ordinal);
		set_int(o, "device_count", &p->device.count);
		set_int(o, "local_rank", &p->device.local_rank);
		if (json_object_get(o, "uuid") != NULL || json_object_get(o, "ordinal") != NULL) {
			p->device.have = true;
			p->device.loc = *loc;
		}
		break;
	case HT_PHASE_NCCL_ID:
		set_str(a, o, "root", &p->nccl_id.root);
		set_str(a, o, "id_hash", &p->nccl_id.id_hash);
		set_str(a, o, "error", &p->nccl_id.error);
		set_str(a, o, "last_error", &p->nccl_id.last_error);
		set_int(o, "result", &p->nccl_id.result);
		p->nccl_id.loc = *loc;
		break;
	case HT_PHASE_FIRST_COLLECTIVE:
		if (!p->have_first_coll) {
			coll_fields(a, o, &p->first_coll);
			p->have_first_coll = p->first_coll.op != NULL;
		}
		break;
	case HT_PHASE_STEADY:
		set_str(a, o, "fn", &p->steady_fn);
		break;
	default:
		break;
	}
}

static void on_phase(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		     const struct rep_loc *loc, double ts, double mono)
{
	const char *name = json_string_value(json_object_get(o, "phase"));
	const char *state = json_string_value(json_object_get(o, "state"));
	int ph = ht_phase_from_name(name);

	if (ph < 0 || state == NULL) {
		ht_rep__warn(c, loc->line, "phase line without a known phase and state, ignored");
		return;
	}
	struct rep_phase *r = &p->ph[ph];
	p->epoch++;
	if (strcmp(state, "begin") == 0) {
		if (!r->begun) {
			r->begun = true;
			r->ts = ts;
			r->mono = mono;
			r->begin = *loc;
		}
		p->cur_phase = ph;
	} else if (strcmp(state, "end") == 0 || strcmp(state, "error") == 0) {
		bool err = state[1] == 'r';
		if (!r->begun) {	/* an end without its begin: the begin was lost */
			r->begun = true;
			r->ts = ts;
			r->mono = mono;
			r->begin = *loc;
			if (p->cur_phase < ph)
				p->cur_phase = ph;
		}
		if (!r->ended && !r->errored) {
			r->end_ts = ts;
			r->end_mono = mono;
			r->end = *loc;
		}
		if (err)
			r->errored = true;
		else
			r->ended = true;
	} else {
		ht_rep__warn(c, loc->line, "phase %s with unknown state '%s', ignored", name, state);
		return;
	}
	phase_details(c, p, ph, o, loc);
	if (ph == HT_PHASE_NCCL_INIT && p->ncomms == 0) {
		/* The phase line carries the init's fields: a stand-in until (or
		 * unless) the nccl events describe it. */
		struct rep_comm *k = PUSH(&c->a, p->comms, p->ncomms);
		k->fn = ht_rep__str(&c->a, o, "fn");
		k->root = ht_rep__str(&c->a, o, "root");
		k->id_hash = ht_rep__str(&c->a, o, "id_hash");
		k->commid = ht_rep__str(&c->a, o, "commid");
		k->comm = ht_rep__str(&c->a, o, "comm");
		k->nranks = ht_rep__int(o, "nranks");
		k->rank = ht_rep__int(o, "rank");
		k->result = ht_rep__int(o, "result");
		k->color = REP_UNKNOWN;
		k->tid = -1;	/* marks a stand-in */
		k->ts = ts;
		k->mono = mono;
		k->begin = *loc;
	}
}

/* ---- network ------------------------------------------------------------------ */

static void on_connect(struct rep_rctx *c, struct rep_proc *p, json_t *o,
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
	for (size_t i = 0; i < p->nconn && k == NULL; i++)
		if (strcmp(p->conn[i].dest, dest) == 0 && strcmp(p->conn[i].result, result) == 0)
			k = &p->conn[i];
	if (k == NULL) {
		if (p->nconn >= MAX_CONNECTS)
			return;
		k = PUSH(&c->a, p->conn, p->nconn);
		k->dest = ht_rep_strdup(&c->a, dest);
		k->result = ht_rep_strdup(&c->a, result);
		k->first = INFINITY;
		k->last = -INFINITY;
	} else if (count < k->count) {
		return;
	}
	k->count = count;
	set_str(&c->a, o, "role", &k->role);
	set_str(&c->a, o, "error", &k->error);
	set_str(&c->a, o, "tcp_state", &k->tcp_state);
	set_int(o, "errno", &k->err);
	if (ht_rep__bool(o, "probe") == 1)
		k->probe = true;
	double first = ht_rep__num(o, "first"), last = ht_rep__num(o, "last");
	if (first < k->first)
		k->first = first;
	if (last > k->last)
		k->last = last;
	k->ts = ts;
	k->loc = *loc;
}

static void on_listen(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		      const struct rep_loc *loc, bool accept)
{
	const char *addr = json_string_value(json_object_get(o, "addr"));
	if (addr == NULL)
		return;
	for (size_t i = 0; i < p->nlisten; i++)
		if (strcmp(p->listen[i].addr, addr) == 0) {
			if (accept && ht_rep__int(o, "count") > p->listen[i].accepted)
				p->listen[i].accepted = ht_rep__int(o, "count");
			return;
		}
	if (p->nlisten >= MAX_LISTENS)
		return;
	struct rep_listen *l = PUSH(&c->a, p->listen, p->nlisten);
	l->addr = ht_rep_strdup(&c->a, addr);
	l->role = ht_rep__str(&c->a, o, "role");
	l->accepted = accept ? ht_rep__int(o, "count") : 0;
	if (l->accepted == REP_UNKNOWN)
		l->accepted = 1;
	l->loc = *loc;
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

static void on_resolve(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		       const struct rep_loc *loc)
{
	if (p->nres >= MAX_RESOLVES)
		return;
	struct rep_resolve *r = PUSH(&c->a, p->res, p->nres);
	r->what = ht_rep__str(&c->a, o, "what");
	r->name = ht_rep__str(&c->a, o, "name");
	r->error = ht_rep__str(&c->a, o, "error");
	r->loopback = ht_rep__bool(o, "loopback") == 1;
	json_t *addrs = json_object_get(o, "addrs");
	r->addrs = json_is_array(addrs) ? join_strings(&c->a, addrs, NULL, 4) : NULL;
	r->loc = *loc;
}

static void on_host(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc)
{
	struct rep_hostfacts *h = &p->hf;
	json_t *ifs = json_object_get(o, "ifaces");
	json_t *m;

	h->have = true;
	h->ifaces = json_is_array(ifs) ? join_strings(&c->a, ifs, "name", 32) : NULL;
	h->nccl_ifname = ht_rep__str(&c->a, o, "nccl_socket_ifname");
	h->gloo_ifname = ht_rep__str(&c->a, o, "gloo_socket_ifname");
	m = json_object_get(o, "nccl_ifname_match");
	h->nccl_match = json_is_array(m) ? (int)json_array_size(m) : -1;
	m = json_object_get(o, "gloo_ifname_match");
	h->gloo_match = json_is_array(m) ? (int)json_array_size(m) : -1;
	h->shm_total = ht_rep__int(o, "shm_total");
	h->shm_free = ht_rep__int(o, "shm_free");
	h->cpus = ht_rep__int(o, "cpus");
	h->loc = *loc;
}

/* ---- GPU -------------------------------------------------------------------------- */

static void on_version(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc)
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
	p->ver[k].value = v;
	p->ver[k].provider = ht_rep__str(&c->a, o, "provider");
	p->ver[k].loc = *loc;
}

static void on_cuda(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc)
{
	int64_t result = ht_rep__int(o, "result");
	int64_t count = ht_rep__int(o, "count");
	bool after_fork = ht_rep__bool(o, "after_fork") == 1;
	bool hung = ht_rep__bool(o, "hung") == 1;

	if (count == REP_UNKNOWN)
		count = ht_rep__int(o, "device_count");
	if (count != REP_UNKNOWN && (result == REP_UNKNOWN || result == 0))
		p->cuda_count = count;
	if (after_fork || hung) {
		if (!p->cuda_after_fork && !p->cuda_hung)
			p->cuda_fork_loc = *loc;
		if (hung && !p->cuda_hung)
			p->cuda_fork_loc = *loc;
		p->cuda_after_fork |= after_fork;
		p->cuda_hung |= hung;
	}
	if ((result == REP_UNKNOWN || result == 0) && !hung)
		return;
	if (p->ncerr >= MAX_CUDA_ERRS)
		return;
	struct rep_cuda_err *e = PUSH(&c->a, p->cerr, p->ncerr);
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

static void comm_fields(struct rep_arena *a, struct rep_comm *k, json_t *o)
{
	set_str(a, o, "comm", &k->comm);
	set_str(a, o, "root", &k->root);
	set_str(a, o, "id_hash", &k->id_hash);
	set_str(a, o, "commid", &k->commid);
	set_str(a, o, "parent", &k->parent);
	set_str(a, o, "comm_name", &k->comm_name);
	set_int(o, "nranks", &k->nranks);
	set_int(o, "rank", &k->rank);
	set_int(o, "color", &k->color);
}

static void on_nccl(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		    const struct rep_loc *loc, double ts, double mono)
{
	const char *fn = json_string_value(json_object_get(o, "fn"));
	const char *state = json_string_value(json_object_get(o, "state"));
	int64_t tid = ht_rep__int(o, "tid");
	int64_t ver = ht_rep__int(o, "nccl_version");

	if (ver != REP_UNKNOWN && p->ver[REP_VER_NCCL].value == REP_UNKNOWN) {
		p->ver[REP_VER_NCCL].value = ver;
		p->ver[REP_VER_NCCL].provider = ht_rep__str(&c->a, o, "provider");
		p->ver[REP_VER_NCCL].loc = *loc;
	}
	if (fn != NULL && strcmp(fn, "not_observable") == 0) {
		const char *why = ht_rep__str(&c->a, o, "reason");
		if (p->nwarns < MAX_WARNS)
			*PUSH(&c->a, p->warns, p->nwarns) =
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
				  : (!x->ended && !x->failed && x->fn != NULL && strcmp(x->fn, fn) == 0 &&
				     (tid == REP_UNKNOWN || x->tid == tid)))
				k = x;
		}
	}
	if (k == NULL) {
		if (p->ncomms >= MAX_COMMS)
			return;
		k = PUSH(&c->a, p->comms, p->ncomms);
		k->fn = ht_rep_strdup(&c->a, fn);
		k->nranks = k->rank = k->result = k->color = REP_UNKNOWN;
		k->tid = tid;
		k->ts = ts;
		k->mono = mono;
		k->begin = *loc;
		k->nested = ht_rep__bool(o, "nested") == 1;
	}
	comm_fields(&c->a, k, o);
	if (end) {
		k->ended = true;
		k->end = *loc;
		set_int(o, "result", &k->result);
	} else if (error) {
		k->failed = true;
		k->end = *loc;
		set_int(o, "result", &k->result);
		set_str(&c->a, o, "error", &k->error);
		set_str(&c->a, o, "last_error", &k->last_error);
	}
}

/* ---- dumps and the rest ------------------------------------------------------- */

static void on_stall(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		     const struct rep_loc *loc, double ts, double mono)
{
	if (p->ndumps == 0)
		p->dumps = ht_rep_alloc(&c->a, REP_MAX_DUMPS * sizeof(*p->dumps));
	if (p->ndumps == REP_MAX_DUMPS) {
		memmove(p->dumps, p->dumps + 1, (REP_MAX_DUMPS - 1) * sizeof(*p->dumps));
		p->ndumps--;
	}
	struct rep_dump *d = &p->dumps[p->ndumps];
	memset(d, 0, sizeof(*d));
	d->no = ht_rep__int(o, "dump");
	d->n = ht_rep__int(o, "n");
	d->reason = ht_rep__str(&c->a, o, "reason");
	d->phase = ht_phase_from_name(json_string_value(json_object_get(o, "phase")));
	d->phase_age = ht_rep__num(o, "phase_age");
	d->ts = ts;
	d->mono = mono;
	d->epoch = p->epoch;
	d->line = loc->line;
	d->loc = *loc;
	d->main_loc = d->end_loc = REP_NOLOC;
	d->cpu = NAN;
	d->io = -1;
	json_t *calls = json_object_get(o, "calls");
	size_t i;
	json_t *call;
	json_array_foreach(calls, i, call) {
		double age = ht_rep__num(call, "age");
		if (d->call == NULL || age > d->call_age) {
			d->call = ht_rep__str(&c->a, call, "name");
			d->call_age = age;
		}
	}
	c->open_dump = (int)p->ndumps;
	p->ndumps++;
}

static void on_call(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		    const struct rep_loc *loc, double ts, double mono)
{
	const char *state = json_string_value(json_object_get(o, "state"));
	int64_t id = ht_rep__int(o, "id");
	struct rep_call *k = NULL;
	bool end = state != NULL && strcmp(state, "end") == 0;

	if (end) {
		if (ht_rep__bool(o, "stalled") == 1)
			p->last_call_end_stalled = loc->line;
		for (size_t i = p->ncalls; i-- > 0 && k == NULL;)
			if (p->calls[i].id == id && !p->calls[i].ended)
				k = &p->calls[i];
	}
	if (k == NULL) {
		if (p->ncalls >= MAX_CALLS)
			return;
		k = PUSH(&c->a, p->calls, p->ncalls);
		k->name = ht_rep__str(&c->a, o, "name");
		k->id = id;
		k->result = REP_UNKNOWN;
		k->end_ts = k->end_mono = NAN;
		k->loc = *loc;
		if (end) {	/* the begin was not written: place it by dur */
			double dur = ht_rep__num(o, "dur");
			k->ts = ts - (isnan(dur) ? 0 : dur);
			k->mono = mono - (isnan(dur) ? 0 : dur);
		} else {
			k->ts = ts;
			k->mono = mono;
		}
	}
	if (end) {
		k->ended = true;
		k->end_ts = ts;
		k->end_mono = mono;
		k->result = ht_rep__int(o, "result");
		k->stalled = ht_rep__bool(o, "stalled") == 1;
	}
}

static void on_exit_event(struct rep_rctx *c, struct rep_proc *p, json_t *o,
			  const struct rep_loc *loc, double ts)
{
	p->have_exit = true;
	p->exit_status = ht_rep__int(o, "status");
	p->exit_signal = ht_rep__str(&c->a, o, "signal");
	p->exit_after_dump = ht_rep__bool(o, "after_dump") == 1;
	p->exit_ts = ts;
	p->exit_line = loc->line;
	p->exit_loc = *loc;
}

static void on_exec(struct rep_proc *p)
{
	/* The new image starts again in launch (doc: phase). */
	p->nexec++;
	memset(p->ph, 0, sizeof(p->ph));
	p->cur_phase = -1;
	p->epoch++;
}

static void on_identity(struct rep_proc *p, json_t *o, const struct rep_loc *loc)
{
	int64_t rank = ht_rep__int(o, "rank");
	if (p->rank != REP_UNKNOWN || rank == REP_UNKNOWN || rank < 0)
		return;
	p->rank = rank;
	p->id_kind = "nccl";
	p->id_loc = *loc;
	int64_t ws = ht_rep__int(o, "world_size");
	if (ws != REP_UNKNOWN)
		p->world_size = ws;
	int64_t lr = ht_rep__int(o, "local_rank");
	if (lr != REP_UNKNOWN)
		p->local_rank = lr;
}

void ht_rep__event(struct rep_rctx *c, json_t *o, int type, const struct rep_loc *loc,
		   double ts, double mono)
{
	struct rep_proc *p = c->p;

	switch (type) {
	case HT_EV_PHASE:
		on_phase(c, p, o, loc, ts, mono);
		break;
	case HT_EV_CALL:
		on_call(c, p, o, loc, ts, mono);
		break;
	case HT_EV_CONNECT:
		on_connect(c, p, o, loc, ts);
		break;
	case HT_EV_LISTEN:
		on_listen(c, p, o, loc, false);
		break;
	case HT_EV_ACCEPT:
		on_listen(c, p, o, loc, true);
		break;
	case HT_EV_RESOLVE:
		on_resolve(c, p, o, loc);
		break;
	case HT_EV_HOST:
		on_host(c, p, o, loc);
		break;
	case HT_EV_IDENTITY:
		on_identity(p, o, loc);
		break;
	case HT_EV_VERSION:
		on_version(c, p, o, loc);
		break;
	case HT_EV_CUDA:
		on_cuda(c, p, o, loc);
		break;
	case HT_EV_NCCL:
		on_nccl(c, p, o, loc, ts, mono);
		break;
	case HT_EV_FORK:
		p->nforks++;
		if (ht_rep__bool(o, "cuda_initialized") == 1) {
			if (p->nforks_cuda++ == 0)
				p->fork_cuda_loc = *loc;
		}
		break;
	case HT_EV_EXEC:
		on_exec(p);
		break;
	case HT_EV_SIGNAL:
		p->signal = ht_rep__str(&c->a, o, "signal");
		break;
	case HT_EV_STALL:
		on_stall(c, p, o, loc, ts, mono);
		break;
	case HT_EV_WARNING:
		if (p->nwarns < MAX_WARNS) {
			const char *m = ht_rep__str(&c->a, o, "msg");
			if (m != NULL)
				*PUSH(&c->a, p->warns, p->nwarns) = m;
		}
		break;
	case HT_EV_EXIT:
		on_exit_event(c, p, o, loc, ts);
		break;
	default:
		break;
	}
}

/* ---- the lazily parsed dump lines ----------------------------------------------- */

/* FNV-1a over a frame without its "+0x..." offset. */
static uint64_t hash_frame(uint64_t h, const char *s)
{
	const char *plus = strstr(s, "+0x");
	for (const char *q = s; *q != '\0'; q++) {
		if (q == plus) {
			while (*q != '\0' && *q != ')')
				q++;
			if (*q == '\0')
				break;
		}
		h = (h ^ (unsigned char)*q) * 0x100000001b3ull;
	}
	return (h ^ 0xff) * 0x100000001b3ull;
}

static uint32_t frames_of(struct rep_rctx *c, json_t *arr, uint64_t *h, const char ***out,
			  bool keep)
{
	size_t i, n = json_array_size(arr);
	json_t *v;

	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	if (keep && n > 0)
		*out = ht_rep_alloc(&c->a, n * sizeof(**out));
	uint32_t k = 0;
	json_array_foreach(arr, i, v) {
		const char *s = json_string_value(v);
		if (s == NULL || k >= n)
			continue;
		*h = hash_frame(*h, s);
		if (keep)
			(*out)[k] = ht_rep_strndup(&c->a, s, json_string_length(v));
		k++;
	}
	return k;
}

static void parse_main(struct rep_rctx *c, struct rep_proc *p, struct rep_dump *d, bool last)
{
	json_t *o = ht_rep__parse_at(c, &d->main_loc);
	if (o == NULL)
		return;
	const char *t = json_string_value(json_object_get(o, "t"));
	int main = ht_rep__bool(o, "main");
	if (t == NULL || strcmp(t, "thread") != 0 ||
	    (main == 0 || (main < 0 && ht_rep__int(o, "tid") != p->pid))) {
		json_decref(o);
		return;
	}
	d->have_main = true;
	d->cpu = ht_rep__num(o, "cpu");
	d->answered = ht_rep__bool(o, "answered") != 0;
	const char *st = json_string_value(json_object_get(o, "state"));
	d->state = st != NULL ? st[0] : '?';
	uint64_t h = 0xcbf29ce484222325ull;
	json_t *fr = json_object_get(o, "frames");
	json_t *py = json_object_get(o, "python");
	d->nframes = json_is_array(fr) ? frames_of(c, fr, &h, &d->frames, last) : 0;
	d->npy = json_is_array(py) ? frames_of(c, py, &h, &d->py, last) : 0;
	d->stack_hash = h;
	if (last) {
		d->wchan = ht_rep__str(&c->a, o, "wchan");
		d->syscall = ht_rep__str(&c->a, o, "syscall");
	}
	json_decref(o);
}

static void parse_end(struct rep_rctx *c, struct rep_proc *p, struct rep_dump *d, bool last)
{
	json_t *o = ht_rep__parse_at(c, &d->end_loc);
	if (o == NULL)
		return;
	json_t *io = json_object_get(o, "io");
	int64_t r = ht_rep__int(io, "rchar"), w = ht_rep__int(io, "wchar");
	if (r != REP_UNKNOWN && w != REP_UNKNOWN)
		d->io = r + w;
	int64_t un = ht_rep__int(o, "unanswered");
	d->unanswered = un > 0 ? (uint32_t)un : 0;
	if (last) {
		d->py_status = ht_rep__str(&c->a, o, "python");
		p->colls_total = ht_rep__int(o, "collectives_total");
		json_t *ring = json_object_get(o, "collectives");
		size_t n = json_array_size(ring);
		size_t from = n > REP_MAX_RING ? n - REP_MAX_RING : 0;
		if (n > from) {
			p->ring = ht_rep_alloc(&c->a, (n - from) * sizeof(*p->ring));
			for (size_t i = from; i < n; i++) {
				json_t *e = json_array_get(ring, i);
				if (json_is_object(e))
					coll_fields(&c->a, e, &p->ring[p->nring++]);
			}
		}
	}
	json_decref(o);
}

void ht_rep__proc_end(struct rep_rctx *c)
{
	struct rep_proc *p = c->p;

	if (p == NULL)
		return;
	/* Only the dumps after the last phase transition (the current
	 * episode) say whether the process is stalled and whether it works. */
	for (size_t i = 0; i < p->ndumps; i++) {
		struct rep_dump *d = &p->dumps[i];
		bool last = i + 1 == p->ndumps;
		if (d->epoch != p->epoch && !last)
			continue;
		if (rep_has_loc(&d->main_loc))
			parse_main(c, p, d, last);
		if (rep_has_loc(&d->end_loc))
			parse_end(c, p, d, last);
	}
	if (p->ncomms == 1 && p->comms[0].tid == -1 && p->ph[HT_PHASE_NCCL_INIT].errored)
		p->comms[0].failed = true;
	c->p = NULL;
	c->open_dump = -1;
}
