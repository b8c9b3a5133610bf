// SPDX-License-Identifier: MIT
/*
 * brief.h: the verdicts in the job's log (SPEC section 3, HANGTRACE_BRIEF).
 * When a stall is declared, the first process of the job to claim it in the
 * trace folder runs `hangtrace report --brief DIR`, whose output goes to
 * this process's stderr.
 */
#ifndef HT_BRIEF_H
#define HT_BRIEF_H

#include <stdbool.h>
#include <stddef.h>

/* The marker a process creates (O_CREAT|O_EXCL) in the trace folder to
 * claim the brief for the job; its name does not end in .jsonl, so the
 * report never reads it. */
#define HT_BRIEF_MARKER ".hangtrace-brief"
/* How long the brief waits for the other ranks' first dumps to land, and
 * how long the report may run before it is killed. */
#define HT_BRIEF_SETTLE_MS 200
#define HT_BRIEF_LIMIT_MS 5000

/*
 * Called by the watchdog thread once a stall of this process is declared
 * (its dump written). Unless HANGTRACE_BRIEF=0, or this process already
 * did, or another process of the job claimed the marker first, it starts
 * the hangtrace command with posix_spawn (no fork of this image): stdin
 * /dev/null, stdout onto this process's stderr, no descriptor of the job
 * above 2, the library stripped from LD_PRELOAD; waits for it at most
 * HT_BRIEF_LIMIT_MS, then kills it, and reaps it. While it waits it calls
 * serve every 20 ms, so the watchdog still answers SIGTERM and on-demand
 * dumps. Not async-signal-safe; allocates only inside glibc's spawn file
 * actions; only from the watchdog thread.
 */
void ht_brief_on_stall(void (*serve)(void));

/*
 * Plain helpers, exposed for the unit tests.
 * ht_brief_strip_preload: writes into out[cap] the value of an LD_PRELOAD
 * list (entries separated by ':' or spaces) without the entries whose file
 * name starts with "libhangtrace"; returns its length, or -1 if it did not
 * fit.
 * ht_brief_command_from_maps: given the text of /proc/self/maps and an
 * address inside the library, writes into out[cap] the folder of the file
 * mapped there; false when no line holds it.
 */
long ht_brief_strip_preload(const char *list, char *out, size_t cap);
bool ht_brief_lib_folder(const char *maps, size_t len, unsigned long addr, char *out,
			 size_t cap);

#endif
