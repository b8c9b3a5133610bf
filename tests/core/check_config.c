// SPDX-License-Identifier: MIT
/*
 * check_config.c: the HANGTRACE_* options table, rank identity per
 * launcher, and what of the environment and command line may be recorded.
 */
#include <string.h>

#include "ht_check.h"

/* Environments are written as string literals. */
#pragma GCC diagnostic ignored "-Wdiscarded-qualifiers"
#include "clock.h"
#include "fmt.h"
#include "identity.h"
#include "options.h"
#include "procfs.h"
#include "redact.h"

START_TEST(defaults)
{
	char *env[] = { "PATH=/bin", NULL };
	struct ht_options o;
	ht_options_parse(env, &o);
	ck_assert_int_eq(o.timeout_ns, 300 * HT_NS_PER_SEC);
	ck_assert_int_eq(o.on_stall, HT_ON_STALL_DUMP);
	ck_assert_int_eq(o.rank, -1);
	ck_assert(!o.disable && !o.nccl_log);
	ck_assert_str_eq(o.dir, "");
	ck_assert_int_eq(o.nwarnings, 0);
}
END_TEST

START_TEST(valid_values)
{
	char *env[] = { "HANGTRACE_TIMEOUT=2.5", "HANGTRACE_ON_STALL=abort",
			"HANGTRACE_DIR=/tmp/x", "HANGTRACE_RANK=7", "HANGTRACE_WORLD_SIZE=16",
			"HANGTRACE_LOCAL_RANK=3", "HANGTRACE_NCCL_LOG=1", "HANGTRACE_DISABLE=0",
			NULL };
	struct ht_options o;
	ht_options_parse(env, &o);
	ck_assert_int_eq(o.timeout_ns, 2500000000LL);
	ck_assert_int_eq(o.on_stall, HT_ON_STALL_ABORT);
	ck_assert_str_eq(o.dir, "/tmp/x");
	ck_assert_int_eq(o.rank, 7);
	ck_assert_int_eq(o.world_size, 16);
	ck_assert_int_eq(o.local_rank, 3);
	ck_assert(o.nccl_log);
	ck_assert_int_eq(o.nwarnings, 0);
}
END_TEST

START_TEST(malformed_values_warn_and_keep_defaults)
{
	char *env[] = { "HANGTRACE_TIMEOUT=soon", "HANGTRACE_ON_STALL=explode",
			"HANGTRACE_RANK=-3", "HANGTRACE_TIMEOUTT=5", NULL };
	struct ht_options o;
	ht_options_parse(env, &o);
	ck_assert_int_eq(o.timeout_ns, 300 * HT_NS_PER_SEC);
	ck_assert_int_eq(o.on_stall, HT_ON_STALL_DUMP);
	ck_assert_int_eq(o.rank, -1);
	ck_assert_int_eq(o.nwarnings, 4);
	/* Each names the variable, the value and the default used. */
	ck_assert_ptr_nonnull(strstr(o.warnings[0], "HANGTRACE_TIMEOUT=soon"));
	ck_assert_ptr_nonnull(strstr(o.warnings[0], "using 300"));
	ck_assert_ptr_nonnull(strstr(o.warnings[1], "HANGTRACE_ON_STALL=explode"));
	ck_assert_ptr_nonnull(strstr(o.warnings[1], "using dump"));
	ck_assert_ptr_nonnull(strstr(o.warnings[3], "unknown variable HANGTRACE_TIMEOUTT"));
}
END_TEST

START_TEST(disable)
{
	char *env[] = { "HANGTRACE_DISABLE=1", NULL };
	struct ht_options o;
	ht_options_parse(env, &o);
	ck_assert(o.disable);
}
END_TEST

static void ident(char **env, struct ht_identity *id)
{
	struct ht_options o;
	ht_options_parse(env, &o);
	ht_identity_from_env(env, &o, id);
}

START_TEST(identity_per_launcher)
{
	struct ht_identity id;
	char *none[] = { "PATH=/bin", NULL };
	ident(none, &id);
	ck_assert_int_eq(id.rank, -1);
	ck_assert_ptr_null(id.launcher);

	char *torchrun[] = { "RANK=5", "WORLD_SIZE=8", "LOCAL_RANK=1", "GROUP_RANK=0",
			     "TORCHELASTIC_RUN_ID=abc123", NULL };
	ident(torchrun, &id);
	ck_assert(id.rank == 5 && id.world_size == 8 && id.local_rank == 1);
	ck_assert_str_eq(id.launcher, "torchrun");
	ck_assert_str_eq(id.job, "abc123");

	char *plain[] = { "RANK=2", "WORLD_SIZE=4", NULL };
	ident(plain, &id);
	ck_assert_str_eq(id.launcher, "env");
	ck_assert_str_eq(id.job, "");

	char *ompi[] = { "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4",
			 "OMPI_COMM_WORLD_LOCAL_RANK=3", "PMIX_NAMESPACE=prterun-vm-123@1", NULL };
	ident(ompi, &id);
	ck_assert(id.rank == 3 && id.world_size == 4 && id.local_rank == 3);
	ck_assert_str_eq(id.launcher, "openmpi");
	ck_assert_str_eq(id.job, "prterun-vm-123_1");

	char *pmi[] = { "PMI_RANK=1", "PMI_SIZE=2", "MPI_LOCALRANKID=1", NULL };
	ident(pmi, &id);
	ck_assert(id.rank == 1 && id.world_size == 2 && id.local_rank == 1);
	ck_assert_str_eq(id.launcher, "pmi");

	char *pmix[] = { "PMIX_RANK=6", NULL };
	ident(pmix, &id);
	ck_assert(id.rank == 6 && id.world_size == -1);
	ck_assert_str_eq(id.launcher, "pmix");

	char *slurm[] = { "SLURM_PROCID=12", "SLURM_NTASKS=16", "SLURM_LOCALID=4",
			  "SLURM_JOB_ID=98765", NULL };
	ident(slurm, &id);
	ck_assert(id.rank == 12 && id.world_size == 16 && id.local_rank == 4);
	ck_assert_str_eq(id.launcher, "slurm");
	ck_assert_str_eq(id.job, "98765");

	/* torchrun under Slurm: the worker's RANK wins over SLURM_PROCID. */
	char *both[] = { "SLURM_PROCID=1", "RANK=9", "WORLD_SIZE=16", "TORCHELASTIC_RUN_ID=x", NULL };
	ident(both, &id);
	ck_assert_int_eq(id.rank, 9);
	ck_assert_str_eq(id.launcher, "torchrun");
}
END_TEST

START_TEST(identity_overrides_and_bad_values)
{
	struct ht_identity id;
	char *over[] = { "RANK=5", "WORLD_SIZE=8", "HANGTRACE_RANK=2", "HANGTRACE_WORLD_SIZE=3", NULL };
	ident(over, &id);
	ck_assert(id.rank == 2 && id.world_size == 3);
	ck_assert_str_eq(id.launcher, "hangtrace");

	char *bad[] = { "RANK=zero", "WORLD_SIZE=4", "SLURM_PROCID=3", NULL };
	ident(bad, &id);
	/* A malformed RANK is reported and the next launcher is used. */
	ck_assert_int_eq(id.nwarnings, 1);
	ck_assert_ptr_nonnull(strstr(id.warnings[0], "RANK='zero'"));
	ck_assert_int_eq(id.rank, 3);
	ck_assert_str_eq(id.launcher, "slurm");

	char *dots[] = { "SLURM_PROCID=0", "SLURM_JOB_ID=..", NULL };
	ident(dots, &id);
	ck_assert_str_eq(id.job, "");
}
END_TEST

/* ncclCommInitRank's rank is taken only where the environment gave none. */
START_TEST(identity_learned_late)
{
	struct ht_identity id;
	char *none[] = { NULL };
	char *env[] = { "RANK=2", "WORLD_SIZE=4", NULL };

	ident(none, &id);
	ck_assert(!ht_identity_learn(&id, -1, 4));
	ck_assert(!ht_identity_learn(&id, 1, 0));
	ck_assert_int_eq(id.rank, -1);
	ck_assert(ht_identity_learn(&id, 1, 8));
	ck_assert_int_eq(id.rank, 1);
	ck_assert_int_eq(id.world_size, 8);
	ck_assert(!ht_identity_learn(&id, 3, 8));
	ck_assert_int_eq(id.rank, 1);

	ident(env, &id);
	ck_assert(!ht_identity_learn(&id, 0, 8));
	ck_assert_int_eq(id.rank, 2);
	ck_assert_int_eq(id.world_size, 4);
}
END_TEST

/* The paths of a thread's /proc files, and what does not fit. */
START_TEST(task_paths)
{
	char p[64], small[20];

	ck_assert_uint_eq(ht_task_path(p, sizeof(p), 12345, "syscall"), strlen("/proc/self/task/12345/syscall"));
	ck_assert_str_eq(p, "/proc/self/task/12345/syscall");
	ht_task_path(small, sizeof(small), 12345, "status");
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	ck_assert(strncmp(small, "/proc/self/task/123", sizeof(small) - 1) == 0);
}
END_TEST

START_TEST(environment_allow_list)
{
	ck_assert(ht_env_allowed("RANK=1"));
	ck_assert(ht_env_allowed("NCCL_SOCKET_IFNAME=eth0"));
	ck_assert(ht_env_allowed("CUDA_VISIBLE_DEVICES=0,1"));
	ck_assert(ht_env_allowed("MASTER_ADDR=10.0.0.1"));
	ck_assert(!ht_env_allowed("RANKS=1"));
	ck_assert(!ht_env_allowed("HOME=/root"));
	ck_assert(!ht_env_allowed("AWS_SECRET_ACCESS_KEY=x"));
	ck_assert(!ht_env_allowed("HF_TOKEN=hf_x"));
	ck_assert(!ht_env_allowed("WANDB_API_KEY=x"));
	/* Allow-listed prefix, but a credential by name: left out. */
	ck_assert(!ht_env_allowed("SLURM_JOB_TOKEN=abc"));
	ck_assert(!ht_env_allowed("NCCL_IB_KEY=abc"));
	ck_assert(!ht_env_allowed("noequals"));
}
END_TEST

START_TEST(secret_arguments)
{
	size_t keep;
	ck_assert(ht_arg_secret("--token=abc", NULL, &keep) && keep == 8);
	ck_assert(ht_arg_secret("--hf-token=abc", NULL, &keep) && keep == 11);
	ck_assert(ht_arg_secret("abc", "--api-key", &keep) && keep == 0);
	ck_assert(ht_arg_secret("hunter2", "--password", &keep));
	ck_assert(ht_arg_secret("WANDB_API_KEY=xyz", NULL, &keep) && keep == 14);
	ck_assert(!ht_arg_secret("--lr=0.1", NULL, &keep));
	ck_assert(!ht_arg_secret("train.py", "python", &keep));
	ck_assert(!ht_arg_secret("--verbose", "--token", &keep));
}
END_TEST

START_TEST(dir_pattern)
{
	char out[64];
	ck_assert_uint_eq(ht_dir_expand(out, sizeof(out), "/scratch/ht-%j/%h", "n1", "1234"), 19);
	ck_assert_str_eq(out, "/scratch/ht-1234/n1");
	ht_dir_expand(out, sizeof(out), "/tmp/%h-%j", "n1", "");
	ck_assert_str_eq(out, "/tmp/n1-local");		/* no job id: as the default folder */
	ht_dir_expand(out, sizeof(out), "a%%h%x%", "n1", "7");
	ck_assert_str_eq(out, "a%h%x%");		/* %% is one %, others kept */
	ck_assert_uint_eq(ht_dir_expand(out, 8, "/%h%h%h", "host", "1"), 7);
	ck_assert_str_eq(out, "/hostho");		/* cut at the buffer, terminated */
	ck_assert_ptr_null(ht_dir_bad_percent("/a/%h-%j-%%"));
	ck_assert_str_eq(ht_dir_bad_percent("/a/%h-%p"), "%p");
	ck_assert_str_eq(ht_dir_bad_percent("/a/%"), "%");

	char *env[] = { "HANGTRACE_DIR=/x/%h-%q", NULL };
	struct ht_options o;
	ht_options_parse(env, &o);
	ck_assert_str_eq(o.dir, "/x/%h-%q");		/* kept as written */
	ck_assert_int_eq(o.nwarnings, 1);
	ck_assert_ptr_nonnull(strstr(o.warnings[0], "HANGTRACE_DIR=/x/%h-%q"));
	ck_assert_ptr_nonnull(strstr(o.warnings[0], "%q is not a substitution"));
	char *good[] = { "HANGTRACE_DIR=/x/%h-%j", NULL };
	ht_options_parse(good, &o);
	ck_assert_int_eq(o.nwarnings, 0);
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, valid_values);
	tcase_add_test(tc, malformed_values_warn_and_keep_defaults);
	tcase_add_test(tc, disable);
	tcase_add_test(tc, identity_per_launcher);
	tcase_add_test(tc, identity_overrides_and_bad_values);
	tcase_add_test(tc, identity_learned_late);
	tcase_add_test(tc, task_paths);
	tcase_add_test(tc, environment_allow_list);
	tcase_add_test(tc, secret_arguments);
	tcase_add_test(tc, dir_pattern);
	suite_add_tcase(s, tc);
	return s;
}
HT_CHECK_SUITE(config_suite)
