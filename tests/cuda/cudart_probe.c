// SPDX-License-Identifier: MIT
/*
 * cudart_probe.c: a program linked to the real CUDA runtime (libcudart),
 * which reaches the driver the way PyTorch does. `cudart_probe count` asks
 * cudaGetDeviceCount and prints its answer; `cudart_probe need` then exits
 * 1 when it failed (a program that needs the GPU). `cudart_probe lookups`
 * then goes on through the libcuda the runtime loaded: the resolver's
 * self-lookup, a device bind, cuStreamSynchronize with the legacy and the
 * per-thread flags, and the 11030 resolver with a poisoned fifth argument.
 * The runtime is referenced weakly: without the toolkit the program
 * builds, finds none and exits 77.
 */
#include "cutest.h"

__attribute__((weak)) int cudaGetDeviceCount(int *count);

static int lookups(void)
{
	typedef CUresult (*retain_t)(CUcontext *, CUdevice);
	typedef CUresult (*ctx_t)(CUcontext);
	typedef CUresult (*stream_t)(CUstream);

	/* As the runtime did (which, its init having failed on the fake's
	 * missing private tables, has let go of it again). */
	cu_open("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	CUresult r = NEED(ROUTE_GPA, CUresult(*)(unsigned), "", "cuInit", 2000, 0)(0);
	printf("cuInit -> %d\n", r);
	CUcontext c = NULL;
	r = NEED(ROUTE_GPA, retain_t, "", "cuDevicePrimaryCtxRetain", 7000, 0)(&c, 0);
	printf("cuDevicePrimaryCtxRetain -> %d\n", r);
	r = NEED(ROUTE_GPA, ctx_t, "", "cuCtxSetCurrent", 4000, 0)(c);
	printf("cuCtxSetCurrent -> %d\n", r);
	r = NEED(ROUTE_GPA, stream_t, "", "cuStreamSynchronize", 2000, 0)(NULL);
	printf("cuStreamSynchronize flags 0 -> %d\n", r);
	r = NEED(ROUTE_GPA, stream_t, "", "cuStreamSynchronize", 7000, 2)(NULL);
	printf("cuStreamSynchronize flags 2 -> %d\n", r);
	int bad = cu_check_gpa4((void *)cu_gpa4);
	printf("gpa4 canary %s\n", bad ? "overwritten" : "intact");
	return bad;
}

int main(int argc, char **argv)
{
	if (cudaGetDeviceCount == NULL) {
		printf("not linked to libcudart\n");
		return 77;
	}
	int n = -1;
	int r = cudaGetDeviceCount(&n);
	printf("cudaGetDeviceCount -> %d count %d\n", r, n);
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "lookups") == 0)
		return lookups();
	if (argc > 1 && strcmp(argv[1], "need") == 0)
		return r != 0;
	return 0;
}
