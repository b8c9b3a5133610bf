// SPDX-License-Identifier: MIT
/*
 * unwind.h: per-thread stacks for a dump. The watchdog gives each thread a
 * slot, signals it once with the slot and a generation in the signal's
 * value, and the thread's handler stores its return addresses there. A late
 * answer to an older dump carries an older generation and is ignored; a
 * thread that never answered is not signalled again (real-time signals
 * queue, signal(7), "Real-time signals").
 */
#ifndef HT_UNWIND_H
#define HT_UNWIND_H

#include <pthread.h>


#define HT_USLOTS 1024
/* Frames kept per thread stack. */
#define HT_MAX_FRAMES 64

struct ht_uslot {
	_Atomic pid_t tid;
	_Atomic uint32_t want;		/* generation the watchdog waits for */
	_Atomic uint32_t sent;		/* generation of the last signal sent */
	_Atomic uint32_t answered;	/* generation of the last signal received */
	_Atomic uint32_t done;		/* generation whose frames are stored */
	uint64_t pthread;		/* pthread_self() of the thread */
	int n;
	uintptr_t ip[HT_MAX_FRAMES];
};

extern struct ht_uslot ht_uslots[HT_USLOTS];

/* Loads the unwinder once, from the watchdog thread (dlopen, warm-up). */
void ht_unwind_prepare(void);
/* The unwinder in use: "libunwind", "libgcc" or "none". */
const char *ht_unwind_name(void);
/* In the dump signal's handler. */
void ht_unwind_in_handler(void *uc, uint32_t slot, uint32_t gen);

#endif
