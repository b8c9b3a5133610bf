// SPDX-License-Identifier: MIT
/*
 * check_dataloader.c: a rank's DataLoader workers and its build lock
 * (issue 14) over the fixtures of tests/fixtures/report, whose worker dumps
 * are shaped like real ones (frames recorded from PyTorch 1.13 workers,
 * tests/report/fixtures.py): dataloader_stalled, dataloader_worker_died,
 * build_lock_wait, workers under their rank (never ranks), reading from a
 * network file system; and the activities of the signature table over
 * recorded frame lists of the packages not installed here.
 */
#include <string.h>

#include "ht_check.h"
#include "fixture.h"

static const struct rep_verdict *first(const struct rep_job *job)
{
	return job->nverdicts > 0 ? job->verdicts[0] : NULL;
}

static const struct rep_verdict *find(const struct rep_job *job, enum ht_verdict_code c)
{
	for (size_t i = 0; i < job->nverdicts; i++)
		if (job->verdicts[i]->code == c)
			return job->verdicts[i];
	return NULL;
}

static struct rep_proc *rank(const struct rep_job *job, int64_t r)
{
	return r >= 0 && (size_t)r < job->nby_rank ? job->by_rank[r] : NULL;
}

#define HAS(s, sub) ck_assert_msg(strstr((s), (sub)) != NULL, "'%s' lacks '%s'", (s), (sub))

START_TEST(test_stalled_worker)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "dataloader_stalled") > 0);
	const struct rep_verdict *v = first(&job);
	ck_assert(v != NULL && v->code == HT_VERDICT_DATALOADER_STALLED && v->sev == REP_ERROR);
	ck_assert(v->nranks == 1 && v->ranks[0] == 1);
	HAS(v->summary, "pid 4101");
	HAS(v->summary, "__getitem__ (train.py:44)");
	HAS(v->summary, "PyThread_acquire_lock_timed");
	HAS(v->advice, "spawn");
	/* The workers are under rank 1, one stuck, one idle; not ranks. */
	ck_assert_uint_eq(job.mains.n, 2);
	struct rep_proc *m = rank(&job, 1);
	ck_assert(m != NULL && m->pid == 4001 && rep_rare(m)->workers != NULL && rep_rare(m)->workers->n == 2);
	for (size_t k = 0; k < 2; k++) {
		const struct rep_worker *w = &rep_rare(m)->workers->v[k];
		ck_assert(w->p->worker && !w->p->is_main);
		ck_assert_int_eq(w->state, w->p->pid == 4101 ? REP_WK_STUCK : REP_WK_IDLE);
	}
	HAS(m->waits_on, "pid 4101");
	ck_assert(find(&job, HT_VERDICT_DUPLICATE_RANK) == NULL);
	ck_assert(find(&job, HT_VERDICT_RANK_EXITED) == NULL);
	ck_assert(find(&job, HT_VERDICT_DATALOADER_WORKER_DIED) == NULL);
	/* What follows from it names it. */
	for (size_t i = 1; i < job.nverdicts; i++)
		ck_assert(job.verdicts[i]->sev != REP_ERROR || job.verdicts[i]->because != NULL);
	ht_rep_job_free(&job);
}
END_TEST

START_TEST(test_working_worker)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "dataloader_working") > 0);
	ck_assert(find(&job, HT_VERDICT_DATALOADER_STALLED) == NULL);
	ck_assert(find(&job, HT_VERDICT_DATALOADER_WORKER_DIED) == NULL);
	struct rep_proc *m = rank(&job, 1);
	ck_assert(m != NULL && rep_rare(m)->workers != NULL && rep_rare(m)->workers->n == 2);
	ck_assert_int_eq(rep_rare(m)->workers->v[0].state, REP_WK_WORKING);
	ht_rep_job_free(&job);
}
END_TEST

START_TEST(test_sigbus_worker)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "dataloader_sigbus") > 0);
	const struct rep_verdict *v = first(&job);
	ck_assert(v != NULL && v->code == HT_VERDICT_DATALOADER_WORKER_DIED && v->sev == REP_ERROR);
	ck_assert(v->nranks == 1 && v->ranks[0] == 1);
	HAS(v->summary, "pid 4102");
	HAS(v->summary, "SIGBUS");
	HAS(v->summary, "/dev/shm on host n1 is 64 MiB, 63 MiB free");
	HAS(v->summary, "rank 1 then exited with status 1");
	const struct rep_verdict *e = find(&job, HT_VERDICT_RANK_EXITED);
	ck_assert(e != NULL && e->because == v && e->order > v->order);
	const struct rep_verdict *shm = find(&job, HT_VERDICT_SHM_TOO_SMALL);
	ck_assert(shm != NULL && shm->order > v->order);
	struct rep_proc *m = rank(&job, 1);
	ck_assert_int_eq(rep_rare(m)->workers->v[1].state, REP_WK_KILLED);
	ck_assert_int_eq(rep_rare(m)->workers->v[0].state, REP_WK_EXITED);
	ck_assert(!rep_rare(m)->workers->v[0].bad_end);
	ht_rep_job_free(&job);
}
END_TEST

START_TEST(test_build_lock_stale)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "build_lock_stale") > 0);
	const struct rep_verdict *v = first(&job);
	ck_assert(v != NULL && v->code == HT_VERDICT_BUILD_LOCK_WAIT && v->sev == REP_ERROR);
	ck_assert(v->nranks == 1 && v->ranks[0] == 1);
	HAS(v->summary, "/scratch/ext/fused_adam/lock (3.1 h old)");
	HAS(v->summary, "no build runs");
	HAS(v->advice, "rm -f '/scratch/ext/fused_adam/lock'");
	/* The helpers that exited 123 and 1 are not the rank. */
	ck_assert(find(&job, HT_VERDICT_RANK_EXITED) == NULL);
	ck_assert_uint_eq(job.mains.n, 2);
	ck_assert_int_eq(rank(&job, 1)->pid, 4001);
	ck_assert_str_eq(rank(&job, 1)->waits_on, "/scratch/ext/fused_adam/lock");
	ht_rep_job_free(&job);
}
END_TEST

START_TEST(test_build_lock_live)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "build_lock_live") > 0);
	const struct rep_verdict *v = find(&job, HT_VERDICT_BUILD_LOCK_WAIT);
	ck_assert(v != NULL && v->sev == REP_WARNING);
	HAS(v->summary, "pid 4300 ninja, for 36 s");
	HAS(v->summary, "slow, not stuck");
	/* The rank waiting for it is slow, not stuck: no error at all. */
	ck_assert(!ht_rep_has_error(&job));
	const struct rep_verdict *s = find(&job, HT_VERDICT_STRAGGLER);
	ck_assert(s == NULL || (s->sev == REP_WARNING && s->because == v));
	ht_rep_job_free(&job);
}
END_TEST

START_TEST(test_nfs)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "activity_nfs") > 0);
	const struct rep_verdict *v = first(&job);
	ck_assert(v != NULL && v->code == HT_VERDICT_STRAGGLER && v->nranks == 1 && v->ranks[0] == 1);
	HAS(v->summary, "reading from a network file system (NFS");
	HAS(rank(&job, 1)->doing, "rpc_wait_bit_killable");
	ck_assert_str_eq(ht_rep_wchan_fs("ptlrpc_queue_wait"), "Lustre");
	ck_assert_str_eq(ht_rep_wchan_fs("request_wait_answer"), "FUSE");
	ck_assert_ptr_null(ht_rep_wchan_fs("futex_wait_queue"));
	ck_assert_ptr_null(ht_rep_wchan_fs(NULL));
	ht_rep_job_free(&job);
}
END_TEST

/* The activities (and the waits this issue added), each from a recorded
 * frame list: the Python frames as the dump writes them, innermost first,
 * over the packages' files as pip installs them (site-packages). */
static const struct {
	const char *py[4];
	const char *native[3];
	const char *id;
	enum ht_sig_kind kind;
} stacks[] = {
	{ { "_open_file (/usr/lib/python3/dist-packages/torch/serialization.py:251)",
	    "load (/usr/lib/python3/dist-packages/torch/serialization.py:771)",
	    "main (/work/train.py:12)" }, { 0 }, "torch_load", HT_SIG_CHECKPOINT },
	{ { "load_file (/opt/venv/lib/python3.11/site-packages/safetensors/torch.py:311)",
	    "load_model (/opt/venv/lib/python3.11/site-packages/transformers/modeling_utils.py:523)" },
	  { 0 }, "safetensors_load", HT_SIG_CHECKPOINT },
	{ { "load (/usr/lib/python3/dist-packages/numpy/lib/npyio.py:405)", "main (/work/a.py:3)" },
	  { 0 }, "numpy_load", HT_SIG_CHECKPOINT },
	{ { "read (/usr/lib/python3.11/ssl.py:1134)",
	    "http_get (/opt/venv/lib/python3.11/site-packages/huggingface_hub/file_download.py:524)",
	    "hf_hub_download (/opt/venv/lib/python3.11/site-packages/huggingface_hub/file_download.py:1461)" },
	  { 0 }, "hf_download", HT_SIG_DOWNLOAD },
	{ { "snapshot_download (/opt/venv/lib/python3.11/site-packages/huggingface_hub/_snapshot_download.py:236)" },
	  { 0 }, "hf_snapshot", HT_SIG_DOWNLOAD },
	{ { "send (/opt/venv/lib/python3.11/site-packages/requests/sessions.py:703)",
	    "request (/opt/venv/lib/python3.11/site-packages/requests/sessions.py:589)",
	    "request (/opt/venv/lib/python3.11/site-packages/requests/api.py:59)" },
	  { 0 }, "requests_get", HT_SIG_DOWNLOAD },
	{ { "do_open (/usr/lib/python3.11/urllib/request.py:1348)",
	    "urlopen (/usr/lib/python3.11/urllib/request.py:216)" }, { 0 }, "urllib_open",
	  HT_SIG_DOWNLOAD },
	{ { "_run_ninja_build (/usr/lib/python3/dist-packages/torch/utils/cpp_extension.py:1900)",
	    "_jit_compile (/usr/lib/python3/dist-packages/torch/utils/cpp_extension.py:1508)" },
	  { 0 }, "ninja_build", HT_SIG_COMPILE },
	{ { "compile (/opt/venv/lib/python3.11/site-packages/triton/compiler/compiler.py:268)",
	    "run (/opt/venv/lib/python3.11/site-packages/triton/runtime/jit.py:662)" }, { 0 },
	  "triton_compile", HT_SIG_COMPILE },
	{ { "compile_fx (/opt/venv/lib/python3.11/site-packages/torch/_inductor/compile_fx.py:1020)" },
	  { 0 }, "inductor_compile", HT_SIG_COMPILE },
	{ { "init (/opt/venv/lib/python3.11/site-packages/wandb/sdk/wandb_init.py:1195)",
	    "main (/work/train.py:8)" }, { 0 }, "wandb_init", HT_SIG_LOGGER },
	/* A worker in __getitem__ blocked on a lock: the lock, not the loop. */
	{ { "__getitem__ (/work/train.py:44)",
	    "_worker_loop (/usr/lib/python3/dist-packages/torch/utils/data/_utils/worker.py:302)" },
	  { "?? (libc.so.6+0x90d8f)", "PyThread_acquire_lock_timed (python3.11+0x4f905e)" },
	  "py_lock_acquire", HT_SIG_LOCK },
	{ { "__getitem__ (/work/train.py:44)" },
	  { "__lll_lock_wait (libc.so.6+0x8a0a2)", "pthread_mutex_lock (libc.so.6+0x90a3c)" },
	  "mutex_wait", HT_SIG_LOCK },
	/* A worker computing a batch: its loop. */
	{ { "decode (/work/data.py:80)",
	    "_worker_loop (/usr/lib/python3/dist-packages/torch/utils/data/_utils/worker.py:302)" },
	  { 0 }, "dl_worker_loop", HT_SIG_WORKER },
	/* The build lock's wait, before the _jit_compile under it. */
	{ { "wait (/usr/lib/python3/dist-packages/torch/utils/file_baton.py:42)",
	    "_jit_compile (/usr/lib/python3/dist-packages/torch/utils/cpp_extension.py:1522)" },
	  { 0 }, "file_baton_wait", HT_SIG_FILE_LOCK },
};

START_TEST(test_signatures)
{
	const char *const *py = stacks[_i].py;
	size_t npy = 0, nn = 0;
	while (npy < 4 && py[npy] != NULL)
		npy++;
	while (nn < 3 && stacks[_i].native[nn] != NULL)
		nn++;
	const struct ht_sig *s = ht_sig_match_stack(py, npy, stacks[_i].native, nn);
	ck_assert_msg(s != NULL, "%s: no match", stacks[_i].id);
	ck_assert_str_eq(s->id, stacks[_i].id);
	ck_assert_int_eq(s->kind, stacks[_i].kind);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("report_dataloader");
	TCase *t = tcase_create("dataloader");
	tcase_add_test(t, test_stalled_worker);
	tcase_add_test(t, test_working_worker);
	tcase_add_test(t, test_sigbus_worker);
	tcase_add_test(t, test_build_lock_stale);
	tcase_add_test(t, test_build_lock_live);
	tcase_add_test(t, test_nfs);
	tcase_add_loop_test(t, test_signatures, 0, (int)(sizeof(stacks) / sizeof(stacks[0])));
	suite_add_tcase(s, t);
	return s;
}

HT_CHECK_SUITE(make)
