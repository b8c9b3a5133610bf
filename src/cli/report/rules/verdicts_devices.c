// SPDX-License-Identifier: MIT
/*
 * verdicts_devices.c: the rules about the GPUs of each host, from the
 * device UUIDs, device counts, CUDA_VISIBLE_DEVICES and local ranks:
 * duplicate_gpu, visible_devices_inconsistent and too_many_local_ranks.
 */
#include <stdlib.h>
#include <string.h>

#include "rules.h"

#define CUDA_ERROR_INVALID_DEVICE 101

/* ---- devices per host ------------------------------------------------------------------ */

/* The GPU a rank bound, as comparable text: UUID, PCI bus id, or the
 * ordinal when every GPU is visible. NULL when it cannot be told. */
static const char *gpu_of(struct rep_job *job, const struct rep_proc *p)
{
	if (!p->device.have)
		return NULL;
	if (p->device.uuid != NULL)
		return p->device.uuid;
	if (p->device.pci != NULL)
		return p->device.pci;
	const char *vis = p->device.visible != NULL ? p->device.visible : rep_id(p)->cvd;
	if (vis == NULL && p->device.ordinal != REP_UNKNOWN)
		return ht_rep_printf(&job->a, "ordinal %lld", (long long)p->device.ordinal);
	return NULL;
}

static const char *vis_of(const struct rep_proc *p)
{
	return p->device.visible != NULL ? p->device.visible : rep_id(p)->cvd;
}

/* The CUDA_VISIBLE_DEVICES every rank of h shares (one list for all), or
 * NULL when some differ or none is set. */
static const char *shared_vis(const struct rep_host *h)
{
	const char *common = NULL;
	for (size_t i = 0; i < h->mains.n; i++) {
		const char *v = vis_of(h->mains.v[i]);
		if (v == NULL || (common != NULL && strcmp(common, v) != 0))
			return NULL;
		common = v;
	}
	return common;
}

/* Entries of a CUDA_VISIBLE_DEVICES list CUDA accepts (up to the first
 * it rejects: "-1", an empty item). */
static int64_t vis_len(const char *list)
{
	int64_t n = 0;
	for (const char *s = list; *s != '\0';) {
		while (*s == ' ')
			s++;
		if (*s == ',' || *s == '\0' || *s == '-')
			break;
		n++;
		const char *e = strchr(s, ',');
		if (e == NULL)
			break;
		s = e + 1;
	}
	return n;
}

static int cmp_gpu(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	int c = strcmp(x[0], y[0]);
	if (c != 0)
		return c;
	const struct rep_proc *p = (const void *)x[1], *q = (const void *)y[1];
	return p->rank < q->rank ? -1 : p->rank > q->rank;
}

static void duplicate_gpu(struct rep_job *job)
{
	for (size_t hi = 0; hi < job->nhosts; hi++) {
		struct rep_host *h = job->hosts[hi];
		size_t n = 0;
		const char *(*g)[2] = calloc(h->mains.n + 1, sizeof(*g));
		if (g == NULL)
			abort();
		for (size_t i = 0; i < h->mains.n; i++) {
			struct rep_proc *p = h->mains.v[i];
			const char *id = gpu_of(job, p);
			if (id != NULL) {
				g[n][0] = id;
				g[n][1] = (const char *)p;
				n++;
			}
		}
		rep_sort(g, n, sizeof(*g), cmp_gpu);
		struct rep_verdict *v = NULL;
		const char *first_gpu = NULL;
		int64_t owner = -1;
		bool sev_err = false;
		for (size_t i = 0; i < n;) {
			size_t j = i;
			while (j < n && strcmp(g[j][0], g[i][0]) == 0)
				j++;
			if (j - i >= 2) {
				if (v == NULL) {
					v = ht_rep_verdict_new(job, HT_VERDICT_DUPLICATE_GPU, REP_WARNING);
					first_gpu = g[i][0];
					owner = ((struct rep_proc *)(void *)g[i][1])->rank;
				}
				for (size_t k = i; k < j; k++) {
					struct rep_proc *p = (void *)g[k][1];
					sev_err |= rep_hurt(p);
					if (v->nevidence < 4)
						ht_rep_verdict_evidence(job, v, &p->device.loc, NULL);
					if (rep_ph(p, HT_PHASE_DEVICE)->ts < v->t)
						v->t = rep_ph(p, HT_PHASE_DEVICE)->ts;
				}
				/* The first holder keeps it; the others are blamed. */
				for (size_t k = i + 1; k < j; k++)
					ht_rep_verdict_rank(job, v, ((struct rep_proc *)(void *)g[k][1])->rank);
			}
			i = j;
		}
		free(g);
		if (v == NULL)
			continue;
		if (sev_err)
			v->sev = REP_ERROR;
		for (size_t i = 0; i < h->mains.n; i++) {
			struct rep_proc *p = h->mains.v[i];
			if (ht_rep_verdict_has(v, p->rank) && v->sev == REP_ERROR)
				p->blamed = true;
		}
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		v->summary = ht_rep_printf(&job->a, "%s on host %s bound a GPU another rank of that "
					   "host also bound (e.g. %s, also rank %lld's)",
					   ht_rep_ranks_phrase(job, v->ranks, v->nranks), h->name,
					   first_gpu, (long long)owner);
		v->advice = "Each rank needs its own GPU: select it by the local rank before any CUDA "
			    "work and before init (torch.cuda.set_device(LOCAL_RANK), "
			    "device_ids=[LOCAL_RANK]), not by the global rank and not the default "
			    "device 0; with a CUDA_VISIBLE_DEVICES per rank, make the values differ.";
	}
}

static int64_t visible_count(const struct rep_proc *p)
{
	return p->device.count != REP_UNKNOWN ? p->device.count : rep_cuda(p)->device_count;
}

static void too_many_local_ranks(struct rep_job *job)
{
	for (size_t hi = 0; hi < job->nhosts; hi++) {
		struct rep_host *h = job->hosts[hi];
		int64_t gpus = -1;
		bool masked = false;
		/* One CUDA_VISIBLE_DEVICES for every rank of the host: the GPUs
		 * they all see are its entries. */
		const char *shared = shared_vis(h);
		if (shared != NULL)
			gpus = vis_len(shared);
		for (size_t i = 0; i < h->mains.n && shared == NULL; i++) {
			struct rep_proc *p = h->mains.v[i];
			if (vis_of(p) != NULL) {
				masked = true;
				continue;
			}
			if (visible_count(p) != REP_UNKNOWN && visible_count(p) > gpus)
				gpus = visible_count(p);
		}
		if (masked || gpus < 0 || (int64_t)h->mains.n <= gpus)
			continue;
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_TOO_MANY_LOCAL_RANKS,
							   REP_WARNING);
		bool err = false;
		for (size_t i = 0; i < h->mains.n; i++) {
			struct rep_proc *p = h->mains.v[i];
			int64_t lr = p->local_rank != REP_UNKNOWN ? p->local_rank : (int64_t)i;
			if (lr < gpus)
				continue;
			ht_rep_verdict_rank(job, v, p->rank);
			err |= rep_hurt(p);
			if (v->nevidence < 3) {
				if (p->device.have)
					ht_rep_verdict_evidence(job, v, &p->device.loc, NULL);
				const struct rep_rare *r = rep_rare(p);
				for (size_t k = 0; k < r->ncerr; k++)
					if (r->cerr[k].result == CUDA_ERROR_INVALID_DEVICE)
						ht_rep_verdict_evidence(job, v, &r->cerr[k].loc, NULL);
			}
			if (p->ts0 < v->t)
				v->t = p->ts0;
		}
		if (err || job->stuck)
			v->sev = REP_ERROR;
		for (size_t i = 0; i < h->mains.n && v->sev == REP_ERROR; i++) {
			struct rep_proc *p = h->mains.v[i];
			if (ht_rep_verdict_has(v, p->rank))
				p->blamed = true;
		}
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		v->summary = ht_rep_printf(&job->a, "host %s runs %zu ranks but they see %lld GPU%s%s: "
					   "%s %s no GPU of %s own", h->name, h->mains.n, (long long)gpus,
					   gpus == 1 ? "" : "s", shared != NULL ?
					   ht_rep_printf(&job->a, " (CUDA_VISIBLE_DEVICES=%s)", shared) : "",
					   ht_rep_ranks_phrase(job, v->ranks, v->nranks),
					   v->nranks == 1 ? "has" : "have", v->nranks == 1 ? "its" : "their");
		v->advice = "Run as many ranks per host as it has GPUs (--nproc-per-node, "
			    "--ntasks-per-node, --gpus-per-task=1), or give the host the GPUs the "
			    "job expects.";
	}
}

/* Entry k of a CUDA_VISIBLE_DEVICES list, as text, or NULL past its end.
 * Parsing stops at the first entry CUDA would reject ("-1", garbage). */
static const char *vis_entry(struct rep_job *job, const char *list, int64_t k, size_t *n)
{
	const char *r = NULL;
	size_t count = 0;
	const char *s = list;
	while (*s != '\0') {
		const char *e = strchr(s, ',');
		size_t len = e != NULL ? (size_t)(e - s) : strlen(s);
		while (len > 0 && s[0] == ' ') {
			s++;
			len--;
		}
		if (len == 0 || s[0] == '-')
			break;
		if ((int64_t)count == k)
			r = ht_rep_strndup(&job->a, s, len);
		count++;
		if (e == NULL)
			break;
		s = e + 1;
	}
	*n = count;
	return r;
}

static void visible_devices(struct rep_job *job)
{
	for (size_t hi = 0; hi < job->nhosts; hi++) {
		struct rep_host *h = job->hosts[hi];
		size_t set = 0, unset = 0, with_gpu = 0;
		for (size_t i = 0; i < h->mains.n; i++) {
			struct rep_proc *p = h->mains.v[i];
			if (vis_of(p) != NULL)
				set++;
			else
				unset++;
			with_gpu += visible_count(p) != REP_UNKNOWN && visible_count(p) > 0;
		}
		/* One list for all: consistent; too many ranks for it is
		 * too_many_local_ranks, two on one GPU duplicate_gpu. */
		if (set == 0 || shared_vis(h) != NULL)
			continue;
		struct rep_verdict *v = NULL;
		bool err = false;
		const char *why = NULL;
		const char **phys = calloc(h->mains.n + 1, sizeof(*phys));
		if (phys == NULL)
			abort();
		for (size_t i = 0; i < h->mains.n; i++) {
			struct rep_proc *p = h->mains.v[i];
			const char *vis = vis_of(p);
			if (vis == NULL)
				continue;
			size_t n = 0;
			int64_t ord = p->device.ordinal != REP_UNKNOWN ? p->device.ordinal : 0;
			const char *e = vis_entry(job, vis, ord, &n);
			bool bad = false;
			const char *what = NULL;
			if (n == 0 || (visible_count(p) == 0 && with_gpu > 0)) {
				bad = true;
				what = ht_rep_printf(&job->a, "rank %lld's CUDA_VISIBLE_DEVICES=\"%s\" "
						     "leaves it no GPU", (long long)p->rank, vis);
			} else if (e == NULL && p->device.ordinal != REP_UNKNOWN) {
				bad = true;
				what = ht_rep_printf(&job->a, "rank %lld uses device %lld of "
						     "CUDA_VISIBLE_DEVICES=\"%s\", which lists %zu",
						     (long long)p->rank, (long long)ord, vis, n);
			} else if (!p->device.have && p->device.ordinal == REP_UNKNOWN && p->failed &&
				   rep_ph(p, HT_PHASE_CUDA_INIT)->begun && p->local_rank != REP_UNKNOWN &&
				   p->local_rank >= (int64_t)n) {
				/* It failed after cuInit without binding a GPU:
				 * set_device(LOCAL_RANK) past its own list (the
				 * runtime refuses the ordinal before any driver
				 * call the library sees). */
				bad = true;
				what = ht_rep_printf(&job->a, "rank %lld failed before binding a GPU: as "
						     "local rank %lld it asks for device %lld of "
						     "CUDA_VISIBLE_DEVICES=\"%s\", which lists %zu",
						     (long long)p->rank, (long long)p->local_rank,
						     (long long)p->local_rank, vis, n);
			} else if (e != NULL && (p->device.have || n == 1)) {
				for (size_t k = 0; k < i && !bad; k++)
					if (phys[k] != NULL && strcmp(phys[k], e) == 0) {
						bad = true;
						what = ht_rep_printf(&job->a, "CUDA_VISIBLE_DEVICES gives ranks "
								     "%lld and %lld of host %s the same "
								     "GPU (%s)",
								     (long long)((struct rep_proc *)h->mains.v[k])->rank,
								     (long long)p->rank, h->name, e);
					}
				phys[i] = e;
			}
			if (!bad)
				continue;
			if (v == NULL) {
				v = ht_rep_verdict_new(job, HT_VERDICT_VISIBLE_DEVICES_INCONSISTENT,
						       REP_WARNING);
				why = what;
			}
			ht_rep_verdict_rank(job, v, p->rank);
			err |= rep_hurt(p);
			if (v->nevidence < 4) {
				if (p->device.have)
					ht_rep_verdict_evidence(job, v, &p->device.loc, NULL);
				else
					ht_rep_verdict_note(job, v, "%s: CUDA_VISIBLE_DEVICES=%s for rank %lld",
							    job->files[p->file].name, vis,
							    (long long)p->rank);
			}
			if (p->ts0 < v->t)
				v->t = p->ts0;
		}
		free(phys);
		if (v == NULL && unset > 0 && set > 0) {
			v = ht_rep_verdict_new(job, HT_VERDICT_VISIBLE_DEVICES_INCONSISTENT, REP_WARNING);
			why = ht_rep_printf(&job->a, "on host %s, %zu rank%s set CUDA_VISIBLE_DEVICES and "
					    "%zu do not", h->name, set, set == 1 ? "" : "s", unset);
			for (size_t i = 0; i < h->mains.n; i++) {
				struct rep_proc *p = h->mains.v[i];
				if (vis_of(p) == NULL)
					ht_rep_verdict_rank(job, v, p->rank);
			}
		}
		if (v == NULL)
			continue;
		if (err)
			v->sev = REP_ERROR;
		for (size_t i = 0; i < h->mains.n && err; i++) {
			struct rep_proc *p = h->mains.v[i];
			if (ht_rep_verdict_has(v, p->rank))
				p->blamed = true;
		}
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		v->summary = v->nranks > 1 && unset == 0 ?
			ht_rep_printf(&job->a, "%s on host %s: CUDA_VISIBLE_DEVICES and the device "
				      "used do not fit (e.g. %s)",
				      ht_rep_ranks_phrase(job, v->ranks, v->nranks), h->name, why) : why;
		v->advice = "With one GPU per rank, CUDA_VISIBLE_DEVICES must differ per rank and name "
			    "GPUs that exist (e.g. $SLURM_LOCALID or $LOCAL_RANK), and the rank then uses "
			    "device 0; with all GPUs visible, pick the device by LOCAL_RANK. Setting both "
			    "a per-rank CUDA_VISIBLE_DEVICES and set_device(LOCAL_RANK) skips GPUs.";
	}
}

void ht_rep_rules_devices(struct rep_job *job)
{
	duplicate_gpu(job);
	visible_devices(job);
	too_many_local_ranks(job);
}
