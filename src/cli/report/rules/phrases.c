// SPDX-License-Identifier: MIT
/*
 * phrases.c: what the rules share to say things: the members of a line
 * that evidence keeps, rank and host lists, who waits, the rule lists
 * (struct rep_list), versions and ports.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/checkfacts.h"
#include "rules.h"
#include "rules/dataloader.h"

const char *const ht_rep_keep_stall[] = { "dump", "reason", "phase", "phase_age", "n",
					  "calls", NULL };
const char *const ht_rep_keep_dump_end[] = { "dump", "threads", "io", "collectives_total", NULL };
const char *const ht_rep_keep_host[] = { "hostname", "nccl_socket_ifname", "nccl_ifname_match",
					 "gloo_socket_ifname", "gloo_ifname_match", "shm_total",
					 "shm_free", NULL };

/* ---- helpers for the rules ---------------------------------------------------------- */

const char *ht_rep_ranks_phrase(struct rep_job *job, const int64_t *r, size_t n)
{
	if (n == 1)
		return ht_rep_printf(&job->a, "rank %lld", (long long)r[0]);
	char buf[REP_LIST_MAX + 1];
	ht_rep_ranges(r, n, buf, sizeof(buf));
	return ht_rep_printf(&job->a, "ranks %s", buf);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
	return x < y ? -1 : x > y;
}

void ht_rep_hosts_add(struct rep_host **set, size_t *n, size_t cap, struct rep_host *h)
{
	for (size_t i = 0; i < *n; i++)
		if (set[i] == h)
			return;
	if (*n < cap)
		set[(*n)++] = h;
}

const char *ht_rep_hosts_phrase(struct rep_job *job, struct rep_host *const *h, size_t n)
{
	/* Distinct hosts, named in the order given, at most three. */
	struct rep_host **u = malloc((n + 1) * sizeof(*u));
	size_t nu = 0;
	if (u == NULL)
		abort();
	memcpy(u, h, n * sizeof(*u));
	rep_sort(u, n, sizeof(*u), cmp_ptr);
	for (size_t i = 0; i < n; i++)
		if (nu == 0 || u[nu - 1] != u[i])
			u[nu++] = u[i];
	struct rep_buf b = { 0 };
	size_t shown = 0;
	for (size_t i = 0; i < n && shown < 3; i++) {
		bool dup = false;
		for (size_t k = 0; k < i && !dup; k++)
			dup = h[k] == h[i];
		if (dup)
			continue;
		ht_rep_buf_printf(&b, "%s%s", shown > 0 ? "," : "", h[i]->name);
		shown++;
	}
	if (nu > shown)
		ht_rep_buf_printf(&b, " (+%zu more)", nu - shown);
	const char *r = ht_rep_printf(&job->a, "host%s %s", nu > 1 ? "s" : "",
				      b.s != NULL ? b.s : "?");
	free(u);
	ht_rep_buf_free(&b);
	return r;
}

const char *ht_rep_waiters(struct rep_job *job, const struct rep_verdict *v,
			   struct rep_proc **who)
{
	size_t count[HT_PHASE_COUNT + 1] = { 0 };
	size_t total = 0, nb = v != NULL ? v->nranks : 0;
	int64_t *blamed = nb > 0 ? malloc(nb * sizeof(*blamed)) : NULL;
	if (nb > 0 && blamed == NULL)
		abort();
	if (nb > 0) {
		memcpy(blamed, v->ranks, nb * sizeof(*blamed));
		nb = ht_rep_ranks_sort(blamed, nb);
	}
	*who = NULL;
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (!rep_waited(p) || ht_rep_ranks_hold(blamed, nb, p->rank, true))
			continue;
		count[p->cur_phase + 1]++;
		total++;
	}
	if (total == 0) {
		free(blamed);
		return NULL;
	}
	int best = 0;
	for (int i = 1; i <= HT_PHASE_COUNT; i++)
		if (count[i] > count[best])
			best = i;
	int64_t *r = malloc(total * sizeof(*r));
	size_t n = 0, still = 0;
	if (r == NULL)
		abort();
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		if (!rep_waited(p) || ht_rep_ranks_hold(blamed, nb, p->rank, true))
			continue;
		if (p->cur_phase + 1 == best) {
			if (*who == NULL)
				*who = p;
			r[n++] = p->rank;
			still += !p->gave_up;
		}
	}
	free(blamed);
	n = ht_rep_ranks_sort(r, n);
	const char *what = *who != NULL && (*who)->at_wait ? (*who)->doing : NULL;
	/* Ranks that gave up waiting have ended: they waited. */
	const char *s = still == 0 ?
		ht_rep_printf(&job->a, "%s waited in %s%s%s%s and gave up%s", ht_rep_ranks_phrase(job, r, n),
			      ht_rep_phase_name(best - 1), what != NULL ? " (" : "",
			      what != NULL ? what : "", what != NULL ? ")" : "",
			      total > n ? ht_rep_printf(&job->a, " (%zu more elsewhere)", total - n) : "") :
		ht_rep_printf(&job->a, "%s %s in %s%s%s%s", ht_rep_ranks_phrase(job, r, n),
			      n == 1 ? "waits" : "wait", ht_rep_phase_name(best - 1),
			      what != NULL ? ", " : "", what != NULL ? what : "",
			      total > n ? ht_rep_printf(&job->a, " (%zu more wait elsewhere)",
							total - n) : "");
	free(r);
	return s;
}

void *ht_rep_list_push(struct rep_list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap != 0 ? l->cap * 2 : 16;
		void *v = realloc(l->v, cap * l->size);
		if (v == NULL)
			abort();
		l->v = v;
		l->cap = cap;
	}
	void *item = rep_list_at(l, l->n++);
	memset(item, 0, l->size);
	return item;
}

void ht_rep_list_sort(struct rep_list *l, int (*cmp)(const void *, const void *))
{
	rep_sort(l->v, l->n, l->size, cmp);
}

size_t ht_rep_list_run(const struct rep_list *l, size_t i,
		       bool (*same)(const void *first, const void *other))
{
	size_t j = i + 1;
	while (j < l->n && same(rep_list_at(l, i), rep_list_at(l, j)))
		j++;
	return j;
}

void ht_rep_list_free(struct rep_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

const char *ht_rep_cuda_version(struct rep_job *job, int64_t v)
{
	if (v == REP_UNKNOWN)
		return "?";
	return ht_rep_printf(&job->a, "%lld.%lld", (long long)(v / 1000), (long long)(v % 1000 / 10));
}

const char *ht_rep_nccl_version(struct rep_job *job, int64_t v)
{
	if (v == REP_UNKNOWN)
		return "?";
	/* NCCL_VERSION_CODE: major*10000+minor*100+patch since 2.9, before
	 * that major*1000+minor*100+patch. */
	if (v >= 10000)
		return ht_rep_printf(&job->a, "%lld.%lld.%lld", (long long)(v / 10000),
				     (long long)(v % 10000 / 100), (long long)(v % 100));
	return ht_rep_printf(&job->a, "%lld.%lld.%lld", (long long)(v / 1000),
			     (long long)(v % 1000 / 100), (long long)(v % 100));
}

const char *ht_rep_port(const char *addr)
{
	const char *c = addr != NULL ? strrchr(addr, ':') : NULL;
	return c != NULL && c[1] != '\0' ? c + 1 : NULL;
}

const char *ht_rep_duration(struct rep_job *job, double s)
{
	if (s < 120)
		return ht_rep_printf(&job->a, "%.0f s", s);
	if (s < 7200)
		return ht_rep_printf(&job->a, "%.0f min", s / 60);
	if (s < 172800)
		return ht_rep_printf(&job->a, "%.1f h", s / 3600);
	return ht_rep_printf(&job->a, "%.0f days", s / 86400);
}
