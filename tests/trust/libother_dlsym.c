// SPDX-License-Identifier: MIT
/*
 * libother_dlsym: another interposer of the kind real jobs carry (HAMi-core,
 * profilers): it overrides dlsym itself, finding the real one with dlvsym,
 * and wraps puts through dlsym(RTLD_NEXT). With hangtrace before or after
 * it in LD_PRELOAD, puts must print once and nothing may recurse.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void *(*real_dlsym)(void *, const char *);

void *dlsym(void *handle, const char *name)
{
	if (real_dlsym == NULL)
		real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	return real_dlsym(handle, name);
}

int puts(const char *s)
{
	static int (*real_puts)(const char *);
	static int depth;
	if (real_puts == NULL)
		real_puts = (int (*)(const char *))dlsym(RTLD_NEXT, "puts");
	if (++depth > 3) {
		static const char msg[] = "recursion!\n";
		write(2, msg, sizeof(msg) - 1);
		_exit(42);
	}
	int r = real_puts(s);
	depth--;
	return r;
}
