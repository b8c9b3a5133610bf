// SPDX-License-Identifier: MIT
/*
 * reader.h: what reader.c (files, lines, threads) and parse.c (one event
 * into a process record) share. One struct rep_rctx per reading thread:
 * nothing in it is shared, so files are read in parallel without locks.
 */
#ifndef HT_REPORT_READER_H
#define HT_REPORT_READER_H

#include <jansson.h>
#include <string.h>

#include "read/read.h"

struct rep_unknown {
	char type[32];
	uint32_t file, line;
	size_t count;
};

/* The digests given (digest_read.c): each one's line, then what was read
 * of it (its files' names, records, warnings, unknown event types; its
 * files' places in job->files once added) and where its quoted lines are
 * (its member "x", after "xat" bytes of its line: in its file at xpos,
 * read again when a line is quoted, or in xcopy when the file cannot be
 * read again); once a line is quoted, every line of it, each kept whole or
 * as the delta of an earlier one (base) until it is quoted. */
struct rep_dgdoc {
	const char *src;		/* its line */
	size_t srclen;
	char *own;			/* the line, when joined from parts */
	const char *path;		/* where it was read: its file and line */
	size_t line;
	int64_t xpos;			/* the line's place in that file, -1: none */
	size_t xat, xlen;		/* "x": where in the line and how long */
	char *xcopy;			/* or its text */
	bool ok;			/* read */
	char *why;			/* else why not */
	char **names;			/* its files' names, until added */
	uint32_t nfiles;
	uint32_t *map;			/* its file k is job->files[map[k]], until added */
	struct rep_vec procs;		/* its records, until added to the set's */
	size_t nadded;			/* then how many, their files still its own: */
	uint32_t fbase;			/* its file k is job file fbase + k, until the
					 * files are in order (ht_rep__digest_order) */
	uint8_t *dist;			/* each record's base: how many records back, 0 none */
	size_t nrecs;
	struct rep_warning *warns;
	size_t nwarns;
	struct rep_unknown *unk;
	size_t nunk, dropped;
	bool made, unmade;		/* its quoted lines made below, or could not be */
	bool unquoted;			/* a line of it could not be made (said once) */
	bool stacks_bad;		/* its member "stacks" could not be read */
	size_t nbad, bad_rec;		/* records that could not be read (left out); */
	const char *bad_tab;		/* the first: its index and the table it failed in */
	uint32_t *first, *count;	/* record k's lines: first[k] ..., count[k] */
	char *buf;			/* its quoted lines: line i at buf + off[i], */
	size_t len, cap;		/* tlen[i] bytes, whole (base[i] == -1), not */
	uint64_t *off;			/* readable (-2), or the JSON of a delta */
	uint32_t *tlen;			/* (digest.h) of line base[i] */
	int64_t *base;
	size_t ntexts, captexts;
	uint64_t *xloc;			/* the quoted lines of records or lines past */
	uint32_t nxloc, capxloc;	/* a location's bits: k << 32 | j (REP_DG_XLOC) */
};
struct rep_dgset {
	struct rep_dgdoc **docs;
	size_t n, cap, nparsed;	/* nparsed: read and added to the job */
	char **names;			/* the files of digests given */
	size_t nnames;
	struct rep_arena a;		/* the records read (the reading threads' arenas) */
	struct rep_arena *ta;		/* the reading threads' arenas, kept from one block */
	size_t nta;			/* of digests to the next until they are all read */
	struct rep_vec procs;
	bool placed;			/* procs' files in the job's places (below) */
	struct rep_unknown *pend;	/* unknown event types of the digests */
	size_t npend, cap_pend;
	bool writing;			/* read for a digest: unknown types kept below */
	struct rep_unknown unk[64];	/* then: the unknown event types counted */
	size_t nunk;
};
/* The quoted line of digest d at off (a location's: its line j of its
 * record k, k << REP_DG_LINE_BITS | j while k and j fit, else
 * REP_DG_XLOC and the index of (k, j) in d's own table), made (malloc'd,
 * NUL-terminated, *len bytes); NULL when it cannot be. */
#define REP_DG_LINE_BITS 10
#define REP_DG_XLOC (UINT32_C(1) << 31)
char *ht_rep__digest_line(struct rep_dgdoc *d, uint32_t off, size_t *len);
/* Reads the digests given and adds them to the job, then puts the job's
 * files in name order (folder by folder, as one folder's listing is),
 * before the trace files are read. */
void ht_rep__digest_order(struct rep_job *job);
/* Adds the digests' records, warnings and unknown event types (into unk,
 * *nunk of cap) to the job's (before its records are sorted). */
void ht_rep__digest_take(struct rep_job *job, struct rep_unknown *unk, size_t *nunk, size_t cap);
/* Frees what the digests left (the lines they quote). */
void ht_rep__digest_free(struct rep_job *job);

/* A table of texts, open addressing on their hash (texttab.c): the
 * parsed-once caches of dumps.c (thread lines' frames) and lines.c (event
 * lines' tails). An entry's struct begins with its key. */
struct rep_tkey {
	const char *text;
	uint32_t len;
	uint64_t hash;
};
struct rep_ttab {
	struct rep_tkey **slot;
	size_t cap, n;
};
/* The slot holding the text, or the empty one it goes in (cap != 0). */
struct rep_tkey **ht_rep__ttab_slot(const struct rep_ttab *t, const char *s, size_t n,
				    uint64_t h);
/* Doubles the table (to first when empty); false when out of memory. */
bool ht_rep__ttab_grow(struct rep_ttab *t, size_t first);

/* The hashes of the texts seen, each with the file it was seen in last
 * (texttab.c). */
struct rep_seenslot;
struct rep_seen {
	struct rep_seenslot *slot;
	size_t n;
};
/* True when h was seen before (*file then set to the file it was seen in
 * last); notes it as seen in *file. */
bool ht_rep__seen(struct rep_seen *t, uint64_t h, uint32_t *file);
void ht_rep__seen_free(struct rep_seen *t);

/* Thread lines' frames, parsed once per distinct text (see parse.c). */
struct rep_tail {
	struct rep_tkey key;	/* first */
	struct rep_dstack st;	/* (no py_status: dump_end's) */
};

/* Event lines' repeated tails, parsed once (see lines.c). */
struct rep_ltail;
struct rep_lcache {
	struct rep_ttab tab;	/* of struct rep_ltail */
	size_t bytes;
	struct rep_seen seen;
};

/* New tails' members, parsed once when they repeat (see members.c). */
struct rep_mcache {
	struct rep_ttab tab;	/* of struct rep_member */
	size_t bytes;
	struct rep_seen seen;
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
	bool fresh;			/* the file changed in the last seconds */
	unsigned file_warns;		/* warnings about this file so far */
	size_t dropped;			/* warnings left out */
	char *iobuf;			/* the file's bytes */
	size_t iocap;
	struct rep_ttab cache;	/* of struct rep_tail */
	struct rep_lcache lines;
	struct rep_mcache members;
	int64_t tid;			/* the current event line's tid */
	uint32_t shared;		/* kept members set in objects since the line began */
	struct rep_shared ids;		/* the idents its headers made, to share */
	struct rep_shared cudas;	/* and the cuInits its phase lines told */
	struct rep_shared hfs;		/* and the host facts of its host lines */
	struct rep_shared dsts;	/* and the stacks of its dumps */
	struct rep_shared vers;	/* and the versions they told */
	struct rep_shared cids;	/* and their communicators */
	struct rep_shared cds;		/* and where their connections went */
	struct rep_shared cws;		/* and their calls' names and results */
};

/* ---- rctx.c: what the reader's parts share ---- */

/* Adds a warning about line (0: the whole file) of the current file, up to
 * 20 per file (the rest counted in c->file_warns) and 1000 per thread. */
void ht_rep__warn(struct rep_rctx *c, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reads up to size bytes of fd into buf (EINTR retried); what it got. */
size_t ht_rep__read_fd(int fd, char *buf, size_t size);
/* Moves a reading thread's warning (msg, malloc'd) to the job's. */
void ht_rep__warn_take(struct rep_job *job, uint32_t file, uint32_t line, char *msg);
/* The one warning past the per-file cap: fmt with how many were left out. */
void ht_rep__warn_more(struct rep_rctx *c, const char *fmt, unsigned n);
/* Starts a process record from a header object. */
void ht_rep__header(struct rep_rctx *c, json_t *o, const struct rep_loc *loc, double ts,
		   double mono);
/* Applies an event of a known type (not header, thread, dump_end). */
void ht_rep__event(struct rep_rctx *c, json_t *o, int type, const struct rep_loc *loc,
		   double ts, double mono);
/* Closes the current record: parses the dump lines that matter. */
void ht_rep__proc_end(struct rep_rctx *c);
/* jansson's allocator while reading (json_set_alloc_funcs): this thread's
 * scratch block when it is on, else malloc and free. */
void *ht_rep__j_malloc(size_t n);
void ht_rep__j_free(void *p);
/* A reading thread's scratch block: made and on, and freed. */
void ht_rep__scratch_begin(void);
void ht_rep__scratch_end(void);
/* jansson's scratch memory of this thread (see rctx.c): a mark, and the
 * release of everything allocated since it; call it only when no value
 * parsed since the mark is alive. A record may close while the line that
 * closes it (the next header) is alive: marks nest. */
size_t ht_rep__scratch_mark(void);
void ht_rep__scratch_release(size_t mark);
/* True when everything parsed since the last release to 0 lies in the
 * scratch block (nothing to free one by one). */
bool ht_rep__scratch_whole(void);
/* Turns the scratch memory on or off for this thread; returns what it was. */
bool ht_rep__scratch_set(bool on);
/* The members every event line starts with (src/core/writer.c). */
struct rep_head {
	const char *t;		/* NULL: none */
	char type[32];		/* where t points when the line was split */
	double ts, mono;	/* NAN: unknown */
	int64_t tid;		/* REP_UNKNOWN */
};
/* The event line s (n bytes) as its head (*hd) and its tail (the members
 * after tid; of a header, after mono): kept by the cache when it was seen
 * before, else made of its members (*own, the caller's to free); NULL
 * when the line is to be parsed whole. */
json_t *ht_rep__split_parse(struct rep_rctx *c, const char *s, size_t n, struct rep_head *hd,
			    json_t **own);
/* A JSON number's text as jansson reads it (lines.c): its value (and as
 * an integer, REP_UNKNOWN when out of range); false when the text is not
 * exactly one number jansson reads. */
bool ht_rep__number_of(const char *s, size_t n, double *d, int64_t *i);
void ht_rep__lines_free(struct rep_lcache *t);
/* Whose members (members.c): an event line's after its head, which has
 * t, ts, mono and tid; a header's or thread line's, whose head has no
 * tid; an object's inside a line (any key). */
enum rep_members { REP_MEMBERS_EVENT, REP_MEMBERS_NO_TID, REP_MEMBERS_INNER };
/* A line's members after its head (`"key":value,...}`, n bytes) as an
 * object of its own (the caller's to free), its repeated members parsed
 * once; NULL when the line is to be parsed whole (members.c), as when
 * they name a key of the head again. */
json_t *ht_rep__members_parse(struct rep_rctx *c, const char *s, size_t n,
			      enum rep_members what);
void ht_rep__members_free(struct rep_mcache *t);
/* Parses the line at loc of the current file (NULL when it is not an object). */
json_t *ht_rep__parse_at(struct rep_rctx *c, const struct rep_loc *loc);
/* The line at loc in the file being read (its bytes to its newline, less
 * trailing blanks: *n), or NULL when it is not in it. */
const char *ht_rep__line_at(struct rep_rctx *c, const struct rep_loc *loc, size_t *n);

/* Events of parse_facts.c (see ht_rep__event). */
void ht_rep__on_connect(struct rep_rctx *c, struct rep_proc *p, json_t *o,
			const struct rep_loc *loc, double ts);
/* Keeps the latest build_lock line of p (parse_buildlock.c). */
void ht_rep__on_build_lock(struct rep_rctx *c, struct rep_proc *p, json_t *o,
			   const struct rep_loc *loc, double ts);
/* The "check" and "ib" lines (parse_check.c). */
void ht_rep__on_check(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc);
void ht_rep__on_ib(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc);
/* The "store" line: the first FileStore file the process locked. */
void ht_rep__on_store(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		     const struct rep_loc *loc);
void ht_rep__on_listen(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		       const struct rep_loc *loc, bool accept);
void ht_rep__on_resolve(struct rep_rctx *c, struct rep_proc *p, json_t *o,
			const struct rep_loc *loc);
void ht_rep__on_host(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc);
void ht_rep__on_version(struct rep_rctx *c, struct rep_proc *p, json_t *o,
			const struct rep_loc *loc);
void ht_rep__on_cuda(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc);
void ht_rep__on_nccl(struct rep_rctx *c, struct rep_proc *p, json_t *o,
		     const struct rep_loc *loc, double ts, double mono);
/* A collective's fields (ring entry or first_collective line) into k. */
void ht_rep__coll_fields(struct rep_arena *a, json_t *o, struct rep_coll *k);
/* Sets *dst when o has key (a string, an integer). */
void ht_rep__set_str(struct rep_arena *a, json_t *o, const char *key, const char **dst);
void ht_rep__set_int(json_t *o, const char *key, int64_t *dst);

/* Grows an arena array of n items of size sz to hold one more (doubling:
 * capacities are powers of two). */
static inline void *ht_rep__grow(struct rep_arena *a, void *arr, size_t n, size_t sz)
{
	if (n == 0 || (n & (n - 1)) != 0)
		return arr;
	void *p = ht_rep_alloc(a, 2 * n * sz);
	memcpy(p, arr, n * sz);
	return p;
}
/* Appends one zeroed item to an arena array and yields its address. */
#define REP_PUSH(a, arr, n) ((arr) = (n) == 0 ? ht_rep_alloc((a), sizeof(*(arr))) : \
			     ht_rep__grow((a), (arr), (n), sizeof(*(arr))), &(arr)[(n)++])

/* Field access: absent or null fields read as unknown. */
const char *ht_rep__str(struct rep_arena *a, json_t *o, const char *key);
int64_t ht_rep__int(json_t *o, const char *key);
int64_t ht_rep__int_of(json_t *v);	/* the same of a value */
double ht_rep__num_of(json_t *v);
double ht_rep__num(json_t *o, const char *key);
int ht_rep__bool(json_t *o, const char *key);	/* 1, 0, -1 unknown */

#endif
