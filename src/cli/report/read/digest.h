// SPDX-License-Identifier: MIT
/*
 * digest.h: what the digest's writer (digest_write.c) and reader
 * (digest_read.c) share: the format's name, and the members of each record
 * as tables of (name, type, offset), so that what is written and what is
 * read back are one list. doc/trace-format.md ("Digests") describes them.
 *
 * A record is written as the members that differ from its base's (the
 * record at the same place of an earlier process, digest_write.c): a
 * mask of their places in its table, then each value (struct rep_dval)
 * as one token (struct rep_dgtok): an integer
 * or a time in whole microseconds as what is added to the base's, a mono
 * time against its line's wall time (rep_dg_pairs), none for a member
 * that holds its type's "unknown" where the base's did not (an int64_t
 * REP_UNKNOWN, a double NaN, a NULL string, a false bool, a location
 * without a line, a zero uint32_t, uint64_t or char). Read back against
 * the same base, a record is the record the reader made, member for
 * member.
 */
#ifndef HT_REP_DIGEST_H
#define HT_REP_DIGEST_H

#include <stddef.h>
#include <zlib.h>

#include "read/buildlock.h"
#include "read/checkfacts.h"
#include "reader.h"

#define HT_DIGEST_PREFIX "{\"digest\":"
/* A digest cut in parts, one line each (cli/digest.c under mpirun, whose
 * output forwarding cuts long lines of several ranks into each other):
 * {"digest_part":ID,"i":K,"n":N,"data":TEXT}, TEXT the K-th piece (from 0)
 * of the digest's line; the reader joins the N pieces of an ID. */
#define HT_DIGEST_PART_PREFIX "{\"digest_part\":"

/* A quoted line's member value longer than this is cut (and closed, so the
 * line still reads as members): evidence quotes at most 320 bytes of a line. */
#define REP_DIGEST_VALUE_MAX 512

enum rep_ft { FT_I64, FT_INT, FT_U32, FT_U64, FT_DBL, FT_STR, FT_BOOL, FT_CHAR, FT_LOC };

struct rep_fd {
	const char *name;
	unsigned char type;
	size_t off;
};

#define REP_FT_OF(x) _Generic((x), int64_t: FT_I64, int: FT_INT, uint32_t: FT_U32,	\
			      uint64_t: FT_U64, double: FT_DBL, const char *: FT_STR,	\
			      char *: FT_STR, bool: FT_BOOL, char: FT_CHAR,		\
			      struct rep_loc: FT_LOC)
#define FD(S, f) { #f, REP_FT_OF(((struct S *)0)->f), offsetof(struct S, f) }
#define FD_N(t) (sizeof(t) / sizeof((t)[0]))
/* A member of a struct S that a record points at (model.h), in the
 * record's table as NAME: its offset there, marked with FLAG. ht_dg_at
 * finds it; get_fields (digest_read.c) reads it there. */
#define FD_IN(S, FLAG, NAME, f) { NAME, REP_FT_OF(((struct S *)0)->f), (FLAG) | offsetof(struct S, f) }
/* A process's struct rep_rare, rep_ident, rep_hostfacts (named hf.MEMBER,
 * as before) and rep_cudainit (named as the process's cuda_init.MEMBER
 * was); a dump's struct rep_dstack, a communicator init's rep_commid, a
 * connection's rep_conndest and a call's rep_callwhat (named as the
 * record's members were). */
#define FD_RARE ((size_t)1 << 30)
#define FD_ID ((size_t)1 << 29)
#define FD_CUDA ((size_t)1 << 28)
#define FD_HF ((size_t)1 << 27)
#define FD_DST ((size_t)1 << 26)
#define FD_CID ((size_t)1 << 25)
#define FD_CD ((size_t)1 << 24)
#define FD_CW ((size_t)1 << 23)
#define FD_MARKS (FD_RARE | FD_ID | FD_CUDA | FD_HF | FD_DST | FD_CID | FD_CD | FD_CW)
#define FDR(f) FD_IN(rep_rare, FD_RARE, #f, f)
#define FDI(f) FD_IN(rep_ident, FD_ID, #f, f)
#define FDH(f) FD_IN(rep_hostfacts, FD_HF, "hf." #f, f)
#define FDC(f) FD_IN(rep_cudainit, FD_CUDA, "cuda_init." #f, f)
#define FDS(f) FD_IN(rep_dstack, FD_DST, #f, f)
#define FDK(f) FD_IN(rep_commid, FD_CID, #f, f)
#define FDD(f) FD_IN(rep_conndest, FD_CD, #f, f)
#define FDW(f) FD_IN(rep_callwhat, FD_CW, #f, f)

/* The process record's own members; its arrays and what hangs off it are
 * written by name in digest_write.c. The model's members (after "the
 * model" in model.h) are not written: the model makes them again. */
static const struct rep_fd rep_dg_proc[] = {
	FD(rep_proc, hdr), FDI(host), FDI(boot_id), FDI(launcher),
	FDI(job), FDI(relevant), FDI(exe), FDI(cmd),
	FD(rep_proc, pid), FD(rep_proc, ppid), FDR(fork_parent),
	FD(rep_proc, start_ticks), FDI(pid_ns), FD(rep_proc, rank),
	FDI(world_size), FD(rep_proc, local_rank), FDI(id_kind),
	FD(rep_proc, id_loc), FD(rep_proc, ts0), FD(rep_proc, mono0), FD(rep_proc, last_ts),
	FD(rep_proc, last_mono), FDI(timeout), FD(rep_proc, cuda_inherited),
	FD(rep_proc, truncated), FD(rep_proc, lines), FDI(cvd),
	FDI(master_addr), FDI(master_port), FDI(nccl_comm_id),
	FDI(fw_hint), FD(rep_proc, cur_phase), FD(rep_proc, epoch), FD(rep_proc, nexec),
	FDC(via), FDC(error), FDC(libcuda), FDC(result), FDC(driver_version),
	FDC(runtime_version), FDC(stub),
	{ "cuda_init.loc", FT_LOC, offsetof(struct rep_proc, cuda_init_loc) },
	FD(rep_proc, device.uuid), FD(rep_proc, device.pci), FD(rep_proc, device.visible),
	FD(rep_proc, device.via), FD(rep_proc, device.ordinal), FD(rep_proc, device.count),
	FD(rep_proc, device.local_rank), FD(rep_proc, device.have), FD(rep_proc, device.loc),
	FDR(nccl_id.root), FDR(nccl_id.id_hash), FDR(nccl_id.error),
	FDR(nccl_id.last_error), FDR(nccl_id.result), FDR(nccl_id.loc),
	FDR(first_coll.comm), FDR(first_coll.op), FDR(first_coll.dtype),
	FDR(first_coll.redop), FDR(first_coll.seq), FDR(first_coll.count),
	FDR(first_coll.peer), FDR(have_first_coll), FDR(steady_fn),
	FDH(have), FDH(ifaces), FDH(nccl_ifname), FDH(gloo_ifname), FDH(nccl_match),
	FDH(gloo_match), FDH(shm_total),
	{ "hf.shm_free", FT_I64, offsetof(struct rep_proc, hf_shm_free) }, FDH(cpus),
	{ "hf.loc", FT_LOC, offsetof(struct rep_proc, hf_loc) },
	FD_IN(rep_cudainit, FD_CUDA, "cuda_count", device_count),
	FDR(cuda_after_fork), FDR(cuda_hung),
	FDR(cuda_fork_loc), FD(rep_proc, colls_total), FDR(nforks),
	FDR(nforks_cuda), FDR(fork_cuda_loc), FDR(degraded),
	FDR(degraded_msg), FDR(degraded_calls), FDR(degraded_loc),
	FD(rep_proc, last_call_end_stalled), FD(rep_proc, have_exit),
	FD(rep_proc, exit_after_dump), FD(rep_proc, exit_status), FD(rep_proc, exit_signal),
	FD(rep_proc, exit_ts),
	/* (the line of exit_loc, written apart as it always was) */
	{ "exit_line", FT_U32, offsetof(struct rep_proc, exit_loc) + offsetof(struct rep_loc, line) },
	FD(rep_proc, exit_loc),
	FDR(signal), FD(rep_proc, last_ev_ts),
};

/* (end last: digest_write.c keeps its line for cuda_init only) */
/* (a struct rep_phase_rec: a phase with its lines in full) */
#define FDP(f) { #f, REP_FT_OF(((struct rep_phase *)0)->f), offsetof(struct rep_phase_rec, ph.f) }
static const struct rep_fd rep_dg_phase[] = {
	FDP(begun), FDP(ended), FDP(errored), FDP(ts),
	FDP(mono), FDP(end_ts), FDP(end_mono),
	FD(rep_phase_rec, begin), FD(rep_phase_rec, end),
};

static const struct rep_fd rep_dg_version[] = {
	FD(rep_version, value), FD(rep_version, provider), FD(rep_version, loc),
};

static const struct rep_fd rep_dg_connect[] = {
	FDD(dest), FDD(role), FDD(result),
	FDD(error), FDD(tcp_state), FD(rep_connect, count),
	FDD(err), FD(rep_connect, first), FD(rep_connect, last), FD(rep_connect, ts),
	FDD(probe), FD(rep_connect, loc),
};

static const struct rep_fd rep_dg_listen[] = {
	FD(rep_listen, addr), FD(rep_listen, role), FD(rep_listen, accepted), FD(rep_listen, loc),
};

static const struct rep_fd rep_dg_bindfail[] = {
	FD(rep_bindfail, addr), FD(rep_bindfail, role), FD(rep_bindfail, error),
	FD(rep_bindfail, holder_pid), FD(rep_bindfail, holder_cmd), FD(rep_bindfail, loc),
};

static const struct rep_fd rep_dg_store[] = {
	FD(rep_store, path), FD(rep_store, size), FD(rep_store, mtime), FD(rep_store, loc),
};

static const struct rep_fd rep_dg_resolve[] = {
	FD(rep_resolve, what), FD(rep_resolve, name), FD(rep_resolve, addrs),
	FD(rep_resolve, error), FD(rep_resolve, loopback), FD(rep_resolve, loc),
};

static const struct rep_fd rep_dg_cuda_err[] = {
	FD(rep_cuda_err, fn), FD(rep_cuda_err, error), FD(rep_cuda_err, result),
	FD(rep_cuda_err, ordinal), FD(rep_cuda_err, after_fork), FD(rep_cuda_err, hung),
	FD(rep_cuda_err, loc),
};

static const struct rep_fd rep_dg_comm[] = {
	FDK(fn), FD(rep_comm, comm), FDK(root), FDK(id_hash),
	FDK(commid), FDK(parent), FDK(error),
	FDK(last_error), FDK(comm_name), FDK(nranks),
	FD(rep_comm, rank), FD(rep_comm, result), FDK(color), FD(rep_comm, tid),
	FD(rep_comm, ended), FD(rep_comm, failed), FD(rep_comm, nested), FD(rep_comm, ts),
	FD(rep_comm, mono), FD(rep_comm, begin), FD(rep_comm, end),
};

static const struct rep_fd rep_dg_coll[] = {
	FD(rep_coll, comm), FD(rep_coll, op), FD(rep_coll, dtype), FD(rep_coll, redop),
	FD(rep_coll, seq), FD(rep_coll, count), FD(rep_coll, peer),
};

static const struct rep_fd rep_dg_call[] = {
	FDW(name), FD(rep_call, id), FDW(result), FD(rep_call, ts),
	FD(rep_call, mono), FD(rep_call, end_ts), FD(rep_call, end_mono), FD(rep_call, ended),
	FD(rep_call, stalled), FD(rep_call, loc),
};

/* A dump's frames and Python frames are written as indices in the
 * digest's table of stacks ("frames", "py"). */
static const struct rep_fd rep_dg_dump[] = {
	FD(rep_dump, no), FD(rep_dump, n), FD(rep_dump, reason), FD(rep_dump, phase),
	FD(rep_dump, ts), FD(rep_dump, mono), FD(rep_dump, phase_age), FD(rep_dump, call),
	FD(rep_dump, call_age), FD(rep_dump, epoch),
	/* (the line of loc, written apart as it always was) */
	{ "line", FT_U32, offsetof(struct rep_dump, loc) + offsetof(struct rep_loc, line) },
	FD(rep_dump, loc),
	FD(rep_dump, main_loc), FD(rep_dump, end_loc), FD(rep_dump, nthreads),
	FD(rep_dump, main_seen), FD(rep_dump, have_main), FD(rep_dump, answered),
	FD(rep_dump, state), FD(rep_dump, cpu), FD(rep_dump, io), FDS(stack_hash),
	FDS(wchan), FDS(syscall), FD(rep_dump, unanswered),
	FD(rep_dump, frames_of), FDS(py_status), FD(rep_dump, cut),
	FD(rep_dump, undeclared),
};

static const struct rep_fd rep_dg_chkline[] = {
	FD(rep_chkline, check), FD(rep_chkline, result), FD(rep_chkline, code),
	FD(rep_chkline, why), FD(rep_chkline, loc),
};

static const struct rep_fd rep_dg_checkfacts[] = {
	FD(rep_checkfacts, have_ib), FD(rep_checkfacts, ib_in_use), FD(rep_checkfacts, roce),
	FD(rep_checkfacts, gid_index), FD(rep_checkfacts, hca), FD(rep_checkfacts, ib_loc),
};

static const struct rep_fd rep_dg_ibprob[] = {
	FD(rep_ibprob, dev), FD(rep_ibprob, what), FD(rep_ibprob, port),
};

static const struct rep_fd rep_dg_buildlock[] = {
	FD(rep_buildlock, root), FD(rep_buildlock, via), FD(rep_buildlock, more_locks),
	FD(rep_buildlock, ts), FD(rep_buildlock, loc),
};

/* The tables: a record's members are "MASK:VALUES", bit i of MASK the
 * member at place i of its table. A format's tables only grow at their ends
 * (a reader passes over members past the end of its own); a member
 * removed or moved is a new format (HT_DIGEST_FORMAT). */
enum rep_dgtab_id { DG_PROC, DG_PHASE, DG_VERSION, DG_CONNECT, DG_LISTEN, DG_BINDFAIL, DG_STORE, DG_RESOLVE, DG_CUDA_ERR, DG_COMM, DG_COLL, DG_CALL, DG_DUMP, DG_CHKLINE, DG_CHECKFACTS, DG_IBPROB, DG_BUILDLOCK, DG_NTABLES };
struct rep_dgtab {
	const char *name;
	const struct rep_fd *fd;
	size_t n;
};
static const struct rep_dgtab rep_dg_tabs[DG_NTABLES] = {
	{ "proc", rep_dg_proc, FD_N(rep_dg_proc) },
	{ "phase", rep_dg_phase, FD_N(rep_dg_phase) },
	{ "version", rep_dg_version, FD_N(rep_dg_version) },
	{ "connect", rep_dg_connect, FD_N(rep_dg_connect) },
	{ "listen", rep_dg_listen, FD_N(rep_dg_listen) },
	{ "bindfail", rep_dg_bindfail, FD_N(rep_dg_bindfail) },
	{ "store", rep_dg_store, FD_N(rep_dg_store) },
	{ "resolve", rep_dg_resolve, FD_N(rep_dg_resolve) },
	{ "cuda_err", rep_dg_cuda_err, FD_N(rep_dg_cuda_err) },
	{ "comm", rep_dg_comm, FD_N(rep_dg_comm) },
	{ "coll", rep_dg_coll, FD_N(rep_dg_coll) },
	{ "call", rep_dg_call, FD_N(rep_dg_call) },
	{ "dump", rep_dg_dump, FD_N(rep_dg_dump) },
	{ "chkline", rep_dg_chkline, FD_N(rep_dg_chkline) },
	{ "checkfacts", rep_dg_checkfacts, FD_N(rep_dg_checkfacts) },
	{ "ibprob", rep_dg_ibprob, FD_N(rep_dg_ibprob) },
	{ "buildlock", rep_dg_buildlock, FD_N(rep_dg_buildlock) },
};

/* The arrays of records a process record holds, by the key the digest
 * writes them under (dgcodec.c: where each is in struct rep_proc). */
enum rep_dgarr { DA_CONN, DA_LISTEN, DA_BINDFAIL, DA_STORE, DA_RES, DA_CERR, DA_COMMS, DA_RING,
		 DA_CALLS, DA_DUMPS, DA_N };
struct rep_dgarrdef {
	const char *key;
	int table;
	size_t size;
};
static const struct rep_dgarrdef rep_dg_arrs[DA_N] = {
	{ "conn", DG_CONNECT, sizeof(struct rep_connect) },
	{ "listen", DG_LISTEN, sizeof(struct rep_listen) },
	{ "bind_fail", DG_BINDFAIL, sizeof(struct rep_bindfail) },
	{ "store", DG_STORE, sizeof(struct rep_store) },
	{ "res", DG_RESOLVE, sizeof(struct rep_resolve) },
	{ "cerr", DG_CUDA_ERR, sizeof(struct rep_cuda_err) },
	{ "comms", DG_COMM, sizeof(struct rep_comm) },
	{ "ring", DG_COLL, sizeof(struct rep_coll) },
	{ "calls", DG_CALL, sizeof(struct rep_call) },
	{ "dumps", DG_DUMP, sizeof(struct rep_dump) },
};
/* Array a of p: its records, and how many in *n. */
void *ht_dg_arr(const struct rep_proc *p, int a, size_t *n);
/* Sets array a of p (n records at v). */
void ht_dg_arr_set(struct rep_arena *ar, struct rep_proc *p, int a, void *v, size_t n);

/* Mono times written against the wall time of their own line: each is
 * its base's plus as much as its wall time moved, plus what is written
 * (a few microseconds, where the two clocks were read apart). */
struct rep_dgpair {
	int table;
	const char *mono, *wall;
};
static const struct rep_dgpair rep_dg_pairs[] = {
	{ DG_PROC, "mono0", "ts0" }, { DG_PROC, "last_mono", "last_ts" },
	{ DG_PHASE, "mono", "ts" }, { DG_PHASE, "end_mono", "end_ts" },
	{ DG_COMM, "mono", "ts" }, { DG_CALL, "mono", "ts" }, { DG_CALL, "end_mono", "end_ts" },
	{ DG_DUMP, "mono", "ts" },
};

/* ---- dgcodec.c: a member's value as written ------------------------------------- */

/* A member's value as the digest compares it with its base's: unknown,
 * an integer, a time in whole microseconds (a double that is one exactly,
 * as a trace's %.6f times are), another double, a string, true, a 64-bit
 * hash, a location (its line, the index of its text in its record's
 * texts or -1, its file or -1 for the record's own). */
enum rep_dvkind { DV_NONE, DV_INT, DV_MICRO, DV_REAL, DV_STR, DV_TRUE, DV_U64, DV_LOC };
/* (16 bytes: a reader copies each record's values from its base's) */
#define DV_TEXT_MAX (1 << 23)
struct rep_dval {
	union {
		int64_t i;	/* INT, MICRO, U64; LOC: the line */
		double d;	/* REAL */
		const char *s;	/* STR */
	};
	int32_t text : 24;	/* LOC: -1 ... DV_TEXT_MAX - 1 */
	uint32_t k : 8;
	int32_t file;		/* LOC */
};
_Static_assert(sizeof(struct rep_dval) == 16, "a record's values are copied from its base's");
/* Memory for the values of a record while it may be a base: taken from
 * blocks kept for the next record once reset (not zeroed). */
struct rep_dgblk;
struct rep_dgslab {
	struct rep_dgblk *head, *cur;
	size_t used;
};
void *ht_dg_slab_alloc(struct rep_dgslab *s, size_t n);
/* Done with what s gave: its blocks kept for the next record, or (free_)
 * given back. */
void ht_dg_slab_end(struct rep_dgslab *s, bool free_);
/* v as a whole number of microseconds, when it is one exactly. */
bool ht_dg_micros(double v, int64_t *n);
bool ht_dg_dval_eq(const struct rep_dval *a, const struct rep_dval *b);
/* For each member of table t: the index of the wall time a mono time is
 * written against (rep_dg_pairs), or -1. */
#define DG_MAX_MEMBERS 128
const int *ht_dg_pairs(int t);
/* Where the stacks and the records ("stacks" and "procs", plen bytes
 * from the comma before "stacks") and "x" go in a digest whose other
 * members, written with "xat":0,"pat":0, are len bytes: the stacks at
 * that text's last byte, '}', once the digits of pat and xat replace the
 * 0s, and "x" after the records. */
void ht_dg_places(size_t len, size_t plen, size_t *pat, size_t *xat);
/* The stacks (frames, py; -1 none) of dump j's base, for the writer and
 * the reader alike: the base record's dump j (of its nb, stacks at bs),
 * else the record's own dump before it (stacks at rs), else none. */
void ht_dg_stack_base(const json_int_t *bs, size_t nb, const json_int_t *rs, size_t j,
		      json_int_t *fr, json_int_t *py);
/* The offsets of table t's locations (FT_LOC members), *n of them. */
const size_t *ht_dg_locs(int t, size_t *n);
/* Where the member at off (a struct rep_fd's) of record rec is: in the
 * struct its marker names (FD_IN), the record's (ht_rep_rare_none, or a
 * kind's none, when it has none: so only to read), else in the record. */
static inline const void *ht_dg_at(const void *rec, size_t off)
{
	const void *in = rec;
	switch (off & FD_MARKS) {
	case FD_RARE: in = rep_rare(rec); break;
	case FD_ID: in = rep_id(rec); break;
	case FD_CUDA: in = rep_cuda(rec); break;
	case FD_HF: in = rep_hf(rec); break;
	case FD_DST: in = rep_dst(rec); break;
	case FD_CID: in = rep_cid(rec); break;
	case FD_CD: in = rep_cd(rec); break;
	case FD_CW: in = rep_cw(rec); break;
	default: break;
	}
	return (const char *)in + (off & ~FD_MARKS);
}
/* A record's members given ("MASK:VALUES"): MASK the hex digits (most
 * significant first, no leading 0) of the bits of the members given,
 * member i bit i, their values after the colon in the members' order,
 * each one token (struct rep_dgtok). */
#define DG_MASK_MAX (DG_MAX_MEMBERS / 4 + 1)
/* The mask of given[0 .. n) into out (DG_MASK_MAX + 1 bytes); "" if none. */
void ht_dg_mask_write(const bool *given, size_t n, char *out);
/* Reads mask s (len bytes): pos[f] (f < n) the place of member f's value
 * in the record's array (1 ...), 0 when not given; *nvals the values it
 * names, members past n (a later format's) among them. False: not a mask. */
bool ht_dg_mask_read(const char *s, size_t len, size_t n, uint16_t *pos, size_t *nvals);
/* A value as a record's members write it, one token each, each known by
 * its first character (doc/trace-format.md, "Values"): an integer in
 * base-64 VLQ digits (A-Z a-z 0-9 + /; the first digit's bit 0 the sign
 * and bits 1-4 the lowest bits, each digit's bit 5 "more follow", then 5
 * bits a digit), '~' none, '!' true, '.' a real's text up to ';', '\''
 * a string (its length in bytes as an integer, then its bytes), '(' a
 * location (line, text, and its file where not the record's own) up to
 * ')'. */
enum rep_dgtok_kind { DT_INT = 'i', DT_NONE = '~', DT_TRUE = '!', DT_REAL = '.', DT_STR = '\'',
		      DT_LOC = '(' };
struct rep_dgtok {
	char k;
	int64_t i;		/* INT; LOC: the line */
	double d;		/* REAL */
	const char *s;		/* STR: len bytes, not NUL-terminated */
	size_t len;
	int64_t text, file;	/* LOC: file -1 when the record's own */
};
/* v's VLQ digits onto b; the one at *p (not past end) into *v, *p after it. */
void ht_dg_vlq_put(struct rep_buf *b, int64_t v);
bool ht_dg_vlq_get(const char **p, const char *end, int64_t *v);
void ht_dg_tok_put(struct rep_buf *b, const struct rep_dgtok *t);
/* The token at *p (not past end), *p after it; false: none that reads. */
bool ht_dg_tok_get(const char **p, const char *end, struct rep_dgtok *t);

/* A digest's table of stacks and its quoted lines ("x") are written
 * packed: [LEN, TEXT], TEXT the base-64 (RFC 4648, with padding) of the
 * zlib stream (RFC 1950) of the member's JSON text, which is LEN bytes.
 * The packed value of the n bytes at s (NULL: they could not be packed). */
json_t *ht_dg_pack(const char *s, size_t n);
/* What unpacking keeps from one member to the next (a reading thread's:
 * its decoder and buffers made once); zeroed to begin. */
struct rep_dgunpack {
	z_stream s;
	bool ready;
	uint8_t *z;
	char *t;
	size_t zcap, tcap;
};
void ht_dg_unpack_free(struct rep_dgunpack *u);
/* The text that the packed member v holds (len bytes, NUL-terminated, in
 * u's buffer until its next call); NULL when v is not packed or cannot be
 * read. */
const char *ht_dg_unpack_text(json_t *v, struct rep_dgunpack *u, size_t *len);
/* The same of a packed member's LEN (n) and TEXT (b64, blen bytes). */
const char *ht_dg_unpack_raw(int64_t n, const char *b64, size_t blen, struct rep_dgunpack *u,
			     size_t *len);
/* What the member v holds: v itself when it is not packed (a new
 * reference), else the JSON value of the text it packs; NULL when that
 * cannot be read. u: what is kept between calls, or NULL. */
json_t *ht_dg_unpack(json_t *v, struct rep_dgunpack *u);

/* The JSON string at *p (its opening quote; not past end): its text at
 * *s, *len bytes, *p after its closing quote. Printable ASCII without an
 * escape is read where it is (the records of a digest, which jansson would
 * take byte by byte); any other is read by jansson into *own (malloc'd,
 * NUL-terminated; else NULL). False when it is not a JSON string. */
bool ht_dg_jstr(const char **p, const char *end, const char **s, size_t *len, char **own);

/* A quoted line (cur, len bytes, NUL-terminated) as the members it
 * changes of base (NUL-terminated), *size bytes written: NULL when it is
 * not the same members or no shorter so (it is written whole then). */
json_t *ht_dg_text_delta(const char *base, const char *cur, size_t len, size_t *size);
/* The line that delta makes of base (NUL-terminated): malloc'd, *len
 * bytes; NULL when it does not fit base. */
char *ht_dg_text_apply(const char *base, json_t *delta, size_t *len);

#endif
