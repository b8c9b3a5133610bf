// SPDX-License-Identifier: MIT
/*
 * abi.h: the platform differences, in one place. glibc versions its dlsym;
 * the baseline version of each architecture is tried first because a failed
 * dlvsym allocates (it records the error for dlerror in malloc'd memory,
 * glibc 2.36 dlfcn/dlerror.c), and a malloc interposer may be calling us
 * from malloc. __libc_dlsym and _dl_sym are gone
 * since glibc 2.34 and are never used. libunwind names its local-unwinding
 * entry points by architecture (_ULx86_64_step, _ULaarch64_step): HT_UNW
 * spells them for dlsym.
 */
#ifndef HT_ABI_H
#define HT_ABI_H

#if defined(__x86_64__)
static const char *const ht_glibc_dlsym_versions[] = { "GLIBC_2.2.5", "GLIBC_2.34" };
#define HT_REG_IP(uc) ((uintptr_t)((ucontext_t *)(uc))->uc_mcontext.gregs[REG_RIP])
#define HT_UNW(name) "_ULx86_64_" name
#elif defined(__aarch64__)
static const char *const ht_glibc_dlsym_versions[] = { "GLIBC_2.17", "GLIBC_2.34" };
#define HT_REG_IP(uc) ((uintptr_t)((ucontext_t *)(uc))->uc_mcontext.pc)
#define HT_UNW(name) "_ULaarch64_" name
#else
#error "hangtrace supports x86-64 and aarch64"
#endif

#include <ucontext.h>

#endif
