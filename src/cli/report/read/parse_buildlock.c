// SPDX-License-Identifier: MIT
/*
 * parse_buildlock.c: the build_lock line a dump writes when a thread waits
 * on a JIT build lock (src/core/buildlock.c, doc/trace-format.md): the lock
 * files found with their age, and the builders running on the host. The
 * latest line of a process wins.
 */
#include <math.h>

#include "read/buildlock.h"
#include "reader.h"

void ht_rep__on_build_lock(struct rep_rctx *c, struct rep_proc *p, json_t *o,
			   const struct rep_loc *loc, double ts)
{
	struct rep_buildlock *b = ht_rep_alloc(&c->a, sizeof(*b));
	b->root = ht_rep__str(&c->a, o, "root");
	b->via = ht_rep__str(&c->a, o, "via");
	b->ts = ts;
	b->loc = *loc;
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(o, "locks"), i, e) {
		const char *path = ht_rep__str(&c->a, e, "path");
		if (path == NULL)
			continue;
		if (b->nlocks == REP_MAX_LOCKS) {
			b->more_locks++;
			continue;
		}
		b->locks[b->nlocks].path = path;
		b->locks[b->nlocks++].age = ht_rep__num(e, "age");
	}
	json_array_foreach(json_object_get(o, "builders"), i, e) {
		int64_t pid = ht_rep__int(e, "pid");
		if (pid == REP_UNKNOWN || b->nbuilders == REP_MAX_BUILDERS)
			continue;
		b->builders[b->nbuilders].pid = pid;
		b->builders[b->nbuilders].comm = ht_rep__str(&c->a, e, "comm");
		b->builders[b->nbuilders++].age = ht_rep__num(e, "age");
	}
	ht_rep_rare_w(&c->a, p)->blk = b;
}
