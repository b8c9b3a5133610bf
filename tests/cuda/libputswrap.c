// SPDX-License-Identifier: MIT
/*
 * libputswrap.c: a second interposer, preloaded after hangtrace, that wraps
 * puts the usual way: dlsym(RTLD_NEXT, "puts"). If our dlsym forwarded
 * RTLD_NEXT with its own return address, "next" would be this library
 * again and puts would recurse (hooks/dl.c).
 */
#include <dlfcn.h>
#include <stdlib.h>

int puts(const char *s);
int puts(const char *s)
{
	static __thread int depth;
	int (*next)(const char *) = (int (*)(const char *))dlsym(RTLD_NEXT, "puts");
	if (next == NULL || ++depth > 2)
		_Exit(42);
	int r = next(s);
	depth--;
	return r;
}
