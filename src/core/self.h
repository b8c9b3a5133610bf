// SPDX-License-Identifier: MIT
/*
 * self.h: where the library itself lies, for what it finds beside it: the
 * hangtrace command for the brief (brief.c) and, in a wheel, its own copy
 * of libunwind (unwind.c).
 */
#ifndef HT_SELF_H
#define HT_SELF_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Writes into out[cap] the folder of the file this library was mapped from,
 * read from /proc/self/maps, never with dladdr (it takes the loader's lock,
 * which a rank hung in a constructor holds). False when it cannot be read
 * or does not fit. Opens and reads one file, no allocation, no stdio; not
 * async-signal-safe only in that it may block on /proc; any thread.
 */
bool ht_self_folder(char *out, size_t cap);

#endif
