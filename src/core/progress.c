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
static int64_t wd_cpu_seen;	/* watchdog thread only */

int64_t ht_lib_rchar(void) { return atomic_load(&lib_r); }
int64_t ht_lib_wchar(void) { return atomic_load(&lib_w); }
int64_t ht_lib_cpu_ns(void) { return atomic_load(&lib_cpu); }
void ht_lib_add_read(int64_t b) { atomic_fetch_add(&lib_r, b); }
void ht_lib_add_write(int64_t b) { atomic_fetch_add(&lib_w, b); }
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
		for (const char *d = p + k + 1; *d == ' ' || (*d >= '0' && *d <= '9'); d++)
			if (*d != ' ')
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
	ht_lib_add_read(n);	/* counted in rchar from the next read on */
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
		ht_lib_add_read(r);
	if (w > 0)
		ht_lib_add_write(w);
}

void ht_progress_sample(struct ht_progress *p)
{
	struct ht_io io;
	ht_io_read(&io);
	p->mono_ns = ht_now();
	p->cpu_ns = ht_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - ht_lib_cpu_ns();
	p->io = io.ok ? io.rchar + io.wchar - ht_lib_rchar() - ht_lib_wchar() : 0;
	p->ops = ht_families_progress();
}
