// SPDX-License-Identifier: MIT
/*
 * brief.c: `hangtrace report --brief DIR...` (SPEC section 3): the few
 * lines the library prints in the job's log when a stall is declared: the
 * job in one line, the first verdicts with their ranks and summaries, and
 * the command that shows the rest. Also the one-line forms the watch
 * shares, and the hook for who a rank waits for.
 */
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "model/stacks.h"

#define BRIEF_WIDTH 160
#define PREFIX "hangtrace: "

size_t ht_rep_waits_for(struct rep_job *job, const struct rep_proc *p, int64_t *out, size_t max)
{
	const struct rep_verdict *first = NULL;
	for (size_t i = 0; i < job->nverdicts && first == NULL; i++)
		if (job->verdicts[i]->sev == REP_ERROR)
			first = job->verdicts[i];
	if (first == NULL || !rep_waited(p) || p->rank == REP_UNKNOWN ||
	    ht_rep_ranks_hold(first->ranks, first->nranks, p->rank, false))
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < first->nranks && n < max; i++)
		out[n++] = first->ranks[i];
	return n;
}

/* s with control characters as spaces, cut to at most max bytes ("..."). */
static const char *one_line(struct rep_job *job, const char *s, size_t max)
{
	size_t n = strlen(s);
	bool cut = max > 3 && n > max;
	if (cut)
		n = rep_utf8_cut(s, max - 3);
	char *o = ht_rep_strndup(&job->a, s, n);
	for (char *c = o; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	return cut ? ht_rep_printf(&job->a, "%s...", o) : o;
}

const char *ht_rep_verdict_line(struct rep_job *job, size_t i, size_t width)
{
	const struct rep_verdict *v = job->verdicts[i];
	struct rep_buf b = { 0 };
	ht_rep_buf_printf(&b, "%zu %s %s", i + 1, v->sev == REP_ERROR ? "ERROR" : "WARNING",
			  ht_verdict_name(v->code));
	if (v->nranks > 0) {
		char list[64];
		ht_rep_ranges(v->ranks, v->nranks, list, 40);
		ht_rep_buf_printf(&b, " %s %s", v->nranks == 1 ? "rank" : "ranks", list);
	}
	ht_rep_buf_printf(&b, ": %s", v->summary != NULL ? v->summary : "");
	const char *r = one_line(job, b.s, width > 0 ? width : SIZE_MAX);
	ht_rep_buf_free(&b);
	return r;
}

const char *ht_rep_job_line(struct rep_job *job)
{
	size_t stalled = 0, ended = 0, killed = 0, running = 0;
	int ph_stalled = -2;
	for (size_t i = 0; i < job->mains.n; i++) {
		const struct rep_proc *p = job->mains.v[i];
		if (p->end != REP_RUNNING && p->waiting)
			killed++;
		else if (p->end != REP_RUNNING)
			ended++;
		else if (p->stalled) {
			stalled++;
			ph_stalled = ph_stalled == -2 || ph_stalled == p->cur_phase ? p->cur_phase : -3;
		} else
			running++;
	}
	struct rep_buf b = { 0 };
	ht_rep_buf_printf(&b, "%zu", job->mains.n);
	if (job->world_size > 0)
		ht_rep_buf_printf(&b, " of %lld", (long long)job->world_size);
	ht_rep_buf_printf(&b, " rank%s traced on %zu host%s", job->mains.n == 1 ? "" : "s",
			  job->nhosts, job->nhosts == 1 ? "" : "s");
	if (stalled > 0)
		ht_rep_buf_printf(&b, ", %zu stalled%s%s", stalled, ph_stalled >= -1 ? " in " : "",
				  ph_stalled >= -1 ? ht_rep_phase_name(ph_stalled) : "");
	if (killed > 0)
		ht_rep_buf_printf(&b, ", %zu killed while waiting", killed);
	if (ended > 0)
		ht_rep_buf_printf(&b, ", %zu ended", ended);
	if (running > 0)
		ht_rep_buf_printf(&b, ", %zu running", running);
	if (job->nmissing > 0)
		ht_rep_buf_printf(&b, ", missing: %s",
				  ht_rep_ranges_a(&job->a, job->missing, job->nmissing, 40));
	const char *r = ht_rep_strdup(&job->a, b.s != NULL ? b.s : "");
	ht_rep_buf_free(&b);
	return r;
}

/* The launcher says the job spans hosts: fewer ranks per host than in the
 * world (torchrun's LOCAL_WORLD_SIZE, Open MPI's local size) or several
 * Slurm nodes, as p's header recorded them. */
static bool multi_node(struct rep_job *job, const struct rep_proc *p)
{
	static const char *const local[] = { "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE" };
	static const char *const nodes[] = { "SLURM_NNODES", "SLURM_JOB_NUM_NODES" };
	bool multi = false;
	char *text = ht_rep_line_text(job, &p->hdr);
	json_t *h = text != NULL ? json_loads(text, 0, NULL) : NULL;
	json_t *env = json_object_get(h, "env");
	for (size_t i = 0; i < REP_ARRAY_SIZE(local) && !multi; i++) {
		const char *v = json_string_value(json_object_get(env, local[i]));
		multi = v != NULL && job->world_size > 0 && atoll(v) > 0 && atoll(v) < job->world_size;
	}
	for (size_t i = 0; i < REP_ARRAY_SIZE(nodes) && !multi; i++) {
		const char *v = json_string_value(json_object_get(env, nodes[i]));
		multi = v != NULL && atoll(v) > 1;
	}
	json_decref(h);
	free(text);
	return multi;
}

/* A folder as the user can paste it back: absolute when it exists. */
static const char *absolute(struct rep_job *job, const char *dir)
{
	char real[PATH_MAX];
	if (realpath(dir, real) != NULL)
		return ht_rep_strdup(&job->a, real);
	return dir;
}

/* Where the first verdict's first blamed rank is, when it is the first
 * error and that rank has a stack: "rank 3 is in load_checkpoint
 * (train.py:12)", the innermost frame of the job's own code. */
static const char *culprit_line(struct rep_job *job)
{
	if (job->nverdicts == 0 || job->verdicts[0]->sev != REP_ERROR ||
	    job->verdicts[0]->nranks == 0)
		return NULL;
	int64_t r = job->verdicts[0]->ranks[0];
	if (r < 0 || (size_t)r >= job->nby_rank || job->by_rank[r] == NULL ||
	    job->by_rank[r]->group == NULL || job->by_rank[r]->group->nframes == 0)
		return NULL;
	const struct rep_proc *p = job->by_rank[r];
	const char *s = ht_rep_printf(&job->a, "  rank %lld %s in %s", (long long)r,
				      p->end != REP_RUNNING ? "was" : "is",
				      ht_rep_own_frame(p->group));
	return one_line(job, s, BRIEF_WIDTH - sizeof(PREFIX) + 1);
}

void ht_rep_brief(struct rep_job *job, FILE *out, char *const *dirs, size_t ndirs)
{
	size_t lines = 0, errors = 0, waiting = 0;
	for (size_t i = 0; i < job->nverdicts; i++)
		errors += job->verdicts[i]->sev == REP_ERROR;
	for (size_t i = 0; i < job->mains.n; i++)
		waiting += rep_waited(job->mains.v[i]);
	fprintf(out, PREFIX "%s: %s\n",
		errors == 0 ? "no cause found yet" : waiting > 0 ? "the job is stuck" : "the job failed",
		ht_rep_job_line(job));
	lines++;
	/* A folder per node holds one host's ranks: the others look missing. */
	bool one_host = job->nhosts == 1 && job->nmissing > 0 && job->mains.n > 0 &&
			multi_node(job, job->mains.v[0]);
	if (one_host) {
		fprintf(out, PREFIX "note: these traces are all from host %s; if other hosts write "
			"to other folders, give them all to hangtrace report\n", job->hosts[0]->name);
		lines++;
	}
	const char *culprit = culprit_line(job);
	/* The first line, the note, the culprit's frame, the last. */
	size_t room = REP_BRIEF_LINES - 2 - one_host - (culprit != NULL);
	size_t shown = 0;
	for (; shown < job->nverdicts && shown < room; shown++, lines++) {
		fprintf(out, PREFIX "%s\n",
			ht_rep_verdict_line(job, shown, BRIEF_WIDTH - sizeof(PREFIX) + 1));
		if (shown == 0 && culprit != NULL)
			fprintf(out, PREFIX "%s\n", culprit);
	}
	struct rep_buf cmd = { 0 };
	ht_rep_buf_add(&cmd, "hangtrace report");
	for (size_t i = 0; i < ndirs; i++)
		ht_rep_buf_printf(&cmd, " %s", absolute(job, dirs[i]));
	size_t more = job->nverdicts - shown;
	if (more > 0)
		fprintf(out, PREFIX "%zu more verdict%s, the evidence, the stacks and what to try: %s\n",
			more, more == 1 ? "" : "s", cmd.s);
	else
		fprintf(out, PREFIX "the evidence, the stacks and what to try: %s\n", cmd.s);
	ht_rep_buf_free(&cmd);
}
