// SPDX-License-Identifier: MIT
/*
 * chrome.c: `hangtrace report --chrome-trace FILE`: every rank's phases
 * and blocking calls as a timeline in the Trace Event Format that Perfetto
 * and chrome://tracing open. One process row per rank (pid = rank, sorted
 * by rank; processes without a rank after them), a "phases" track and a
 * "blocking calls" track; the phase a rank is stalled in runs to the end
 * of the trace and is named so; dumps and exits are instant events.
 * Within a process times come from its monotonic clock, placed on the
 * job's timeline by its first wall-clock time. Events are written one at
 * a time: the timeline of 16,384 ranks never sits in memory whole.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define UNRANKED_PID 10000000

struct ctx {
	FILE *f;
	bool first;
	int err;
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

/* Microseconds since the job's first line for a time of p's own clock. */
static double at(const struct rep_job *job, const struct rep_proc *p, double mono, double ts)
{
	double t;
	if (!isnan(mono) && !isnan(p->mono0) && !isnan(p->ts0))
		t = p->ts0 + (mono - p->mono0);
	else
		t = ts;
	if (isnan(t) || isnan(job->t0))
		return 0;
	double us = (t - job->t0) * 1e6;
	return us < 0 ? 0 : us;
}

static double end_of(const struct rep_job *job, const struct rep_proc *p)
{
	if (p->have_exit)
		return at(job, p, NAN, p->exit_ts);
	if (p->end == REP_VANISHED)
		return at(job, p, p->last_mono, p->last_ts);
	return at(job, p, NAN, job->now);	/* still there when the traces end */
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
		if (p->ph[i].begun)
			order[n++] = i;
	/* By begin time (phases need not begin in their nominal order). */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && p->ph[order[k]].mono < p->ph[order[k - 1]].mono; k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	double stop = end_of(job, p);
	for (int i = 0; i < n; i++) {
		const struct rep_phase *r = &p->ph[order[i]];
		double b = at(job, p, r->mono, r->ts);
		double e = i + 1 < n ? at(job, p, p->ph[order[i + 1]].mono, p->ph[order[i + 1]].ts) : stop;
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
		if (k->ended && k->result != REP_UNKNOWN)
			json_object_set_new(args, "result", json_integer(k->result));
		json_t *ev = json_pack("{s:o,s:s,s:s,s:I,s:i,s:f,s:f,s:o}", "name", str(k->name),
				       "cat", "call", "ph", "X", "pid", (json_int_t)pid, "tid", 2,
				       "ts", b, "dur", e > b ? e - b : 0, "args", args);
		if (!k->ended || k->stalled)
			json_object_set_new(ev, "cname", json_string("terrible"));
		emit(c, ev);
	}
	/* Failing connects: one slice per destination and result. */
	for (size_t i = 0; i < p->nconn; i++) {
		const struct rep_connect *k = &p->conn[i];
		if (strcmp(k->result, "ok") == 0 || isinf(k->first) || isinf(k->last))
			continue;
		double b = at(job, p, k->first, NAN), e = at(job, p, k->last, NAN);
		json_t *ev = json_pack("{s:o,s:s,s:s,s:I,s:i,s:f,s:f,s:{s:o,s:I}}", "name",
				       json_sprintf("connect %s: %s", k->dest, k->result), "cat",
				       "connect", "ph", "X", "pid", (json_int_t)pid, "tid", 2, "ts", b,
				       "dur", e > b ? e - b : 1, "args", "dest", str(k->dest), "count",
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

static void one(struct rep_job *job, struct ctx *c, const struct rep_proc *p, int64_t pid,
		const char *label)
{
	meta(c, pid, label, 0, "process_name");
	emit(c, json_pack("{s:s,s:s,s:I,s:{s:I}}", "name", "process_sort_index", "ph", "M", "pid",
			  (json_int_t)pid, "args", "sort_index", (json_int_t)pid));
	meta(c, pid, "phases", 1, "thread_name");
	meta(c, pid, "blocking calls", 2, "thread_name");
	phases(job, c, p, pid);
	calls(job, c, p, pid);
	instants(job, c, p, pid);
	json_t *wk = ht_rep_worker_events(job, p, pid);
	for (size_t k = 0; k < json_array_size(wk); k++)
		emit(c, json_incref(json_array_get(wk, k)));
	json_decref(wk);
}

int ht_rep_chrome(struct rep_job *job, FILE *f)
{
	struct ctx c = { f, true, 0 };
	if (fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"source\":\"hangtrace report\"},"
		  "\"traceEvents\":[\n", f) == EOF)
		return -EIO;
	for (size_t i = 0; i < job->mains.n; i++) {
		const struct rep_proc *p = job->mains.v[i];
		char label[512];
		snprintf(label, sizeof(label), "rank %lld (%s pid %lld)%s", (long long)p->rank,
			 p->host, (long long)p->pid, p->stalled ? " stalled" : "");
		one(job, &c, p, p->rank, label);
	}
	for (size_t i = 0; i < job->unranked.n; i++) {
		const struct rep_proc *p = job->unranked.v[i];
		char label[512];
		snprintf(label, sizeof(label), "no rank (%s pid %lld)", p->host, (long long)p->pid);
		one(job, &c, p, UNRANKED_PID + (int64_t)i, label);
	}
	if (fputs("\n]}\n", f) == EOF)
		c.err = -EIO;
	return c.err;
}
