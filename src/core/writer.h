// SPDX-License-Identifier: MIT
/*
 * writer.h: trace lines (writer.c).
 */
#ifndef HT_CORE_WRITER_H
#define HT_CORE_WRITER_H

#include <stddef.h>

#include "hangtrace.h"
#include "jsonw.h"
#include "state.h"

/* Starts an event line in buf: {"t":...,"ts":...,"mono":...,"tid":... */
void ht_ev_begin(struct ht_jw *w, char *buf, size_t cap, enum ht_event_type t);
/* Finishes the line and writes it with one write(2). Returns 0 or -errno.
 * A write failure stops tracing (one line on stderr says why). */
int ht_ev_emit(struct ht_jw *w);
/* Writes a warning event with msg. */
void ht_ev_warning(const char *msg);
/* Opens (or, after exec, reopens) the trace file and writes the header.
 * Not async-signal-safe in the sense that it may create the folder. */
int ht_trace_open(enum ht_reason why);
/* In a forked child: forget the parent's file, open our own. */
int ht_trace_reopen_child(void);
/* One "hangtrace[pid]: a b c" line on stderr. */
void ht_say(const char *a, const char *b, const char *c);

#endif
