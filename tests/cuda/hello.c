// SPDX-License-Identifier: MIT
/* hello.c: prints one line with puts (for the second-interposer test). */
#include <stdio.h>

int main(void)
{
	return puts("hello") < 0;
}
