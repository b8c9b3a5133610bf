// SPDX-License-Identifier: MIT
/*
 * check_waitsigs.c: the wait entries of include/signatures.def against the
 * main-thread stacks of real blocked and healthy jobs, as the library
 * dumped them (recorded from tests/frameworks/ runs: PyTorch 1.13 gloo,
 * mpi4py on Open MPI 4.1, JAX 0.10 on the CPU, a torch DataLoader), so a
 * change to the table that loses one of them fails here.
 */
#include <stddef.h>

#include "ht_check.h"
#include "signatures.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *id_of(const char *const *py, size_t npy, const char *const *nat, size_t nnat)
{
	const struct ht_sig *s = ht_sig_match_stack(py, npy, nat, nnat);
	return s != NULL && ht_sig_kind_is_wait(s->kind) ? s->id : "(none)";
}

START_TEST(gloo_barrier)
{
	const char *nat[] = {
		"?? (libc.so.6+0x85f14)", "pthread_cond_wait (libc.so.6+0x885d7)",
		"_ZN4c10d4Work4waitENSt6chrono8durationIlSt5ratioILl1ELl1000EEEE (libtorch_cpu.so.1.13.0+0x44c2842)",
		"?? (libtorch_python.so.1.13.0+0x9a9b4d)", "_PyEval_EvalFrameDefault (python3.11+0x52b9df)",
	};
	const char *py[] = {
		"barrier (/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py:3152)",
		"<module> (/work/wt/stall/tests/frameworks/gloo_job.py:31)",
	};
	ck_assert_str_eq(id_of(py, N(py), nat, N(nat)), "c10d_barrier");
	/* Without Python frames the native wait still names it. */
	ck_assert_str_eq(id_of(NULL, 0, nat, N(nat)), "c10d_work_wait_base");
	const char *ar[] = {
		"all_reduce (/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py:1541)",
		"<module> (/work/wt/stall/tests/frameworks/gloo_job.py:24)",
	};
	ck_assert_str_eq(id_of(ar, N(ar), nat, N(nat)), "c10d_all_reduce");
}
END_TEST

START_TEST(torch_store)
{
	const char *py[] = {
		"_create_c10d_store (/usr/lib/python3/dist-packages/torch/distributed/rendezvous.py:177)",
		"_env_rendezvous_handler (/usr/lib/python3/dist-packages/torch/distributed/rendezvous.py:246)",
		"init_process_group (/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py:754)",
	};
	ck_assert_str_eq(id_of(py, N(py), NULL, 0), "c10d_tcpstore_py");
	const char *nat[] = {
		"recv (libc.so.6+0x1)",
		"_ZN4c10d8TCPStore6doWaitEN3c108ArrayRefINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEEENSt6chrono8durationIlSt5ratioILl1ELl1000EEEE (libtorch_cpu.so.1.13.0+0x1)",
	};
	ck_assert_str_eq(id_of(NULL, 0, nat, N(nat)), "c10d_tcpstore");
}
END_TEST

START_TEST(mpi_barrier_spins)
{
	const char *nat[] = {
		"?? (mca_btl_vader.so+0x4eab)", "opal_progress (libopen-pal.so.40.30.2+0x2fe1b)",
		"ompi_sync_wait_mt (libopen-pal.so.40.30.2+0x365dc)",
		"ompi_request_default_wait (libmpi.so.40.30.4+0x51dc2)",
		"ompi_coll_base_barrier_intra_recursivedoubling (libmpi.so.40.30.4+0xbb6b4)",
		"MPI_Barrier (libmpi.so.40.30.4+0x6b567)", "?? (MPI.cpython-311-x86_64-linux-gnu.so+0x7159a)",
	};
	const char *py[] = { "<module> (/work/wt/stall/tests/frameworks/mpi_job.py:29)" };
	ck_assert_str_eq(id_of(py, N(py), nat, N(nat)), "mpi_barrier");
	const char *ar[] = {
		"?? (mca_btl_vader.so+0x4eab)", "opal_progress (libopen-pal.so.40.30.2+0x2fe1b)",
		"mca_pml_ob1_send (mca_pml_ob1.so+0xe12e)",
		"ompi_coll_base_allreduce_intra_recursivedoubling (libmpi.so.40.30.4+0xae9df)",
		"PMPI_Allreduce (libmpi.so.40.30.4+0x69319)",
	};
	ck_assert_str_eq(id_of(NULL, 0, ar, N(ar)), "mpi_allreduce");
}
END_TEST

START_TEST(jax_initialize)
{
	const char *nat[] = {
		"syscall (libc.so.6+0x101827)",
		"_ZNK4absl12lts_2026010712Notification19WaitForNotificationEv (libjax_common.so+0x7b139a8)",
		"_ZN3xla24CoordinationServiceAgent7ConnectEv (libjax_common.so+0x3bc3417)",
		"_ZN3xla43DistributedRuntimeCoordinationServiceClient7ConnectEv (libjax_common.so+0x3ba9f69)",
	};
	const char *py[] = {
		"initialize (/work/wt/stall/build/venv/lib/python3.11/site-packages/jax/_src/distributed.py:173)",
		"initialize (/work/wt/stall/build/venv/lib/python3.11/site-packages/jax/_src/distributed.py:332)",
		"<module> (/work/wt/stall/tests/frameworks/jax_job.py:16)",
	};
	ck_assert_str_eq(id_of(py, N(py), nat, N(nat)), "jax_initialize");
	ck_assert_str_eq(id_of(NULL, 0, nat, N(nat)), "xla_coordination");
}
END_TEST

START_TEST(dataloader_parent)
{
	const char *py[] = {
		"select (/usr/lib/python3.11/selectors.py:415)",
		"wait (/usr/lib/python3.11/multiprocessing/connection.py:930)",
		"_poll (/usr/lib/python3.11/multiprocessing/connection.py:423)",
		"poll (/usr/lib/python3.11/multiprocessing/connection.py:256)",
		"get (/usr/lib/python3.11/multiprocessing/queues.py:113)",
		"_try_get_data (/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py:1120)",
		"_get_data (/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py:1282)",
	};
	ck_assert_str_eq(id_of(py, N(py), NULL, 0), "dl_try_get_data");
}
END_TEST

START_TEST(working_stacks_match_no_wait)
{
	const char *nat[] = {
		"sgemm_ (libblas.so.3.11.0+0x3eada)",
		"_ZN2at6native6matmulERKNS_6TensorES3_ (libtorch_cpu.so.1.13.0+0x1199661)",
		"_PyEval_EvalFrameDefault (python3.11+0x52b9df)",
	};
	const char *py[] = { "<module> (/work/wt/stall/tests/frameworks/gloo_job.py:34)" };
	ck_assert_str_eq(id_of(py, N(py), nat, N(nat)), "(none)");
	const char *jx[] = {
		"pthread_cond_signal (libc.so.6+0x87ebf)",
		"_ZN3tsl6thread10ThreadPool8ScheduleESt8functionIFvvEE (libjax_common.so+0x79871eb)",
	};
	ck_assert_str_eq(id_of(NULL, 0, jx, N(jx)), "(none)");
}
END_TEST

static Suite *waitsigs_suite(void)
{
	Suite *s = suite_create("waitsigs");
	TCase *tc = tcase_create("real_stacks");
	tcase_add_test(tc, gloo_barrier);
	tcase_add_test(tc, torch_store);
	tcase_add_test(tc, mpi_barrier_spins);
	tcase_add_test(tc, jax_initialize);
	tcase_add_test(tc, dataloader_parent);
	tcase_add_test(tc, working_stacks_match_no_wait);
	suite_add_tcase(s, tc);
	return s;
}
HT_CHECK_SUITE(waitsigs_suite)
