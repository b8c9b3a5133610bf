// SPDX-License-Identifier: MIT
/*
 * parse.c: one trace event (already parsed by jansson) into the process
 * record it belongs to (doc/trace-format.md): the header, phases, calls,
 * stalls, exits, and the dispatch to parse_facts.c for the others. Only
 * what the rules, the stacks and the timeline use is kept, as plain
 * structs in the reading thread's arena: a record costs a few KiB however
 * long its file is. Dump lines (thread, dump_end) are not parsed here: the
 * reader notes where they are and dumps.c parses the ones that matter.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

#define MAX_CALLS 64
#define MAX_WARNS 8

/* ---- field access ----------------------------------------------------------- */

const char *ht_rep__str(struct rep_arena *a, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		return NULL;
	return ht_rep_intern(a, json_string_value(v), json_string_length(v));
}

int64_t ht_rep__int(json_t *o, const char *key)
{
	return ht_rep__int_of(json_object_get(o, key));
}

int64_t ht_rep__int_of(json_t *v)
{
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
	return ht_rep__num_of(json_object_get(o, key));
}

double ht_rep__num_of(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

int ht_rep__bool(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_boolean(v) ? json_is_true(v) : -1;
}

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

static void header_cmd(struct rep_rctx *c, struct rep_ident *p, json_t *cmd)
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
		memcpy(b.s + rep_utf8_cut(b.s, 157), "...", 4);
	p->cmd = b.s != NULL ? ht_rep_intern(&c->a, b.s, strlen(b.s)) : ht_rep_intern(&c->a, "", 0);
	ht_rep_buf_free(&b);
}

static void header_env(struct rep_rctx *c, struct rep_ident *p, json_t *env)
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

void ht_rep__header(struct rep_rctx *c, json_t *o, const struct rep_loc *loc, double ts,
		   double mono)
{
	struct rep_proc *p = ht_rep_alloc(&c->a, sizeof(*p));
	struct rep_ident id = { 0 };

	p->file = c->file;
	p->hdr = *loc;
	id.host = ht_rep__str(&c->a, o, "host");
	if (id.host == NULL)
		id.host = "?";
	id.boot_id = ht_rep__str(&c->a, o, "boot_id");
	id.launcher = ht_rep__str(&c->a, o, "launcher");
	id.job = ht_rep__str(&c->a, o, "job");
	id.relevant = ht_rep__str(&c->a, o, "relevant");
	id.exe = ht_rep__str(&c->a, o, "exe");
	p->pid = ht_rep__int(o, "pid");
	p->ppid = ht_rep__int(o, "ppid");
	p->start_ticks = ht_rep__int(o, "start_ticks");
	id.pid_ns = ht_rep__int(o, "pid_ns");
	int64_t fork_parent = ht_rep__int(o, "fork_parent");
	if (fork_parent != REP_UNKNOWN)
		ht_rep_rare_w(&c->a, p)->fork_parent = fork_parent;
	p->rank = ht_rep__int(o, "rank");
	id.world_size = ht_rep__int(o, "world_size");
	p->local_rank = ht_rep__int(o, "local_rank");
	if (p->rank != REP_UNKNOWN && p->rank < 0)
		p->rank = REP_UNKNOWN;
	if (p->rank != REP_UNKNOWN) {
		id.id_kind = id.launcher != NULL ? id.launcher : "unknown";
		p->id_loc = *loc;
	}
	p->ts0 = p->last_ts = p->last_ev_ts = ts;
	p->mono0 = p->last_mono = mono;
	id.timeout = ht_rep__num(o, "timeout");
	if (!(id.timeout > 0))
		id.timeout = 300;
	p->cuda_inherited = ht_rep__bool(o, "cuda_inherited") == 1;
	p->cur_phase = -1;
	p->device.ordinal = p->device.count = p->device.local_rank = REP_UNKNOWN;
	p->exit_status = REP_UNKNOWN;
	p->work = -1;
	json_t *cmd = json_object_get(o, "cmdline");
	if (json_is_array(cmd))
		header_cmd(c, &id, cmd);
	json_t *env = json_object_get(o, "env");
	if (json_is_object(env))
		header_env(c, &id, env);
	if (id.fw_hint == NULL)
		id.fw_hint = fw_from_text(id.exe);
	p->id = ht_rep_id_share(&c->a, &c->ids, &id);
	c->p = p;
	c->open_dump = -1;
	ht_rep_vec_push(&c->procs, p);
}

/* ---- phases ------------------------------------------------------------------ */

void ht_rep__coll_fields(struct rep_arena *a, json_t *o, struct rep_coll *k)
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

void ht_rep__set_str(struct rep_arena *a, json_t *o, const char *key, const char **dst)
{
	const char *s = ht_rep__str(a, o, key);
	if (s != NULL)
		*dst = s;
}

void ht_rep__set_int(json_t *o, const char *key, int64_t *dst)
{
	int64_t v = ht_rep__int(o, key);
	if (v != REP_UNKNOWN)
		*dst = v;
}

static void phase_details(struct rep_rctx *c, struct rep_proc *p, int ph, json_t *o,
			  const struct rep_loc *loc)
{
	struct rep_arena *a = &c->a;
	const char *s;

	switch (ph) {
	case HT_PHASE_CUDA_INIT: {
		struct rep_cudainit ci = *rep_cuda(p);
		ht_rep__set_str(a, o, "via", &ci.via);
		ht_rep__set_str(a, o, "error", &ci.error);
		ht_rep__set_str(a, o, "libcuda", &ci.libcuda);
		ht_rep__set_int(o, "result", &ci.result);
		ht_rep__set_int(o, "driver_version", &ci.driver_version);
		ht_rep__set_int(o, "runtime_version", &ci.runtime_version);
		if (ht_rep__bool(o, "stub") >= 0)
			ci.stub = ht_rep__bool(o, "stub");
		p->cuda_init = ht_rep_cuda_share(a, &c->cudas, &ci);
		if (json_object_get(o, "result") != NULL || json_object_get(o, "stub") != NULL)
			p->cuda_init_loc = *loc;
		break;
	}
	case HT_PHASE_DEVICE:
		ht_rep__set_str(a, o, "uuid", &p->device.uuid);
		ht_rep__set_str(a, o, "pci_bus_id", &p->device.pci);
		ht_rep__set_str(a, o, "visible_devices", &p->device.visible);
		ht_rep__set_str(a, o, "via", &p->device.via);
		ht_rep__set_int(o, "ordinal", &p->device.ordinal);
		ht_rep__set_int(o, "device_count", &p->device.count);
		ht_rep__set_int(o, "local_rank", &p->device.local_rank);
		if (json_object_get(o, "uuid") != NULL || json_object_get(o, "ordinal") != NULL) {
			p->device.have = true;
			p->device.loc = *loc;
		}
		break;
	case HT_PHASE_NCCL_ID: {
		struct rep_rare *r = ht_rep_rare_w(a, p);
		ht_rep__set_str(a, o, "root", &r->nccl_id.root);
		ht_rep__set_str(a, o, "id_hash", &r->nccl_id.id_hash);
		ht_rep__set_str(a, o, "error", &r->nccl_id.error);
		ht_rep__set_str(a, o, "last_error", &r->nccl_id.last_error);
		ht_rep__set_int(o, "result", &r->nccl_id.result);
		r->nccl_id.loc = *loc;
		break;
	}
	case HT_PHASE_FIRST_COLLECTIVE:
		if (!rep_rare(p)->have_first_coll) {
			struct rep_rare *r = ht_rep_rare_w(a, p);
			ht_rep__coll_fields(a, o, &r->first_coll);
			r->have_first_coll = r->first_coll.op != NULL;
		}
		break;
	case HT_PHASE_STEADY:
		if ((s = ht_rep__str(a, o, "fn")) != NULL)
			ht_rep_rare_w(a, p)->steady_fn = s;
		break;
	default:
		break;
	}
}

/* The nccl_init phase lines carry their init's fields: they stand in for
 * the init until (or unless) nccl lines describe it. */
static void nccl_stand_in(struct rep_rctx *c, struct rep_proc *p, json_t *o,
			  const struct rep_loc *loc, double ts, double mono, const char *state)
{
	struct rep_comm *k;
	if (p->ncomms == 0) {
		k = REP_PUSH(&c->a, p->comms, p->ncomms);
		k->rank = k->result = REP_UNKNOWN;
		k->tid = -1;	/* marks a stand-in */
		k->ts = ts;
		k->mono = mono;
		k->begin = *loc;
	} else if (p->ncomms == 1 && p->comms[0].tid == -1) {
		k = &p->comms[0];
	} else {
		return;
	}
	struct rep_commid id = *rep_cid(k);
	ht_rep__set_str(&c->a, o, "fn", &id.fn);
	ht_rep__set_str(&c->a, o, "root", &id.root);
	ht_rep__set_str(&c->a, o, "id_hash", &id.id_hash);
	ht_rep__set_str(&c->a, o, "commid", &id.commid);
	ht_rep__set_int(o, "nranks", &id.nranks);
	k->id = ht_rep_cid_share(&c->a, &c->cids, &id);
	ht_rep__set_str(&c->a, o, "comm", &k->comm);
	ht_rep__set_int(o, "rank", &k->rank);
	ht_rep__set_int(o, "result", &k->result);
	if (strcmp(state, "begin") != 0) {
		k->end = *loc;
		k->ended = state[1] == 'n';
		k->failed = state[1] == 'r';
		struct rep_commid e = *rep_cid(k);
		ht_rep__set_str(&c->a, o, "error", &e.error);
		ht_rep__set_str(&c->a, o, "last_error", &e.last_error);
		k->id = ht_rep_cid_share(&c->a, &c->cids, &e);
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
	struct rep_phase *r = ht_rep_ph_w(&c->a, p, ph);
	p->epoch++;
	if (strcmp(state, "begin") == 0) {
		if (!r->begun) {
			r->begun = true;
			r->ts = ts;
			r->mono = mono;
			r->begin_line = loc->line;
			r->begin_off = loc->off;
		}
		p->cur_phase = ph;
	} else if (strcmp(state, "end") == 0 || strcmp(state, "error") == 0) {
		bool err = state[1] == 'r';
		if (!r->begun) {	/* an end without its begin: the begin was lost */
			r->begun = true;
			r->ts = ts;
			r->mono = mono;
			r->begin_line = loc->line;
			r->begin_off = loc->off;
			if (p->cur_phase < ph)
				p->cur_phase = ph;
		}
		if (!r->ended && !r->errored) {
			r->end_ts = ts;
			r->end_mono = mono;
			r->end_line = loc->line;
			r->end_off = loc->off;
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
	if (ph == HT_PHASE_NCCL_INIT)
		nccl_stand_in(c, p, o, loc, ts, mono, state);
}

/* ---- dumps and the rest ------------------------------------------------------- */

/* A dump's number member: 0 when absent or out of range. */
static int dump_number(json_t *o, const char *key)
{
	int64_t v = ht_rep__int(o, key);
	return v >= INT_MIN && v <= INT_MAX ? (int)v : 0;
}

static void on_stall(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		     const struct rep_loc *loc, double ts, double mono)
{
	/* Room for four at first (most processes have three), then grown
	 * as dumps come, the newest REP_MAX_DUMPS kept (a power of two:
	 * ht_rep__grow's capacities). */
	if (p->ndumps == 0)
		p->dumps = ht_rep_alloc(&c->a, 4 * sizeof(*p->dumps));
	else if (p->ndumps >= 4 && p->ndumps < REP_MAX_DUMPS)
		p->dumps = ht_rep__grow(&c->a, p->dumps, p->ndumps, sizeof(*p->dumps));
	if (p->ndumps == REP_MAX_DUMPS) {
		memmove(p->dumps, p->dumps + 1, (REP_MAX_DUMPS - 1) * sizeof(*p->dumps));
		p->ndumps--;
	}
	struct rep_dump *d = &p->dumps[p->ndumps];
	memset(d, 0, sizeof(*d));
	d->no = dump_number(o, "dump");
	d->n = dump_number(o, "n");
	d->reason = ht_rep__str(&c->a, o, "reason");
	d->phase = ht_phase_from_name(json_string_value(json_object_get(o, "phase")));
	d->phase_age = ht_rep__num(o, "phase_age");
	d->ts = ts;
	d->mono = mono;
	d->epoch = p->epoch;
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
		k = REP_PUSH(&c->a, p->calls, p->ncalls);
		struct rep_callwhat w = { ht_rep__str(&c->a, o, "name"), REP_UNKNOWN };
		k->what = ht_rep_cw_share(&c->a, &c->cws, &w);
		k->id = id;
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
		struct rep_callwhat w = { rep_cw(k)->name, ht_rep__int(o, "result") };
		k->what = ht_rep_cw_share(&c->a, &c->cws, &w);
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
	p->exit_loc = *loc;
}

static void on_exec(struct rep_proc *p)
{
	/* The new image starts again in launch (doc: phase). */
	p->nexec++;
	if (p->ph_dense)
		memset(p->ph, 0, HT_PHASE_COUNT * sizeof(*p->ph));
	p->cur_phase = -1;
	p->epoch++;
}

static void on_identity(struct rep_rctx *c, struct rep_proc *p, json_t *o,
			const struct rep_loc *loc)
{
	int64_t rank = ht_rep__int(o, "rank");
	if (p->rank != REP_UNKNOWN || rank == REP_UNKNOWN || rank < 0)
		return;
	p->rank = rank;
	struct rep_ident id = *rep_id(p);
	id.id_kind = "nccl";
	p->id_loc = *loc;
	int64_t ws = ht_rep__int(o, "world_size");
	if (ws != REP_UNKNOWN)
		id.world_size = ws;
	p->id = ht_rep_id_share(&c->a, &c->ids, &id);
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
		ht_rep__on_connect(c, p, o, loc, ts);
		break;
	case HT_EV_LISTEN:
		ht_rep__on_listen(c, p, o, loc, false);
		break;
	case HT_EV_ACCEPT:
		ht_rep__on_listen(c, p, o, loc, true);
		break;
	case HT_EV_STORE:
		ht_rep__on_store(c, p, o, loc);
		break;
	case HT_EV_RESOLVE:
		ht_rep__on_resolve(c, p, o, loc);
		break;
	case HT_EV_HOST:
		ht_rep__on_host(c, p, o, loc);
		break;
	case HT_EV_IDENTITY:
		on_identity(c, p, o, loc);
		break;
	case HT_EV_VERSION:
		ht_rep__on_version(c, p, o, loc);
		break;
	case HT_EV_CUDA:
		ht_rep__on_cuda(c, p, o, loc);
		break;
	case HT_EV_NCCL:
		ht_rep__on_nccl(c, p, o, loc, ts, mono);
		break;
	case HT_EV_FORK: {
		struct rep_rare *r = ht_rep_rare_w(&c->a, p);
		r->nforks++;
		if (ht_rep__bool(o, "cuda_initialized") == 1) {
			if (r->nforks_cuda++ == 0)
				r->fork_cuda_loc = *loc;
		}
		break;
	}
	case HT_EV_EXEC:
		on_exec(p);
		break;
	case HT_EV_SIGNAL:
		ht_rep_rare_w(&c->a, p)->signal = ht_rep__str(&c->a, o, "signal");
		break;
	case HT_EV_STALL:
		on_stall(c, p, o, loc, ts, mono);
		break;
	case HT_EV_WARNING:
		if (rep_rare(p)->degraded != NULL && json_is_string(json_object_get(o, "recovered")) &&
		    strcmp(json_string_value(json_object_get(o, "recovered")), p->rare->degraded) == 0)
			p->rare->degraded = NULL;	/* watched after all */
		else if (rep_rare(p)->degraded == NULL &&
			 json_is_string(json_object_get(o, "degraded"))) {
			struct rep_rare *r = ht_rep_rare_w(&c->a, p);
			r->degraded = ht_rep__str(&c->a, o, "degraded");
			r->degraded_msg = ht_rep__str(&c->a, o, "msg");
			const char *seen = ht_rep__str(&c->a, o, "stalls_seen");
			r->degraded_calls = seen != NULL && strcmp(seen, "hooked_calls") == 0;
			r->degraded_loc = *loc;
		}
		if (rep_rare(p)->nwarns < MAX_WARNS) {
			const char *m = ht_rep__str(&c->a, o, "msg");
			if (m != NULL) {
				struct rep_rare *rr = ht_rep_rare_w(&c->a, p);
				*REP_PUSH(&c->a, rr->warns, rr->nwarns) = m;
			}
		}
		break;
	case HT_EV_EXIT:
		on_exit_event(c, p, o, loc, ts);
		break;
	case HT_EV_CHECK:
		ht_rep__on_check(c, p, o, loc);
		break;
	case HT_EV_IB:
		ht_rep__on_ib(c, p, o, loc);
		break;
	case HT_EV_BUILD_LOCK:
		ht_rep__on_build_lock(c, p, o, loc, ts);
		break;
	default:
		break;
	}
}

