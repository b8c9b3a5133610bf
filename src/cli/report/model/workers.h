// SPDX-License-Identifier: MIT
/*
 * workers.h: a rank's DataLoader workers and its build lock (workers.c).
 * A worker is a forked child of a rank's main process that never exec'd
 * and runs the DataLoader's worker loop (its Python frames), or, with no
 * dump of it, a fork child of a Python main (SPEC section 4): it is shown
 * under its rank, never as a rank of its own.
 */
#ifndef HT_REP_WORKERS_H
#define HT_REP_WORKERS_H

#include <jansson.h>

#include "model/model.h"

#define REP_WORKER_STATE_MAP(XX)                                            \
	XX(RUNNING, "running")	/* alive, not dumped: what it does is unknown */ \
	XX(IDLE, "idle")	/* waits for an index (index_queue.get) */        \
	XX(STUCK, "stuck")	/* the same place, not idle, across dumps */      \
	XX(BUSY, "busy")	/* one dump, not idle: cannot tell more */        \
	XX(WORKING, "working")	/* its stack changed between dumps */             \
	XX(EXITED, "exited")	/* an exit record with a status */                \
	XX(KILLED, "killed")	/* ended by a signal */                           \
	XX(VANISHED, "vanished")	/* no exit record, gone (SIGKILL, OOM killer) */

enum rep_worker_state {
#define XX(id, name) REP_WK_##id,
	REP_WORKER_STATE_MAP(XX)
#undef XX
};

struct rep_worker {
	struct rep_proc *p;
	enum rep_worker_state state;
	const char *doing;	/* in words: where it is, or how it ended */
	const char *py_where;	/* its innermost Python frames, "a < b < c", or NULL */
	const char *native;	/* its innermost native frames worth naming, or NULL */
	const struct ht_sig *sig;	/* its stack's signature, or NULL */
	bool lock_wait;		/* a lock wait under acquire (native frames) */
	bool bad_end;		/* ended badly: a status other than 0, a signal, vanished */
	double end_ts;		/* wall time it ended (NAN while it runs) */
};

struct rep_workers {
	struct rep_worker *v;
	size_t n;
	size_t nbad, nstuck;
};

/* Finds each main's workers and their state; marks them (p->worker).
 * After ht_rep_graph: it refines what a rank waiting at its DataLoader
 * waits on (the stuck worker). */
void ht_rep_workers(struct rep_job *job);
/* The name of a worker state. */
const char *ht_rep_worker_state_name(enum rep_worker_state s);
/* The Chrome trace events of p's workers (a track each under p's row,
 * pid: that row); a new reference. */
json_t *ht_rep_worker_events(struct rep_job *job, const struct rep_proc *p, int64_t pid);
/* p's workers as the JSON array ranks[].workers; a new reference. */
json_t *ht_rep_workers_json(const struct rep_proc *p);
/* Writes the WORKERS lines of the text report (nothing when no rank has
 * workers). */
void ht_rep_workers_text(struct rep_job *job, FILE *f);

#endif
