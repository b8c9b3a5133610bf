// SPDX-License-Identifier: MIT
// static_hello: linked statically, so the loader ignores LD_PRELOAD.
#include <stdio.h>
int main(void)
{
	printf("static hello\n");
	return 5;
}
