// SPDX-License-Identifier: MIT
/*
 * degraded.c: one stderr line and one trace line per part that cannot
 * work (degraded.h).
 */
#include <string.h>

#include "degraded.h"
#include "clock.h"
#include "common.h"
#include "fmt.h"
#include "hangtrace.h"
#include "jsonw.h"
#include "state.h"
#include "writer.h"
#include "procfs.h"

static _Atomic unsigned said;	/* bit per part */

void ht_degraded(const char *what, const char *msg, int err, const char *covers)
{
	unsigned bit = strcmp(what, "watchdog") == 0 ? 1u : strcmp(what, "signals") == 0 ? 2u : 4u;
	if (atomic_fetch_or(&said, bit) & bit)
		return;
	const char *name = err != 0 ? ht_errno_name(err) : NULL;
	char tail[96];
	size_t n = 0;
	tail[0] = '\0';
	if (name != NULL) {
		n = ht_append(tail, sizeof(tail), n, " (");
		n = ht_append(tail, sizeof(tail), n, name);
		ht_append(tail, sizeof(tail), n, ")");
	}
	ht_say(msg, tail, NULL);
	char buf[1024];
	struct ht_jw w;
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_WARNING);
	ht_jw_str(&w, "msg", msg);
	ht_jw_str(&w, "degraded", what);
	ht_jw_str(&w, "error", name);
	if (covers != NULL)
		ht_jw_str(&w, "stalls_seen", covers);
	ht_ev_emit(&w);
}

void ht_degraded_forget(void)
{
	atomic_store(&said, 0);
}

void ht_degraded_recovered(const char *what, const char *msg)
{
	char buf[512];
	struct ht_jw w;
	ht_say(msg, NULL, NULL);
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_WARNING);
	ht_jw_str(&w, "msg", msg);
	ht_jw_str(&w, "recovered", what);
	ht_ev_emit(&w);
}
