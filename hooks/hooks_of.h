/* SPDX-License-Identifier: MIT */
/*
 * hooks_of.h: hooks.def, some families only. Define
 * HT_HOOK_<FAMILY>(ret, name, params, args) for each family wanted (LIBC,
 * CUDA, NCCL, MPI) and include this file: the entries of the other
 * families expand to nothing, and every HT_HOOK_* macro is undefined
 * again after. No include guard: one list per include.
 */
#ifndef HT_HOOK_LIBC
#define HT_HOOK_LIBC(ret, name, params, args)
#endif
#ifndef HT_HOOK_CUDA
#define HT_HOOK_CUDA(ret, name, params, args)
#endif
#ifndef HT_HOOK_NCCL
#define HT_HOOK_NCCL(ret, name, params, args)
#endif
#ifndef HT_HOOK_MPI
#define HT_HOOK_MPI(ret, name, params, args)
#endif
#define HT_HOOK(fam, ret, name, params, args) HT_HOOK_##fam(ret, name, params, args)
#include "hooks.def"
#undef HT_HOOK
#undef HT_HOOK_LIBC
#undef HT_HOOK_CUDA
#undef HT_HOOK_NCCL
#undef HT_HOOK_MPI
