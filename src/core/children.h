// SPDX-License-Identifier: MIT
/*
 * children.h: the forked children of this process (DataLoader workers),
 * dumped when it is dumped (SPEC section 6). Async-signal-safe.
 */
#ifndef HT_CHILDREN_H
#define HT_CHILDREN_H

#include <sys/types.h>

/* In the parent, after a fork that made pid. */
void ht_children_add(pid_t pid);
/* In the child, after fork: the parent's children are not ours. */
void ht_children_forget(void);
/* Asks each live child still traced with our dump signal for a dump. */
void ht_children_dump(void);

#endif
