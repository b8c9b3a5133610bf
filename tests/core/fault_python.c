// SPDX-License-Identifier: MIT
/*
 * fault_python: looks like CPython to a dump (exports Py_IsInitialized and
 * _Py_DumpTracebackThreads) but its dumper faults, as CPython's can when
 * frames change under it. The dump must survive it, say Python stacks were
 * lost, and the program must go on and exit 0.
 */
#include <poll.h>
#include <stdio.h>

int Py_IsInitialized(void);
int Py_IsInitialized(void)
{
	return 1;
}

const char *_Py_DumpTracebackThreads(int fd, void *interp, void *tstate);
const char *_Py_DumpTracebackThreads(int fd, void *interp, void *tstate)
{
	(void)fd;
	(void)interp;
	(void)tstate;
	return *(const char *volatile *)8;	/* a fault, as a torn frame would give */
}

__attribute__((noinline)) void wait_for_peer(void)
{
	for (int i = 0; i < 15; i++)
		poll(NULL, 0, 100);
}

int main(void)
{
	wait_for_peer();
	printf("survived\n");
	return 0;
}
