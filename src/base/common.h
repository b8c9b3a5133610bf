// SPDX-License-Identifier: MIT
/*
 * common.h: the few macros every file of the library uses.
 *
 * Conventions of every header of src/base, src/core and hooks/: names with
 * ht_ are for any file, ht__ for the internals of one area (a family, a
 * module's files). Unless a comment says otherwise, a function is
 * async-signal-safe, never allocates and preserves errno.
 */
#ifndef HT_BASE_COMMON_H
#define HT_BASE_COMMON_H

#define HT_EXPORT __attribute__((visibility("default")))
#define HT_UNUSED __attribute__((unused))
#define HT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
