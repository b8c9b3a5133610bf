// SPDX-License-Identifier: MIT
/*
 * libmalloc_count.so: a malloc interposer, preloaded after hangtrace, that
 * counts the malloc, calloc and realloc calls of each thread;
 * ht_test_malloc_count() reads the calling thread's count (nccl_job's ring
 * mode: the thread that issues the collectives, where our hooks run). It reaches
 * glibc's allocator through its __libc_* entry points, so it never calls
 * dlsym (which may allocate).
 */
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static __thread long count;

long ht_test_malloc_count(void);
long ht_test_malloc_count(void)
{
	return __atomic_load_n(&count, __ATOMIC_RELAXED);
}

void *malloc(size_t n)
{
	__atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	__atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	__atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
	return __libc_realloc(p, n);
}
