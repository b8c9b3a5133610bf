// SPDX-License-Identifier: MIT
/*
 * real.h: the typed table of the real functions behind every hook, the hook
 * ids and their names, all generated from hooks/hooks.def.
 */
#ifndef HT_REAL_H
#define HT_REAL_H

#include <stdbool.h>

#include "hook_types.h"

enum ht_hook_id {
#define HT_HOOK(fam, ret, name, params, args) HT_HOOK_ID_##name,
#include "hooks.def"
#undef HT_HOOK
	HT_HOOK_COUNT
};

struct ht_real_table {
#define HT_HOOK(fam, ret, name, params, args) ret (*name) params;
#include "hooks.def"
#undef HT_HOOK
};

extern struct ht_real_table ht_real;

/* Resolves the LIBC family once (pthread_once); cheap after the first call.
 * Called from the constructor and at the entry of every LIBC hook, since a
 * hook may run before our constructor (another preload's). */
void ht_real_init(void);
/* The real dlsym, resolved without allocating; never NULL after the call. */
void *ht_real_dlsym(void *handle, const char *name);
typedef void *(*ht_dlsym_fn)(void *, const char *);
ht_dlsym_fn ht_real_dlsym_fn(void);
/* The name of a hook id ("connect"), or "?". */
const char *ht_hook_name(int id);
/* True when p points into this library (a wrapper, not the real thing). */
bool ht_is_ours(const void *p);

#endif
