// SPDX-License-Identifier: MIT
/*
 * check_stacks.c: the merged stacks. A frame is cleaned (our library and
 * the signal trampoline it ran on dropped, offsets removed, C++ names
 * demangled, Python frames put where the interpreter's frames begin);
 * identical stacks of stalled main threads merge into one group with its
 * ranks, and the groups come odd one out first.
 */
#include <stdlib.h>

#include "ht_check.h"
#include "fixture.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(test_clean_ours_and_trampoline)
{
	struct rep_job job;
	const char *out[16];
	static const char *const native[] = {
		"ht__unwind_here (libhangtrace.so+0x9a1c)", "ht__on_dump_signal (libhangtrace.so+0x8f00)",
		"__GI_raise (libc.so.6+0x3c0a1)", "__restore_rt (libc.so.6+0x3c050)",
		"poll (libc.so.6+0xf8a3f)", "wait_peer (libnccl.so.2+0x100)", "main (a.out+0x1189)",
	};
	ht_rep_job_init(&job);
	size_t n = ht_rep_clean_frames(&job, native, N(native), NULL, 0, out, 16);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(out[0], "poll (libc.so.6)");
	ck_assert_str_eq(out[1], "wait_peer (libnccl.so.2)");
	ck_assert_str_eq(out[2], "main (a.out)");
	/* A trampoline deeper down (a handler of the application's) stays. */
	static const char *const app[] = { "handler (a.out+0x10)", "__restore_rt (libc.so.6+0x3c050)",
					   "main (a.out+0x20)" };
	n = ht_rep_clean_frames(&job, app, N(app), NULL, 0, out, 16);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(out[1], "__restore_rt (libc.so.6)");
	ht_rep_job_free(&job);
}
END_TEST

START_TEST(test_clean_python_and_demangle)
{
	struct rep_job job;
	const char *out[16];
	static const char *const native[] = {
		"__restore_rt (libc.so.6+0x3c050)", "recv (libc.so.6+0x11a3c2)",
		"_ZN4c10d6detail9TCPClient4recvEv (libtorch_cpu.so+0x5a1b2c3)",
		"?? (libtorch_python.so+0x8d3e41)", "cfunction_call (python3.11+0x54b0e4)",
		"_PyEval_EvalFrameDefault (python3.11+0x52b9df)", "Py_RunMain (python3.11+0x65007e)",
	};
	static const char *const py[] = { "connect (/x/rendezvous.py:174)", "<module> (/t.py:3)" };
	ht_rep_job_init(&job);
	size_t n = ht_rep_clean_frames(&job, native, N(native), py, N(py), out, 16);
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(out[0], "recv (libc.so.6)");
	ck_assert_str_eq(out[1], "c10d::detail::TCPClient::recv() (libtorch_cpu.so)");
	ck_assert_str_eq(out[2], "?? (libtorch_python.so)");
	ck_assert_str_eq(out[3], "connect (/x/rendezvous.py:174)");
	ck_assert_str_eq(out[4], "<module> (/t.py:3)");
	/* Without Python frames the interpreter's own frames are all there is. */
	n = ht_rep_clean_frames(&job, native, N(native), NULL, 0, out, 16);
	ck_assert_uint_eq(n, 6);
	ck_assert_str_eq(out[5], "Py_RunMain (python3.11)");
	/* The room given is respected. */
	ck_assert_uint_eq(ht_rep_clean_frames(&job, native, N(native), py, N(py), out, 2), 2);
	ht_rep_job_free(&job);
}
END_TEST

/* Ranks 0-3 wait in ncclCommInitRank (at different offsets: same function),
 * rank 4 loads a checkpoint: two groups, rank 4's first. */
START_TEST(test_merge_odd_one_first)
{
	struct rep_job job;
	struct rep_buf b[5] = { { 0 } };
	char name[32];
	ht_rep_job_init(&job);
	for (int r = 0; r < 5; r++) {
		char frames[256];
		mem_header(&b[r], "n1", 100 + r, r, 5, 0);
		if (r < 4)
			snprintf(frames, sizeof(frames), "\"__restore_rt (libc.so.6+0x1)\","
				 "\"poll (libc.so.6+0x%x)\",\"ncclCommInitRank (libnccl.so.2+0x%x)\"",
				 0x10 + r, 0x200 + r);
		else
			snprintf(frames, sizeof(frames), "\"read (libc.so.6+0x5)\","
				 "\"_PyEval_EvalFrameDefault (python3.11+0x9)\"");
		const char *py = r < 4 ? NULL : "\"load_checkpoint (/t.py:12)\",\"<module> (/t.py:40)\"";
		mem_dump(&b[r], 100 + r, 60, 1, "launch", frames, py, 1.0, 100);
		mem_dump(&b[r], 100 + r, 120, 2, "launch", frames, py, r < 4 ? 1.0 : 50.0, 100);
		snprintf(name, sizeof(name), "n1.%d.jsonl", 100 + r);
		mem_add(&job, name, &b[r]);
	}
	ck_assert_uint_eq(ht_rep_read(&job), 5);
	ht_rep_analyse(&job);
	ck_assert_uint_eq(job.ngroups, 2);
	const struct rep_group *odd = job.groups[0], *rest = job.groups[1];
	ck_assert_uint_eq(odd->nranks, 1);
	ck_assert_int_eq(odd->ranks[0], 4);
	ck_assert_uint_eq(odd->nframes, 3);
	ck_assert_str_eq(odd->frames[1], "load_checkpoint (/t.py:12)");
	ck_assert_str_eq(ht_rep_top_frame(odd), "load_checkpoint (/t.py:12)");
	ck_assert_int_eq(odd->work, 1);	/* CPU +49 s in 60 s */
	ck_assert_uint_eq(rest->nranks, 4);
	ck_assert_int_eq(rest->ranks[3], 3);
	ck_assert_uint_eq(rest->nframes, 2);
	ck_assert_str_eq(rest->frames[0], "poll (libc.so.6)");
	ck_assert_str_eq(ht_rep_top_frame(rest), "ncclCommInitRank (libnccl.so.2)");
	ck_assert_int_eq(rest->work, 0);	/* nothing moved */
	ck_assert_uint_eq(odd->index, 0);
	ht_rep_job_free(&job);
	for (int r = 0; r < 5; r++)
		ht_rep_buf_free(&b[r]);
}
END_TEST

/* Only stalled ranks are merged; a rank that moved on after its dump is not. */
START_TEST(test_only_stalled)
{
	struct rep_job job;
	struct rep_buf a = { 0 }, c = { 0 };
	ht_rep_job_init(&job);
	mem_header(&a, "n1", 10, 0, 2, 0);
	mem_dump(&a, 10, 60, 1, "launch", "\"poll (libc.so.6+0x1)\"", NULL, 1.0, 1);
	mem_header(&c, "n1", 11, 1, 2, 0);
	mem_dump(&c, 11, 60, 1, "launch", "\"poll (libc.so.6+0x1)\"", NULL, 1.0, 1);
	mem_line(&c, 11, 61, "phase", "\"phase\":\"rendezvous\",\"state\":\"begin\"");
	mem_add(&job, "n1.10.jsonl", &a);
	mem_add(&job, "n1.11.jsonl", &c);
	ck_assert_uint_eq(ht_rep_read(&job), 2);
	ht_rep_analyse(&job);
	ck_assert_uint_eq(job.ngroups, 1);
	ck_assert_uint_eq(job.groups[0]->nranks, 1);
	ck_assert_int_eq(job.groups[0]->ranks[0], 0);
	ht_rep_job_free(&job);
	ht_rep_buf_free(&a);
	ht_rep_buf_free(&c);
}
END_TEST

/* The fixture of 4 ranks in one place: one group, blocked, with its ranks. */
START_TEST(test_fixture_group)
{
	struct rep_job job;
	ck_assert(fixture_run(&job, "stalled_all") > 0);
	ck_assert_uint_eq(job.ngroups, 1);
	ck_assert_uint_eq(job.groups[0]->nranks, 4);
	ck_assert_int_eq(job.groups[0]->work, 0);
	ck_assert_int_eq(job.groups[0]->phase, HT_PHASE_NCCL_INIT);
	bool demangled = false;
	for (size_t i = 0; i < job.groups[0]->nframes; i++)
		demangled |= strcmp(job.groups[0]->frames[i],
				    "c10d::ProcessGroupNCCL::getNCCLComm() (libtorch_cuda.so)") == 0;
	ck_assert(demangled);
	for (size_t i = 0; i < job.groups[0]->nframes; i++)
		ck_assert(strstr(job.groups[0]->frames[i], "libhangtrace") == NULL);
	ht_rep_job_free(&job);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("report_stacks");
	TCase *t = tcase_create("stacks");
	tcase_add_test(t, test_clean_ours_and_trampoline);
	tcase_add_test(t, test_clean_python_and_demangle);
	tcase_add_test(t, test_merge_odd_one_first);
	tcase_add_test(t, test_only_stalled);
	tcase_add_test(t, test_fixture_group);
	suite_add_tcase(s, t);
	return s;
}

HT_CHECK_SUITE(make)
