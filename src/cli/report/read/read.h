// SPDX-License-Identifier: MIT
/*
 * read.h: the reading stage (reader.c): files and buffers into process
 * records (job->procs), warnings naming file and line.
 */
#ifndef HT_REP_READ_H
#define HT_REP_READ_H

#include "model/model.h"

/* Adds every *.jsonl under path (a folder, searched recursively, or a
 * file). Returns the number of files added, or -errno. */
int ht_rep_add_path(struct rep_job *job, const char *path);
/* The digest's format (doc/trace-format.md, "Digests"). */
#define HT_DIGEST_FORMAT "hangtrace-digest/5"
/* True when path is a file of digests (`hangtrace digest`): its first
 * bytes are {"digest": (a folder, or a file of trace lines, is not). */
bool ht_rep_is_digest(const char *path);
/* The format a digest file's first line names ("?" when none), into out. */
void ht_rep_digest_says(const char *path, char *out, size_t n);
/* Adds the digests of a file (one or more, one per line: digest_read.c):
 * their files and records, read with the rest by ht_rep_read. Returns the
 * number of digests, or -errno; a line that is no digest is a warning. */
int ht_rep_add_digest(struct rep_job *job, const char *path);
/* Reads the digests added (on several threads) and adds their files and
 * records to the job, in the order they were added; says on stderr which
 * could not be read. ht_rep_read does it too. */
void ht_rep_digest_load(struct rep_job *job);
/* The bytes of a digest file read at a time (0: the default, 32 MiB):
 * for the tests, to cut a file's lines across blocks. */
void ht_rep__digest_block(size_t bytes);
/* Reading for a digest: the unknown event types are counted, not warned
 * (the report over the digests counts them across all). Call before
 * ht_rep_read. */
void ht_rep_digest_prepare(struct rep_job *job);
/* Writes what ht_rep_read found as one digest, one line (digest_write.c).
 * Returns 0, or -1 when it could not be written. */
int ht_rep_digest_write(struct rep_job *job, FILE *f);
/* Adds an in-memory trace file (tests, fuzzing); buf must outlive job. */
void ht_rep_add_buffer(struct rep_job *job, const char *name, const char *buf, size_t len);
/* Closes the folders kept open to open their files in (files are then
 * opened by path). */
void ht_rep_close_dirs(struct rep_job *job);
/* Reads every file added, on job->nthreads threads. Returns the number of
 * process records found. */
size_t ht_rep_read(struct rep_job *job);
/* Records a warning about file:line (line 0: the whole file). */
void ht_rep_warn(struct rep_job *job, uint32_t file, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void ht_rep_job_init(struct rep_job *job);
/* Frees what reading made (files, warnings, records, the arena). */
void ht_rep_read_free(struct rep_job *job);

#endif
