// SPDX-License-Identifier: MIT
/*
 * fixture.h: what the report's Check suites share: finding the fixture
 * folders (tests/fixtures/report/<case>, written by fixtures.py) from the
 * repository root or from the runner's place in the build folder, and
 * running the whole report over one case.
 */
#ifndef HT_TESTS_REPORT_FIXTURE_H
#define HT_TESTS_REPORT_FIXTURE_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"

/* The folder of case name, or NULL. */
static inline const char *fixture_dir(const char *name, char *out, size_t cap)
{
	static const char *const roots[] = { "tests/fixtures/report", "../tests/fixtures/report",
					     "../../tests/fixtures/report" };
	char self[PATH_MAX / 2];
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(out, cap, "%s/%s", roots[i], name);
		if (access(out, R_OK) == 0)
			return out;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		/* $B/tests/check_runner, $B usually the repository's build/ */
		for (int up = 0; up < 3; up++) {
			char *s = strrchr(self, '/');
			if (s != NULL)
				*s = '\0';
		}
		if ((size_t)snprintf(out, cap, "%.*s/tests/fixtures/report/%.100s", (int)(cap / 2),
				     self, name) < cap && access(out, R_OK) == 0)
			return out;
	}
	return NULL;
}

/* Reads and analyses case name into job (initialised here). */
static inline size_t fixture_run(struct rep_job *job, const char *name)
{
	char dir[PATH_MAX];
	ht_rep_job_init(job);
	if (fixture_dir(name, dir, sizeof(dir)) == NULL)
		return 0;
	if (ht_rep_add_path(job, dir) <= 0)
		return 0;
	size_t n = ht_rep_read(job);
	if (n > 0)
		ht_rep_analyse(job);
	return n;
}

/* ---- traces built in memory ---------------------------------------------------- */

/* A header and a launch line of a rank (rank < 0: no identity). */
static inline void mem_header(struct rep_buf *b, const char *host, int pid, int rank, int ws,
			      double t)
{
	char id[128];
	if (rank >= 0)
		snprintf(id, sizeof(id), "\"rank\":%d,\"world_size\":%d,\"local_rank\":%d,"
			 "\"launcher\":\"torchrun\"", rank, ws, rank);
	else
		snprintf(id, sizeof(id), "\"rank\":null,\"world_size\":null,\"local_rank\":null,"
			 "\"launcher\":null");
	ht_rep_buf_printf(b, "{\"t\":\"header\",\"ts\":%.6f,\"mono\":%.6f,\"format\":\"hangtrace/1\","
			  "\"host\":\"%s\",\"pid\":%d,\"ppid\":1,%s,\"relevant\":\"identity\","
			  "\"boot_id\":\"b-%s\",\"timeout\":60.000000,\"cmdline\":[\"python3\",\"t.py\"],"
			  "\"env\":{}}\n", 1700000000.0 + t, 100.0 + t, host, pid, id, host);
	ht_rep_buf_printf(b, "{\"t\":\"phase\",\"ts\":%.6f,\"mono\":%.6f,\"tid\":%d,"
			  "\"phase\":\"launch\",\"state\":\"begin\"}\n", 1700000000.0 + t,
			  100.0 + t, pid);
}

static inline void mem_line(struct rep_buf *b, int pid, double t, const char *type,
			    const char *fields)
{
	ht_rep_buf_printf(b, "{\"t\":\"%s\",\"ts\":%.6f,\"mono\":%.6f,\"tid\":%d%s%s}\n",
			  type, 1700000000.0 + t, 100.0 + t, pid, fields[0] != '\0' ? "," : "", fields);
}

/* A dump: stall, the main thread (frames and python given as JSON array
 * bodies, python NULL for none), one other thread, dump_end. */
static inline void mem_dump(struct rep_buf *b, int pid, double t, int no, const char *phase,
			    const char *frames, const char *python, double cpu, long io)
{
	ht_rep_buf_printf(b, "{\"t\":\"stall\",\"ts\":%.6f,\"mono\":%.6f,\"tid\":%d,\"dump\":%d,"
			  "\"reason\":\"timeout\",\"phase\":\"%s\",\"n\":%d,\"calls\":[]}\n",
			  1700000000.0 + t, 100.0 + t, pid + 1, no, phase, no);
	ht_rep_buf_printf(b, "{\"t\":\"thread\",\"ts\":%.6f,\"mono\":%.6f,\"dump\":%d,\"tid\":%d,"
			  "\"name\":\"w\",\"main\":false,\"state\":\"S\",\"cpu\":0.1,"
			  "\"answered\":true,\"frames\":[\"poll (libc.so.6+0x10)\"]}\n",
			  1700000000.0 + t, 100.0 + t, no, pid + 5);
	ht_rep_buf_printf(b, "{\"t\":\"thread\",\"ts\":%.6f,\"mono\":%.6f,\"dump\":%d,\"tid\":%d,"
			  "\"name\":\"python3\",\"main\":true,\"state\":\"S\",\"cpu\":%.6f,"
			  "\"answered\":true,\"frames\":[%s]%s%s%s}\n", 1700000000.0 + t, 100.0 + t, no,
			  pid, cpu, frames, python != NULL ? ",\"python\":[" : "",
			  python != NULL ? python : "", python != NULL ? "]" : "");
	ht_rep_buf_printf(b, "{\"t\":\"dump_end\",\"ts\":%.6f,\"mono\":%.6f,\"tid\":%d,\"dump\":%d,"
			  "\"threads\":2,\"io\":{\"rchar\":%ld,\"wchar\":0},\"collectives\":[]}\n",
			  1700000000.0 + t, 100.0 + t, pid + 1, no, io);
}

/* Adds the buffer as file name of job (the buffer must outlive job). */
static inline void mem_add(struct rep_job *job, const char *name, const struct rep_buf *b)
{
	ht_rep_add_buffer(job, name, b->s, b->n);
}

#endif
