// SPDX-License-Identifier: MIT
/*
 * libmalloc_count: a malloc interposer whose own initialisation resolves
 * the real allocator through dlsym (as many do), with a static bootstrap
 * buffer for allocations made while it resolves. It counts calls and
 * prints the count at exit to fd 2 when MALLOC_COUNT_REPORT is set.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static char boot[65536];
static size_t boot_used;
static int resolving;
static atomic_long calls;

static void resolve(void)
{
	resolving = 1;
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	resolving = 0;
}

static void *boot_alloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (boot_used + n > sizeof(boot))
		return NULL;
	void *p = boot + boot_used;
	boot_used += n;
	return p;
}

static int in_boot(void *p) { return (char *)p >= boot && (char *)p < boot + sizeof(boot); }

void *malloc(size_t n)
{
	atomic_fetch_add(&calls, 1);
	if (real_malloc == NULL) {
		if (resolving)
			return boot_alloc(n);
		resolve();
	}
	return real_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	atomic_fetch_add(&calls, 1);
	if (real_calloc == NULL) {
		if (resolving)
			return boot_alloc(a * b);	/* static memory is zero */
		resolve();
	}
	return real_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	atomic_fetch_add(&calls, 1);
	if (real_realloc == NULL)
		resolve();
	if (in_boot(p)) {
		void *q = real_malloc(n);
		memcpy(q, p, n);
		return q;
	}
	return real_realloc(p, n);
}

void free(void *p)
{
	if (p == NULL || in_boot(p))
		return;
	if (real_free == NULL)
		resolve();
	real_free(p);
}

__attribute__((destructor)) static void report(void)
{
	if (getenv("MALLOC_COUNT_REPORT") != NULL) {
		char b[64];
		long n = atomic_load(&calls);
		int k = 0;
		char d[24];
		do { d[k++] = (char)('0' + n % 10); n /= 10; } while (n);
		int m = 0;
		memcpy(b, "mallocs ", 8); m = 8;
		while (k) b[m++] = d[--k];
		b[m++] = '\n';
		write(2, b, (size_t)m);
	}
}
