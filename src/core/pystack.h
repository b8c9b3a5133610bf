// SPDX-License-Identifier: MIT
/*
 * pystack.h: Python frames per thread for a dump.
 */
#ifndef HT_PYSTACK_H
#define HT_PYSTACK_H

#include <stdbool.h>
#include <stddef.h>

#include "elfsym.h"

struct ht_pythread {
	uint64_t ident;		/* the thread's pthread_t, as Python prints it */
	const char **frames;	/* "func (file:line)", innermost first */
	int n;
};

/* NULL when this is not a CPython process; "ok" when *out holds the
 * threads; otherwise why Python stacks are unavailable. IN_HANDLER: called
 * from a signal handler, which looks nothing up (pystack.c). */
const char *ht_py_capture(struct ht_arena *a, const struct ht_maps *maps,
			  struct ht_pythread **out, size_t *nout, bool in_handler);
/* Looks the traceback dumper up now (not async-signal-safe): the watchdog
 * thread as it starts, a forked child as its fork returns. */
void ht_py_prepare(void);

#endif
