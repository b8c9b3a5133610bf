// SPDX-License-Identifier: MIT
/*
 * buildlock.h: what a dump adds when a thread waits on a JIT build lock
 * (buildlock.c): the lock files where PyTorch keeps its extension builds,
 * with their age, and the builds running on the host.
 */
#ifndef HT_BUILDLOCK_H
#define HT_BUILDLOCK_H

#include <stddef.h>

struct ht_pythread;

/*
 * Called once per dump, after the thread lines, with the Python frames of
 * every thread. When one of them waits in the build lock's loop (the
 * FILE_LOCK entries of include/signatures.def), writes one build_lock line
 * (doc/trace-format.md); otherwise writes nothing. Runs on the dumping
 * thread: no malloc, no stdio, no locks; every scan is bounded.
 */
void ht_buildlock_dump(const struct ht_pythread *py, size_t npy);

#endif
