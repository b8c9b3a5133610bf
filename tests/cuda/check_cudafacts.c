// SPDX-License-Identifier: MIT
/* check_cudafacts.c: the plain functions behind the CUDA hooks (hooks/cuda/cudafacts.c). */
#include <string.h>

#include "ht_check.h"
#include "cudafacts.h"

START_TEST(error_names)
{
	ck_assert_str_eq(ht_cu_error_name(0), "CUDA_SUCCESS");
	ck_assert_str_eq(ht_cu_error_name(3), "CUDA_ERROR_NOT_INITIALIZED");
	ck_assert_str_eq(ht_cu_error_name(34), "CUDA_ERROR_STUB_LIBRARY");
	ck_assert_str_eq(ht_cu_error_name(36), "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER");
	ck_assert_str_eq(ht_cu_error_name(100), "CUDA_ERROR_NO_DEVICE");
	ck_assert_str_eq(ht_cu_error_name(999), "CUDA_ERROR_UNKNOWN");
	/* 35 is the runtime's cudaErrorInsufficientDriver, never a CUresult. */
	ck_assert_ptr_null(ht_cu_error_name(35));
	ck_assert_ptr_null(ht_cu_error_name(-1));
	ck_assert_ptr_null(ht_cu_error_name(123456));
}
END_TEST

START_TEST(uuid_form)
{
	const unsigned char b[16] = { 0xc7, 0x7a, 0x19, 0x2e, 0x15, 0x30, 0x8c, 0x59,
				      0x94, 0xec, 0xbf, 0x47, 0x8f, 0x09, 0x7d, 0xf6 };
	char out[HT_CU_UUID_LEN + 1];
	ck_assert_uint_eq(ht_cu_uuid_format(out, b), HT_CU_UUID_LEN);
	ck_assert_str_eq(out, "GPU-c77a192e-1530-8c59-94ec-bf478f097df6");
	const unsigned char z[16] = { 0 };
	ht_cu_uuid_format(out, z);
	ck_assert_str_eq(out, "GPU-00000000-0000-0000-0000-000000000000");
}
END_TEST

/* A table shaped like hooks_cuda.def, in a different order on purpose. */
static const struct ht_cu_abi tab[] = {
	{ "cuStreamSynchronize", 7000, true },	/* 0 */
	{ "cuStreamSynchronize", 2000, false },	/* 1 */
	{ "cuCtxSynchronize", 13000, false },	/* 2 */
	{ "cuCtxSynchronize", 2000, false },	/* 3 */
	{ "cuGetProcAddress", 12000, false },	/* 4 */
	{ "cuGetProcAddress", 11030, false },	/* 5 */
	{ "cuCtxCreate", 2000, false },		/* 6 */
	{ "cuCtxCreate", 3020, false },		/* 7 */
	{ "cuCtxCreate", 11040, false },	/* 8 */
	{ "cuCtxCreate", 12050, false },	/* 9 */
	{ "cuEventSynchronize", 2000, false },	/* 10 */
};
#define PICK(sym, ver, flags) ht_cu_pick(tab, sizeof(tab) / sizeof(tab[0]), sym, ver, flags, 13000)

START_TEST(pick_versions)
{
	/* The runtime's self-lookups: 4 arguments at 11030, 5 from 12000. */
	ck_assert_int_eq(PICK("cuGetProcAddress", 11030, 0), 5);
	ck_assert_int_eq(PICK("cuGetProcAddress", 11080, 0), 5);
	ck_assert_int_eq(PICK("cuGetProcAddress", 12000, 0), 4);
	ck_assert_int_eq(PICK("cuGetProcAddress", 13000, 0), 4);
	ck_assert_int_eq(PICK("cuGetProcAddress", 11020, 0), -1);
	/* cuCtxSynchronize takes a context from 13000 on. */
	ck_assert_int_eq(PICK("cuCtxSynchronize", 12090, 0), 3);
	ck_assert_int_eq(PICK("cuCtxSynchronize", 13000, 0), 2);
	/* Every cuCtxCreate ABI, and a version in between. */
	ck_assert_int_eq(PICK("cuCtxCreate", 2000, 0), 6);
	ck_assert_int_eq(PICK("cuCtxCreate", 3020, 0), 7);
	ck_assert_int_eq(PICK("cuCtxCreate", 11030, 0), 7);
	ck_assert_int_eq(PICK("cuCtxCreate", 11040, 0), 8);
	ck_assert_int_eq(PICK("cuCtxCreate", 12050, 0), 9);
	ck_assert_int_eq(PICK("cuCtxCreate", 13000, 0), 9);
}
END_TEST

START_TEST(pick_streams)
{
	ck_assert_int_eq(PICK("cuStreamSynchronize", 2000, 0), 1);
	ck_assert_int_eq(PICK("cuStreamSynchronize", 7000, 0), 1);
	ck_assert_int_eq(PICK("cuStreamSynchronize", 7000, 1), 1);	/* legacy flag */
	ck_assert_int_eq(PICK("cuStreamSynchronize", 7000, 2), 0);	/* per-thread */
	ck_assert_int_eq(PICK("cuStreamSynchronize", 12000, 2), 0);
	/* No per-thread ABI before 7000: the legacy one is what comes back. */
	ck_assert_int_eq(PICK("cuStreamSynchronize", 6050, 2), 1);
	/* A function without a per-thread variant ignores the flag. */
	ck_assert_int_eq(PICK("cuEventSynchronize", 12000, 2), 10);
}
END_TEST

START_TEST(pick_unknown)
{
	ck_assert_int_eq(PICK("", 0, 0), -1);			/* the probe */
	ck_assert_int_eq(PICK(NULL, 2000, 0), -1);
	ck_assert_int_eq(PICK("cuMemAlloc", 3020, 0), -1);
	ck_assert_int_eq(PICK("cuCtxSynchronize_v2", 13000, 0), -1);	/* not a base name */
	ck_assert_int_eq(PICK("cuStreamSynchronize", 1000, 0), -1);	/* too old */
	/* Past the ABI we know: a new variant may exist. */
	ck_assert_int_eq(PICK("cuCtxSynchronize", 13010, 0), -1);
	ck_assert_int_eq(PICK("cuStreamSynchronize", 14000, 2), -1);
}
END_TEST

START_TEST(stub)
{
	ck_assert(ht_cu_is_stub(34, "/tmp/x/libcuda.so.1"));
	ck_assert(ht_cu_is_stub(0, "/usr/local/cuda/lib64/stubs/libcuda.so"));
	ck_assert(!ht_cu_is_stub(0, "/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
	ck_assert(!ht_cu_is_stub(100, NULL));
	ck_assert(ht_cu_is_stub(34, NULL));
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("cudafacts");
	TCase *tc = tcase_create("cudafacts");
	tcase_add_test(tc, error_names);
	tcase_add_test(tc, uuid_form);
	tcase_add_test(tc, pick_versions);
	tcase_add_test(tc, pick_streams);
	tcase_add_test(tc, pick_unknown);
	tcase_add_test(tc, stub);
	suite_add_tcase(s, tc);
	return s;
}
HT_CHECK_SUITE(make)
