// SPDX-License-Identifier: MIT
/*
 * check_verdicts.c: every verdict rule of SPEC section 8 over the
 * hand-written fixtures of tests/fixtures/report: each case must give the
 * verdicts listed (code, severity, blamed ranks) in that order of
 * likelihood, and none of the codes that must not fire there (the negative
 * half of each rule: a healthy job, a retried rendezvous, sub-communicators,
 * launcher agents, a restart...).
 */
#include <stdlib.h>

#include "ht_check.h"
#include "fixture.h"

struct want {
	const char *code;
	const char *sev;	/* "error" or "warning" */
	const char *ranks;	/* compact ranges, "" for none */
};

struct tcase {
	const char *name;
	struct want first[4];	/* the leading verdicts, in order */
	const char *never[8];	/* codes that must not appear */
	int exit;		/* the command's exit status: 0 or 1 */
};

#define NONE_OF_RANKS "missing_rank", "rank_exited", "straggler", "duplicate_rank", "stalled"

static const struct tcase cases[] = {
	{ "healthy", { { 0 } }, { NONE_OF_RANKS, "rendezvous_unreachable", "master_addr_loopback" }, 0 },
	{ "healthy_multihost", { { "version_mismatch", "warning", "4-7" } },
	  { NONE_OF_RANKS, "duplicate_gpu" }, 0 },
	{ "cancelled_steady", { { 0 } }, { NONE_OF_RANKS }, 0 },
	{ "missing_rank", { { "missing_rank", "error", "2" } }, { "straggler", "rank_exited" }, 1 },
	{ "missing_rank_early", { { "missing_rank", "warning", "2" } }, { "stalled" }, 0 },
	{ "missing_host", { { "rendezvous_unreachable", "error", "" },
			    { "missing_rank", "error", "4-7" } }, { "duplicate_rank" }, 1 },
	{ "rank_exited", { { "rank_exited", "error", "2" } }, { "missing_rank", "straggler" }, 1 },
	{ "gave_up", { { "straggler", "error", "0" }, { "rank_exited", "error", "1-3" } },
	  { "missing_rank" }, 1 },
	{ "killed_waiting", { { "stalled", "error", "0-3" } }, { "rank_exited" }, 1 },
	{ "vanished", { { "rank_exited", "error", "1" } }, { "missing_rank" }, 1 },
	{ "straggler", { { "straggler", "error", "0" } }, { "stalled", "rank_exited" }, 1 },
	/* Ranks 6-7 wait in the store for rank 0, which is in launch with
	 * 1-5: their stall follows from that one (SPEC section 8, because). */
	{ "no_straggler_majority", { { "stalled", "error", "0-5" }, { "stalled", "error", "6-7" } },
	  { "straggler" }, 1 },
	{ "world_size_mismatch", { { "world_size_mismatch", "error", "3" } }, { "missing_rank" }, 1 },
	{ "duplicate_rank", { { "duplicate_rank", "error", "1" } }, { "missing_rank" }, 1 },
	{ "agents_not_duplicates", { { 0 } }, { NONE_OF_RANKS, "world_size_mismatch" }, 0 },
	{ "restart_not_duplicate", { { 0 } }, { NONE_OF_RANKS }, 0 },
	{ "rendezvous_refused", { { "rendezvous_unreachable", "error", "2-3" } },
	  { "master_addr_loopback" }, 1 },
	{ "rendezvous_timeout", { { "rendezvous_unreachable", "error", "1" } },
	  { "rank_exited" }, 1 },
	{ "rendezvous_unresolved", { { "rendezvous_unreachable", "error", "1" } }, { 0 }, 1 },
	{ "rendezvous_retry_ok", { { 0 } }, { "rendezvous_unreachable", NONE_OF_RANKS }, 0 },
	{ "master_addr_loopback", { { "master_addr_loopback", "error", "2-3" },
				    { "rendezvous_unreachable", "error", "2-3" } }, { 0 }, 1 },
	{ "socket_ifname_missing", { { "socket_ifname_missing", "error", "0-1" },
				     { "nccl_init_error", "error", "0" } }, { 0 }, 1 },
	{ "shm_too_small", { { "nccl_init_error", "error", "0-1" },
			     { "shm_too_small", "error", "0-1" } }, { 0 }, 1 },
	{ "unique_id_mismatch", { { "unique_id_mismatch", "error", "6-7" } }, { "straggler" }, 1 },
	{ "subgroups_ok", { { 0 } }, { "unique_id_mismatch", "world_size_mismatch", NONE_OF_RANKS }, 0 },
	{ "duplicate_gpu", { { "duplicate_gpu", "error", "1-3" } },
	  { "too_many_local_ranks", "visible_devices_inconsistent" }, 1 },
	{ "too_many_local_ranks", { { "too_many_local_ranks", "error", "4-7" } },
	  { "duplicate_gpu" }, 1 },
	{ "visible_devices_inconsistent", { { "visible_devices_inconsistent", "error", "1-3" } },
	  { "duplicate_gpu", "too_many_local_ranks" }, 1 },
	{ "cvd_ok", { { 0 } }, { "visible_devices_inconsistent", "duplicate_gpu",
				 "too_many_local_ranks" }, 0 },
	{ "cuda_init_failed", { { "cuda_init_failed", "error", "1" } },
	  { "stub_driver", "driver_too_old" }, 1 },
	{ "stub_driver", { { "stub_driver", "error", "0-1" } },
	  { "cuda_init_failed", "driver_too_old" }, 1 },
	{ "stub_driver_two_hosts", { { "stub_driver", "error", "0-15" } },
	  { "cuda_init_failed", "driver_too_old" }, 1 },
	{ "driver_too_old", { { "driver_too_old", "error", "0-1" } },
	  { "cuda_init_failed", "stub_driver" }, 1 },
	{ "driver_too_old_runtime", { { "driver_too_old", "error", "0" } },
	  { "cuda_init_failed", "stub_driver" }, 1 },
	{ "fork_after_cuda_init", { { "fork_after_cuda_init", "error", "0" } },
	  { "cuda_init_failed" }, 1 },
	{ "version_mismatch", { { "version_mismatch", "error", "3" } }, { 0 }, 1 },
	{ "nccl_init_error", { { "nccl_init_error", "error", "3" } }, { 0 }, 1 },
	{ "nccl_phase_only", { { "nccl_init_error", "error", "1" }, { "rank_exited", "error", "1" } },
	  { "unique_id_mismatch" }, 1 },
	{ "collective_mismatch", { { "collective_mismatch", "error", "3" } },
	  { "collective_lag", "stalled" }, 1 },
	{ "collective_lag", { { "collective_lag", "error", "3" } },
	  { "collective_mismatch", "stalled" }, 1 },
	{ "lag_gave_up", { { "collective_lag", "error", "3" }, { "rank_exited", "error", "1-2" } },
	  { "collective_mismatch" }, 1 },
	{ "slow_then_failed", { { "rank_exited", "error", "3" }, { "missing_rank", "error", "4" } },
	  { "straggler" }, 1 },
	{ "duplicate_rank_same_host", { { "duplicate_rank", "error", "0" } }, { 0 }, 1 },
	{ "launcher_short", { { "missing_rank", "error", "3" } }, { "world_size_mismatch" }, 1 },
	{ "gpus_per_process_ok", { { 0 } }, { NONE_OF_RANKS, "world_size_mismatch" }, 0 },
	{ "cvd_overlap", { { "visible_devices_inconsistent", "error", "2" } },
	  { "too_many_local_ranks", "duplicate_gpu" }, 1 },
	{ "stalled_all", { { "stalled", "error", "0-3" } }, { "straggler", "missing_rank" }, 1 },
	{ "unranked", { { "stalled", "error", "" } }, { "missing_rank" }, 1 },
	{ "wrappers", { { 0 } }, { NONE_OF_RANKS, "fork_after_cuda_init" }, 0 },
	{ "exec_and_reuse", { { 0 } }, { NONE_OF_RANKS, "world_size_mismatch" }, 0 },
	{ "bad_files", { { "rank_exited", "warning", "0" } }, { "missing_rank" }, 0 },
	/* Who waits for whom: the root cause first (SPEC section 8). */
	{ "store_host_loading", { { "straggler", "error", "0" },
				  { "rendezvous_unreachable", "error", "1-3" } }, { "stalled" }, 1 },
	{ "store_host_killed", { { "straggler", "error", "0" },
				 { "rendezvous_unreachable", "error", "1-3" } },
	  { "rank_exited", "stalled" }, 1 },
	{ "wrong_port", { { "rendezvous_unreachable", "error", "3" } }, { "straggler", "stalled" }, 1 },
	{ "mpi_load_before_barrier", { { "straggler", "error", "2" } }, { "stalled" }, 1 },
	{ "barrier_never_reached", { { "straggler", "error", "1" } }, { "stalled" }, 1 },
	{ "mpi_raise_after_sleep", { { "rank_exited", "error", "1" } }, { "straggler", "stalled" }, 1 },
	{ "mpi_abort_torn_down", { { "straggler", "error", "2" } }, { "rank_exited" }, 1 },
	{ "monitored_barrier", { { "straggler", "error", "1" }, { "rank_exited", "error", "0" } },
	  { "stalled" }, 1 },
	{ "helper_exit", { { "stalled", "error", "0-1" } }, { "rank_exited" }, 1 },
	{ "completed_slow", { { 0 } }, { "stalled", "straggler" }, 0 },
	{ "failures_in_order", { { "dataloader_worker_died", "error", "1" },
				 { "rank_exited", "error", "1" }, { "rank_exited", "error", "3" } },
	  { "missing_rank" }, 1 },
	{ "three_ranks_two_gpus", { { "too_many_local_ranks", "error", "2" } },
	  { "visible_devices_inconsistent", "duplicate_gpu" }, 1 },
	{ "jax_wrong_port", { { "rendezvous_unreachable", "error", "1" } },
	  { "straggler", "stalled" }, 1 },
	{ "undeclared_working", { { 0 } }, { "stalled", "straggler", "rank_exited" }, 0 },
};

static const char *sev_name(enum rep_severity s)
{
	return s == REP_ERROR ? "error" : "warning";
}

static void dump_verdicts(const struct rep_job *job)
{
	for (size_t i = 0; i < job->nverdicts; i++) {
		char r[256];
		const struct rep_verdict *v = job->verdicts[i];
		ht_rep_ranges(v->ranks, v->nranks, r, sizeof(r));
		fprintf(stderr, "  %zu %s %s [%s] %s\n", i, sev_name(v->sev), ht_verdict_name(v->code), r,
			v->summary);
	}
}

START_TEST(test_case)
{
	const struct tcase *c = &cases[_i];
	struct rep_job job;
	size_t n = fixture_run(&job, c->name);
	ck_assert_msg(n > 0, "%s: fixture not found or empty", c->name);
	bool ok = true;
	size_t k = 0;
	for (; k < 4 && c->first[k].code != NULL; k++) {
		if (k >= job.nverdicts) {
			ok = false;
			fprintf(stderr, "%s: verdict %zu missing (%s)\n", c->name, k, c->first[k].code);
			break;
		}
		const struct rep_verdict *v = job.verdicts[k];
		char r[256];
		ht_rep_ranges(v->ranks, v->nranks, r, sizeof(r));
		if (strcmp(ht_verdict_name(v->code), c->first[k].code) != 0 ||
		    strcmp(sev_name(v->sev), c->first[k].sev) != 0 || strcmp(r, c->first[k].ranks) != 0) {
			ok = false;
			fprintf(stderr, "%s: verdict %zu is %s %s [%s], want %s %s [%s]\n", c->name, k,
				sev_name(v->sev), ht_verdict_name(v->code), r, c->first[k].sev,
				c->first[k].code, c->first[k].ranks);
		}
		/* Every verdict says something a person can act on. */
		ck_assert(v->summary != NULL && v->summary[0] != '\0');
		ck_assert(v->advice != NULL && v->advice[0] != '\0');
		ck_assert(v->nevidence > 0);
	}
	/* Evidence quotes lines that were read: never line 0 of some file. */
	for (size_t j = 0; j < job.nverdicts; j++)
		for (size_t e = 0; e < job.verdicts[j]->nevidence; e++)
			if (strstr(job.verdicts[j]->evidence[e], ".jsonl:0:") != NULL) {
				ok = false;
				fprintf(stderr, "%s: %s quotes no line: %s\n", c->name,
					ht_verdict_name(job.verdicts[j]->code), job.verdicts[j]->evidence[e]);
			}
	if (k == 0 && job.nverdicts > 0 && c->exit == 0 && ht_rep_has_error(&job)) {
		ok = false;
		fprintf(stderr, "%s: an error verdict on a case that has none\n", c->name);
	}
	for (size_t i = 0; i < 8 && c->never[i] != NULL; i++)
		for (size_t j = 0; j < job.nverdicts; j++)
			if (strcmp(ht_verdict_name(job.verdicts[j]->code), c->never[i]) == 0) {
				ok = false;
				fprintf(stderr, "%s: %s must not fire\n", c->name, c->never[i]);
			}
	if (ht_rep_has_error(&job) != (c->exit == 1)) {
		ok = false;
		fprintf(stderr, "%s: error verdicts %s, want %s\n", c->name,
			ht_rep_has_error(&job) ? "present" : "absent", c->exit ? "present" : "absent");
	}
	if (!ok)
		dump_verdicts(&job);
	ht_rep_job_free(&job);
	ck_assert_msg(ok, "%s: verdicts differ (see above)", c->name);
}
END_TEST

/* A healthy job: no error whatever the rule (SPEC: no false alarms). */
START_TEST(test_healthy_no_error)
{
	static const char *const healthy[] = { "healthy", "healthy_multihost", "cancelled_steady",
					       "agents_not_duplicates",
					       "restart_not_duplicate", "rendezvous_retry_ok",
					       "subgroups_ok", "cvd_ok", "wrappers", "exec_and_reuse" };
	for (size_t i = 0; i < sizeof(healthy) / sizeof(healthy[0]); i++) {
		struct rep_job job;
		ck_assert(fixture_run(&job, healthy[i]) > 0);
		ck_assert_msg(!ht_rep_has_error(&job), "%s has an error verdict", healthy[i]);
		/* Not even a warning, but for the two hosts' drivers. */
		if (strcmp(healthy[i], "healthy_multihost") != 0)
			ck_assert_msg(job.nverdicts == 0, "%s has a verdict: %s", healthy[i],
				      job.nverdicts > 0 ? job.verdicts[0]->summary : "");
		ck_assert_uint_eq(job.ngroups, 0);
		for (size_t k = 0; k < job.mains.n; k++)
			ck_assert(ht_rep_steady(job.mains.v[k]));
		ht_rep_job_free(&job);
	}
}
END_TEST

/* The straggler's stack group comes first and names load_checkpoint. */
START_TEST(test_straggler_details)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "straggler") > 0);
	ck_assert(strstr(job.verdicts[0]->summary, "load_checkpoint (/work/train.py:12)") != NULL);
	ck_assert(strstr(job.verdicts[0]->summary, "ranks 1-7 wait in rendezvous") != NULL);
	ck_assert_uint_eq(job.ngroups, 2);
	ck_assert_uint_eq(job.groups[0]->nranks, 1);
	ck_assert_int_eq(job.groups[0]->ranks[0], 0);
	ck_assert_int_eq(job.groups[0]->work, 1);	/* working: I/O advancing */
	ck_assert_int_eq(job.groups[1]->work, 0);	/* blocked */
	ck_assert_str_eq(ht_rep_top_frame(job.groups[0]), "load_checkpoint (/work/train.py:12)");
	ht_rep_job_free(&job);
}
END_TEST

/* A verdict over ranks of several hosts names every host, however many
 * ranks the first one runs. */
START_TEST(test_hosts_named)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "stub_driver_two_hosts") > 0);
	ck_assert(job.nverdicts > 0);
	ck_assert_int_eq(job.verdicts[0]->code, HT_VERDICT_STUB_DRIVER);
	ck_assert_msg(strstr(job.verdicts[0]->summary, "ranks 0-15 (hosts n1,n2)") != NULL, "%s",
		      job.verdicts[0]->summary);
	ht_rep_job_free(&job);
}
END_TEST

/* Model details: the agent is not a rank, wrappers and workers are not
 * duplicates, the main process is the one that used the GPU. */
START_TEST(test_model_trees)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "agents_not_duplicates") > 0);
	ck_assert_str_eq(job.kind, "torchrun");
	ck_assert_uint_eq(job.mains.n, 4);
	ck_assert_uint_eq(job.others.n, 0);	/* the agents are wrappers of the workers */
	ck_assert_int_eq(job.world_size, 4);
	ht_rep_job_free(&job);

	ck_assert(fixture_run(&job, "wrappers") > 0);
	ck_assert_uint_eq(job.mains.n, 2);
	for (size_t i = 0; i < job.mains.n; i++) {
		struct rep_proc *p = job.mains.v[i];
		ck_assert_int_eq(p->pid, 6001 + (int64_t)i * 10);	/* python, not bash */
		ck_assert_uint_eq(rep_rel(p)->n, 2);	/* bash above, the worker below */
	}
	ht_rep_job_free(&job);

	ck_assert(fixture_run(&job, "missing_host") > 0);
	ck_assert_uint_eq(job.others.n, 1);	/* the agent of n2: no rank of the job */
	ck_assert_uint_eq(job.nmissing, 4);
	ht_rep_job_free(&job);

	ck_assert(fixture_run(&job, "exec_and_reuse") > 0);
	ck_assert_uint_eq(job.mains.n, 2);
	ck_assert_int_eq(((struct rep_proc *)job.mains.v[0])->nexec, 1);
	ck_assert_int_eq(((struct rep_proc *)job.mains.v[0])->cur_phase, HT_PHASE_STEADY);
	ht_rep_job_free(&job);

	ck_assert(fixture_run(&job, "killed_waiting") > 0);
	for (size_t i = 0; i < job.mains.n; i++) {
		struct rep_proc *p = job.mains.v[i];
		ck_assert(p->stalled && p->waiting && !p->failed);
		ck_assert_int_eq(p->end, REP_SIGNALED);
	}
	ht_rep_job_free(&job);

	ck_assert(fixture_run(&job, "vanished") > 0);
	ck_assert_int_eq(((struct rep_proc *)job.mains.v[1])->end, REP_VANISHED);
	ck_assert_int_eq(((struct rep_proc *)job.mains.v[0])->end, REP_RUNNING);
	ht_rep_job_free(&job);
}
END_TEST

static const struct rep_proc *rank_of(const struct rep_job *job, int64_t r)
{
	for (size_t i = 0; i < job->mains.n; i++)
		if (((const struct rep_proc *)job->mains.v[i])->rank == r)
			return job->mains.v[i];
	return NULL;
}

/* Who waits for whom, because, job.ended, the rank's main process. */
START_TEST(test_graph)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "store_host_loading") > 0);
	ck_assert(job.verdicts[1]->because == job.verdicts[0]);
	ck_assert(job.verdicts[0]->because == NULL);
	ck_assert(strstr(job.verdicts[0]->summary, "has not opened the store at 10.0.0.1:29500") != NULL);
	const struct rep_proc *r0 = rank_of(&job, 0), *r2 = rank_of(&job, 2);
	ck_assert(r0->root && !r2->root);
	ck_assert_str_eq(r0->doing, "loading a checkpoint (torch.load)");
	ck_assert_uint_eq(r2->nwaits_for, 1);
	ck_assert_int_eq(r2->waits_for[0], 0);
	ck_assert(strstr(r2->doing, "TCPStore") != NULL);
	ck_assert_int_eq(job.ended, REP_JOB_RUNNING);
	ht_rep_job_free(&job);

	/* A rank that stalled at its own sleep and then raised failed on its
	 * own; the barrier ranks whose last dump did not unwind them are
	 * where the dumps before saw them. */
	ck_assert(fixture_run(&job, "mpi_raise_after_sleep") > 0);
	ck_assert(strstr(job.verdicts[0]->summary, "gave up") == NULL);
	ck_assert(strstr(job.verdicts[0]->summary, "exited with status 1") != NULL);
	for (int64_t r = 0; r <= 2; r += 2) {
		const struct rep_proc *q = rank_of(&job, r);
		ck_assert_msg(strstr(q->doing, "MPI_Barrier") != NULL, "rank %d: %s", (int)r, q->doing);
		ck_assert_uint_eq(q->nwaits_for, 1);
		ck_assert_int_eq(q->waits_for[0], 1);
		ck_assert_int_eq(q->work, 0);
	}
	ht_rep_job_free(&job);

	/* Killed by mpirun's teardown while it worked: what its SIGTERM dump
	 * shows it doing. */
	ck_assert(fixture_run(&job, "mpi_abort_torn_down") > 0);
	ck_assert_msg(strstr(rank_of(&job, 2)->doing, "compute (mpi_loop)") != NULL, "%s",
		      rank_of(&job, 2)->doing);
	ck_assert(strstr(job.verdicts[0]->summary, "compute (mpi_loop)") != NULL);
	ck_assert(strstr(rank_of(&job, 0)->doing, "MPI_Barrier") != NULL);
	ht_rep_job_free(&job);

	ck_assert(fixture_run(&job, "store_host_killed") > 0);
	ck_assert_int_eq(job.ended, REP_JOB_KILLED);
	ck_assert_str_eq(job.ended_signal, "SIGTERM");
	ht_rep_job_free(&job);

	ck_assert(fixture_run(&job, "completed_slow") > 0);
	ck_assert_int_eq(job.ended, REP_JOB_COMPLETED);
	ht_rep_job_free(&job);

	ck_assert(fixture_run(&job, "failures_in_order") > 0);
	ck_assert_int_eq(job.ended, REP_JOB_RUNNING);
	ck_assert(job.verdicts[1]->because == job.verdicts[0]);
	ck_assert(job.verdicts[2]->because != NULL);
	ht_rep_job_free(&job);

	/* The helper (`which`, exit 1) is not rank 0: its parent is. */
	ck_assert(fixture_run(&job, "helper_exit") > 0);
	ck_assert_int_eq(rank_of(&job, 0)->pid, 4000);
	ck_assert(rank_of(&job, 0)->end == REP_RUNNING);
	ht_rep_job_free(&job);

	ck_assert(fixture_run(&job, "wrong_port") > 0);
	ck_assert_str_eq(rank_of(&job, 3)->waits_on, "10.0.0.1:29501");
	ck_assert_int_eq(rank_of(&job, 1)->waits_for[0], 3);
	ht_rep_job_free(&job);

	/* JAX: the coordinator's own words, not torchrun's. */
	ck_assert(fixture_run(&job, "jax_wrong_port") > 0);
	ck_assert_str_eq(job.framework, "jax");
	ck_assert(strstr(job.verdicts[0]->advice, "coordinator_address") != NULL);
	ck_assert(strstr(job.verdicts[0]->advice, "MASTER_PORT") == NULL);
	ht_rep_job_free(&job);
}
END_TEST

/* Evidence names the file and line of the line it quotes. */
START_TEST(test_evidence_lines)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "rank_exited") > 0);
	const struct rep_verdict *v = job.verdicts[0];
	ck_assert_str_eq(v->evidence[0], "n1.4002.jsonl:14: {\"t\":\"exit\",\"signal\":\"SIGSEGV\","
					 "\"after_dump\":false}");
	ht_rep_job_free(&job);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("report_verdicts");
	TCase *t = tcase_create("fixtures");
	tcase_set_timeout(t, 60);
	tcase_add_loop_test(t, test_case, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(t, test_healthy_no_error);
	tcase_add_test(t, test_straggler_details);
	tcase_add_test(t, test_hosts_named);
	tcase_add_test(t, test_model_trees);
	tcase_add_test(t, test_graph);
	tcase_add_test(t, test_evidence_lines);
	suite_add_tcase(s, t);
	return s;
}

HT_CHECK_SUITE(make)
