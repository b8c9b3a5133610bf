// SPDX-License-Identifier: MIT
/*
 * progress.h: what the process itself does, the library's share taken out
 * (SPEC section 6: "its CPU time and I/O, the library's own excluded"). The
 * library's share is its watchdog thread's CPU time, the CPU its signal
 * handlers spend unwinding application threads, the bytes a dump reads
 * (ELF files, /proc) and every byte it writes to the trace. All
 * async-signal-safe; no allocation.
 */
#ifndef HT_PROGRESS_H
#define HT_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ht_io {
	int64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes;
	bool ok;
};

/* The main thread's counters from the kernel (/proc/self/task/PID/). */
struct ht_thread_ctr {
	bool sched_ok;		/* schedstat was read */
	bool csw_ok;		/* status was read */
	int64_t run_ns;		/* time on a CPU */
	int64_t runq_ns;	/* time runnable, waiting for a CPU */
	int64_t vcsw;		/* voluntary context switches: waits that ended */
	int64_t ivcsw;		/* involuntary ones: preempted while it ran */
	bool stat_ok;		/* stat was read */
	char state;		/* its state then: R, S, D (in the disk), ... */
	int64_t majflt;		/* major page faults: code or data read from disk */
};

struct ht_progress {
	int64_t mono_ns;
	int64_t cpu_ns;		/* the process's CPU time less the library's */
	int64_t io;		/* rchar + wchar less the library's */
	int64_t io_calls;	/* syscr + syscw less the library's */
	int64_t disk;		/* read_bytes: what its reads and page faults fetched from storage */
	uint64_t ops;		/* hooked calls completed (MPI, NCCL, CUDA syncs) */
	struct ht_thread_ctr main;	/* the main thread's */
};

/* Reads /proc/self/io (the read itself is counted as the library's);
 * returns the bytes read. */
ssize_t ht_io_read(struct ht_io *io);
/* Brackets library work whose reads and writes are not counted one by one
 * (a dump reading ELF files, the Python dumper's memfd): everything the
 * process read and wrote in between is the library's. */
struct ht_lib_mark {
	struct ht_io io;
	ssize_t n;
	int64_t lib_w, lib_wc;
};
void ht_lib_mark_begin(struct ht_lib_mark *m);
void ht_lib_mark_end(const struct ht_lib_mark *m);
/* The library's share so far. */
int64_t ht_lib_rchar(void);
int64_t ht_lib_wchar(void);
int64_t ht_lib_cpu_ns(void);
int64_t ht_lib_calls(void);
/* One read(2) or write(2) of the library's, of so many bytes. */
void ht_lib_add_read(int64_t bytes);
void ht_lib_add_write(int64_t bytes);
void ht_lib_add_cpu(int64_t ns);
/* CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID). */
int64_t ht_thread_cpu_ns(void);
/* In the watchdog thread: its own CPU is the library's; call now and then
 * (before each sample) so that the share is current. */
void ht_lib_watchdog_cpu_sync(void);
/* The main thread's counters now (its reads counted as the library's). */
void ht_thread_ctr_read(pid_t tid, struct ht_thread_ctr *t);
/* The job's own progress counters now. */
void ht_progress_sample(struct ht_progress *p);

#endif
