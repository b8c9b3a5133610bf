// SPDX-License-Identifier: MIT
/*
 * fork_cuinit: cuInit in the parent, then fork, and cuInit again in the
 * child: what the real driver answers there (a GPU machine only; see
 * tests/gpu/check.sh). The driver is opened with dlopen, so this builds
 * without CUDA. Prints "parent cuInit N" and "child cuInit N".
 */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL) {
		fprintf(stderr, "fork_cuinit: %s\n", dlerror());
		return 2;
	}
	int (*cu_init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
	if (cu_init == NULL)
		return 2;
	printf("parent cuInit %d\n", cu_init(0));
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		printf("child cuInit %d\n", cu_init(0));
		fflush(stdout);
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
