// SPDX-License-Identifier: MIT
/*
 * check_report.c: a run of `hangtrace check` in the report's output: the
 * table of hosts by checks, its JSON and failed-hosts.txt (the lines were
 * read by read/parse_check.c). A host's
 * cell is FAIL when one of its ranks failed the check, else PASS when one
 * passed it, else SKIP with the reason. A host is a failing host when a
 * failed check blames it: the ranks a line names (the peer that cannot be
 * reached, the skewed clock), else the host of the rank that wrote it.
 * The table is small work (hosts x checks x lines): fine for a check run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/names.h"
#include "check_report.h"



/* ---- the table ---------------------------------------------------------------- */

struct cell {
	int state;			/* 0 none, 1 skip, 2 pass, 3 fail */
	const char *why;
};

/* The cell of host h for check k. */
static struct cell cell_of(const struct rep_host *h, int k)
{
	struct cell c = { 0, NULL };
	for (size_t i = 0; i < h->procs.n; i++) {
		const struct rep_proc *p = h->procs.v[i];
		for (size_t j = 0; rep_rare(p)->chk != NULL && j < rep_rare(p)->chk->n; j++) {
			const struct rep_chkline *l = &rep_rare(p)->chk->lines[j];
			if (l->check != k)
				continue;
			int s = strcmp(l->result, "fail") == 0 ? 3 : strcmp(l->result, "pass") == 0 ? 2 : 1;
			if (s > c.state) {
				c.state = s;
				c.why = l->why;
			}
		}
	}
	return c;
}

static const struct rep_proc *proc_of_rank(const struct rep_job *job, int64_t r)
{
	for (size_t i = 0; i < job->mains.n; i++) {
		const struct rep_proc *p = job->mains.v[i];
		if (p->rank == r)
			return p;
	}
	return NULL;
}

/* Marks in bad[] (one per host) the hosts a failed line blames. */
static void blamed_hosts(const struct rep_job *job, bool *bad)
{
	for (size_t hi = 0; hi < job->nhosts; hi++) {
		const struct rep_host *h = job->hosts[hi];
		for (size_t i = 0; i < h->procs.n; i++) {
			const struct rep_proc *p = h->procs.v[i];
			for (size_t j = 0; rep_rare(p)->chk != NULL && j < rep_rare(p)->chk->n; j++) {
				const struct rep_chkline *l = &rep_rare(p)->chk->lines[j];
				if (strcmp(l->result, "fail") != 0)
					continue;
				if (l->ranks == NULL || l->nranks == 0) {
					bad[hi] = true;
					continue;
				}
				for (size_t k = 0; k < l->nranks; k++) {
					const struct rep_proc *q = proc_of_rank(job, l->ranks[k]);
					for (size_t x = 0; q != NULL && x < job->nhosts; x++)
						if (job->hosts[x] == q->h)
							bad[x] = true;
				}
			}
		}
	}
}

static size_t never_seen(const struct rep_job *job, int64_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < job->nmissing && n < max; i++)
		out[n++] = job->missing[i];
	return n;
}

void ht_rep_check_text(struct rep_job *job, FILE *out)
{
	static const char *const word[] = { "-", "SKIP", "PASS", "FAIL" };
	if (!ht_rep_is_check_run(job))
		return;
	size_t w = 4;
	for (size_t i = 0; i < job->nhosts; i++)
		if (strlen(job->hosts[i]->name) > w)
			w = strlen(job->hosts[i]->name);
	bool *bad = calloc(job->nhosts + 1, sizeof(*bad));
	if (bad == NULL)
		abort();
	blamed_hosts(job, bad);
	fprintf(out, "\nCheck run (hangtrace check): hosts by checks\n  %-*s", (int)w, "host");
	for (int k = 0; k < HT_CHECK_COUNT; k++)
		fprintf(out, " %-*s", (int)(strlen(ht_check_name(k)) > 4 ? strlen(ht_check_name(k)) : 4),
			ht_check_name(k));
	fputc('\n', out);
	for (size_t i = 0; i < job->nhosts; i++) {
		const struct rep_host *h = job->hosts[i];
		fprintf(out, "  %-*s", (int)w, h->name);
		for (int k = 0; k < HT_CHECK_COUNT; k++) {
			struct cell c = cell_of(h, k);
			size_t cw = strlen(ht_check_name(k)) > 4 ? strlen(ht_check_name(k)) : 4;
			fprintf(out, " %-*s", (int)cw, word[c.state]);
		}
		fputc('\n', out);
	}
	/* The reasons: every FAIL, and every SKIP once per reason. */
	for (size_t i = 0; i < job->nhosts; i++)
		for (int k = 0; k < HT_CHECK_COUNT; k++) {
			struct cell c = cell_of(job->hosts[i], k);
			if (c.state == 3)
				fprintf(out, "  FAIL %s %s: %s\n", job->hosts[i]->name, ht_check_name(k),
					c.why != NULL ? c.why : "");
		}
	/* Each host's skip reasons once, with the checks they skipped. */
	for (size_t i = 0; i < job->nhosts; i++) {
		bool done[HT_CHECK_COUNT] = { false };
		for (int k = 0; k < HT_CHECK_COUNT; k++) {
			struct cell c = cell_of(job->hosts[i], k);
			if (done[k] || c.state != 1 || c.why == NULL)
				continue;
			fprintf(out, "  SKIP %s %s", job->hosts[i]->name, ht_check_name(k));
			for (int q = k + 1; q < HT_CHECK_COUNT; q++) {
				struct cell d = cell_of(job->hosts[i], q);
				if (!done[q] && d.state == 1 && d.why != NULL && strcmp(d.why, c.why) == 0) {
					fprintf(out, ",%s", ht_check_name(q));
					done[q] = true;
				}
			}
			fprintf(out, ": %s\n", c.why);
		}
	}
	int64_t miss[64];
	size_t nm = never_seen(job, miss, 64);
	if (nm > 0) {
		char rs[400];
		fprintf(out, "  never started or never wrote a trace: rank%s %s\n", nm == 1 ? "" : "s",
			ht_rep_ranges(miss, nm, rs, sizeof(rs)));
	}
	size_t nbad = 0;
	for (size_t i = 0; i < job->nhosts; i++)
		nbad += bad[i];
	fprintf(out, "  failing hosts: ");
	if (nbad == 0)
		fprintf(out, "none");
	for (size_t i = 0, k = 0; i < job->nhosts; i++)
		if (bad[i])
			fprintf(out, "%s%s", k++ ? " " : "", job->hosts[i]->name);
	fputc('\n', out);
	free(bad);
}

json_t *ht_rep_check_json(struct rep_job *job)
{
	static const char *const word[] = { NULL, "skip", "pass", "fail" };
	if (!ht_rep_is_check_run(job))
		return json_null();
	json_t *o = json_object(), *checks = json_array(), *hosts = json_array();
	json_t *failed = json_array(), *never = json_array();
	bool *bad = calloc(job->nhosts + 1, sizeof(*bad));
	if (bad == NULL)
		abort();
	blamed_hosts(job, bad);
	for (int k = 0; k < HT_CHECK_COUNT; k++)
		json_array_append_new(checks, json_string(ht_check_name(k)));
	for (size_t i = 0; i < job->nhosts; i++) {
		const struct rep_host *h = job->hosts[i];
		json_t *ho = json_object(), *res = json_object(), *ranks = json_array();
		json_object_set_new(ho, "host", json_string(h->name));
		for (size_t r = 0; r < h->mains.n; r++) {
			const struct rep_proc *p = h->mains.v[r];
			if (p->rank != REP_UNKNOWN)
				json_array_append_new(ranks, json_integer(p->rank));
		}
		json_object_set_new(ho, "ranks", ranks);
		for (int k = 0; k < HT_CHECK_COUNT; k++) {
			struct cell c = cell_of(h, k);
			if (c.state == 0)
				continue;
			json_object_set_new(res, ht_check_name(k),
					    json_pack("{s:s,s:s}", "result", word[c.state], "why",
						      c.why != NULL ? c.why : ""));
		}
		json_object_set_new(ho, "results", res);
		json_array_append_new(hosts, ho);
		if (bad[i])
			json_array_append_new(failed, json_string(h->name));
	}
	int64_t miss[4096];
	size_t nm = never_seen(job, miss, 4096);
	for (size_t i = 0; i < nm; i++)
		json_array_append_new(never, json_integer(miss[i]));
	json_object_set_new(o, "checks", checks);
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "failed_hosts", failed);
	json_object_set_new(o, "ranks_never_seen", never);
	free(bad);
	return o;
}

int ht_rep_check_failed_hosts(struct rep_job *job, const char *dir)
{
	char path[4096];
	struct stat st;
	/* Only into a folder: a single trace file given as DIR gets none. */
	if (!ht_rep_is_check_run(job) || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	bool *bad = calloc(job->nhosts + 1, sizeof(*bad));
	if (bad == NULL)
		abort();
	blamed_hosts(job, bad);
	snprintf(path, sizeof(path), "%s/failed-hosts.txt", dir);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		int e = errno;
		free(bad);
		fprintf(stderr, "hangtrace: %s: %s (the failing hosts are in the report)\n", path,
			strerror(e));
		return -e;
	}
	for (size_t i = 0; i < job->nhosts; i++)
		if (bad[i])
			fprintf(f, "%s\n", job->hosts[i]->name);
	free(bad);
	return fclose(f) == 0 ? 0 : -EIO;
}
