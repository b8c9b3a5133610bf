// SPDX-License-Identifier: MIT
/*
 * text.c: the report for a person, 100 columns wide: a summary (job,
 * hosts, ranks expected and seen, the phase every rank reached as a compact
 * table), the verdicts most likely cause first with their evidence and
 * advice, then the merged stacks, odd one out first. Colour only when
 * asked (the caller decides: a terminal, NO_COLOR unset).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_report.h"
#include "report.h"

#define WIDTH 100
#define MAX_GROUP_FRAMES 24
#define MAX_GROUPS 8

struct out {
	FILE *f;
	bool colour;
};

static const char *c_on(const struct out *o, const char *code)
{
	return o->colour ? code : "";
}
#define BOLD "\033[1m"
#define RED "\033[1;31m"
#define YELLOW "\033[1;33m"
#define DIM "\033[2m"
#define CYAN "\033[36m"
#define OFF "\033[0m"

/* Prints text wrapped at WIDTH: the first line after `first` columns
 * already used, the next ones indented by `indent`. A word longer than a
 * line is cut into pieces. */
static void wrap(const struct out *o, const char *text, size_t first, size_t indent)
{
	size_t col = first;
	bool fresh = true;	/* nothing printed on this line yet */
	const char *s = text;

	for (;;) {
		while (*s == ' ')
			s++;
		if (*s == '\0')
			break;
		const char *e = s;
		while (*e != '\0' && *e != ' ')
			e++;
		size_t w = (size_t)(e - s);
		if (col + (fresh ? 0 : 1) + w > WIDTH && (!fresh || col > indent)) {
			fprintf(o->f, "\n%*s", (int)indent, "");
			col = indent;
			fresh = true;
		}
		if (!fresh) {
			fputc(' ', o->f);
			col++;
		}
		if (col + w > WIDTH) {
			size_t room = WIDTH - col;
			fprintf(o->f, "%.*s", (int)room, s);
			s += room;
			col = WIDTH;
			fresh = false;
			continue;
		}
		fprintf(o->f, "%.*s", (int)w, s);
		col += w;
		fresh = false;
		s = e;
	}
	fputc('\n', o->f);
}

/* One line cut to WIDTH with "..." when longer. */
static void line_cut(const struct out *o, const char *prefix, const char *text)
{
	size_t room = WIDTH - strlen(prefix);
	size_t n = strlen(text);
	if (n > room)
		fprintf(o->f, "%s%.*s...\n", prefix, (int)rep_utf8_cut(text, room - 3), text);
	else
		fprintf(o->f, "%s%s\n", prefix, text);
}

/* ---- summary ------------------------------------------------------------------- */

static void summary(struct rep_job *job, const struct out *o)
{
	size_t stalled = 0, ended = 0, vanished = 0, steady = 0, running = 0, killed = 0;
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (p->end == REP_VANISHED)
			vanished++;
		else if (p->end == REP_SIGNALED && p->waiting)
			killed++;
		else if (p->end != REP_RUNNING)
			ended++;
		else if (p->stalled)
			stalled++;
		else if (ht_rep_steady(p))
			steady++;
		else
			running++;
	}
	fprintf(o->f, "%shangtrace report%s: %zu trace file%s, %zu process%s", c_on(o, BOLD),
		c_on(o, OFF), job->nfiles, job->nfiles == 1 ? "" : "s", job->procs.n,
		job->procs.n == 1 ? "" : "es");
	if (job->nwarns + job->warns_dropped > 0)
		fprintf(o->f, ", %zu warning%s (on stderr)", job->nwarns + job->warns_dropped,
			job->nwarns + job->warns_dropped == 1 ? "" : "s");
	fputc('\n', o->f);

	struct rep_buf b = { 0 };
	ht_rep_buf_printf(&b, "%s", job->framework != NULL ? job->framework : "unknown framework");
	if (job->mains.n > 0)
		ht_rep_buf_printf(&b, ", ranks numbered by %s", job->kind != NULL ? job->kind : "?");
	else
		ht_rep_buf_add(&b, ", no rank identity");
	if (job->others.n > 0)
		ht_rep_buf_printf(&b, " (%zu launcher process%s of another kind)", job->others.n,
				  job->others.n == 1 ? "" : "es");
	if (job->job_id != NULL)
		ht_rep_buf_printf(&b, ", job %s", job->job_id);
	ht_rep_buf_printf(&b, "; %zu host%s", job->nhosts, job->nhosts == 1 ? "" : "s");
	if (job->nhosts > 0)
		ht_rep_buf_printf(&b, " (%s%s%s)", job->hosts[0]->name, job->nhosts > 1 ? " ... " : "",
				  job->nhosts > 1 ? job->hosts[job->nhosts - 1]->name : "");
	fprintf(o->f, "%-9s", "job");
	wrap(o, b.s, 9, 9);
	b.n = 0;

	int64_t seen = (int64_t)job->mains.n;
	ht_rep_buf_printf(&b, "%lld seen", (long long)seen);
	if (job->world_size > 0)
		ht_rep_buf_printf(&b, " of %lld expected (world size from %s)", (long long)job->world_size,
				  job->ws_source);
	if (job->nmissing > 0)
		ht_rep_buf_printf(&b, "; missing: %s",
				  ht_rep_ranges_a(&job->a, job->missing, job->nmissing, 60));
	if (job->unranked.n > 0)
		ht_rep_buf_printf(&b, "; %zu traced process%s without a rank", job->unranked.n,
				  job->unranked.n == 1 ? "" : "es");
	fprintf(o->f, "%-9s", "ranks");
	wrap(o, b.s, 9, 9);
	b.n = 0;
	ht_rep_buf_printf(&b, "%zu stalled, %zu killed while waiting, %zu exited, %zu vanished, "
			  "%zu steady, %zu starting", stalled, killed, ended, vanished, steady, running);
	fprintf(o->f, "%-9s", "state");
	wrap(o, b.s, 9, 9);
	if (job->ended != REP_JOB_RUNNING) {
		fprintf(o->f, "%-9s", "ended");
		wrap(o, job->ended == REP_JOB_COMPLETED ? "completed: every rank ended with status 0" :
		     job->ended == REP_JOB_FAILED ? "failed" :
		     ht_rep_printf(&job->a, "killed: every live rank got %s within a second; the "
				   "verdicts are those of the job before it was killed",
				   job->ended_signal), 9, 9);
	}
	if (job->clock_note) {
		fprintf(o->f, "%-9s", "clocks");
		wrap(o, "the hosts' first trace lines are far apart: hosts started late or their "
		     "clocks disagree; times compared across hosts may mislead", 9, 9);
	}
	ht_rep_buf_free(&b);

	/* The phase every rank reached. */
	fprintf(o->f, "\n%s%-18s %7s %7s %7s  %s%s\n", c_on(o, BOLD), "PHASE", "RANKS", "STALLED",
		"ENDED", "WHICH", c_on(o, OFF));
	int64_t *r = malloc((job->mains.n + 1) * sizeof(*r));
	for (int ph = -1; ph < HT_PHASE_COUNT && r != NULL; ph++) {
		size_t st, en, n = ht_rep_phase_ranks(job, ph, r, &st, &en);
		if (n == 0)
			continue;
		size_t k = ht_rep_ranks_sort(r, n);
		char list[WIDTH];
		ht_rep_ranges(r, k, list, WIDTH - 46);
		fprintf(o->f, "%-18s %7zu %7zu %7zu  %s\n", ht_rep_phase_name(ph), n, st, en, list);
	}
	if (job->nmissing > 0) {
		char list[WIDTH];
		ht_rep_ranges(job->missing, job->nmissing, list, WIDTH - 46);
		fprintf(o->f, "%-18s %7zu %7s %7s  %s\n", "(no trace)", job->nmissing, "-", "-", list);
	}
	/* Processes without a rank, by phase, named by host and pid. */
	for (int ph = -1; ph < HT_PHASE_COUNT; ph++) {
		size_t n = 0, st = 0, en = 0;
		struct rep_buf who = { 0 };
		for (size_t i = 0; i < job->unranked.n; i++) {
			struct rep_proc *p = job->unranked.v[i];
			if (p->cur_phase != ph)
				continue;
			if (who.n < WIDTH - 46)
				ht_rep_buf_printf(&who, "%s%s:%lld", n > 0 ? "," : "", rep_id(p)->host,
						  (long long)p->pid);
			n++;
			st += p->stalled;
			en += p->end != REP_RUNNING && !p->waiting;
		}
		if (n == 0)
			continue;
		char label[40];
		snprintf(label, sizeof(label), "%s, no rank", ht_rep_phase_name(ph));
		fprintf(o->f, "%-18s %7zu %7zu %7zu  %.*s%s\n", label, n, st, en, WIDTH - 49, who.s,
			who.n > WIDTH - 49 ? "..." : "");
		ht_rep_buf_free(&who);
	}
	free(r);
}

/* ---- verdicts --------------------------------------------------------------------- */

static void verdicts(struct rep_job *job, const struct out *o)
{
	fprintf(o->f, "\n%sVERDICTS%s", c_on(o, BOLD), c_on(o, OFF));
	if (job->nverdicts == 0) {
		fprintf(o->f, "\n  none: %s\n", job->mains.n + job->unranked.n == 0 ?
			"no process records were read" :
			"no rank is missing, stalled or misconfigured as far as the traces show");
		return;
	}
	fprintf(o->f, " (most likely cause first)\n");
	for (size_t i = 0; i < job->nverdicts; i++) {
		const struct rep_verdict *v = job->verdicts[i];
		bool err = v->sev == REP_ERROR;
		fprintf(o->f, "%2zu %s%-7s%s %s%s%s", i + 1, c_on(o, err ? RED : YELLOW),
			err ? "ERROR" : "WARNING", c_on(o, OFF), c_on(o, BOLD), ht_verdict_name(v->code),
			c_on(o, OFF));
		size_t col = 3 + 8 + strlen(ht_verdict_name(v->code));
		if (v->nranks > 0) {
			char list[WIDTH];
			ht_rep_ranges(v->ranks, v->nranks, list, WIDTH - col - 10);
			fprintf(o->f, "  %s %s", v->nranks == 1 ? "rank" : "ranks", list);
		}
		if (v->because != NULL)
			fprintf(o->f, "  %s(because of %zu, %s)%s", c_on(o, DIM), v->because->order + 1,
				ht_verdict_name(v->because->code), c_on(o, OFF));
		fputc('\n', o->f);
		fprintf(o->f, "   ");
		wrap(o, v->summary, 3, 3);
		if (v->nevidence > 0)
			fprintf(o->f, "   %sevidence:%s\n", c_on(o, DIM), c_on(o, OFF));
		for (size_t k = 0; k < v->nevidence; k++) {
			if (o->colour)
				fputs(DIM, o->f);
			line_cut(o, "     ", v->evidence[k]);
			if (o->colour)
				fputs(OFF, o->f);
		}
		if (v->advice != NULL && v->advice[0] != '\0') {
			fprintf(o->f, "   %sadvice:%s ", c_on(o, CYAN), c_on(o, OFF));
			wrap(o, v->advice, 11, 11);
		}
	}
}

/* ---- stacks -------------------------------------------------------------------------- */

static void stacks(struct rep_job *job, const struct out *o)
{
	size_t procs = 0;
	for (size_t i = 0; i < job->ngroups; i++)
		procs += job->groups[i]->procs.n;
	if (job->ngroups == 0)
		return;
	fprintf(o->f, "\n%sSTACKS%s ", c_on(o, BOLD), c_on(o, OFF));
	char head[200];
	snprintf(head, sizeof(head), "of the main threads blamed or stalled (innermost frame "
		 "first): %zu process%s in %zu group%s, the blamed first, then the odd one out", procs, procs == 1 ? "" : "es",
		 job->ngroups, job->ngroups == 1 ? "" : "s");
	wrap(o, head, 7, 7);
	for (size_t i = 0; i < job->ngroups && i < MAX_GROUPS; i++) {
		const struct rep_group *g = job->groups[i];
		struct rep_buf b = { 0 };
		if (g->nranks > 0) {
			char list[WIDTH];
			ht_rep_ranges(g->ranks, g->nranks, list, 50);
			ht_rep_buf_printf(&b, "%s %s", g->nranks == 1 ? "rank" : "ranks", list);
		}
		if (g->procs.n > g->nranks)
			ht_rep_buf_printf(&b, "%s%zu process%s without a rank", b.n > 0 ? " + " : "",
					  g->procs.n - g->nranks, g->procs.n - g->nranks == 1 ? "" : "es");
		ht_rep_buf_printf(&b, " (%zu, in %s%s%s)", g->procs.n, ht_rep_phase_name(g->phase),
				  g->work == 0 ? ", blocked" : g->work == 1 ? ", working" : "",
				  g->blamed ? ", blamed" : "");
		fprintf(o->f, "%s[%zu]%s ", c_on(o, BOLD), i + 1, c_on(o, OFF));
		wrap(o, b.s, 4, 6);
		if (g->work_why != NULL) {
			fprintf(o->f, "      %s", c_on(o, DIM));
			wrap(o, g->work_why, 6, 6);
			if (o->colour)
				fputs(OFF, o->f);
		}
		ht_rep_buf_free(&b);
		for (size_t k = 0; k < g->nframes && k < MAX_GROUP_FRAMES; k++)
			line_cut(o, "        ", g->frames[k]);
		if (g->nframes > MAX_GROUP_FRAMES)
			fprintf(o->f, "        ... %zu more frames (--json has them all)\n",
				g->nframes - MAX_GROUP_FRAMES);
		if (g->nframes == 0)
			fprintf(o->f, "        (no frames: the main thread did not answer)\n");
	}
	if (job->ngroups > MAX_GROUPS)
		fprintf(o->f, "... %zu more groups (--json has them all)\n", job->ngroups - MAX_GROUPS);
}

/* The first screen's first words: the root cause in one sentence, what
 * follows from it, and what to try. */
static void lead(struct rep_job *job, const struct out *o)
{
	const struct rep_verdict *v = NULL;
	for (size_t i = 0; i < job->nverdicts && v == NULL; i++)
		if (job->verdicts[i]->sev == REP_ERROR)
			v = job->verdicts[i];
	if (v == NULL)
		return;
	fprintf(o->f, "%sCAUSE%s    ", c_on(o, RED), c_on(o, OFF));
	wrap(o, v->summary, 9, 9);
	struct rep_buf b = { 0 };
	size_t n = 0;
	for (size_t i = 0; i < job->nverdicts; i++) {
		const struct rep_verdict *u = job->verdicts[i];
		if (u->because != v)
			continue;
		char list[64] = "";
		if (u->nranks > 0)
			ht_rep_ranges(u->ranks, u->nranks, list, 40);
		ht_rep_buf_printf(&b, "%s%s%s%s", n++ > 0 ? "; " : "", ht_verdict_name(u->code),
				  u->nranks > 0 ? (u->nranks == 1 ? " of rank " : " of ranks ") : "", list);
	}
	if (n > 0) {
		fprintf(o->f, "%-9s", "then");
		wrap(o, ht_rep_printf(&job->a, "%s (they follow from it)", b.s), 9, 9);
	}
	ht_rep_buf_free(&b);
	if (v->advice != NULL && v->advice[0] != '\0') {
		fprintf(o->f, "%s%-9s%s", c_on(o, CYAN), "try", c_on(o, OFF));
		wrap(o, v->advice, 9, 9);
	}
	fputc('\n', o->f);
}

void ht_rep_text(struct rep_job *job, FILE *f, bool colour)
{
	struct out o = { f, colour };
	lead(job, &o);
	summary(job, &o);
	ht_rep_check_text(job, f);	/* a check run's table (check_report.h) */
	ht_rep_workers_text(job, f);
	verdicts(job, &o);
	stacks(job, &o);
}
