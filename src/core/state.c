// SPDX-License-Identifier: MIT
/*
 * state.c: the library's global state (state.h): the process's record
 * (ht_g), each thread's (ht_tls), and the switch that turns everything
 * off after an internal failure: every hook then passes straight through.
 * The process's lifetime (the constructor, activation, fork) is
 * lifecycle.c.
 */
#include <stdatomic.h>

#include "state.h"
#include "writer.h"

__thread struct ht_tls ht_tls __attribute__((tls_model("initial-exec")));
struct ht_global ht_g = { .state = HT_OFF, .trace_fd = -1 };

void ht_disable(const char *why)
{
	if (atomic_exchange(&ht_g.state, HT_OFF) == HT_ACTIVE && why != NULL)
		ht_ev_warning(why);
}
