// SPDX-License-Identifier: MIT
/*
 * html.c: `hangtrace report --html FILE` (SPEC section 8): one
 * self-contained page: the summary, the verdicts with their evidence, a
 * timeline of every rank, the merged stacks as a tree that folds. The
 * report goes into the page as JSON in a <script type="application/json">
 * block, with '<', '>' and '&' written as \u escapes so no string of a
 * trace can end the block or open markup; page.js draws it with DOM and
 * SVG nodes whose text is set as text. A Content-Security-Policy allows
 * only that script and style sheet (by hash) and no fetch of any kind.
 * Ranks whose timelines look alike share a row, so a job of 16,384 ranks
 * is a few rows, not 16,384.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_assets.h"
#include "live.h"

#define SMALL_JOB 64		/* up to this many processes: a row each, by host */
#define MAX_ROWS 400
#define MAX_ROW_CALLS 40
#define MAX_TARGETS 8
#define MAX_WARNINGS 200
#define MAX_HOSTS_NAMED 8

struct row {
	struct rep_proc *p;	/* the first member: what the row draws */
	char *sig;
	int64_t *ranks;
	size_t nranks, cap;
	const char *host0, *host1;	/* first and last host of the members */
	size_t nhosts;
	const char *last_host;
};

static json_t *str(const char *s)
{
	json_t *j = s != NULL ? json_string(s) : NULL;
	return j != NULL ? j : json_string("?");
}

static json_t *num(double v)
{
	return json_real(isfinite(v) ? round(v * 1000) / 1000 : 0);
}

/* "0-6,8-15" for sorted unique ranks, however many. */
static void ranges(struct rep_buf *b, const int64_t *v, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = i;
		while (k + 1 < n && v[k + 1] == v[k] + 1)
			k++;
		if (k == i)
			ht_rep_buf_printf(b, "%s%lld", i > 0 ? "," : "", (long long)v[i]);
		else
			ht_rep_buf_printf(b, "%s%lld-%lld", i > 0 ? "," : "", (long long)v[i],
					  (long long)v[k]);
		i = k + 1;
	}
	if (b->s == NULL)
		ht_rep_buf_add(b, "");
}

static json_t *ranges_json(const int64_t *v, size_t n)
{
	struct rep_buf b = { 0 };
	ranges(&b, v, n);
	json_t *j = json_string(b.s);
	ht_rep_buf_free(&b);
	return j;
}

static void phase_order(const struct rep_proc *p, int *order, int *n)
{
	*n = 0;
	for (int i = 0; i < HT_PHASE_COUNT; i++)
		if (rep_ph(p, i)->begun)
			order[(*n)++] = i;
	for (int i = 1; i < *n; i++)
		for (int k = i; k > 0 && rep_ph(p, order[k])->mono < rep_ph(p, order[k - 1])->mono; k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
}

static const char *state_of(struct rep_job *job, const struct rep_proc *p)
{
	switch (p->end) {
	case REP_EXITED:
		return ht_rep_printf(&job->a, "exited with status %lld", (long long)p->exit_status);
	case REP_SIGNALED:
		return ht_rep_printf(&job->a, "ended by %s%s", p->exit_signal,
				     p->waiting ? " while waiting" : "");
	case REP_VANISHED:
		return "vanished (no exit record)";
	default:
		return p->stalled ? "stalled" : ht_rep_steady(p) ? "steady" : "starting";
	}
}

static const char *exit_text(struct rep_job *job, const struct rep_proc *p)
{
	switch (p->end) {
	case REP_EXITED:
		return ht_rep_printf(&job->a, "exit %lld", (long long)p->exit_status);
	case REP_SIGNALED:
		return p->exit_signal;
	case REP_VANISHED:
		return "vanished";
	default:
		return NULL;
	}
}

/* When a rank was seen waiting: the first dump of its latest stall, else
 * the end of its trace. */
static double wait_at(const struct rep_job *job, const struct rep_proc *p)
{
	const struct rep_dump *d = p->last_dump;
	for (size_t i = 0; d != NULL && i < p->ndumps; i++)
		if (p->dumps[i].epoch == d->epoch) {
			d = &p->dumps[i];
			break;
		}
	return d != NULL ? ht_rep_job_secs(job, p, d->mono, d->ts) : ht_rep_end_secs(job, p);
}

/* What a row shows of p, quantised to q seconds: ranks alike share it. */
static char *signature(struct rep_job *job, const struct rep_proc *p, double q)
{
	struct rep_buf b = { 0 };
	int order[HT_PHASE_COUNT], n;
	int64_t w[16];
	phase_order(p, order, &n);
	double stop = ht_rep_end_secs(job, p);
	for (int i = 0; i < n; i++) {
		const struct rep_phase *r = rep_ph(p, order[i]);
		const struct rep_phase *nx = i + 1 < n ? rep_ph(p, order[i + 1]) : NULL;
		double e = nx != NULL ? ht_rep_job_secs(job, p, nx->mono, nx->ts) : stop;
		ht_rep_buf_printf(&b, "p%d:%.0f:%.0f:%d%d%d;", order[i], ht_rep_job_secs(job, p, r->mono, r->ts) / q,
				  e / q, p->stalled && order[i] == p->cur_phase, r->errored, r->ended);
	}
	for (size_t i = 0; i < p->ncalls && i < MAX_ROW_CALLS; i++) {
		const struct rep_call *k = &p->calls[i];
		ht_rep_buf_printf(&b, "c%s:%.0f:%.0f:%d;", rep_cw(k)->name != NULL ? rep_cw(k)->name : "?",
				  ht_rep_job_secs(job, p, k->mono, k->ts) / q,
				  (k->ended ? ht_rep_job_secs(job, p, k->end_mono, k->end_ts) : stop) / q, k->ended);
	}
	for (size_t i = 0; i < p->ndumps; i++)
		ht_rep_buf_printf(&b, "d%.0f;", ht_rep_job_secs(job, p, p->dumps[i].mono, p->dumps[i].ts) / q);
	const char *ex = exit_text(job, p);
	ht_rep_buf_printf(&b, "x%s:%.0f;s%s;g%zu;w", ex != NULL ? ex : "", stop / q,
			  state_of(job, p), p->group != NULL ? p->group->index : (size_t)-1);
	size_t nw = ht_rep_waits_for(job, p, w, REP_ARRAY_SIZE(w));
	for (size_t i = 0; i < nw; i++)
		ht_rep_buf_printf(&b, "%lld,", (long long)w[i]);
	return b.s;
}

static void row_add(struct row *r, struct rep_proc *p)
{
	if (r->nranks == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->ranks = realloc(r->ranks, r->cap * sizeof(*r->ranks));
		if (r->ranks == NULL)
			abort();
	}
	r->ranks[r->nranks++] = p->rank;
	if (r->host0 == NULL)
		r->host0 = rep_id(p)->host;
	if (r->last_host == NULL || strcmp(r->last_host, rep_id(p)->host != NULL ? rep_id(p)->host : "") != 0) {
		r->nhosts++;
		r->last_host = rep_id(p)->host != NULL ? rep_id(p)->host : "";
		r->host1 = rep_id(p)->host;
	}
}

struct keyed {
	char *sig;
	struct rep_proc *p;
};

static int by_sig(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->sig, y->sig);
	if (c != 0)
		return c;
	return x->p->rank < y->p->rank ? -1 : x->p->rank > y->p->rank;
}

static int by_first_rank(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return x->ranks[0] < y->ranks[0] ? -1 : x->ranks[0] > y->ranks[0];
}

/* Groups the ranked mains into rows; returns the count. */
static size_t group_rows(struct rep_job *job, struct row **out, double span)
{
	size_t n = job->mains.n;
	struct keyed *k = calloc(n + 1, sizeof(*k));
	struct row *rows = NULL;
	size_t nrows = 0;
	double q = span > 0 ? span / 300 : 1;

	if (k == NULL)
		abort();
	for (int tries = 0; tries < 6; tries++, q *= 4) {
		for (size_t i = 0; i < nrows; i++)
			free(rows[i].ranks);
		free(rows);
		rows = NULL;
		nrows = 0;
		for (size_t i = 0; i < n; i++) {
			free(k[i].sig);
			k[i].p = job->mains.v[i];
			k[i].sig = signature(job, k[i].p, q);
		}
		rep_sort(k, n, sizeof(*k), by_sig);
		rows = calloc(n + 1, sizeof(*rows));
		if (rows == NULL)
			abort();
		for (size_t i = 0; i < n; i++) {
			if (nrows == 0 || strcmp(rows[nrows - 1].sig, k[i].sig) != 0) {
				rows[nrows].p = k[i].p;
				rows[nrows].sig = k[i].sig;
				nrows++;
			}
			row_add(&rows[nrows - 1], k[i].p);
		}
		if (nrows <= MAX_ROWS / 2)
			break;
	}
	for (size_t i = 0; i < nrows; i++) {
		rows[i].nranks = ht_rep_ranks_sort(rows[i].ranks, rows[i].nranks);
		rows[i].sig = NULL;
	}
	for (size_t i = 0; i < n; i++)
		free(k[i].sig);
	free(k);
	rep_sort(rows, nrows, sizeof(*rows), by_first_rank);
	*out = rows;
	return nrows;
}

static json_t *row_json(struct rep_job *job, const struct rep_proc *p, double span)
{
	json_t *o = json_object(), *ph = json_array(), *calls = json_array(), *dumps = json_array();
	int order[HT_PHASE_COUNT], n;
	phase_order(p, order, &n);
	double stop = ht_rep_end_secs(job, p);
	for (int i = 0; i < n; i++) {
		const struct rep_phase *r = rep_ph(p, order[i]);
		const struct rep_phase *nx = i + 1 < n ? rep_ph(p, order[i + 1]) : NULL;
		double e = nx != NULL ? ht_rep_job_secs(job, p, nx->mono, nx->ts) : stop;
		int flags = (p->stalled && order[i] == p->cur_phase ? 1 : 0) | (r->errored ? 2 : 0);
		json_array_append_new(ph, json_pack("[i,o,o,i]", order[i],
						    num(ht_rep_job_secs(job, p, r->mono, r->ts)), num(e), flags));
	}
	size_t shown = 0;
	for (size_t i = 0; i < p->ncalls && shown < MAX_ROW_CALLS; i++) {
		const struct rep_call *k = &p->calls[i];
		double b = ht_rep_job_secs(job, p, k->mono, k->ts);
		double e = k->ended ? ht_rep_job_secs(job, p, k->end_mono, k->end_ts) : stop;
		if (k->ended && e - b < span / 2000)
			continue;	/* too short to see */
		json_array_append_new(calls, json_pack("[o,o,o,b]", str(rep_cw(k)->name), num(b), num(e),
						       !k->ended));
		shown++;
	}
	for (size_t i = 0; i < p->ndumps; i++) {
		const struct rep_dump *d = &p->dumps[i];
		json_array_append_new(dumps, json_pack("[o,I,o]", num(ht_rep_job_secs(job, p, d->mono, d->ts)),
						       (json_int_t)d->no, str(d->reason)));
	}
	json_object_set_new(o, "ph", ph);
	json_object_set_new(o, "calls", calls);
	json_object_set_new(o, "dumps", dumps);
	const char *ex = exit_text(job, p);
	json_object_set_new(o, "exit", ex != NULL ? json_pack("[o,o]", num(stop), str(ex)) : json_null());
	json_object_set_new(o, "state", str(state_of(job, p)));
	json_object_set_new(o, "doing", p->group != NULL ? str(ht_rep_top_frame(p->group)) : json_null());
	int64_t w[64];
	size_t nw = ht_rep_waits_for(job, p, w, REP_ARRAY_SIZE(w));
	json_object_set_new(o, "waits", nw > 0 ? ranges_json(w, nw) : json_null());
	json_object_set_new(o, "wait_at", nw > 0 ? num(wait_at(job, p)) : json_null());
	return o;
}

static json_t *missing_row(struct rep_job *job)
{
	json_t *o = json_pack("{s:[],s:[],s:[],s:n,s:s,s:n,s:n,s:n,s:s}", "ph", "calls", "dumps",
			      "exit", "state", "missing", "doing", "waits", "wait_at", "host",
			      "never traced");
	json_object_set_new(o, "ranks", ranges_json(job->missing, job->nmissing));
	struct rep_buf b = { 0 };
	ht_rep_buf_printf(&b, "%s ", job->nmissing == 1 ? "rank" : "ranks");
	ranges(&b, job->missing, job->nmissing);
	json_object_set_new(o, "label", json_string(b.s));
	ht_rep_buf_free(&b);
	return o;
}

/* True when the ranges "0-6,8" hold rank. */
static bool ranges_hold(const char *s, long long rank)
{
	while (s != NULL && *s != '\0') {
		char *e;
		long long lo = strtoll(s, &e, 10), hi = lo;
		if (e == s)
			return false;
		if (*e == '-')
			hi = strtoll(e + 1, &e, 10);
		if (rank >= lo && rank <= hi)
			return true;
		s = *e == ',' ? e + 1 : e;
	}
	return false;
}

/* Each row's "targets": the rows holding a rank it waits for. */
static void link_rows(json_t *rows)
{
	size_t i, j;
	json_t *r, *o;
	json_array_foreach(rows, i, r) {
		const char *s = json_string_value(json_object_get(r, "waits"));
		json_t *t = json_array();
		json_array_foreach(rows, j, o) {
			const char *rs = json_string_value(json_object_get(o, "ranks"));
			bool hit = false;
			for (const char *c = s; c != NULL && *c != '\0' && !hit;) {
				char *e;
				long long lo = strtoll(c, &e, 10), hi = lo;
				if (e == c)
					break;
				if (*e == '-')
					hi = strtoll(e + 1, &e, 10);
				for (long long k = lo; k <= hi && k < lo + 64 && !hit; k++)
					hit = ranges_hold(rs, k);
				c = *e == ',' ? e + 1 : e;
			}
			if (hit && j != i && json_array_size(t) < MAX_TARGETS)
				json_array_append_new(t, json_integer((json_int_t)j));
		}
		json_object_set_new(r, "targets", t);
	}
}

static json_t *rows_json(struct rep_job *job, double span, bool *grouped, size_t *cut)
{
	json_t *rows = json_array();
	size_t total = job->mains.n + job->unranked.n;
	*grouped = total > SMALL_JOB;
	*cut = 0;
	if (!*grouped) {
		/* A row per rank, by host in the model's host order. */
		for (size_t h = 0; h < job->nhosts; h++) {
			const struct rep_host *host = job->hosts[h];
			for (size_t i = 0; i < host->mains.n; i++) {
				struct rep_proc *p = host->mains.v[i];
				json_t *o = row_json(job, p, span);
				json_object_set_new(o, "ranks", json_sprintf("%lld", (long long)p->rank));
				json_object_set_new(o, "label", json_sprintf("rank %lld (pid %lld)",
									      (long long)p->rank,
									      (long long)p->pid));
				json_object_set_new(o, "host", json_sprintf("host %s", rep_id(p)->host));
				json_array_append_new(rows, o);
			}
		}
	} else {
		struct row *g;
		size_t n = group_rows(job, &g, span);
		for (size_t i = 0; i < n; i++) {
			if (json_array_size(rows) < MAX_ROWS) {
				json_t *o = row_json(job, g[i].p, span);
				json_object_set_new(o, "ranks", ranges_json(g[i].ranks, g[i].nranks));
				struct rep_buf b = { 0 };
				ht_rep_buf_printf(&b, "%s ", g[i].nranks == 1 ? "rank" : "ranks");
				ranges(&b, g[i].ranks, g[i].nranks);
				if (g[i].nranks > 1)
					ht_rep_buf_printf(&b, " (%zu)", g[i].nranks);
				json_object_set_new(o, "label", json_string(b.s));
				ht_rep_buf_free(&b);
				json_object_set_new(o, "host", str(g[i].host0));
				json_object_set_new(o, "hosts",
						    g[i].nhosts > 1 ?
						    json_sprintf("on %zu hosts, %s ... %s", g[i].nhosts,
								 g[i].host0, g[i].host1) :
						    json_sprintf("on host %s", g[i].host0));
				json_array_append_new(rows, o);
			} else {
				(*cut)++;
			}
			free(g[i].ranks);
		}
		free(g);
	}
	if (job->nmissing > 0)
		json_array_append_new(rows, missing_row(job));
	for (size_t i = 0; i < job->unranked.n; i++) {
		struct rep_proc *p = job->unranked.v[i];
		if (json_array_size(rows) >= MAX_ROWS + 16) {
			*cut += job->unranked.n - i;
			break;
		}
		json_t *o = row_json(job, p, span);
		json_object_set_new(o, "ranks", json_string(""));
		json_object_set_new(o, "label", json_sprintf("pid %lld, no rank", (long long)p->pid));
		json_object_set_new(o, "host", json_sprintf("host %s, without a rank", rep_id(p)->host));
		json_array_append_new(rows, o);
	}
	link_rows(rows);
	return rows;
}

static json_t *job_json(struct rep_job *job)
{
	json_t *hosts = json_array();
	for (size_t i = 0; i < job->nhosts && i < MAX_HOSTS_NAMED; i++)
		json_array_append_new(hosts, str(job->hosts[i]->name));
	json_t *o = json_pack("{s:o,s:o,s:o,s:I,s:o,s:I,s:I,s:o,s:I,s:I,s:o}",
			      "framework", job->framework ? str(job->framework) : json_null(),
			      "kind", job->kind ? str(job->kind) : json_null(),
			      "job_id", job->job_id ? str(job->job_id) : json_null(),
			      "world_size", (json_int_t)job->world_size,
			      "ws_source", job->ws_source ? str(job->ws_source) : json_null(),
			      "seen", (json_int_t)job->mains.n, "nhosts", (json_int_t)job->nhosts,
			      "hosts", hosts, "files", (json_int_t)job->nfiles,
			      "procs", (json_int_t)job->procs.n, "line", str(ht_rep_job_line(job)));
	json_object_set_new(o, "missing", job->nmissing > 0 ?
			    ranges_json(job->missing, job->nmissing) : json_null());
	return o;
}

static json_t *table_json(struct rep_job *job)
{
	json_t *t = json_array();
	int64_t *r = malloc((job->mains.n + 1) * sizeof(*r));
	if (r == NULL)
		abort();
	for (int ph = -1; ph < HT_PHASE_COUNT; ph++) {
		size_t st, en, n = ht_rep_phase_ranks(job, ph, r, &st, &en);
		if (n == 0)
			continue;
		size_t k = ht_rep_ranks_sort(r, n);
		json_array_append_new(t, json_pack("{s:o,s:I,s:I,s:I,s:o}", "phase",
						   str(ht_rep_phase_name(ph)), "n", (json_int_t)n,
						   "stalled", (json_int_t)st, "ended", (json_int_t)en,
						   "which", ranges_json(r, k)));
	}
	if (job->nmissing > 0)
		json_array_append_new(t, json_pack("{s:s,s:I,s:s,s:s,s:o}", "phase", "(no trace)", "n",
						   (json_int_t)job->nmissing, "stalled", "-", "ended",
						   "-", "which",
						   ranges_json(job->missing, job->nmissing)));
	free(r);
	return t;
}

static json_t *verdicts_json(struct rep_job *job)
{
	json_t *a = json_array();
	for (size_t i = 0; i < job->nverdicts; i++) {
		const struct rep_verdict *v = job->verdicts[i];
		json_t *ev = json_array();
		for (size_t k = 0; k < v->nevidence; k++)
			json_array_append_new(ev, str(v->evidence[k]));
		json_array_append_new(a, json_pack("{s:s,s:s,s:o,s:o,s:o,s:o}", "code",
						   ht_verdict_name(v->code), "severity",
						   v->sev == REP_ERROR ? "error" : "warning", "ranks",
						   ranges_json(v->ranks, v->nranks), "summary",
						   str(v->summary), "advice",
						   v->advice ? str(v->advice) : json_null(),
						   "evidence", ev));
	}
	return a;
}

static json_t *groups_json(struct rep_job *job)
{
	json_t *a = json_array();
	for (size_t i = 0; i < job->ngroups; i++) {
		const struct rep_group *g = job->groups[i];
		size_t skip = 0;
		while (skip < g->nranks && g->ranks[skip] < 0)
			skip++;	/* processes without a rank */
		json_t *fr = json_array();
		for (size_t k = 0; k < g->nframes; k++)
			json_array_append_new(fr, str(g->frames[k]));
		json_array_append_new(a, json_pack("{s:o,s:I,s:o,s:s,s:o}", "ranks",
						   ranges_json(g->ranks + skip, g->nranks - skip), "n",
						   (json_int_t)g->procs.n, "phase",
						   str(ht_rep_phase_name(g->phase)), "work",
						   g->work == 0 ? "blocked" : g->work == 1 ? "working" : "",
						   "frames", fr));
	}
	return a;
}

static json_t *warnings_json(struct rep_job *job, size_t *more)
{
	json_t *a = json_array();
	for (size_t i = 0; i < job->nwarns && i < MAX_WARNINGS; i++) {
		const struct rep_warning *w = &job->warns[i];
		const char *name = w->file < job->nfiles ? job->files[w->file].name : "";
		json_array_append_new(a, w->line > 0 ? json_sprintf("%s:%u: %s", name, w->line, w->msg) :
					 json_sprintf("%s: %s", name, w->msg));
	}
	*more = job->nwarns - json_array_size(a) + job->warns_dropped;
	return a;
}

/* Writes s (JSON text) with '<', '>' and '&' as \u escapes: they occur
 * only inside strings, where the escape means the same character. */
static int put_json(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		int r;
		switch (*s) {
		case '<':
			r = fputs("\\u003c", f);
			break;
		case '>':
			r = fputs("\\u003e", f);
			break;
		case '&':
			r = fputs("\\u0026", f);
			break;
		default:
			r = fputc(*s, f);
		}
		if (r == EOF)
			return -EIO;
	}
	return 0;
}

int ht_rep_html(struct rep_job *job, FILE *f)
{
	double span = isnan(job->now) || isnan(job->t0) ? 0 : job->now - job->t0;
	bool grouped;
	size_t cut, more;
	json_t *d = json_object();
	json_object_set_new(d, "job", job_json(job));
	json_object_set_new(d, "span", num(span));
	json_t *ph = json_array();
	for (int i = 0; i < HT_PHASE_COUNT; i++)
		json_array_append_new(ph, str(ht_rep_phase_name(i)));
	json_object_set_new(d, "phases", ph);
	json_object_set_new(d, "table", table_json(job));
	json_object_set_new(d, "verdicts", verdicts_json(job));
	json_object_set_new(d, "rows", rows_json(job, span, &grouped, &cut));
	json_object_set_new(d, "grouped", json_boolean(grouped));
	json_object_set_new(d, "by_host", json_boolean(!grouped));
	json_object_set_new(d, "rows_cut", json_integer((json_int_t)cut));
	json_object_set_new(d, "groups", groups_json(job));
	json_object_set_new(d, "warnings", warnings_json(job, &more));
	json_object_set_new(d, "warnings_more", json_integer((json_int_t)more));
	char *text = json_dumps(d, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(d);
	if (text == NULL)
		return -ENOMEM;

	int rc = 0;
	if (fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<meta name=\"generator\" content=\"hangtrace %s\">\n"
		    "<title>hangtrace report</title>\n<style>%s</style></head>\n<body>\n",
		    ht_rep_page_csp, HT_VERSION, ht_rep_page_css) < 0 ||
	    fputs("<header><h1>hangtrace report</h1><div class=\"job\" id=\"ht-job\"></div></header>\n"
		  "<main>\n<h2>Summary</h2>\n<table class=\"facts\" id=\"ht-facts\"></table>\n"
		  "<table class=\"phases\" id=\"ht-phases\"></table>\n"
		  "<h2>Verdicts, most likely cause first</h2>\n<div id=\"ht-verdicts\"></div>\n"
		  "<h2>Timeline</h2>\n<div class=\"legend\" id=\"ht-legend\"></div>\n"
		  "<div id=\"ht-timeline\"></div>\n<p class=\"note\" id=\"ht-timeline-note\"></p>\n"
		  "<h2>Stacks of the stalled main threads, merged (outermost frame first)</h2>\n"
		  "<div class=\"tree\" id=\"ht-stacks\"></div>\n<div id=\"ht-warnings\"></div>\n"
		  "<noscript>This page draws itself with its own script; "
		  "<code>hangtrace report DIR</code> prints the same as text.</noscript>\n"
		  "</main>\n<script type=\"application/json\" id=\"ht-data\">", f) == EOF)
		rc = -EIO;
	if (rc == 0)
		rc = put_json(f, text);
	if (rc == 0 && fprintf(f, "</script>\n<script>%s</script>\n</body></html>\n",
			       ht_rep_page_js) < 0)
		rc = -EIO;
	free(text);
	return rc;
}
