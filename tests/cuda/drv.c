// SPDX-License-Identifier: MIT
/*
 * drv.c: a program that reaches the CUDA driver the way the runtime does:
 * dlopen("libcuda.so.1", RTLD_LOCAL), dlsym, and the resolver's
 * self-lookup. One scenario per run (the scripts in tests/cuda/):
 *
 *   init             cuInit through dlsym on the RTLD_LOCAL handle
 *   bind ORDINAL     cuInit, retain the primary context of ORDINAL, make it current
 *   sync             init, bind 0, synchronize (no collective: no steady phase)
 *   hidden-bind      init; bind 0 through pointers asked for at cudaVersion 13010,
 *                    past the ABI the library knows (so handed out unwrapped;
 *                    run with FAKE_CUDA_DRIVER_VERSION=13010); synchronize
 *   passthru ROUTE   the pass-through script (cutest.h); ROUTE dlsym|gpa|gpa4
 *   gpa4             the 11030 resolver called with a poisoned fifth argument
 *   fork             init, fork; the child calls cuInit and reports what it got
 *   fork-hang LIB    init, fork; the child calls LIB's cuInit, which blocks
 *   hang-init        cuInit (the fake blocks under FAKE_CUDA_INIT_HANG=1)
 *
 * Exit 0 when the scenario did what it says, 1 when not, 2 on a setup error.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cutest.h"

typedef CUresult (*init_t)(unsigned);

static CUresult init_gpa(void)
{
	return NEED(ROUTE_GPA, init_t, "cuInit", "cuInit", 2000, 0)(0);
}

static CUresult bind(int ordinal)
{
	typedef CUresult (*retain_t)(CUcontext *, CUdevice);
	typedef CUresult (*set_t)(CUcontext);
	CUcontext c = NULL;
	CUresult r = NEED(ROUTE_GPA, retain_t, "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain",
			 7000, 0)(&c, ordinal);
	if (r != 0)
		return r;
	return NEED(ROUTE_GPA, set_t, "cuCtxSetCurrent", "cuCtxSetCurrent", 4000, 0)(c);
}

static int child_status(pid_t pid)
{
	int ws = 0;
	if (waitpid(pid, &ws, 0) != pid)
		return -1;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static int scenario(const char *what, const char *arg)
{
	if (strcmp(what, "init") == 0) {
		init_t init = (init_t)dlsym(cu_lib, "cuInit");
		CUresult r = init(0);
		/* The handle is local: the default scope has no cuInit, with or
		 * without the library (which exports one). */
		void *def = dlsym(RTLD_DEFAULT, "cuInit");
		printf("cuInit -> %d; default scope cuInit %s\n", r, def == NULL ? "absent" : "present");
		return r == 0 && def == NULL ? 0 : 1;
	}
	if (strcmp(what, "bind") == 0) {
		CUresult r = init_gpa();
		if (r == 0)
			r = bind(atoi(arg));
		printf("bind %s -> %d\n", arg, r);
		return r == 0 ? 0 : 1;
	}
	if (strcmp(what, "sync") == 0) {
		typedef CUresult (*stream_t)(CUstream);
		CUresult r = init_gpa();
		if (r == 0)
			r = bind(0);
		if (r == 0)
			r = NEED(ROUTE_GPA, stream_t, "cuStreamSynchronize", "cuStreamSynchronize", 2000, 0)(NULL);
		printf("sync -> %d\n", r);
		return r == 0 ? 0 : 1;
	}
	if (strcmp(what, "hidden-bind") == 0) {
		typedef CUresult (*retain_t)(CUcontext *, CUdevice);
		typedef CUresult (*set_t)(CUcontext);
		typedef CUresult (*stream_t)(CUstream);
		CUcontext c = NULL;
		CUresult r = init_gpa();
		if (r == 0)
			r = NEED(ROUTE_GPA, retain_t, "", "cuDevicePrimaryCtxRetain", 13010, 0)(&c, 0);
		if (r == 0)
			r = NEED(ROUTE_GPA, set_t, "", "cuCtxSetCurrent", 13010, 0)(c);
		if (r == 0)
			r = NEED(ROUTE_GPA, stream_t, "", "cuStreamSynchronize", 2000, 0)(NULL);
		printf("hidden-bind -> %d\n", r);
		return r == 0 ? 0 : 1;
	}
	if (strcmp(what, "passthru") == 0) {
		enum route r = strcmp(arg, "dlsym") == 0 ? ROUTE_DLSYM :
			       strcmp(arg, "gpa4") == 0 ? ROUTE_GPA4 : ROUTE_GPA;
		cu_passthru(r);
		cu_passthru_gpa(r);
		return 0;
	}
	if (strcmp(what, "gpa4") == 0) {
		/* The 11030 resolver from the self-lookup, and from dlsym. */
		int bad = cu_check_gpa4((void *)cu_gpa4);
		bad |= cu_check_gpa4(dlsym(cu_lib, "cuGetProcAddress"));
		printf("gpa4 canary %s (%s)\n", bad ? "overwritten" : "intact",
		       CU_POISON_EXACT ? "exact" : "best effort");
		return bad;
	}
	if (strcmp(what, "fork") == 0) {
		if (init_gpa() != 0)
			return 2;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			CUresult r = ((init_t)dlsym(cu_lib, "cuInit"))(0);
			printf("child cuInit -> %d\n", r);
			fflush(stdout);
			_exit(r == 3 ? 0 : 1);
		}
		return child_status(pid) == 0 ? 0 : 1;
	}
	if (strcmp(what, "fork-hang") == 0) {
		if (init_gpa() != 0)
			return 2;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			void *h = dlopen(arg, RTLD_NOW | RTLD_LOCAL);
			if (h == NULL)
				_exit(2);
			((init_t)dlsym(h, "cuInit"))(0);
			_exit(1);	/* not reached: it blocks */
		}
		printf("child %d\n", (int)pid);
		fflush(stdout);
		child_status(pid);
		return 1;
	}
	if (strcmp(what, "hang-init") == 0) {
		init_gpa();
		return 1;		/* not reached under FAKE_CUDA_INIT_HANG */
	}
	fprintf(stderr, "unknown scenario %s\n", what);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s SCENARIO [ARG]\n", argv[0]);
		return 2;
	}
	cu_open("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	int rc = scenario(argv[1], argc > 2 ? argv[2] : "");
	fflush(stdout);
	return rc;
}
