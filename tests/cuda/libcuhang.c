// SPDX-License-Identifier: MIT
/*
 * libcuhang.c: a driver whose cuInit never returns, for a child forked
 * after its parent's cuInit (the fake driver answers such a child at once,
 * as the real one does when it does not hang).
 */
#include <unistd.h>

int cuInit(unsigned flags);
int cuInit(unsigned flags)
{
	(void)flags;
	for (;;)
		pause();
}
