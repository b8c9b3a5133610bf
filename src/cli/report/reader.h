// SPDX-License-Identifier: MIT
/*
 * reader.h: what reader.c (files, lines, threads) and parse.c (one event
 * into a process record) share. One struct rep_rctx per reading thread:
 * nothing in it is shared, so files are read in parallel without locks.
 */
#ifndef HT_REPORT_READER_H
#define HT_REPORT_READER_H

#include <jansson.h>

#include "report.h"

struct rep_unknown {
	char type[32];
	uint32_t file, line;
	size_t count;
};

struct rep_rctx {
	struct rep_job *job;
	struct rep_arena a;
	struct rep_vec procs;
	struct rep_warning *warns;
	size_t nwarns, cap;
	struct rep_unknown unknown[16];
	size_t nunknown;
	/* the file being read */
	uint32_t file;
	const char *buf;
	size_t len;
	struct rep_proc *p;		/* the current process record */
	int open_dump;			/* index in p->dumps of an unclosed dump, or -1 */
	bool not_trace;			/* line 1 was not a header */
	unsigned file_warns;		/* warnings about this file so far */
	size_t dropped;			/* warnings left out */
};

/* Adds a warning about line (0: the whole file) of the current file. */
void ht_rep__warn(struct rep_rctx *c, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Starts a process record from a header object. */
void ht_rep__header(struct rep_rctx *c, json_t *o, const struct rep_loc *loc);
/* Applies an event of a known type (not header, thread, dump_end). */
void ht_rep__event(struct rep_rctx *c, json_t *o, int type, const struct rep_loc *loc,
		   double ts, double mono);
/* Closes the current record: parses the dump lines that matter. */
void ht_rep__proc_end(struct rep_rctx *c);
/* Parses the line at loc of the current file (NULL when it is not an object). */
json_t *ht_rep__parse_at(struct rep_rctx *c, const struct rep_loc *loc);

/* Field access: absent or null fields read as unknown. */
const char *ht_rep__str(struct rep_arena *a, json_t *o, const char *key);
int64_t ht_rep__int(json_t *o, const char *key);
double ht_rep__num(json_t *o, const char *key);
int ht_rep__bool(json_t *o, const char *key);	/* 1, 0, -1 unknown */

#endif
