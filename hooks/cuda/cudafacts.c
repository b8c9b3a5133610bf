// SPDX-License-Identifier: MIT
/*
 * cudafacts.c: plain functions behind the CUDA hooks; see cudafacts.h.
 * Tested directly (tests/cuda/check_cudafacts.c).
 */
#include <string.h>

#include "cudafacts.h"

#define CUDA_ERROR_STUB_LIBRARY 34

static const struct {
	int code;
	const char *name;
} errors[] = {
#define HT_CU_ERROR(name, value) { value, #name },
#include "cuda_errors.def"
#undef HT_CU_ERROR
};

const char *ht_cu_error_name(int code)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == code)
			return errors[i].name;
	return NULL;
}

size_t ht_cu_uuid_format(char *out, const unsigned char bytes[16])
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	memcpy(out, "GPU-", 4);
	n = 4;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[n++] = '-';
		out[n++] = hex[bytes[i] >> 4];
		out[n++] = hex[bytes[i] & 15];
	}
	out[n] = '\0';
	return n;
}

int ht_cu_pick(const struct ht_cu_abi *v, size_t n, const char *sym, int ver,
	       uint64_t flags, int max_ver)
{
	bool per_thread = (flags & HT_CU_GPA_PER_THREAD) != 0;
	int best = -1;

	if (sym == NULL || ver > max_ver)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].base, sym) != 0 || v[i].ver > ver || (v[i].ptsz && !per_thread))
			continue;
		/* A per-thread variant beats a legacy one; then the newest. */
		if (best < 0 || v[i].ptsz > v[best].ptsz ||
		    (v[i].ptsz == v[best].ptsz && v[i].ver > v[best].ver))
			best = (int)i;
	}
	return best;
}

bool ht_cu_is_stub(int result, const char *path)
{
	return result == CUDA_ERROR_STUB_LIBRARY || (path != NULL && strstr(path, "/stubs/") != NULL);
}
