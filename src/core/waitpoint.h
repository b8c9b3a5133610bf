// SPDX-License-Identifier: MIT
/*
 * waitpoint.h: is the main thread at a known wait point? Its frames, as a
 * dump writes them, are matched against the signature table
 * (include/signatures.def, the one the report reads), and hashed so that
 * two looks can say whether the stack changed. Watchdog (or dumping) thread
 * only; no allocation.
 */
#ifndef HT_WAITPOINT_H
#define HT_WAITPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "signatures.h"

struct ht_look {
	bool valid;		/* the main thread's stack was seen */
	const struct ht_sig *sig;	/* the first wait entry matched, or NULL */
	const struct ht_sig *activity;	/* the first activity entry matched, or NULL */
	uint64_t hash;		/* of the frames at and outside the wait frame */
	uint64_t py_hash;	/* of the Python frames alone (0: none) */
	/* The Python frames end short of the thread's entry (the main
	 * script's <module>, runpy's _run_module_as_main): a chain read while
	 * it changed (a generator that had just yielded), what it is doing
	 * unknown. */
	bool py_cut;
};

/* Around the main thread's frames in a dump. */
void ht_wp_begin(void);
void ht_wp_native(int depth, const char *frame);
void ht_wp_python(int depth, const char *frame);
void ht_wp_end(struct ht_look *out);
/* A look at the main thread's Python frames alone, without a signal (the
 * frames CPython's dumper reads). False when there are none. */
bool ht_wp_python_look(uint64_t *py_hash, const struct ht_sig **sig);

#endif
