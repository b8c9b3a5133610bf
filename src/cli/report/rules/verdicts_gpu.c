// SPDX-License-Identifier: MIT
/*
 * verdicts_gpu.c: the rules about CUDA: cuda_init_failed, stub_driver,
 * driver_too_old, fork_after_cuda_init and version_mismatch (driver,
 * runtime and NCCL versions across ranks and hosts); the GPUs of each host
 * are verdicts_devices.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

#define CUDA_ERROR_STUB_LIBRARY 34
#define CUDA_ERROR_INSUFFICIENT_DRIVER 35
#define CUDA_ERROR_INVALID_DEVICE 101

/* ---- cuInit ----------------------------------------------------------------------- */

static const char *cuda_advice(int64_t code)
{
	switch (code) {
	case 100:
		return "No GPU is visible to the process: CUDA_VISIBLE_DEVICES hides them (empty, "
		       "or naming GPUs that do not exist), the container was started without GPUs "
		       "(--gpus all, the NVIDIA runtime), or the driver sees none (nvidia-smi).";
	case 802:
		return "The system is not ready: on NVSwitch systems the fabric manager must run "
		       "(systemctl start nvidia-fabricmanager) with the driver's exact version.";
	case 803:
		return "The CUDA forward-compatibility libcuda does not fit this kernel driver: "
		       "remove the cuda-compat folder from LD_LIBRARY_PATH, or match the versions.";
	case 304:
		return "The operating system refused: /dev/nvidia* device nodes missing or not "
		       "allowed in the container or cgroup.";
	case 999:
	case 3:
		return "The driver failed to initialise: check nvidia-smi and dmesg (Xid errors) on "
		       "that host; a GPU in a bad state needs a reset or the node drained.";
	default:
		return "The driver refused to initialise: run nvidia-smi on that host and look for "
		       "Xid errors in dmesg.";
	}
}

struct cfail {
	struct rep_proc *p;
	int kind;	/* 0 stub, 1 too old, 2 other */
};

static int cmp_cfail(const void *a, const void *b)
{
	const struct cfail *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	int64_t rx = rep_cuda(x->p)->result, ry = rep_cuda(y->p)->result;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->p->rank < y->p->rank ? -1 : x->p->rank > y->p->rank;
}

static int64_t driver_of(const struct rep_proc *p)
{
	int64_t v = rep_vers(p)->value[REP_VER_DRIVER];
	return v != REP_UNKNOWN ? v : rep_cuda(p)->driver_version;
}

static int64_t runtime_of(const struct rep_proc *p)
{
	int64_t v = rep_vers(p)->value[REP_VER_RUNTIME];
	return v != REP_UNKNOWN ? v : rep_cuda(p)->runtime_version;
}

static void cuda_init(struct rep_job *job)
{
	struct cfail *f = calloc(job->procs.n + 1, sizeof(*f));
	size_t n = 0;
	if (f == NULL)
		abort();
	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *p = job->procs.v[i];
		/* A child forked after its parent's cuInit fails in CUDA
		 * because of the fork: fork_after_cuda_init says so. */
		if (p->cuda_inherited && p->nexec == 0)
			continue;
		int64_t r = rep_cuda(p)->result;
		bool failed = rep_ph(p, HT_PHASE_CUDA_INIT)->errored || (r != REP_UNKNOWN && r != 0);
		int64_t drv = driver_of(p), rt = runtime_of(p);
		bool old = drv != REP_UNKNOWN && rt != REP_UNKNOWN && drv > 0 && drv < rt;
		if (rep_cuda(p)->stub == 1 || r == CUDA_ERROR_STUB_LIBRARY)
			f[n++] = (struct cfail){ p, 0 };
		else if (r == CUDA_ERROR_INSUFFICIENT_DRIVER || old)
			f[n++] = (struct cfail){ p, 1 };
		else if (failed)
			f[n++] = (struct cfail){ p, 2 };
	}
	rep_sort(f, n, sizeof(*f), cmp_cfail);
	static const enum ht_verdict_code codes[] = { HT_VERDICT_STUB_DRIVER, HT_VERDICT_DRIVER_TOO_OLD,
						      HT_VERDICT_CUDA_INIT_FAILED };
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && f[j].kind == f[i].kind &&
		       (f[i].kind != 2 || rep_cuda(f[j].p)->result == rep_cuda(f[i].p)->result))
			j++;
		struct rep_proc *p = f[i].p;
		bool failed = false;
		struct rep_host *hosts[8];
		size_t nh = 0;
		for (size_t k = i; k < j; k++) {
			struct rep_proc *q = f[k].p;
			failed |= rep_ph(q, HT_PHASE_CUDA_INIT)->errored ||
				  (rep_cuda(q)->result != REP_UNKNOWN && rep_cuda(q)->result != 0) ||
				  rep_waited(ht_rep_main_of(q)) || ht_rep_main_of(q)->failed;
		}
		struct rep_verdict *v = ht_rep_verdict_new(job, codes[f[i].kind],
							   failed ? REP_ERROR : REP_WARNING);
		for (size_t k = i; k < j; k++) {
			struct rep_proc *q = f[k].p;
			ht_rep_blame(job, v, q);
			ht_rep_hosts_add(hosts, &nh, 8, q->h);
			if (k < i + 3) {
				struct rep_loc end = rep_ph_end(q, HT_PHASE_CUDA_INIT);
				const struct rep_loc *l = rep_has_loc(&q->cuda_init_loc) ? &q->cuda_init_loc :
							  &end;
				if (!rep_has_loc(l))
					l = &q->ver_loc[REP_VER_DRIVER];
				ht_rep_verdict_evidence(job, v, l, NULL);
			}
			double t = rep_ph(q, HT_PHASE_CUDA_INIT)->begun ? rep_ph(q, HT_PHASE_CUDA_INIT)->ts : q->ts0;
			if (t < v->t)
				v->t = t;
		}
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		const char *who = v->nranks > 0 ? ht_rep_ranks_phrase(job, v->ranks, v->nranks) :
			ht_rep_who(job, p);
		const char *hp = ht_rep_hosts_phrase(job, hosts, nh);
		if (f[i].kind == 0) {
			v->summary = ht_rep_printf(&job->a, "%s (%s) loaded the CUDA toolkit's stub "
						   "libcuda (%s), not the driver: cuInit fails with "
						   "CUDA_ERROR_STUB_LIBRARY", who, hp,
						   rep_cuda(p)->libcuda != NULL ? rep_cuda(p)->libcuda : "?");
			v->advice = "Remove the toolkit's stubs folder (.../cuda/lib64/stubs, "
				    ".../targets/*/lib/stubs) from LD_LIBRARY_PATH and the ld cache: it is "
				    "for linking only. The driver's libcuda.so.1 must be the one loaded.";
		} else if (f[i].kind == 1) {
			v->summary = ht_rep_printf(&job->a, "%s (%s): the driver (CUDA %s) is older "
						   "than the CUDA runtime needs (%s)%s", who, hp,
						   ht_rep_cuda_version(job, driver_of(p)),
						   ht_rep_cuda_version(job, runtime_of(p)),
						   rep_cuda(p)->result == CUDA_ERROR_INSUFFICIENT_DRIVER ?
						   ": CUDA_ERROR_INSUFFICIENT_DRIVER" : "");
			v->advice = "Upgrade the driver on that host, install the cuda-compat package "
				    "matching the runtime (data-center GPUs), or use a framework build "
				    "for the CUDA version the driver supports.";
		} else {
			int64_t r = rep_cuda(p)->result;
			v->summary = ht_rep_printf(&job->a, "cuInit failed on %s (%s): %s%s", who, hp,
						   rep_cuda(p)->error != NULL ? rep_cuda(p)->error :
						   "an error",
						   r != REP_UNKNOWN ? ht_rep_printf(&job->a, " (%lld)",
										 (long long)r) : "");
			v->advice = cuda_advice(r);
		}
		i = j;
	}
	free(f);
}

/* ---- fork ----------------------------------------------------------------------------- */

static void fork_after_init(struct rep_job *job)
{
	struct rep_verdict *v = NULL;
	bool err = false;
	struct rep_proc *first = NULL;
	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *p = job->procs.v[i];
		if (!p->cuda_inherited || p->nexec > 0)
			continue;
		bool touched = rep_rare(p)->cuda_after_fork || rep_rare(p)->ncerr > 0 ||
			       rep_ph(p, HT_PHASE_CUDA_INIT)->begun;
		bool hung = rep_rare(p)->cuda_hung || p->stalled || p->end == REP_VANISHED;
		if (!touched && !hung)
			continue;
		if (v == NULL) {
			v = ht_rep_verdict_new(job, HT_VERDICT_FORK_AFTER_CUDA_INIT, REP_WARNING);
			first = p;
		}
		err |= hung || rep_rare(p)->ncerr > 0 || rep_hurt(ht_rep_main_of(p));
		ht_rep_blame(job, v, p);
		if (v->nevidence < 4) {
			if (p->parent != NULL && rep_has_loc(&rep_rare(p->parent)->fork_cuda_loc))
				ht_rep_verdict_evidence(job, v, &p->parent->rare->fork_cuda_loc, NULL);
			ht_rep_verdict_evidence(job, v, &p->hdr, (const char *const[]){ "pid", "ppid",
						"rank", "fork_parent", "cuda_inherited", NULL });
			if (rep_has_loc(&rep_rare(p)->cuda_fork_loc))
				ht_rep_verdict_evidence(job, v, &p->rare->cuda_fork_loc, NULL);
			else if (rep_rare(p)->ncerr > 0)
				ht_rep_verdict_evidence(job, v, &rep_rare(p)->cerr[0].loc, NULL);
		}
		if (p->ts0 < v->t)
			v->t = p->ts0;
	}
	if (v == NULL)
		return;
	if (err) {
		v->sev = REP_ERROR;
		for (size_t i = 0; i < job->mains.n; i++) {
			struct rep_proc *p = job->mains.v[i];
			if (ht_rep_verdict_has(v, p->rank))
				p->blamed = true;
		}
	}
	v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
	const struct rep_rare *fr = rep_rare(first);
	const char *did = fr->cuda_hung || first->stalled ? "hangs in CUDA" :
			  first->end == REP_VANISHED ? "vanished" :
			  fr->ncerr > 0 ? ht_rep_printf(&job->a, "got %s from %s",
							fr->cerr[0].error != NULL ?
							fr->cerr[0].error : "an error",
							fr->cerr[0].fn != NULL ? fr->cerr[0].fn : "CUDA") :
			  "called CUDA";
	v->summary = ht_rep_printf(&job->a, "%s forked a child after CUDA was initialised, and "
				   "the child (pid %lld on %s) %s",
				   v->nranks > 0 ? ht_rep_ranks_phrase(job, v->ranks, v->nranks) :
				   "a process", (long long)first->pid, rep_id(first)->host, did);
	v->advice = "CUDA cannot be used in a process forked after its parent initialised CUDA. "
		    "Start workers with 'spawn' or 'forkserver' (multiprocessing.set_start_method, "
		    "DataLoader(multiprocessing_context='spawn')), or keep CUDA out of the parent "
		    "until the workers exist and out of Dataset code.";
}

/* ---- versions ------------------------------------------------------------------------- */

static int64_t version_of(const struct rep_proc *p, int k)
{
	if (k == REP_VER_DRIVER)
		return driver_of(p);
	if (k == REP_VER_RUNTIME)
		return runtime_of(p);
	return rep_vers(p)->value[REP_VER_NCCL];
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void version_mismatch(struct rep_job *job)
{
	static const char *const what[] = { "CUDA driver", "CUDA runtime", "NCCL" };
	int64_t *vals = malloc((job->mains.n + 1) * sizeof(*vals));
	if (vals == NULL)
		abort();
	for (int k = 0; k < REP_VER_COUNT; k++) {
		size_t n = 0;
		for (size_t i = 0; i < job->mains.n; i++) {
			int64_t x = version_of(job->mains.v[i], k);
			if (x != REP_UNKNOWN && x > 0)
				vals[n++] = x;
		}
		rep_sort(vals, n, sizeof(*vals), cmp_i64);
		int64_t major = -1, other = -1;
		size_t best = 0, distinct = 0;
		for (size_t i = 0; i < n;) {
			size_t j = i;
			while (j < n && vals[j] == vals[i])
				j++;
			distinct++;
			if (j - i > best) {
				best = j - i;
				major = vals[i];
			}
			i = j;
		}
		/* On a tie the lowest rank's version is the reference. */
		for (size_t r = 0; r < job->mains.n; r++) {
			int64_t x = version_of(job->mains.v[r], k);
			if (x == REP_UNKNOWN || x <= 0)
				continue;
			size_t c = 0;
			for (size_t i = 0; i < n; i++)
				c += vals[i] == x;
			if (c == best)
				major = x;
			break;
		}
		for (size_t i = 0; i < job->mains.n && distinct >= 2; i++) {
			int64_t x = version_of(job->mains.v[i], k);
			if (x != REP_UNKNOWN && x > 0 && x != major) {
				other = x;
				break;
			}
		}
		if (distinct < 2)
			continue;
		/* NCCL differences hang init; the others are a risk unless ranks wait. */
		bool in_nccl = false;
		for (size_t i = 0; i < job->mains.n; i++) {
			struct rep_proc *p = job->mains.v[i];
			in_nccl |= rep_waited(p) && p->cur_phase >= HT_PHASE_NCCL_INIT;
		}
		struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_VERSION_MISMATCH,
							   k == REP_VER_NCCL && in_nccl ? REP_ERROR :
							   REP_WARNING);
		struct rep_host *hosts[8];
		size_t nh = 0;
		for (size_t i = 0; i < job->mains.n; i++) {
			struct rep_proc *p = job->mains.v[i];
			int64_t x = version_of(p, k);
			if (x == REP_UNKNOWN || x <= 0 || x == major)
				continue;
			ht_rep_blame(job, v, p);
			ht_rep_hosts_add(hosts, &nh, 8, p->h);
			if (v->nevidence < 2) {
				const struct rep_loc *l = &p->ver_loc[k];
				ht_rep_verdict_evidence(job, v, rep_has_loc(l) ? l : &p->cuda_init_loc, NULL);
			}
		}
		for (size_t i = 0; i < job->mains.n; i++) {
			struct rep_proc *p = job->mains.v[i];
			if (version_of(p, k) == major) {
				const struct rep_loc *l = &p->ver_loc[k];
				ht_rep_verdict_evidence(job, v, rep_has_loc(l) ? l : &p->cuda_init_loc, NULL);
				break;
			}
		}
		v->nranks = ht_rep_ranks_sort(v->ranks, v->nranks);
		const char *(*fmt)(struct rep_job *, int64_t) = k == REP_VER_NCCL ? ht_rep_nccl_version :
								ht_rep_cuda_version;
		v->summary = ht_rep_printf(&job->a, "%s %s on %s (%s), %s on the other %zu rank%s%s",
					   what[k], fmt(job, other),
					   ht_rep_ranks_phrase(job, v->ranks, v->nranks),
					   ht_rep_hosts_phrase(job, hosts, nh), fmt(job, major), best,
					   best == 1 ? "" : "s",
					   distinct > 2 ? ht_rep_printf(&job->a, " (%zu versions in all)",
									 distinct) : "");
		v->advice = k == REP_VER_NCCL ?
			"Every rank must load the same NCCL: mixed versions can hang or fail in init. "
			"Check which libnccl each host loads (the provider path), the container image, "
			"LD_LIBRARY_PATH, and pip's nvidia-nccl package against the system one." :
			k == REP_VER_RUNTIME ?
			"Ranks run different CUDA runtimes: some hosts use another environment or "
			"image. Use one software stack on every node." :
			"The hosts have different drivers: usually harmless, but a host with an older "
			"driver may lack what the runtime needs. Align the driver versions.";
	}
	free(vals);
}

void ht_rep_rules_gpu(struct rep_job *job)
{
	cuda_init(job);
	ht_rep_rules_devices(job);
	fork_after_init(job);
	version_mismatch(job);
}
