// SPDX-License-Identifier: MIT
/*
 * linked.c: a program linked to libcuda (the fake, for the tests), calling
 * the driver by name, so that the library's exported wrappers are what it
 * binds to. `linked passthru` runs the pass-through script (cutest.h) over
 * the program's own references. The references are weak: without the
 * toolkit the program builds, finds none and exits 77.
 */
#include "cutest.h"

#define WEAK __attribute__((weak))
WEAK CUresult cuInit(unsigned);
WEAK CUresult cuDriverGetVersion(int *);
WEAK CUresult cuGetProcAddress(const char *, void **, int, uint64_t);
WEAK CUresult cuGetProcAddress_v2(const char *, void **, int, uint64_t, int *);
WEAK CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
WEAK CUresult cuCtxCreate(CUcontext *, unsigned, CUdevice);
WEAK CUresult cuCtxCreate_v2(CUcontext *, unsigned, CUdevice);
WEAK CUresult cuCtxCreate_v3(CUcontext *, void *, int, unsigned, CUdevice);
WEAK CUresult cuCtxCreate_v4(CUcontext *, void *, unsigned, CUdevice);
WEAK CUresult cuCtxSetCurrent(CUcontext);
WEAK CUresult cuCtxPushCurrent(CUcontext);
WEAK CUresult cuCtxPushCurrent_v2(CUcontext);
WEAK CUresult cuStreamSynchronize(CUstream);
WEAK CUresult cuStreamSynchronize_ptsz(CUstream);
WEAK CUresult cuEventSynchronize(CUevent);
WEAK CUresult cuCtxSynchronize(void);
WEAK CUresult cuCtxSynchronize_v2(CUcontext);

static const struct {
	const char *name;
	void *fn;
} refs[] = {
#define REF(f) { #f, (void *)f }
	REF(cuInit), REF(cuDriverGetVersion), REF(cuGetProcAddress), REF(cuGetProcAddress_v2),
	REF(cuDevicePrimaryCtxRetain), REF(cuCtxCreate), REF(cuCtxCreate_v2), REF(cuCtxCreate_v3),
	REF(cuCtxCreate_v4), REF(cuCtxSetCurrent), REF(cuCtxPushCurrent), REF(cuCtxPushCurrent_v2),
	REF(cuStreamSynchronize), REF(cuStreamSynchronize_ptsz), REF(cuEventSynchronize),
	REF(cuCtxSynchronize), REF(cuCtxSynchronize_v2),
#undef REF
};

static void *linked(const char *name)
{
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		if (strcmp(refs[i].name, name) == 0)
			return refs[i].fn;
	return NULL;
}

int main(int argc, char **argv)
{
	if (cuInit == NULL) {
		printf("not linked to a libcuda\n");
		return 77;
	}
	cu_linked = linked;
	if (argc > 1 && strcmp(argv[1], "passthru") == 0) {
		cu_passthru(ROUTE_LINKED);
		cu_passthru_gpa(ROUTE_LINKED);
		return 0;
	}
	CUresult r = cuInit(0);
	printf("cuInit -> %d\n", r);
	return r == 0 ? 0 : 1;
}
