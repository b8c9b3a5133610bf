// SPDX-License-Identifier: MIT
/*
 * json.c: `hangtrace report --json` (SPEC section 8): one object,
 * {"format": "hangtrace-report/1", "job", "ranks", "verdicts",
 * "stack_groups", "warnings"}, plus fields the SPEC allows us to add
 * ("others": launcher processes of another numbering). Built with jansson
 * and written compactly, one object, newline-terminated.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_report.h"
#include "report.h"

/* Ranks a rank's waits_for lists at most (the rest counted). */
#define MAX_WAITS_FOR 64

static json_t *str_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

/* jansson refuses invalid UTF-8: such a string is kept with U+FFFD. */
static json_t *text(const char *s)
{
	json_t *j = json_string(s != NULL ? s : "");
	if (j != NULL)
		return j;
	size_t n = strlen(s);
	char *c = malloc(n * 3 + 1);
	size_t k = 0;
	if (c == NULL)
		return json_string("");
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch < 0x80) {
			c[k++] = (char)ch;
		} else {
			c[k++] = (char)0xef;
			c[k++] = (char)0xbf;
			c[k++] = (char)0xbd;
		}
	}
	c[k] = '\0';
	j = json_string(c);
	free(c);
	return j != NULL ? j : json_string("");
}

static json_t *ranks_array(const int64_t *r, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer(r[i]));
	return a;
}

static json_t *exit_of(const struct rep_proc *p)
{
	switch (p->end) {
	case REP_EXITED:
		return json_pack("{s:I}", "status", (json_int_t)p->exit_status);
	case REP_SIGNALED:
		return json_pack("{s:o,s:b}", "signal", text(p->exit_signal), "after_dump",
				 p->exit_after_dump);
	case REP_VANISHED:
		return json_pack("{s:b}", "vanished", 1);
	default:
		return json_null();
	}
}

static json_t *pids(const struct rep_vec *v, bool wrappers, const struct rep_proc *main)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->n; i++) {
		const struct rep_proc *p = v->v[i];
		bool above = p->depth < main->depth;
		if (above == wrappers)
			json_array_append_new(a, json_integer(p->pid));
	}
	return a;
}

static json_t *rank_entry(struct rep_job *job, const struct rep_proc *p, bool ranked)
{
	json_t *o = json_object();
	json_object_set_new(o, "rank", ranked ? json_integer(p->rank) : json_null());
	json_object_set_new(o, "host", text(rep_id(p)->host));
	json_object_set_new(o, "pid", json_integer(p->pid));
	json_object_set_new(o, "phase", str_or_null(ht_phase_name(p->cur_phase)));
	json_object_set_new(o, "stalled", json_boolean(p->stalled));
	json_object_set_new(o, "exit", exit_of(p));
	json_object_set_new(o, "local_rank", p->local_rank != REP_UNKNOWN ?
			    json_integer(p->local_rank) : json_null());
	json_object_set_new(o, "launcher", str_or_null(rep_id(p)->id_kind));
	json_object_set_new(o, "file", text(job->files[p->file].name));
	if (p->stalled)
		json_object_set_new(o, "state", json_string(p->work == 1 ? "working" :
							      p->work == 0 ? "blocked" : "unknown"));
	if (p->group != NULL)
		json_object_set_new(o, "stack_group", json_integer((json_int_t)p->group->index));
	json_object_set_new(o, "doing", str_or_null(p->doing));
	json_t *wf = json_array();
	for (size_t i = 0; i < p->nwaits_for && i < MAX_WAITS_FOR; i++)
		json_array_append_new(wf, json_integer(p->waits_for[i]));
	if (p->waits_on != NULL)
		json_array_append_new(wf, text(p->waits_on));
	json_object_set_new(o, "waits_for", wf);
	if (p->nwaits_for > MAX_WAITS_FOR)
		json_object_set_new(o, "waits_for_more",
				    json_integer((json_int_t)(p->nwaits_for - MAX_WAITS_FOR)));
	json_object_set_new(o, "root", json_boolean(p->root));
	json_object_set_new(o, "dumps", json_integer((json_int_t)p->ndumps));
	json_object_set_new(o, "blamed", json_boolean(p->blamed));
	json_object_set_new(o, "workers", ht_rep_workers_json(p));
	if (rep_rel(p)->n > 0) {
		json_object_set_new(o, "wrappers", pids(rep_rel(p), true, p));
		json_object_set_new(o, "children", pids(rep_rel(p), false, p));
	}
	return o;
}

static json_t *job_object(struct rep_job *job)
{
	json_t *j = json_object();
	json_t *hosts = json_array();
	for (size_t i = 0; i < job->nhosts; i++)
		json_array_append_new(hosts, text(job->hosts[i]->name));
	int64_t *seen = malloc((job->mains.n + 1) * sizeof(*seen));
	size_t n = 0;
	for (size_t i = 0; i < job->mains.n && seen != NULL; i++)
		seen[n++] = ((struct rep_proc *)job->mains.v[i])->rank;
	n = seen != NULL ? ht_rep_ranks_sort(seen, n) : 0;
	json_object_set_new(j, "world_size", job->world_size > 0 ? json_integer(job->world_size) :
			    json_null());
	json_object_set_new(j, "world_size_from", str_or_null(job->ws_source));
	json_object_set_new(j, "hosts", hosts);
	json_object_set_new(j, "ranks_seen", ranks_array(seen, n));
	json_object_set_new(j, "ranks_missing", ranks_array(job->missing, job->nmissing));
	free(seen);
	json_object_set_new(j, "launcher", str_or_null(job->mains.n > 0 ? job->kind : NULL));
	json_object_set_new(j, "framework", str_or_null(job->framework));
	json_object_set_new(j, "id", str_or_null(job->job_id));
	json_object_set_new(j, "files", json_integer((json_int_t)job->nfiles));
	json_object_set_new(j, "processes", json_integer((json_int_t)job->procs.n));
	json_t *phases = json_object();
	for (int ph = -1; ph < HT_PHASE_COUNT; ph++) {
		size_t k = 0;
		for (size_t i = 0; i < job->mains.n; i++)
			k += ((struct rep_proc *)job->mains.v[i])->cur_phase == ph;
		if (k > 0)
			json_object_set_new(phases, ht_rep_phase_name(ph), json_integer((json_int_t)k));
	}
	json_object_set_new(j, "phases", phases);
	json_object_set_new(j, "clocks_may_mislead", json_boolean(job->clock_note));
	json_t *ended = json_null();
	switch (job->ended) {
	case REP_JOB_COMPLETED:
		ended = json_pack("{s:s}", "how", "completed");
		break;
	case REP_JOB_KILLED:
		ended = json_pack("{s:s,s:o,s:f}", "how", "killed", "signal", text(job->ended_signal),
				  "at", job->ended_at);
		break;
	case REP_JOB_FAILED:
		ended = json_pack("{s:s}", "how", "failed");
		break;
	default:
		break;
	}
	json_object_set_new(j, "ended", ended);
	return j;
}

static json_t *verdict_object(const struct rep_verdict *v)
{
	json_t *o = json_object();
	json_object_set_new(o, "code", json_string(ht_verdict_name(v->code)));
	json_object_set_new(o, "severity", json_string(v->sev == REP_ERROR ? "error" : "warning"));
	json_object_set_new(o, "ranks", ranks_array(v->ranks, v->nranks));
	json_object_set_new(o, "summary", text(v->summary));
	json_t *e = json_array();
	for (size_t i = 0; i < v->nevidence; i++)
		json_array_append_new(e, text(v->evidence[i]));
	json_object_set_new(o, "evidence", e);
	json_object_set_new(o, "advice", text(v->advice));
	json_object_set_new(o, "because", v->because != NULL ?
			    json_string(ht_verdict_name(v->because->code)) : json_null());
	return o;
}

static json_t *group_object(const struct rep_group *g)
{
	json_t *o = json_object();
	json_object_set_new(o, "ranks", ranks_array(g->ranks, g->nranks));
	json_t *f = json_array();
	for (size_t i = 0; i < g->nframes; i++)
		json_array_append_new(f, text(g->frames[i]));
	json_object_set_new(o, "frames", f);
	json_object_set_new(o, "count", json_integer((json_int_t)g->procs.n));
	json_object_set_new(o, "phase", str_or_null(ht_phase_name(g->phase)));
	json_object_set_new(o, "state", json_string(g->work == 1 ? "working" :
						     g->work == 0 ? "blocked" : "unknown"));
	json_object_set_new(o, "why", str_or_null(g->work_why));
	json_t *unranked = json_array();
	for (size_t i = 0; i < g->procs.n; i++) {
		const struct rep_proc *p = g->procs.v[i];
		if (p->rank == REP_UNKNOWN)
			json_array_append_new(unranked, json_pack("{s:o,s:I}", "host", text(rep_id(p)->host),
								  "pid", (json_int_t)p->pid));
	}
	json_object_set_new(o, "processes_without_rank", unranked);
	return o;
}

int ht_rep_json(struct rep_job *job, FILE *out)
{
	json_t *root = json_object();
	json_object_set_new(root, "format", json_string(HT_REPORT_FORMAT));
	json_object_set_new(root, "job", job_object(job));
	json_t *ranks = json_array();
	for (size_t i = 0; i < job->mains.n; i++)
		json_array_append_new(ranks, rank_entry(job, job->mains.v[i], true));
	for (size_t i = 0; i < job->unranked.n; i++)
		json_array_append_new(ranks, rank_entry(job, job->unranked.v[i], false));
	json_object_set_new(root, "ranks", ranks);
	json_t *v = json_array();
	for (size_t i = 0; i < job->nverdicts; i++)
		json_array_append_new(v, verdict_object(job->verdicts[i]));
	json_object_set_new(root, "verdicts", v);
	json_t *g = json_array();
	for (size_t i = 0; i < job->ngroups; i++)
		json_array_append_new(g, group_object(job->groups[i]));
	json_object_set_new(root, "stack_groups", g);
	json_t *w = json_array();
	for (size_t i = 0; i < job->nwarns; i++) {
		const struct rep_warning *x = &job->warns[i];
		char *s = NULL;
		if (x->file < job->nfiles && x->line > 0)
			s = ht_rep_printf(&job->a, "%s:%u: %s", job->files[x->file].name, x->line, x->msg);
		else if (x->file < job->nfiles)
			s = ht_rep_printf(&job->a, "%s: %s", job->files[x->file].name, x->msg);
		else
			s = x->msg;
		json_array_append_new(w, text(s));
	}
	if (job->warns_dropped > 0)
		json_array_append_new(w, text(ht_rep_printf(&job->a, "... %zu more warnings left out",
							    job->warns_dropped)));
	json_object_set_new(root, "warnings", w);
	json_t *others = json_array();
	for (size_t i = 0; i < job->others.n; i++) {
		const struct rep_proc *p = job->others.v[i];
		json_array_append_new(others, json_pack("{s:o,s:I,s:o,s:I,s:o}", "host", text(rep_id(p)->host),
							"pid", (json_int_t)p->pid, "launcher",
							text(rep_id(p)->id_kind), "rank", (json_int_t)p->rank,
							"phase", str_or_null(ht_phase_name(p->cur_phase))));
	}
	json_object_set_new(root, "others", others);
	json_object_set_new(root, "check", ht_rep_check_json(job));	/* check_report.h */
	int rc = json_dumpf(root, out, JSON_COMPACT);
	json_decref(root);
	if (rc != 0 || fputc('\n', out) == EOF)
		return -EIO;
	return 0;
}
