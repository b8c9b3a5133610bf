// SPDX-License-Identifier: MIT
/*
 * families.h: the family table, the one way the core (src/core) reaches
 * up into the API families (hooks/<name>/). Each family fills in the
 * entries for the core events it cares about; a NULL entry means nothing
 * to do. The core calls the ht_families_* functions, which visit the
 * families of hooks/families.def in order.
 */
#ifndef HT_FAMILIES_H
#define HT_FAMILIES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ht_jw;

struct ht_family {
	const char *name;
	/* Activation, once, in normal context (may allocate, block on the
	 * resolver; after the header and launch lines are written). */
	void (*activate)(void);
	/* In a forked child, before its trace is reopened: forget what was
	 * the parent's. Only the forking thread exists. */
	void (*fork_child)(void);
	/* The family's part of a dump, in the watchdog thread, after the
	 * stall line and before the threads' stacks. */
	void (*dump)(void);
	/* The family's fields of the dump's last line (dump_end), in w. */
	void (*dump_end)(struct ht_jw *w);
	/* Asked by a dump before it signals thread tid to unwind it: false
	 * when the signal would make the application fail. */
	bool (*may_signal)(pid_t tid);
	/* A count of the family's operations that completed (MPI calls that
	 * returned): a look that sees it advance sees the process make
	 * progress (src/core/blocked.c). Read from the watchdog thread. */
	uint64_t (*progress)(void);
	/* The application is about to close or replace fd (close, dup2,
	 * dup3), or every descriptor in [first, last] (close_range,
	 * closefrom). */
	void (*fd_closing)(int fd);
	void (*fd_range_closing)(unsigned int first, unsigned int last);
	/* Whether the family knows a startup step of this process is still to
	 * come (the net family: a rendezvous the job names, not yet done): a
	 * process found working before it is slow, not steady (SPEC section
	 * 6). Read from the watchdog thread. */
	bool (*startup_pending)(void);
	/* dlsym found `found` for name, a name starting with one of
	 * dlsym_prefixes (NULL-terminated): returns the family's wrapper, or
	 * found to leave it alone. */
	const char *const *dlsym_prefixes;
	void *(*dlsym)(void *handle, const char *name, void *found);
};

#define HT_FAMILY(f) extern const struct ht_family ht_family_##f;
#include "families.def"
#include "jsonw.h"
#undef HT_FAMILY

void ht_families_activate(void);
void ht_families_fork_child(void);
void ht_families_dump(void);
void ht_families_dump_end(struct ht_jw *w);
bool ht_families_may_signal(pid_t tid);
uint64_t ht_families_progress(void);
bool ht_families_startup_pending(void);
void ht_families_fd_closing(int fd);
void ht_families_fd_range_closing(unsigned int first, unsigned int last);
void *ht_families_dlsym(void *handle, const char *name, void *found);

#endif
