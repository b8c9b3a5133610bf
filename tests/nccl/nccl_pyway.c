// SPDX-License-Identifier: MIT
/*
 * nccl_pyway: loads an extension library (argv[1], libncclext.so, which
 * needs libnccl) with dlopen(RTLD_NOW | RTLD_LOCAL) as CPython loads
 * extension modules, and runs its ext_run(). NCCL is then in no global
 * scope: the preload must find it among the loaded objects.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "libncclext.so", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "nccl_pyway: %s\n", dlerror());
		return 2;
	}
	int (*run)(void) = (int (*)(void))dlsym(h, "ext_run");
	return run != NULL ? run() : 2;
}
