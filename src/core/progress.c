// SPDX-License-Identifier: MIT
/*
 * progress.c: the process's own CPU time and I/O, less the library's
 * (progress.h). CLOCK_PROCESS_CPUTIME_ID sums every thread, ours included;
 * the watchdog's thread clock and the unwind handlers' time are taken out.
 */
#include <string.h>
#include <time.h>

#include "clock.h"
#include "common.h"
#include "fmt.h"
#include "hangtrace.h"
#include "jsonw.h"
#include "state.h"
#include "writer.h"
#include "families.h"
#include "procfs.h"
#include "progress.h"

static _Atomic int64_t lib_r, lib_w, lib_cpu;
static _Atomic int64_t lib_rc, lib_wc;	/* the library's read and write calls */
static int64_t wd_cpu_seen;	/* watchdog thread only */

int64_t ht_lib_rchar(void) { return atomic_load(&lib_r); }
int64_t ht_lib_wchar(void) { return atomic_load(&lib_w); }
int64_t ht_lib_cpu_ns(void) { return atomic_load(&lib_cpu); }
int64_t ht_lib_calls(void) { return atomic_load(&lib_rc) + atomic_load(&lib_wc); }
void ht_lib_add_read(int64_t b) { atomic_fetch_add(&lib_r, b); atomic_fetch_add(&lib_rc, 1); }
void ht_lib_add_write(int64_t b) { atomic_fetch_add(&lib_w, b); atomic_fetch_add(&lib_wc, 1); }
void ht_lib_add_cpu(int64_t ns) { atomic_fetch_add(&lib_cpu, ns); }

int64_t ht_thread_cpu_ns(void)
{
	return ht_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void ht_lib_watchdog_cpu_sync(void)
{
	int64_t now = ht_thread_cpu_ns();
	if (now > wd_cpu_seen) {
		ht_lib_add_cpu(now - wd_cpu_seen);
		wd_cpu_seen = now;
	}
}

static int64_t field(const char *buf, const char *key)
{
	size_t k = strlen(key);
	for (const char *p = buf; (p = strstr(p, key)) != NULL; p++) {
		if ((p != buf && p[-1] != '\n') || p[k] != ':')
			continue;
		int64_t v = 0;
		for (const char *d = p + k + 1; *d == ' ' || *d == '\t' || (*d >= '0' && *d <= '9'); d++)
			if (*d >= '0')
				v = v * 10 + (*d - '0');
		return v;
	}
	return 0;
}

ssize_t ht_io_read(struct ht_io *io)
{
	char buf[1024];
	ssize_t n = ht_read_file("/proc/self/io", buf, sizeof(buf));
	memset(io, 0, sizeof(*io));
	if (n <= 0)
		return 0;
	/* Counted in rchar and syscr from the next read on: ht_read_file's
	 * read that returned the text and the one that returned 0. */
	ht_lib_add_read(n);
	atomic_fetch_add(&lib_rc, 1);
	io->ok = true;
	io->rchar = field(buf, "rchar");
	io->wchar = field(buf, "wchar");
	io->syscr = field(buf, "syscr");
	io->syscw = field(buf, "syscw");
	io->read_bytes = field(buf, "read_bytes");
	io->write_bytes = field(buf, "write_bytes");
	return n;
}

void ht_lib_mark_begin(struct ht_lib_mark *m)
{
	m->n = ht_io_read(&m->io);
	m->lib_w = ht_lib_wchar();
	m->lib_wc = atomic_load(&lib_wc);
}

void ht_lib_mark_end(const struct ht_lib_mark *m)
{
	struct ht_io now;
	ht_io_read(&now);
	if (!m->io.ok || !now.ok)
		return;
	/* The first read is counted already; trace lines written in between
	 * were counted as they were written. */
	int64_t r = now.rchar - m->io.rchar - m->n;
	int64_t w = now.wchar - m->io.wchar - (ht_lib_wchar() - m->lib_w);
	if (r > 0)
		atomic_fetch_add(&lib_r, r);
	if (w > 0)
		atomic_fetch_add(&lib_w, w);
	/* The calls likewise: the first read's two are counted already. */
	int64_t rc = now.syscr - m->io.syscr - 2;
	int64_t wc = now.syscw - m->io.syscw - (atomic_load(&lib_wc) - m->lib_wc);
	if (rc > 0)
		atomic_fetch_add(&lib_rc, rc);
	if (wc > 0)
		atomic_fetch_add(&lib_wc, wc);
}

/* A small /proc file of ours, read as the library's own I/O. */
static ssize_t lib_read(const char *path, char *buf, size_t cap)
{
	ssize_t n = ht_read_file(path, buf, cap);
	if (n > 0) {
		ht_lib_add_read(n);
		atomic_fetch_add(&lib_rc, 1);	/* the read that returned 0 */
	}
	return n;
}

void ht_thread_ctr_read(pid_t tid, struct ht_thread_ctr *t)
{
	/* status is ~1.4 KiB here; its masks grow with CPUs and NUMA nodes,
	 * and the context switches come last. */
	char path[64], buf[4096];

	memset(t, 0, sizeof(*t));
	ht_task_path(path, sizeof(path), tid, "schedstat");
	if (lib_read(path, buf, sizeof(buf)) > 0) {
		/* "run_ns runq_ns timeslices" (no strtoll: a stall timer's
		 * handler samples too) */
		const char *p = buf;
		int64_t v[2] = { 0, 0 };
		int got = 0;
		for (; got < 2 && *p >= '0' && *p <= '9'; got++) {
			while (*p >= '0' && *p <= '9')
				v[got] = v[got] * 10 + (*p++ - '0');
			while (*p == ' ')
				p++;
		}
		if (got == 2) {
			t->run_ns = v[0];
			t->runq_ns = v[1];
			t->sched_ok = true;
		}
	}
	ht_task_path(path, sizeof(path), tid, "stat");
	struct ht_stat st;
	if (lib_read(path, buf, sizeof(buf) - 1) > 0 && ht_parse_stat(buf, &st)) {
		t->state = st.state;
		t->majflt = (int64_t)st.majflt;
		t->stat_ok = true;
	}
	ht_task_path(path, sizeof(path), tid, "status");
	if (lib_read(path, buf, sizeof(buf)) > 0) {
		t->vcsw = field(buf, "voluntary_ctxt_switches");
		t->ivcsw = field(buf, "nonvoluntary_ctxt_switches");
		t->csw_ok = strstr(buf, "\nvoluntary_ctxt_switches:") != NULL;
	}
}

void ht_progress_sample(struct ht_progress *p)
{
	struct ht_io io;
	ht_io_read(&io);
	p->mono_ns = ht_now();
	p->cpu_ns = ht_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - ht_lib_cpu_ns();
	p->io = io.ok ? io.rchar + io.wchar - ht_lib_rchar() - ht_lib_wchar() : 0;
	p->io_calls = io.ok ? io.syscr + io.syscw - ht_lib_calls() : 0;
	p->disk = io.ok ? io.read_bytes : 0;
	p->ops = ht_families_progress();
	ht_thread_ctr_read(ht_g.pid, &p->main);
}
