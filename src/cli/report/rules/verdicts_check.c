// SPDX-License-Identifier: MIT
/*
 * verdicts_check.c: the verdicts of a `hangtrace check` run, one per code
 * of the checks that failed (the code each failed line names), and
 * ib_misconfigured from the "ib" facts of any process, traced job or check:
 * the problems src/base/ibfacts.c found on a host, and NCCL_IB_GID_INDEX
 * differing between hosts that use RoCE (a warning). A rank that never
 * arrived but wrote a trace is not missing: its own lines say why.
 */
#include <string.h>

#include "read/checkfacts.h"
#include "rules/rules.h"

static const char *advice_of(const char *code)
{
	static const struct { const char *code, *advice; } t[] = {
		{ "rendezvous_unreachable", "Open MASTER_PORT between the hosts (firewall, security "
		  "group), check MASTER_ADDR names rank 0's host from every host, and that nothing "
		  "else holds the port." },
		{ "master_addr_loopback", "Set MASTER_ADDR to rank 0's host name or address as "
		  "the other hosts reach it (not localhost or 127.0.0.1), and check that name does not "
		  "map to 127.0.1.1 in /etc/hosts." },
		{ "missing_rank", "Look at the launcher: the ranks named never started (wrong -n, "
		  "a node that did not come up, a failed container start)." },
		{ "socket_ifname_missing", "Set NCCL_SOCKET_IFNAME to an interface that exists on "
		  "every host (ip -br addr), or a prefix list that matches one on each." },
		{ "too_many_local_ranks", "Launch as many ranks per host as it has GPUs "
		  "(--nproc-per-node, --ntasks-per-node, --gpus-per-task), or widen "
		  "CUDA_VISIBLE_DEVICES." },
		{ "duplicate_gpu", "Give each local rank its own GPU: set the device from LOCAL_RANK "
		  "(torch.cuda.set_device(local_rank)) and do not pin CUDA_VISIBLE_DEVICES to one "
		  "GPU for every rank." },
		{ "driver_too_old", "Install a driver that supports the CUDA runtime the job uses, or "
		  "use a runtime (container, wheel) built for this driver." },
		{ "stub_driver", "The CUDA toolkit's stub libcuda is found before the driver: remove "
		  "its folder (lib64/stubs) from LD_LIBRARY_PATH." },
		{ "cuda_init_failed", "Check the driver (nvidia-smi), the device nodes in the "
		  "container and CUDA_VISIBLE_DEVICES." },
		{ "version_mismatch", "Use one software image on every host: the same driver, CUDA "
		  "runtime and NCCL." },
		{ "world_size_mismatch", "Give every rank the same world size (WORLD_SIZE, -n, "
		  "--nnodes x --nproc-per-node)." },
		{ "shm_too_small", "Give the container more shared memory (docker --shm-size=8g, or "
		  "a larger /dev/shm)." },
		{ "address_conflict", "Point NCCL_SOCKET_IFNAME at the interface that carries each "
		  "host's own address (not a container bridge such as docker0 that every host "
		  "numbers alike)." },
		{ "port_in_use", "Another process holds the rendezvous port, often a job left "
		  "over from an earlier run: end it if it is stale, or give the job another "
		  "MASTER_PORT (torchrun --master-port)." },
		{ "stale_store", "Remove the file before the job starts (rm it): FileStore removes "
		  "its file only when every rank ends cleanly, so a run that was killed leaves it; "
		  "name a new one each run (with the job id in the path)." },
		{ "peer_unreachable", "Open the ports NCCL uses between the hosts (it listens on "
		  "ephemeral ports, not only MASTER_PORT) or bind it to an interface the hosts "
		  "share (NCCL_SOCKET_IFNAME)." },
		{ "clock_skew", "Synchronise the hosts' clocks (chrony, NTP): timeouts and logs "
		  "across hosts cannot be compared otherwise." },
		{ "nccl_selftest_failed", "Run the named ranks' NCCL step alone with NCCL_DEBUG=INFO; "
		  "fix what the other checks found first." },
		{ "ib_misconfigured", "Fix NCCL_IB_HCA to name the host's devices (ibv_devinfo), "
		  "bring the port up, and set NCCL_IB_GID_INDEX to the RoCE v2 GID of the routable "
		  "address (show_gids), the same on every host." },
	};
	for (size_t i = 0; code != NULL && i < REP_ARRAY_SIZE(t); i++)
		if (strcmp(t[i].code, code) == 0)
			return t[i].advice;
	return "";
}

static struct rep_verdict *verdict_for(struct rep_job *job, enum ht_verdict_code code,
				       enum rep_severity sev)
{
	for (size_t i = 0; i < job->nverdicts; i++)
		if (job->verdicts[i]->code == code && job->verdicts[i]->sev == sev)
			return job->verdicts[i];
	struct rep_verdict *v = ht_rep_verdict_new(job, code, sev);
	v->advice = advice_of(ht_verdict_name(code));
	return v;
}

static bool has_trace(const struct rep_job *job, int64_t r)
{
	for (size_t i = 0; i < job->mains.n; i++)
		if (((const struct rep_proc *)job->mains.v[i])->rank == r)
			return true;
	return false;
}

static void check_lines(struct rep_job *job)
{
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		for (size_t j = 0; rep_rare(p)->chk != NULL && j < rep_rare(p)->chk->n; j++) {
			const struct rep_chkline *l = &rep_rare(p)->chk->lines[j];
			if (strcmp(l->result, "fail") != 0 || l->code == NULL ||
			    strcmp(l->code, "ib_misconfigured") == 0)
				continue;
			int code = ht_verdict_from_name(l->code);
			if (code < 0)
				continue;
			bool missing = code == HT_VERDICT_MISSING_RANK;
			size_t blame = 0;
			for (size_t k = 0; k < l->nranks; k++)
				blame += !missing || !has_trace(job, l->ranks[k]);
			if (missing && blame == 0)
				continue;	/* they arrived late or not at all: their lines say why */
			struct rep_verdict *v = verdict_for(job, (enum ht_verdict_code)code, REP_ERROR);
			if (l->ranks != NULL && l->nranks > 0) {
				for (size_t k = 0; k < l->nranks; k++)
					if (!missing || !has_trace(job, l->ranks[k]))
						ht_rep_verdict_rank(job, v, l->ranks[k]);
			} else {
				ht_rep_blame(job, v, p);
			}
			if (v->summary == NULL)
				v->summary = ht_rep_printf(&job->a, "host %s: %s", rep_id(p)->host,
							   l->why != NULL ? l->why : "");
			ht_rep_verdict_evidence(job, v, &l->loc, NULL);
		}
	}
}

/* ---- InfiniBand / RoCE ------------------------------------------------------------ */

static const struct rep_checkfacts *ib_of_host(const struct rep_host *h,
						const struct rep_proc **who)
{
	for (size_t i = 0; i < h->procs.n; i++) {
		const struct rep_proc *p = h->procs.v[i];
		if (rep_rare(p)->chk != NULL && rep_rare(p)->chk->have_ib) {
			*who = p;
			return rep_rare(p)->chk;
		}
	}
	return NULL;
}

static void ib_rules(struct rep_job *job)
{
	bool check = ht_rep_is_check_run(job);
	enum rep_severity sev = check || job->stuck || job->failed ? REP_ERROR : REP_WARNING;
	const char *gid = NULL, *gid_host = NULL;
	bool differ = false;
	struct rep_loc gid_locs[2] = { REP_NOLOC, REP_NOLOC };

	for (size_t hi = 0; hi < job->nhosts; hi++) {
		struct rep_host *h = job->hosts[hi];
		const struct rep_proc *who = NULL;
		const struct rep_checkfacts *f = ib_of_host(h, &who);
		if (f == NULL)
			continue;
		if (f->nprobs > 0) {
			struct rep_verdict *v = verdict_for(job, HT_VERDICT_IB_MISCONFIGURED, sev);
			for (size_t k = 0; k < h->mains.n; k++)
				ht_rep_blame(job, v, h->mains.v[k]);
			const struct rep_ibprob *b = &f->probs[0];
			if (v->summary == NULL) {
				if (b->dev != NULL && b->port != REP_UNKNOWN)
					v->summary = ht_rep_printf(&job->a, "host %s, %s port %lld: %s",
								   h->name, b->dev, (long long)b->port,
								   b->what != NULL ? b->what : "");
				else
					v->summary = ht_rep_printf(&job->a, "host %s: %s", h->name,
								   b->what != NULL ? b->what : "");
			}
			for (size_t k = 0; k < f->nprobs; k++) {
				const struct rep_ibprob *x = &f->probs[k];
				if (x->dev != NULL && x->port != REP_UNKNOWN)
					ht_rep_verdict_note(job, v, "host %s, %s port %lld: %s", h->name,
							    x->dev, (long long)x->port,
							    x->what != NULL ? x->what : "?");
				else
					ht_rep_verdict_note(job, v, "host %s: %s", h->name,
							    x->what != NULL ? x->what : "?");
			}
			ht_rep_verdict_evidence(job, v, &f->ib_loc, NULL);
		}
		if (f->roce && f->ib_in_use && f->gid_index != NULL) {
			if (gid == NULL) {
				gid = f->gid_index;
				gid_host = h->name;
				gid_locs[0] = f->ib_loc;
			} else if (strcmp(gid, f->gid_index) != 0 && !differ) {
				differ = true;
				gid_locs[1] = f->ib_loc;
				struct rep_verdict *v = ht_rep_verdict_new(job, HT_VERDICT_IB_MISCONFIGURED,
									   REP_WARNING);
							v->advice = advice_of("ib_misconfigured");
				v->summary = ht_rep_printf(&job->a, "NCCL_IB_GID_INDEX is %s on host %s "
							   "but %s on host %s: RoCE peers on one "
							   "network should use the same GID type and "
							   "index", gid, gid_host, f->gid_index, h->name);
				for (size_t k = 0; k < h->mains.n; k++)
					ht_rep_blame(job, v, h->mains.v[k]);
				ht_rep_verdict_evidence(job, v, &gid_locs[0], NULL);
				ht_rep_verdict_evidence(job, v, &gid_locs[1], NULL);
			}
		}
	}
}

static bool is_check_proc(const struct rep_job *job, int64_t r)
{
	for (size_t i = 0; i < job->mains.n; i++) {
		const struct rep_proc *p = job->mains.v[i];
		if (p->rank == r)
			return rep_id(p)->relevant != NULL && strcmp(rep_id(p)->relevant, "check") == 0;
	}
	return false;
}

/* A check rank ends with status 1 when a check failed: that is its answer,
 * not a rank that died; the failed checks are the verdicts. */
static void drop_check_exits(struct rep_job *job)
{
	size_t k = 0;
	for (size_t i = 0; i < job->nverdicts; i++) {
		struct rep_verdict *v = job->verdicts[i];
		bool all = v->code == HT_VERDICT_RANK_EXITED && v->nranks > 0;
		for (size_t j = 0; all && j < v->nranks; j++)
			all = is_check_proc(job, v->ranks[j]);
		if (!all)
			job->verdicts[k++] = v;
	}
	job->nverdicts = k;
}

void ht_rep_rules_check(struct rep_job *job)
{
	if (ht_rep_is_check_run(job))
		drop_check_exits(job);
	check_lines(job);
	ib_rules(job);
}
