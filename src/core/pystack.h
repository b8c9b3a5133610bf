// SPDX-License-Identifier: MIT
/*
 * pystack.h: Python frames per thread for a dump (watchdog thread only).
 */
#ifndef HT_PYSTACK_H
#define HT_PYSTACK_H

#include "elfsym.h"

struct ht_pythread {
	uint64_t ident;		/* the thread's pthread_t, as Python prints it */
	const char **frames;	/* "func (file:line)", innermost first */
	int n;
};

/* NULL when this is not a CPython process; "ok" when *out holds the
 * threads; otherwise why Python stacks are unavailable. */
const char *ht_py_capture(struct ht_arena *a, const struct ht_maps *maps,
			  struct ht_pythread **out, size_t *nout);

#endif
