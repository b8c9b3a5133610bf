// SPDX-License-Identifier: MIT
/*
 * model.h: the model behind `hangtrace report` (SPEC section 8): the
 * process records the reader fills (struct rep_proc), the job they belong
 * to (struct rep_job: ranks, hosts, verdicts, stack groups) and what
 * model.c derives from them (trees, ranks, hosts, each rank's state).
 * Types are struct rep_*; functions ht_rep_*. Nothing keeps global state:
 * every call works on one struct rep_job.
 */
#ifndef HT_REP_MODEL_H
#define HT_REP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangtrace.h"
#include "signatures.h"
#include "util.h"

/* ---- where a line came from ------------------------------------------------ */

/* 12 bytes (a million ranks hold about 30 each): a line's file, its number
 * and where it starts. In a trace file: its byte offset, or REP_LOC_FAR
 * past the first 4 GiB, where it is found again by its number; the line
 * runs to its newline, less trailing blanks (ht_rep_line_len). In a
 * digest's record: which quoted line it is (ht_rep__digest_line). The
 * reader skips lines longer than REP_LOC_MAX_LEN or past the first TiB. */
#define REP_LOC_OFF_BITS 40
#define REP_LOC_MAX_LEN ((1u << 24) - 1)
#define REP_LOC_FAR UINT32_MAX
struct rep_loc {
	uint32_t file;		/* index in job->files; UINT32_MAX: none */
	uint32_t line;		/* 1-based */
	uint32_t off;
};

/* Lines count from 1: a location left zeroed (a fact never read) is none. */
#define REP_NOLOC ((struct rep_loc){ .file = UINT32_MAX })
static inline bool rep_has_loc(const struct rep_loc *l)
{
	return l->file != UINT32_MAX && l->line > 0;
}
/* The length of the line that starts at s, n bytes before the end of what
 * was read: to its newline (*nl: one was found), less trailing blanks
 * (carriage returns, spaces, tabs), as the reader takes it. */
static inline size_t ht_rep_line_len(const char *s, size_t n, bool *nl)
{
	const char *e = memchr(s, '\n', n);
	size_t k = e != NULL ? (size_t)(e - s) : n;
	if (nl != NULL)
		*nl = e != NULL;
	while (k > 0 && (s[k - 1] == '\r' || s[k - 1] == ' ' || s[k - 1] == '\t'))
		k--;
	return k;
}
/* The line at loc in buf (len bytes, a whole file's): where it starts
 * (REP_LOC_FAR: found by its number) and its length (*n, as
 * ht_rep_line_len); NULL when it is not in buf. */
static inline const char *ht_rep_line_in(const char *buf, size_t len, const struct rep_loc *loc,
					 size_t *n)
{
	size_t off = loc->off;
	if (loc->off == REP_LOC_FAR) {
		off = 0;
		for (uint32_t l = 1; l < loc->line && off < len; l++) {
			const char *nl = memchr(buf + off, '\n', len - off);
			off = nl != NULL ? (size_t)(nl - buf) + 1 : len;
		}
	}
	if (off >= len)
		return NULL;
	*n = ht_rep_line_len(buf + off, len - off, NULL);
	return buf + off;
}

/* 48 bytes (a million-rank merge holds one for each rank): what only a
 * file on disk has (path set) shares its place with what only a buffer
 * or a digest's file has (path NULL). */
struct rep_file {
	char *path;		/* as found on disk, or NULL for an in-memory buffer */
	char *name;		/* how warnings and evidence name it */
	union {
		struct {	/* path set: the file on disk, to read it once */
			uint64_t dev, ino;
		};
		struct {	/* path NULL: the buffer (tests, fuzzing), else NULL */
			const char *mem;
			size_t memlen;
		};
	};
	union {
		const char *base;	/* path set: its name in folder dir (in path) */
		struct rep_dgdoc *dgdoc;	/* digest: where its quoted lines are */
	};
	int dir;		/* its folder's index in the job's dirfds, or -1 */
	bool known;		/* dev and ino are known (looked up, or when read) */
	bool dup;		/* the same file as an earlier one: skipped */
	bool digest;		/* known from a digest (read/digest_read.c): its records
				 * come from there, its quoted lines from dgdoc */
};

/* ---- one traced process (one header and what follows it) ---------------- */

#define REP_UNKNOWN INT64_MIN	/* an integer field that was absent or null */

/* 56 bytes (a million ranks hold five each): its lines are in its
 * process's file, so they are kept as their numbers and places (a struct
 * rep_loc's line and off) and read through rep_ph_begin() and
 * rep_ph_end(). */
struct rep_phase {
	double ts, mono;		/* of the begin line */
	double end_ts, end_mono;	/* of the end or error line */
	uint32_t begin_line, begin_off;	/* 0: none */
	uint32_t end_line, end_off;	/* the end or error line */
	bool begun, ended, errored;
};
/* A phase and its lines as they were told, in full: a digest's record
 * (read/digest.h). */
struct rep_phase_rec {
	struct rep_phase ph;
	struct rep_loc begin, end;
};

/* The last few structs of one kind that a reader made, to share with the
 * records that say the same (model.c: ht_rep_*_share). */
#define REP_SHARED_LAST 8
struct rep_shared {
	const void *v[REP_SHARED_LAST];
	unsigned next;
};

/* Where a process's connections went and how they ended (the ranks that
 * dial one endpoint say the same): one struct for those that say the
 * same, as the reader that read them found (ht_rep_cd_share), read
 * through rep_cd(). */
struct rep_conndest {
	const char *dest, *role, *result, *error, *tcp_state;
	int64_t err;
	bool probe;
};

struct rep_connect {		/* aggregated per (dest, result) */
	const struct rep_conndest *to;	/* rep_cd() */
	int count;			/* attempts (1 ... INT_MAX) */
	struct rep_loc loc;	/* the line with the highest count */
	double first, last, ts;	/* first/last: mono; ts: of the line kept */
};

struct rep_listen {
	const char *addr, *role;
	int64_t accepted;
	struct rep_loc loc;
};

/* A bind of a rendezvous endpoint that failed (the first), and who held
 * the port then, as the library found it. */
struct rep_bindfail {
	const char *addr, *role, *error;
	int64_t holder_pid;		/* REP_UNKNOWN when not found */
	const char *holder_cmd;
	struct rep_loc loc;
};

/* A FileStore file as a rank first locked it (the "store" line). */
struct rep_store {
	const char *path;
	int64_t size;
	double mtime;			/* wall clock */
	struct rep_loc loc;
};

struct rep_resolve {
	const char *what, *name, *addrs, *error;
	bool loopback;
	struct rep_loc loc;
};

/* A host's facts as a process's "host" line told them, less its free
 * /dev/shm and where (in the process: hf_shm_free, hf_loc): one struct
 * for the processes that say the same (a host's do), as the reader that
 * read them found (ht_rep_hf_share), read through rep_hf(). */
struct rep_hostfacts {
	bool have;
	int nccl_match, gloo_match;		/* interfaces matched, -1 unknown */
	const char *ifaces;			/* names, comma separated */
	const char *nccl_ifname, *gloo_ifname;	/* the variables, or NULL */
	int64_t shm_total, cpus;
};

enum rep_version_kind { REP_VER_DRIVER, REP_VER_RUNTIME, REP_VER_NCCL, REP_VER_COUNT };

/* A process's versions as its version lines and nccl events told them,
 * less where (in the process: ver_loc): one struct for the processes
 * that say the same (a host's nearly always do), as the reader that read
 * them found (ht_rep_vers_share), read through rep_vers(). */
struct rep_versions {
	int64_t value[REP_VER_COUNT];	/* REP_UNKNOWN when not seen */
	const char *provider[REP_VER_COUNT];
};
/* One of them with where it was told: a digest's record (read/digest.h). */
struct rep_version {
	int64_t value;
	const char *provider;
	struct rep_loc loc;
};

struct rep_cuda_err {
	const char *fn, *error;
	int64_t result, ordinal;
	bool after_fork, hung;
	struct rep_loc loc;
};

/* What a communicator init says of the communicator, the same on each of
 * its ranks, and how it failed (the ranks of a failed init most often
 * say the same): one struct for the inits that say the same, as the
 * reader that read them found (ht_rep_cid_share), read through
 * rep_cid(). */
struct rep_commid {
	const char *fn, *root, *id_hash, *commid, *parent, *comm_name;
	int64_t nranks, color;		/* REP_UNKNOWN */
	const char *error, *last_error;
};

/* One communicator init (or split) as the nccl events tell it. */
struct rep_comm {
	const struct rep_commid *id;	/* rep_cid() */
	const char *comm;
	int64_t rank, result, tid;
	bool ended, failed, nested;
	double ts, mono;
	struct rep_loc begin, end;
	const char *key;		/* the communicator across ranks (model) */
};

struct rep_coll {		/* a collective from the ring or first_collective */
	const char *comm, *op, *dtype, *redop;
	int64_t seq, count, peer;
};

/* A hooked call's name and result: one struct for the calls that say the
 * same, as the reader that read them found (ht_rep_cw_share), read
 * through rep_cw(). */
struct rep_callwhat {
	const char *name;
	int64_t result;			/* REP_UNKNOWN while in flight */
};

struct rep_call {
	const struct rep_callwhat *what;	/* rep_cw() */
	int64_t id;
	double ts, mono, end_ts, end_mono;	/* end_*: NAN while in flight */
	struct rep_loc loc;
	bool ended, stalled;
};

/* The main thread's stack as a dump found it (the first and the latest
 * of an episode have one): one struct for the dumps that say the same (a
 * group's ranks do), as the reader that read them found
 * (ht_rep_dst_share), read through rep_dst(). */
struct rep_dstack {
	const char **frames, **py;	/* innermost first */
	uint32_t nframes, npy;
	uint64_t stack_hash;
	const char *wchan, *syscall;
	const char *py_status;		/* the latest dump's "python" (dump_end) */
};

/* A dump: the stall line, the main thread's line and dump_end. */
struct rep_dump {
	int no, n;			/* (0 when not said) */
	const char *reason;
	double ts, mono, phase_age;
	const char *call;		/* the oldest call in flight, or NULL */
	double call_age;
	uint32_t epoch;			/* phase lines seen before it */
	struct rep_loc loc;		/* the stall line (its number: loc.line) */
	/* Filled lazily for the dumps that matter (the last episode). */
	struct rep_loc main_loc;	/* the main thread's line, if seen */
	struct rep_loc end_loc;		/* dump_end */
	uint32_t nthreads;
	bool main_seen;			/* main_loc says "main": true */
	bool have_main, answered;
	char state;			/* of the main thread */
	int phase;			/* -1 unknown */
	/* From its dump_end (doc/trace-format.md): "cut" (the dump is not
	 * whole) and "declared": false (a look that found no stall). */
	bool cut, undeclared;
	double cpu;			/* main thread, seconds; NAN unknown */
	int64_t io;			/* rchar+wchar of the process; -1 unknown */
	const struct rep_dstack *st;	/* its main thread's stack: rep_dst() */
	int frames_of;			/* native frames taken from dump no (read/dumps.c), 0 */
	uint32_t unanswered;
};

enum rep_end_kind { REP_RUNNING, REP_EXITED, REP_SIGNALED, REP_VANISHED };

/* What few processes have (a rank's NCCL id, its first collective, forks,
 * a chained signal, degraded watching; listens, a failed bind, a FileStore,
 * resolves, CUDA errors, warnings, check lines, DataLoader workers, a build
 * lock): apart from struct rep_proc, made on its first write
 * (ht_rep_rare_w), so that a million records do not each hold it. Read through rep_rare(), which gives ht_rep_rare_none for a
 * process that has none. */
struct rep_rare {
	struct {
		const char *root, *id_hash, *error, *last_error;
		int64_t result;		/* REP_UNKNOWN */
		struct rep_loc loc;
	} nccl_id;
	struct rep_coll first_coll;
	const char *steady_fn;
	struct rep_loc cuda_fork_loc;	/* the first CUDA call after a fork, or hung */
	int64_t nforks, nforks_cuda;
	struct rep_loc fork_cuda_loc;	/* its first fork with CUDA initialised */
	const char *degraded;		/* a warning's "degraded" (what is not watched) */
	const char *degraded_msg;
	struct rep_loc degraded_loc;
	const char *signal;		/* a chained fatal signal (signal event) */
	int64_t fork_parent;		/* a fork child's parent's pid, REP_UNKNOWN */
	bool have_first_coll;
	bool cuda_after_fork, cuda_hung;
	bool degraded_calls;		/* its hooked calls still watched ("stalls_seen") */
	/* The members above are the digest's (FDR in read/digest.h), those
	 * below not: arrays and what hangs off a process, few have them. */
	struct rep_listen *listen;	/* what it listens on (binds that worked) */
	struct rep_bindfail *bind_fail;	/* its first failed bind, or NULL */
	struct rep_store *store;	/* the first FileStore file it locked, or NULL */
	struct rep_resolve *res;
	struct rep_cuda_err *cerr;
	const char **warns;		/* warning events' msg */
	uint32_t nlisten, nres, ncerr, nwarns;
	struct rep_checkfacts *chk;	/* check and ib lines (read/checkfacts.h), or NULL */
	struct rep_workers *workers;	/* a main's DataLoader workers, or NULL (workers.c) */
	struct rep_buildlock *blk;	/* its latest build_lock line, or NULL */
};
/* The size of a struct rep_rare's members that the digest's table holds. */
#define REP_RARE_FIELDS offsetof(struct rep_rare, listen)

/* What a process says of where and how it runs that the processes of a
 * host share (its header's): one struct for those that say the same, as
 * the reader that read them found (ht_rep_id_share), read through
 * rep_id(). */
struct rep_ident {
	const char *host, *boot_id, *launcher, *job, *relevant, *exe, *cmd;
	/* allow-listed environment that the rules read */
	const char *cvd, *master_addr, *master_port, *nccl_comm_id;
	const char *fw_hint;		/* framework seen in cmdline or env */
	int64_t pid_ns;			/* its pid namespace's inode, REP_UNKNOWN */
	int64_t world_size;		/* REP_UNKNOWN when not known */
	const char *id_kind;		/* launcher kind of the identity, "nccl", NULL */
	double timeout;			/* its deadline, seconds */
};
/* A process's cuInit as its cuda_init phase lines tell it (where: its
 * cuda_init_loc): one struct for those that say the same (a host's
 * processes nearly always do), as the reader that read them found
 * (ht_rep_cuda_share), read through rep_cuda(). */
struct rep_cudainit {
	const char *via, *error, *libcuda;
	int64_t result, driver_version, runtime_version;	/* REP_UNKNOWN */
	int64_t device_count;		/* cuDeviceGetCount's, REP_UNKNOWN */
	int stub;			/* -1 unknown */
};

struct rep_proc {
	uint32_t file;
	uint32_t lines;
	struct rep_loc hdr;
	struct rep_loc id_loc;		/* the line its identity (rank) is from */
	const struct rep_ident *id;	/* host, boot, launcher, job, exe, ...: rep_id() */
	int64_t pid, ppid;		/* (fork_parent: in rare) */
	int64_t start_ticks;		/* with host, boot and pid: the process */
	int64_t rank, local_rank;	/* REP_UNKNOWN when not known */
	/* (pid_ns, world_size, id_kind, timeout: in its ident) */
	double ts0, mono0, last_ts, last_mono;
	bool cuda_inherited, truncated;
	bool dropped;			/* a copy of a record read from another file */
	uint8_t ph_has;			/* (with ph_dense below: rep_ph) */

	int cur_phase;			/* last phase begun, -1 none */
	uint32_t epoch;			/* phase lines so far */
	uint32_t nexec;
	/* Its phases, read by rep_ph(): the trace reader's all HT_PHASE_COUNT
	 * (ph_dense, written by ht_rep_ph_w); the digest reader's only those
	 * begun, ended or errored, in phase order, bit i of ph_has set for
	 * phase i (a million ranks begin 5 of the 8, their agents 2).
	 * (ph_has and ph_dense are with the flags below.) */
	struct rep_phase *ph;

	/* phase details */
	const struct rep_cudainit *cuda_init;	/* cuInit's: rep_cuda() */
	struct rep_loc cuda_init_loc;	/* the line that said its result or stub */
	struct rep_loc hf_loc;		/* its host line (hf below) */
	struct {
		const char *uuid, *pci, *visible, *via;
		int64_t ordinal, count, local_rank;
		bool have;
		struct rep_loc loc;
	} device;
	struct rep_rare *rare;		/* what few processes have, or NULL: rep_rare() */

	struct rep_connect *conn;
	/* (listens, a failed bind, a FileStore, resolves: in rare) */
	const struct rep_hostfacts *hf;	/* its host line's: rep_hf() */
	int64_t hf_shm_free;		/* free /dev/shm it saw there */
	const struct rep_versions *vers;	/* rep_vers() */
	struct rep_loc ver_loc[REP_VER_COUNT];	/* the lines that told them */
	struct rep_loc exit_loc;	/* (of exit_* below; its line: exit_loc.line) */
	/* (CUDA errors: in rare; cuDeviceGetCount's: in cuda_init) */
	struct rep_comm *comms;
	struct rep_coll *ring;		/* latest dump's ring, newest last */
	int64_t colls_total;
	struct rep_call *calls;
	/* (warning events' messages: in rare) */
	struct rep_dump *dumps;
	/* How many of each of the arrays above (4 bytes each: a million
	 * records hold 40 MiB less than with size_t). */
	uint32_t nconn, ncomms, nring, ncalls;
	uint32_t ndumps;		/* the newest REP_MAX_DUMPS are kept */
	uint32_t nwaits_for;		/* (the model's: waits_for below) */
	int64_t exit_status;		/* REP_UNKNOWN with a signal */
	const char *exit_signal;
	double exit_ts;
	uint32_t last_call_end_stalled;	/* line of the latest call end stalled=true */
	/* (the flags together: a million records hold no padding) */
	bool slow;			/* looked at past its deadline, found working (not declared) */
	bool have_exit, exit_after_dump;
	bool ph_dense;
	/* (check and ib lines: in rare) */
	/* (the model's, here where they fill the padding:) */
	bool outer;			/* a launcher wrapper around ranks of another kind */
	bool is_main;			/* the main process of its rank */
	bool gpu;			/* made CUDA or NCCL calls */
	bool at_wait;			/* at a wait point for other ranks (graph.c) */
	int depth;			/* in its tree */
	/* (graph.c's, here where they fill the padding:) */
	bool killed;			/* ended in the job's kill (job->ended == killed) */
	bool open_stall;		/* its latest stall was still open when it ended */
	bool root;			/* at the end of a chain of waits: a cause */
	bool awaited;			/* another rank waits for it */

	/* ---- the model (model.c) ---- */
	struct rep_proc *parent;	/* traced parent on the same host */
	struct rep_proc *main;		/* for wrappers and children: their main */
	struct rep_host *h;
	enum rep_end_kind end;
	bool stalled;			/* SPEC 8: latest dump while stalled */
	bool waiting;			/* stalled, or killed while waiting */
	bool gave_up;			/* stalled, then ended by itself (a timeout) */
	bool failed;			/* ended badly before the others */
	int work;			/* -1 unknown, 0 blocked, 1 working */
	bool progressed;		/* its stack or I/O moved during the stall */
	bool why_later;			/* work_why made when asked for */
	bool blamed;
	bool worker;			/* a DataLoader worker of its main (workers.c) */
	const char *work_why;		/* why, in words: ht_rep_work_why */
	struct rep_group *group;	/* its stack group, if stalled */
	struct rep_dump *last_dump;
	struct rep_vec *rel;		/* for a main: its wrappers and children: rep_rel() */

	/* ---- who waits for whom (graph.c) ---- */
	const struct ht_sig *sig;	/* its latest dump's stack signature, or NULL */
	const char *doing;		/* in words, for a main that stalled or waits */
	/* (at_wait, killed, open_stall, root, awaited: above, in the padding) */
	const int64_t *waits_for;	/* ranks it waits for (arrays shared by ranks) */
					/* (nwaits_for: with the counts above) */
	const char *waits_on;		/* or an endpoint, a worker, a file it waits for */
	const char *store_at;		/* the endpoint others wait for it to open */
	double last_ev_ts;		/* its newest line but exit (wall) */

	/* ---- DataLoader workers, build locks (workers.c) ---- */
	/* (a main's DataLoader workers, its latest build_lock line: in rare) */
};

/* A main's wrappers and children (none: an empty vector). */
extern const struct rep_vec ht_rep_vec_none;
static inline const struct rep_vec *rep_rel(const struct rep_proc *p)
{
	return p->rel != NULL ? p->rel : &ht_rep_vec_none;
}

/* Phase i of p (HT_PHASE_*): ht_rep_phase_none, all zero, when it has
 * none of it (i out of range included). */
extern const struct rep_phase ht_rep_phase_none;
_Static_assert(HT_PHASE_COUNT <= 8, "ph_has holds a bit for each phase");
static inline const struct rep_phase *rep_ph(const struct rep_proc *p, int i)
{
	if ((unsigned)i >= HT_PHASE_COUNT)
		return &ht_rep_phase_none;
	if (p->ph_dense)
		return &p->ph[i];
	unsigned bit = 1u << i;
	return p->ph_has & bit ? &p->ph[__builtin_popcount(p->ph_has & (bit - 1))] :
				 &ht_rep_phase_none;
}
/* Where phase i of p began and ended (REP_NOLOC: not told). */
static inline struct rep_loc rep_ph_loc(const struct rep_proc *p, uint32_t line, uint32_t off)
{
	return line > 0 ? (struct rep_loc){ p->file, line, off } : REP_NOLOC;
}
static inline struct rep_loc rep_ph_begin(const struct rep_proc *p, int i)
{
	return rep_ph_loc(p, rep_ph(p, i)->begin_line, rep_ph(p, i)->begin_off);
}
static inline struct rep_loc rep_ph_end(const struct rep_proc *p, int i)
{
	return rep_ph_loc(p, rep_ph(p, i)->end_line, rep_ph(p, i)->end_off);
}
/* Phase i of p, to write (0 <= i < HT_PHASE_COUNT): p's phases made dense
 * in a the first time (the trace reader's). */
struct rep_phase *ht_rep_ph_w(struct rep_arena *a, struct rep_proc *p, int i);

/*
 * What the records of a host, a communicator or a stack share: one struct
 * for those that say the same, made by the reader that read them. For
 * each kind below, X(TYPE, NAME, RECORD, MEMBER):
 * - rep_NAME(r), what record r's MEMBER points at, or ht_rep_NAME_none
 *   (what a record that told none of it reads: all unknown) when NULL;
 * - ht_rep_NAME_share(a, last, v): v, one of the last few that last holds
 *   that is the same (the same strings: a reader's are interned), else a
 *   copy of it made in a; NULL when it is the none.
 */
#define REP_SHARED_KINDS(X)							\
	X(rep_ident, id, rep_proc, id)		/* host, boot, launcher, job... */ \
	X(rep_hostfacts, hf, rep_proc, hf)	/* its host line's */		\
	X(rep_cudainit, cuda, rep_proc, cuda_init)	/* cuInit's */		\
	X(rep_versions, vers, rep_proc, vers)	/* driver, runtime, NCCL */	\
	X(rep_commid, cid, rep_comm, id)	/* the communicator's */	\
	X(rep_conndest, cd, rep_connect, to)	/* where it went, how it ended */ \
	X(rep_callwhat, cw, rep_call, what)	/* a call's name and result */	\
	X(rep_dstack, dst, rep_dump, st)	/* a dump's main-thread stack */
#define REP_SHARED_DECL(T, NAME, R, M)						\
	extern const struct T ht_rep_##NAME##_none;				\
	static inline const struct T *rep_##NAME(const struct R *r)		\
	{									\
		return r->M != NULL ? r->M : &ht_rep_##NAME##_none;		\
	}									\
	const struct T *ht_rep_##NAME##_share(struct rep_arena *a, struct rep_shared *last, \
					      const struct T *v);
REP_SHARED_KINDS(REP_SHARED_DECL)

/* rep_ahead (util.h) over process records v[0..n): member m; the whole
 * record; what member m points at. */
#define REP_AHEAD_P(v, n, i, m) rep_ahead((void *const *)(v), n, i, offsetof(struct rep_proc, m))
#define REP_AHEAD_ALL(v, n, i) rep_ahead_all((void *const *)(v), n, i, sizeof(struct rep_proc))
#define REP_AHEAD_IN(v, n, i, m) \
	rep_ahead_in((void *const *)(v), n, i, offsetof(struct rep_proc, m), 0)
#define REP_AHEAD_IN_AT(v, n, i, m, T, tm) \
	rep_ahead_in((void *const *)(v), n, i, offsetof(struct rep_proc, m), offsetof(T, tm))
/* The lines of its rank, its exit, and its end and stall (what the
 * graph's passes over the mains read). */
#define REP_AHEAD_STATE(v, n, i)                      \
	do {                                          \
		REP_AHEAD_P(v, n, i, rank);           \
		REP_AHEAD_P(v, n, i, have_exit);      \
		REP_AHEAD_P(v, n, i, end);            \
	} while (0)

/* p's ident, to write: a copy of its own made in a. */
struct rep_ident *ht_rep_ident_w(struct rep_arena *a, struct rep_proc *p);
/* p's version k (HT_VER_*) set to value, told by provider at loc. */
void ht_rep_ver_set(struct rep_arena *a, struct rep_shared *last, struct rep_proc *p, int k,
		    int64_t value, const char *provider, const struct rep_loc *loc);

/* What a process without a struct rep_rare has: no NCCL id (its result
 * REP_UNKNOWN), no location, nothing else. */
extern const struct rep_rare ht_rep_rare_none;
static inline const struct rep_rare *rep_rare(const struct rep_proc *p)
{
	return p->rare != NULL ? p->rare : &ht_rep_rare_none;
}
/* p's, to write: made in a (a copy of ht_rep_rare_none) the first time. */
struct rep_rare *ht_rep_rare_w(struct rep_arena *a, struct rep_proc *p);

#define REP_MAX_DUMPS 16
#define REP_MAX_WORLD (1 << 22)	/* larger world sizes are taken as damage */
#define REP_MAX_RING 128

/* ---- the job ------------------------------------------------------------------ */

struct rep_host {
	const char *name, *boot_id;
	struct rep_vec procs;		/* every process traced there */
	struct rep_vec mains;		/* ranked main processes, by rank */
	const struct rep_proc *hf;	/* the process whose host facts are its, or NULL */
	double first_ts;
	double now;			/* its newest line, by its own clock */
};

/* What the rules conclude (rules/verdict.h); the model only holds them. */
struct rep_verdict;
/* The digests given to the reader (read/reader.h), until it has read them. */
struct rep_dgset;
struct rep_dgdoc;
struct rep_farmarks;

struct rep_group {
	int64_t *ranks;			/* sorted; procs without a rank are -1 */
	size_t nranks;
	struct rep_vec procs;
	const char **frames;		/* merged, innermost first */
	size_t nframes;
	int phase;
	int work;			/* -1 unknown, 0 blocked, 1 working (majority) */
	const char *work_why;
	bool blamed;			/* every rank in it is blamed by a verdict */
	bool any_blamed;		/* one of them is (it is shown first) */
	int64_t min_rank;
	size_t index;			/* in job->groups, once ordered */
};

struct rep_warning {
	uint32_t file, line;
	char *msg;
};

struct rep_job {
	struct rep_arena a;
	struct rep_file *files;
	size_t nfiles, cap_files;
	int *dirfds;			/* open folders the files are opened in */
	size_t ndirfds;
	struct rep_vec procs;		/* every process record, in file order */
	struct rep_warning *warns;
	size_t nwarns, cap_warns;
	size_t warns_dropped;
	int nthreads;			/* readers to run (0: pick) */
	struct rep_dgset *dg;		/* digests loaded, or NULL (read/digest_read.c) */
	struct rep_farmarks *far;	/* where lines past 4 GiB start (read/evidence.c) */

	/* model */
	const char *kind;		/* the launcher kind of the rank numbering */
	const char *framework;
	const char *job_id;
	int64_t world_size;		/* -1 unknown */
	const char *ws_source;
	struct rep_loc ws_loc;
	struct rep_vec mains;		/* ranked mains, by rank (duplicates adjacent) */
	struct rep_vec unranked;	/* mains without a rank identity */
	struct rep_vec others;		/* identity of another kind, not a rank here */
	struct rep_host **hosts;
	size_t nhosts;
	int64_t *missing;
	size_t nmissing;
	double t0, now;			/* wall clock of the first and last line */
	bool stuck;			/* a rank waits: stalled or killed while waiting */
	bool failed;			/* a rank ended badly */
	bool clock_note;		/* hosts' start times disagree widely */

	struct rep_verdict **verdicts;
	size_t nverdicts, cap_verdicts;
	struct rep_group **groups;
	size_t ngroups;
	bool demangle;

	/* How the job ended (SPEC section 8, job.ended). */
	enum rep_ended { REP_JOB_RUNNING, REP_JOB_COMPLETED, REP_JOB_KILLED, REP_JOB_FAILED } ended;
	const char *ended_signal;	/* killed: the signal */
	double ended_at;		/* killed: the first kill (wall) */
	const int64_t *laggards;	/* ranks not at the wait point most ranks are at */
	size_t nlaggards;
	const char *endpoint;		/* the rendezvous endpoint most ranks use, or NULL */
	struct rep_proc **by_rank;	/* world_size entries: the main of each rank, or NULL */
	size_t nby_rank;
};


/* Builds trees, ranks, hosts and each rank's state from job->procs. */
void ht_rep_model(struct rep_job *job);
/* Sets job->ended and marks the ranks killed with the job (ended.c;
 * called by ht_rep_model). */
void ht_rep_job_ended(struct rep_job *job);
/* When p ended (wall clock): its exit, its last line when it vanished,
 * else infinity. */
double ht_rep_end_time(const struct rep_proc *p);
/* Why p was found working or blocked in its stall, in words (made once,
 * when first asked for); NULL when not known. */
const char *ht_rep_work_why(struct rep_job *job, struct rep_proc *p);
/* Frees what ht_rep_model made. */
void ht_rep_model_free(struct rep_job *job);
/* "rank 3", "host n1 pid 42" for a process without a rank. */
const char *ht_rep_who(struct rep_job *job, const struct rep_proc *p);
/* The display name of phase p ("?" when unknown). */
const char *ht_rep_phase_name(int p);
/* Waits, or waited until it gave up: others kept it waiting. */
static inline bool rep_waited(const struct rep_proc *p)
{
	return p->waiting || p->gave_up;
}

/* A rank that waits (or waited until it gave up) or failed: a risk it
 * carried hurt the job. */
static inline bool rep_hurt(const struct rep_proc *p)
{
	return rep_waited(p) || p->failed;
}
/* The main process p belongs to (p itself when it is one). */
struct rep_proc *ht_rep_main_of(struct rep_proc *p);
/* True when a rank has reached steady. */
bool ht_rep_steady(const struct rep_proc *p);
/* The ranks whose main is in phase ph (-1: before launch) into ranks
 * (room for every main), sorted without repeats; how many of them are
 * stalled, and how many ended (not counting those killed while waiting). */
size_t ht_rep_phase_ranks(const struct rep_job *job, int ph, int64_t *ranks, size_t *stalled,
			  size_t *ended);
/* Seconds since the job's first line (0 at the earliest) of a time of p's
 * own clock: its mono when known (on the wall clock of its first line),
 * else the wall time ts. */
double ht_rep_job_secs(const struct rep_job *job, const struct rep_proc *p, double mono,
		       double ts);
/* The same for the end of p: its exit, its last line when it vanished,
 * else the newest line of the job (it is still there). */
double ht_rep_end_secs(const struct rep_job *job, const struct rep_proc *p);

#endif
