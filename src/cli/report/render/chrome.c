// SPDX-License-Identifier: MIT
/*
 * chrome.c: `hangtrace report --chrome-trace FILE`: every rank's phases
 * and blocking calls as a timeline in the Trace Event Format that Perfetto
 * and chrome://tracing open. One process row per rank, named "rank 3
 * (host n2)" (pid = rank, sorted by rank; ranks that never wrote a trace
 * get a row too; processes without a rank after them), a "phases" track
 * and a "blocking calls" track; the phase a rank is stalled in runs to the
 * end of the trace and is named so; dumps and exits are instant events;
 * a flow arrow goes from each waiting rank to the ranks it waits for
 * (ht_rep_waits_for, live.h).
 * Within a process times come from its monotonic clock, placed on the
 * job's timeline by its first wall-clock time. Events are written one at
 * a time: the timeline of 16,384 ranks never sits in memory whole.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "report.h"

#define UNRANKED_PID 10000000

struct ctx {
	FILE *f;
	bool first;
	int err;
	int64_t flow;		/* ids of flow arrows so far */
};

static void emit(struct ctx *c, json_t *ev)
{
	if (ev == NULL)
		return;
	if (!c->first && fputs(",\n", c->f) == EOF)
		c->err = -EIO;
	c->first = false;
	if (json_dumpf(ev, c->f, JSON_COMPACT) != 0)
		c->err = -EIO;
	json_decref(ev);
}

/* Microseconds since the job's first line (the importer's unit). */
static double at(const struct rep_job *job, const struct rep_proc *p, double mono, double ts)
{
	return ht_rep_job_secs(job, p, mono, ts) * 1e6;
}

static double end_of(const struct rep_job *job, const struct rep_proc *p)
{
	return ht_rep_end_secs(job, p) * 1e6;
}

static json_t *str(const char *s)
{
	json_t *j = s != NULL ? json_string(s) : NULL;
	return j != NULL ? j : json_string("?");
}

static void meta(struct ctx *c, int64_t pid, const char *name, int tid, const char *what)
{
	json_t *ev = json_pack("{s:s,s:s,s:I,s:i,s:{s:o}}", "name", what, "ph", "M",
			       "pid", (json_int_t)pid, "tid", tid, "args", "name", str(name));
	emit(c, ev);
}

static void phases(struct rep_job *job, struct ctx *c, const struct rep_proc *p, int64_t pid)
{
	int order[HT_PHASE_COUNT];
	int n = 0;
	for (int i = 0; i < HT_PHASE_COUNT; i++)
		if (rep_ph(p, i)->begun)
			order[n++] = i;
	/* By begin time (phases need not begin in their nominal order). */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && rep_ph(p, order[k])->mono < rep_ph(p, order[k - 1])->mono; k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	double stop = end_of(job, p);
	for (int i = 0; i < n; i++) {
		const struct rep_phase *r = rep_ph(p, order[i]);
		double b = at(job, p, r->mono, r->ts);
		const struct rep_phase *nx = i + 1 < n ? rep_ph(p, order[i + 1]) : NULL;
		double e = nx != NULL ? at(job, p, nx->mono, nx->ts) : stop;
		bool stalled = p->stalled && order[i] == p->cur_phase;
		const char *name = ht_phase_name(order[i]);
		json_t *args = json_pack("{s:b,s:b,s:b}", "ended", r->ended, "error", r->errored,
					 "stalled", stalled);
		json_t *ev = json_pack("{s:o,s:s,s:s,s:I,s:i,s:f,s:f,s:o}", "name",
				       stalled ? json_sprintf("%s (stalled)", name) : json_string(name),
				       "cat", "phase", "ph", "X", "pid", (json_int_t)pid, "tid", 1,
				       "ts", b, "dur", e > b ? e - b : 0, "args", args);
		if (stalled || r->errored)
			json_object_set_new(ev, "cname", json_string(stalled ? "terrible" : "bad"));
		emit(c, ev);
	}
}

static void calls(struct rep_job *job, struct ctx *c, const struct rep_proc *p, int64_t pid)
{
	double stop = end_of(job, p);
	for (size_t i = 0; i < p->ncalls; i++) {
		const struct rep_call *k = &p->calls[i];
		double b = at(job, p, k->mono, k->ts);
		double e = k->ended ? at(job, p, k->end_mono, k->end_ts) : stop;
		json_t *args = json_pack("{s:b,s:b}", "returned", k->ended, "stalled", k->stalled);
		if (k->ended && rep_cw(k)->result != REP_UNKNOWN)
			json_object_set_new(args, "result", json_integer(rep_cw(k)->result));
		json_t *ev = json_pack("{s:o,s:s,s:s,s:I,s:i,s:f,s:f,s:o}", "name", str(rep_cw(k)->name),
				       "cat", "call", "ph", "X", "pid", (json_int_t)pid, "tid", 2,
				       "ts", b, "dur", e > b ? e - b : 0, "args", args);
		if (!k->ended || k->stalled)
			json_object_set_new(ev, "cname", json_string("terrible"));
		emit(c, ev);
	}
	/* Failing connects: one slice per destination and result. */
	for (size_t i = 0; i < p->nconn; i++) {
		const struct rep_connect *k = &p->conn[i];
		if (strcmp(rep_cd(k)->result, "ok") == 0 || isinf(k->first) || isinf(k->last))
			continue;
		double b = at(job, p, k->first, NAN), e = at(job, p, k->last, NAN);
		json_t *ev = json_pack("{s:o,s:s,s:s,s:I,s:i,s:f,s:f,s:{s:o,s:I}}", "name",
				       json_sprintf("connect %s: %s", rep_cd(k)->dest, rep_cd(k)->result), "cat",
				       "connect", "ph", "X", "pid", (json_int_t)pid, "tid", 2, "ts", b,
				       "dur", e > b ? e - b : 1, "args", "dest", str(rep_cd(k)->dest), "count",
				       (json_int_t)k->count);
		json_object_set_new(ev, "cname", json_string("bad"));
		emit(c, ev);
	}
}

static void instants(struct rep_job *job, struct ctx *c, const struct rep_proc *p, int64_t pid)
{
	for (size_t i = 0; i < p->ndumps; i++) {
		const struct rep_dump *d = &p->dumps[i];
		json_t *args = json_pack("{s:o,s:o}", "reason", str(d->reason), "phase",
					 str(ht_phase_name(d->phase)));
		if (d == p->last_dump && p->group != NULL)
			json_object_set_new(args, "stack_top", str(ht_rep_top_frame(p->group)));
		json_t *ev = json_pack("{s:o,s:s,s:s,s:s,s:I,s:i,s:f,s:o}", "name",
				       json_sprintf("stall dump %lld (%s)", (long long)d->no,
						    d->reason != NULL ? d->reason : "?"),
				       "cat", "stall", "ph", "i", "s", "t", "pid", (json_int_t)pid,
				       "tid", 1, "ts", at(job, p, d->mono, d->ts), "args", args);
		emit(c, ev);
	}
	if (p->end == REP_RUNNING)
		return;
	const char *what = p->end == REP_VANISHED ? "vanished (no exit record)" :
			   p->end == REP_SIGNALED ? p->exit_signal : NULL;
	json_t *name = what != NULL ? json_sprintf("end: %s", what) :
		       json_sprintf("exit: status %lld", (long long)p->exit_status);
	emit(c, json_pack("{s:o,s:s,s:s,s:s,s:I,s:i,s:f}", "name", name, "cat", "exit", "ph", "i",
			  "s", "p", "pid", (json_int_t)pid, "tid", 1, "ts", end_of(job, p)));
}

static void names(struct ctx *c, int64_t pid, const char *label, const char *who)
{
	char track[160];
	meta(c, pid, label, 0, "process_name");
	emit(c, json_pack("{s:s,s:s,s:I,s:{s:I}}", "name", "process_sort_index", "ph", "M", "pid",
			  (json_int_t)pid, "args", "sort_index", (json_int_t)pid));
	snprintf(track, sizeof(track), "%s phases", who);
	meta(c, pid, track, 1, "thread_name");
	snprintf(track, sizeof(track), "%s blocking calls", who);
	meta(c, pid, track, 2, "thread_name");
	for (int tid = 1; tid <= 2; tid++)
		emit(c, json_pack("{s:s,s:s,s:I,s:i,s:{s:i}}", "name", "thread_sort_index", "ph", "M",
				  "pid", (json_int_t)pid, "tid", tid, "args", "sort_index", tid));
}

static void one(struct rep_job *job, struct ctx *c, const struct rep_proc *p, int64_t pid,
		const char *label, const char *who)
{
	names(c, pid, label, who);
	if (p->stalled || p->pid > 0)
		emit(c, json_pack("{s:s,s:s,s:I,s:{s:o}}", "name", "process_labels", "ph", "M", "pid",
				  (json_int_t)pid, "args", "labels",
				  json_sprintf("pid %lld%s", (long long)p->pid,
					       p->stalled ? ", stalled" : "")));
	phases(job, c, p, pid);
	calls(job, c, p, pid);
	instants(job, c, p, pid);
	json_t *wk = ht_rep_worker_events(job, p, pid);
	for (size_t k = 0; k < json_array_size(wk); k++)
		emit(c, json_incref(json_array_get(wk, k)));
	json_decref(wk);
}

/* A row for each rank that never wrote a trace: a "no trace" slice over
 * the whole timeline, where the arrows of those waiting for it end. */
static void missing(struct rep_job *job, struct ctx *c)
{
	double span = isnan(job->now) || isnan(job->t0) ? 0 : (job->now - job->t0) * 1e6;
	for (size_t i = 0; i < job->nmissing; i++) {
		int64_t r = job->missing[i];
		char label[64], who[32];
		snprintf(label, sizeof(label), "rank %lld (no trace)", (long long)r);
		snprintf(who, sizeof(who), "rank %lld", (long long)r);
		names(c, r, label, who);
		emit(c, json_pack("{s:s,s:s,s:s,s:I,s:i,s:f,s:f,s:s}", "name",
				  "no trace: never started, or never reached the library", "cat", "missing",
				  "ph", "X", "pid", (json_int_t)r, "tid", 1, "ts", 0.0, "dur",
				  span > 1 ? span : 1, "cname", "bad"));
	}
}

static bool is_missing(const struct rep_job *job, int64_t r)
{
	for (size_t i = 0; i < job->nmissing; i++)
		if (job->missing[i] == r)
			return true;
	return false;
}

static const struct rep_proc *main_of_rank(const struct rep_job *job, int64_t r)
{
	size_t lo = 0, hi = job->mains.n;
	while (lo < hi) {	/* mains are sorted by rank */
		size_t mid = (lo + hi) / 2;
		const struct rep_proc *p = job->mains.v[mid];
		if (p->rank == r)
			return p;
		if (p->rank < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Flow arrows from p, where it began to wait, to each rank it waits for. */
static void flows(struct rep_job *job, struct ctx *c, const struct rep_proc *p)
{
	int64_t w[8];
	size_t n = ht_rep_waits_for(job, p, w, REP_ARRAY_SIZE(w));
	const struct rep_dump *d = p->last_dump;
	for (size_t i = 0; d != NULL && i < p->ndumps; i++)
		if (p->dumps[i].epoch == d->epoch) {
			d = &p->dumps[i];	/* the first dump of its latest stall */
			break;
		}
	double t = d != NULL ? at(job, p, d->mono, d->ts) : end_of(job, p);
	for (size_t i = 0; i < n; i++) {
		const struct rep_proc *q = main_of_rank(job, w[i]);
		if (q == NULL && !is_missing(job, w[i]))
			continue;
		double tq = t;
		if (q != NULL && end_of(job, q) < tq)
			tq = end_of(job, q) > 1 ? end_of(job, q) - 1 : 0;
		json_int_t id = (json_int_t)++c->flow;
		emit(c, json_pack("{s:s,s:s,s:s,s:I,s:I,s:i,s:f}", "name", "waits for", "cat",
				  "waits_for", "ph", "s", "id", id, "pid", (json_int_t)p->rank, "tid", 1,
				  "ts", t));
		emit(c, json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:i,s:f}", "name", "waits for", "cat",
				  "waits_for", "ph", "f", "bp", "e", "id", id, "pid", (json_int_t)w[i],
				  "tid", 1, "ts", tq));
	}
}

int ht_rep_chrome(struct rep_job *job, FILE *f)
{
	struct ctx c = { f, true, 0, 0 };
	if (fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"source\":\"hangtrace report\"},"
		  "\"traceEvents\":[\n", f) == EOF)
		return -EIO;
	for (size_t i = 0; i < job->mains.n; i++) {
		const struct rep_proc *p = job->mains.v[i];
		char label[512], who[32];
		snprintf(label, sizeof(label), "rank %lld (host %s)", (long long)p->rank, rep_id(p)->host);
		snprintf(who, sizeof(who), "rank %lld", (long long)p->rank);
		one(job, &c, p, p->rank, label, who);
	}
	missing(job, &c);
	for (size_t i = 0; i < job->unranked.n; i++) {
		const struct rep_proc *p = job->unranked.v[i];
		char label[512];
		snprintf(label, sizeof(label), "no rank (host %s pid %lld)", rep_id(p)->host, (long long)p->pid);
		one(job, &c, p, UNRANKED_PID + (int64_t)i, label, "no rank");
	}
	for (size_t i = 0; i < job->mains.n; i++)
		flows(job, &c, job->mains.v[i]);
	if (fputs("\n]}\n", f) == EOF)
		c.err = -EIO;
	return c.err;
}
