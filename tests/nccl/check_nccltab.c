// SPDX-License-Identifier: MIT
/*
 * check_nccltab.c: the names written into ring entries and the table of
 * communicators: add, find, remove and reuse, a full table, and lookups
 * racing with adds and removals.
 */
#include <pthread.h>
#include <string.h>

#include "ht_check.h"
#include "nccltab.h"

START_TEST(names)
{
	ck_assert_str_eq(ht_nccl_op_name(HT_NCCL_OP_ALLREDUCE), "allreduce");
	ck_assert_str_eq(ht_nccl_op_name(HT_NCCL_OP_RECV), "recv");
	ck_assert_str_eq(ht_nccl_op_name(HT_NCCL_OP_COUNT), "?");
	ck_assert_str_eq(ht_nccl_op_name(-1), "?");
	ck_assert_str_eq(ht_nccl_dtype_name(0), "int8");
	ck_assert_str_eq(ht_nccl_dtype_name(7), "float32");
	ck_assert_str_eq(ht_nccl_dtype_name(9), "bfloat16");
	ck_assert_str_eq(ht_nccl_dtype_name(11), "float8e5m2");
	ck_assert_str_eq(ht_nccl_dtype_name(12), "?");
	ck_assert_str_eq(ht_nccl_redop_name(0), "sum");
	ck_assert_str_eq(ht_nccl_redop_name(4), "avg");
	ck_assert_str_eq(ht_nccl_redop_name(HT_NCCL_REDOP_CUSTOM), "premulsum");
	ck_assert_str_eq(ht_nccl_redop_name(-1), "?");
}
END_TEST

static struct ht_ncomms tab;

static uintptr_t comm_ptr(int i)
{
	return 0x7f0000001000u + (uintptr_t)i * 0x40;
}

START_TEST(add_find_remove_reuse)
{
	bool added;

	ht_ncomm_reset(&tab);
	ck_assert_ptr_null(ht_ncomm_find(&tab, comm_ptr(1)));
	/* 0 and 1 mark free and removed entries: never a communicator. */
	ck_assert_ptr_null(ht_ncomm_find(&tab, 0));
	ck_assert_ptr_null(ht_ncomm_find_fast(&tab, 0));
	ck_assert_ptr_null(ht_ncomm_find_fast(&tab, 1));
	ck_assert_ptr_null(ht_ncomm_add(&tab, 0, &added));
	struct ht_ncomm *e = ht_ncomm_add(&tab, comm_ptr(1), &added);
	ck_assert_ptr_nonnull(e);
	ck_assert(added);
	ck_assert_uint_eq(atomic_load(&e->seq), 0);
	ck_assert_int_eq(e->f.nranks, -1);
	ck_assert_int_eq(e->f.hook, -1);
	atomic_store(&e->seq, 41);
	ck_assert_ptr_eq(ht_ncomm_find(&tab, comm_ptr(1)), e);
	ck_assert_ptr_eq(ht_ncomm_find_fast(&tab, comm_ptr(1)), e);
	ck_assert_ptr_eq(ht_ncomm_add(&tab, comm_ptr(1), &added), e);
	ck_assert(!added);
	ck_assert_uint_eq(atomic_load(&tab.live), 1);

	/* Many comms, some sharing home slots: all found. */
	for (int i = 2; i < 400; i++)
		ck_assert_ptr_nonnull(ht_ncomm_add(&tab, comm_ptr(i), &added));
	for (int i = 1; i < 400; i++)
		ck_assert_uint_eq(atomic_load(&ht_ncomm_find_fast(&tab, comm_ptr(i))->key), comm_ptr(i));
	/* Remove every other one; the rest stay reachable past the holes. */
	for (int i = 1; i < 400; i += 2)
		ht_ncomm_remove(&tab, ht_ncomm_find(&tab, comm_ptr(i)));
	for (int i = 1; i < 400; i++) {
		struct ht_ncomm *f = ht_ncomm_find(&tab, comm_ptr(i));
		if (i % 2)
			ck_assert_ptr_null(f);
		else
			ck_assert_ptr_nonnull(f);
	}
	ck_assert_uint_eq(atomic_load(&tab.live), 199);
	/* A re-added comm starts over. */
	e = ht_ncomm_add(&tab, comm_ptr(1), &added);
	ck_assert(added);
	ck_assert_uint_eq(atomic_load(&e->seq), 0);
}
END_TEST

START_TEST(full_table)
{
	bool added;

	ht_ncomm_reset(&tab);
	for (int i = 0; i < HT_NCCL_COMMS; i++)
		ck_assert_ptr_nonnull(ht_ncomm_add(&tab, comm_ptr(i), &added));
	ck_assert_ptr_null(ht_ncomm_add(&tab, comm_ptr(HT_NCCL_COMMS), &added));
	ck_assert_uint_eq(atomic_load(&tab.dropped), 1);
	ck_assert_ptr_null(ht_ncomm_find(&tab, comm_ptr(HT_NCCL_COMMS)));
	ht_ncomm_remove(&tab, ht_ncomm_find(&tab, comm_ptr(7)));
	ck_assert_ptr_nonnull(ht_ncomm_add(&tab, comm_ptr(HT_NCCL_COMMS), &added));
}
END_TEST

static pthread_mutex_t adds = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool stop;
static _Atomic int wrong;

static void *churn(void *arg)
{
	int base = (int)(intptr_t)arg * 1000;
	bool added;
	for (int round = 0; round < 200; round++) {
		for (int i = 0; i < 20; i++) {
			pthread_mutex_lock(&adds);
			ht_ncomm_add(&tab, comm_ptr(base + i), &added);
			pthread_mutex_unlock(&adds);
		}
		for (int i = 0; i < 20; i++) {
			pthread_mutex_lock(&adds);
			struct ht_ncomm *e = ht_ncomm_find(&tab, comm_ptr(base + i));
			if (e != NULL)
				ht_ncomm_remove(&tab, e);
			pthread_mutex_unlock(&adds);
		}
	}
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	/* The stable comms are always found, whatever churns around them. */
	while (!atomic_load(&stop))
		for (int i = 0; i < 50; i++) {
			struct ht_ncomm *e = ht_ncomm_find_fast(&tab, comm_ptr(90000 + i));
			if (e == NULL || atomic_load(&e->key) != comm_ptr(90000 + i))
				atomic_fetch_add(&wrong, 1);
		}
	return NULL;
}

START_TEST(lookups_race_with_churn)
{
	pthread_t w[3], r;
	bool added;

	ht_ncomm_reset(&tab);
	for (int i = 0; i < 50; i++)
		ht_ncomm_add(&tab, comm_ptr(90000 + i), &added);
	pthread_create(&r, NULL, reader, NULL);
	for (int i = 0; i < 3; i++)
		pthread_create(&w[i], NULL, churn, (void *)(intptr_t)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(w[i], NULL);
	atomic_store(&stop, true);
	pthread_join(r, NULL);
	ck_assert_int_eq(atomic_load(&wrong), 0);
	ck_assert_uint_eq(atomic_load(&tab.live), 50);
}
END_TEST

static Suite *nccltab_suite(void)
{
	Suite *s = suite_create("nccltab");
	TCase *tc = tcase_create("table");
	tcase_add_test(tc, names);
	tcase_add_test(tc, add_find_remove_reuse);
	tcase_add_test(tc, full_table);
	tcase_add_test(tc, lookups_race_with_churn);
	suite_add_tcase(s, tc);
	return s;
}
HT_CHECK_SUITE(nccltab_suite)
