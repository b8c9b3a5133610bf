// SPDX-License-Identifier: MIT
/*
 * check_reader.c: reading damaged and unusual traces. A truncated last
 * line, an unknown event type, a line that is not JSON, a file that is not
 * a trace, an empty file: each is a warning naming the file and line, and
 * everything else is still used. Also: records sharing a file, a main
 * thread listed after others, a thread line without "main", several
 * reading threads, and a second report in the same process giving the same
 * answer (no global state).
 */
#include <jansson.h>
#include <stdlib.h>
#include <time.h>

#include "ht_check.h"
#include "fixture.h"
#include "read/reader.h"
#include "read/evidence.h"

static bool has_warning(const struct rep_job *job, const char *file, unsigned line,
			const char *text)
{
	for (size_t i = 0; i < job->nwarns; i++) {
		const struct rep_warning *w = &job->warns[i];
		if (w->file < job->nfiles && strcmp(job->files[w->file].name, file) == 0 &&
		    w->line == line && strstr(w->msg, text) != NULL)
			return true;
	}
	for (size_t i = 0; i < job->nwarns; i++)
		fprintf(stderr, "  warning %s:%u: %s\n", job->files[job->warns[i].file].name,
			job->warns[i].line, job->warns[i].msg);
	return false;
}

START_TEST(test_damaged)
{
	struct rep_job job;
	struct rep_buf a = { 0 }, b = { 0 };
	ht_rep_job_init(&job);
	mem_header(&a, "n1", 7, 0, 2, 0);
	mem_line(&a, 7, 1, "gpu_temperature", "\"celsius\":70");			/* line 3 */
	ht_rep_buf_add(&a, "{\"t\":\"phase\",\"ts\":1700000002.0,\"mono\":\n");		/* line 4 */
	mem_line(&a, 7, 3, "phase", "\"phase\":\"rendezvous\",\"state\":\"begin\"");	/* line 5 */
	ht_rep_buf_add(&a, "[1,2]\n");							/* line 6 */
	mem_line(&a, 7, 4, "phase", "\"phase\":\"nowhere\",\"state\":\"begin\"");	/* line 7 */
	ht_rep_buf_add(&a, "{\"t\":\"exit\",\"ts\":1700000005.0,\"mono\":105.0,\"tid\":7,\"sta");
	mem_add(&job, "n1.7.jsonl", &a);
	ht_rep_buf_add(&b, "{\"step\":1,\"loss\":0.5}\n");
	mem_add(&job, "metrics.jsonl", &b);
	ht_rep_add_buffer(&job, "empty.jsonl", "", 0);
	ck_assert_uint_eq(ht_rep_read(&job), 1);
	ck_assert(has_warning(&job, "n1.7.jsonl", 3, "unknown event type 'gpu_temperature'"));
	ck_assert(has_warning(&job, "n1.7.jsonl", 4, "not JSON"));
	ck_assert(has_warning(&job, "n1.7.jsonl", 6, "not a JSON object"));
	ck_assert(has_warning(&job, "n1.7.jsonl", 7, "phase"));
	ck_assert(has_warning(&job, "n1.7.jsonl", 8, "truncated last line"));
	ck_assert(has_warning(&job, "metrics.jsonl", 1, "not a hangtrace trace"));
	ck_assert(has_warning(&job, "empty.jsonl", 0, "empty file"));
	/* The rest is used: the rank, its phase, and its cut-off end. */
	struct rep_proc *p = job.procs.v[0];
	ck_assert_int_eq(p->rank, 0);
	ck_assert_int_eq(p->cur_phase, HT_PHASE_RENDEZVOUS);
	ck_assert(p->truncated);
	ck_assert(!p->have_exit);
	ht_rep_analyse(&job);
	ck_assert_int_eq(p->end, REP_VANISHED);
	ht_rep_job_free(&job);
	ht_rep_buf_free(&a);
	ht_rep_buf_free(&b);
}
END_TEST

/* A line longer than a location holds (16 MiB) is skipped, said with its
 * number; the lines after it are read, their evidence quoted. */
START_TEST(test_line_too_long)
{
	struct rep_job job;
	struct rep_buf a = { 0 };
	ht_rep_job_init(&job);
	mem_header(&a, "n1", 7, 0, 2, 0);
	char *big = malloc(REP_LOC_MAX_LEN + 2);
	ck_assert_ptr_nonnull(big);
	memset(big, ' ', REP_LOC_MAX_LEN + 1);
	memcpy(big, "{\"t\":\"gpu\",\"pad\":\"", 18);
	memcpy(big + REP_LOC_MAX_LEN - 1, "\"}", 2);			/* line 3: 16 MiB + 1 */
	big[REP_LOC_MAX_LEN + 1] = '\0';
	ht_rep_buf_add(&a, big);
	ht_rep_buf_add(&a, "\n");
	free(big);
	mem_line(&a, 7, 3, "phase", "\"phase\":\"rendezvous\",\"state\":\"begin\"");	/* line 4 */
	mem_add(&job, "n1.7.jsonl", &a);
	ck_assert_uint_eq(ht_rep_read(&job), 1);
	ck_assert(has_warning(&job, "n1.7.jsonl", 3, "line longer than 16 MiB, ignored"));
	struct rep_proc *p = job.procs.v[0];
	ck_assert_int_eq(p->cur_phase, HT_PHASE_RENDEZVOUS);
	struct rep_loc begin = rep_ph_begin(p, HT_PHASE_RENDEZVOUS);
	ck_assert_uint_eq(begin.line, 4);
	char *text = ht_rep_line_text(&job, &begin);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "\"rendezvous\""));
	free(text);
	ht_rep_job_free(&job);
	ht_rep_buf_free(&a);
}
END_TEST

START_TEST(test_nothing_readable)
{
	struct rep_job job;
	struct rep_buf b = { 0 };
	ht_rep_job_init(&job);
	ht_rep_buf_add(&b, "not json at all\nstill not\n");
	mem_add(&job, "x.jsonl", &b);
	ck_assert_uint_eq(ht_rep_read(&job), 0);
	ck_assert_uint_eq(job.nwarns, 1);	/* one line for the file, not one per line */
	ht_rep_job_free(&job);
	ht_rep_buf_free(&b);
}
END_TEST

/* Two records in one file (a reused pid), an exec continuing one. */
START_TEST(test_records)
{
	struct rep_job job;
	struct rep_buf b = { 0 };
	ht_rep_job_init(&job);
	mem_header(&b, "n1", 9, 0, 1, 0);
	/* Dumps in the first record: parsed when the next header closes it,
	 * while that header is being read (the fuzzer's first find). */
	for (int d = 1; d <= 3; d++)
		mem_dump(&b, 9, d * 0.1, d, "launch", "\"poll (libc.so.6+0x1)\"",
			 "\"f (/t.py:1)\",\"g (/t.py:2)\",\"h (/t.py:3)\"", d, 100 * d);
	mem_line(&b, 9, 1, "exit", "\"status\":0");
	mem_header(&b, "n1", 9, 0, 1, 10);
	mem_line(&b, 9, 11, "exec", "\"path\":\"/usr/bin/python3\",\"cmdline\":[\"python3\"]");
	mem_line(&b, 9, 11, "phase", "\"phase\":\"launch\",\"state\":\"begin\"");
	mem_line(&b, 9, 12, "phase", "\"phase\":\"steady\",\"state\":\"begin\",\"fn\":\"cuStreamSynchronize\"");
	mem_add(&job, "n1.9.jsonl", &b);
	ck_assert_uint_eq(ht_rep_read(&job), 2);
	ck_assert_uint_eq(job.nwarns, 0);
	struct rep_proc *first = job.procs.v[0], *second = job.procs.v[1];
	ck_assert(first->have_exit);
	ck_assert_uint_eq(first->ndumps, 3);
	ck_assert(first->dumps[2].have_main);
	ck_assert_str_eq(rep_id(second)->host, "n1");
	ck_assert_int_eq(second->pid, 9);
	ck_assert_int_eq(second->rank, 0);
	ck_assert(second->ts0 > first->ts0);
	ck_assert_uint_eq(second->nexec, 1);
	ck_assert_int_eq(second->cur_phase, HT_PHASE_STEADY);
	ht_rep_analyse(&job);
	/* The earlier process ended before the later began: a restart. */
	ck_assert_uint_eq(job.mains.n, 1);
	ck_assert_ptr_eq(job.mains.v[0], second);
	ck_assert(!ht_rep_has_error(&job));
	ht_rep_job_free(&job);
	ht_rep_buf_free(&b);
}
END_TEST

/* The main thread listed after other threads, and a writer without the
 * "main" field (the thread whose tid is the pid). */
START_TEST(test_main_thread_found)
{
	struct rep_job job;
	struct rep_buf b = { 0 }, c = { 0 };
	ht_rep_job_init(&job);
	mem_header(&b, "n1", 20, 0, 2, 0);
	mem_dump(&b, 20, 60, 1, "launch", "\"poll (libc.so.6+0x1)\",\"main (a.out+0x5)\"", NULL, 1, 1);
	mem_add(&job, "n1.20.jsonl", &b);
	mem_header(&c, "n1", 21, 1, 2, 0);
	mem_line(&c, 22, 60, "stall", "\"dump\":1,\"reason\":\"timeout\",\"phase\":\"launch\",\"n\":1");
	ht_rep_buf_add(&c, "{\"t\":\"thread\",\"ts\":1700000060.1,\"mono\":160.1,\"dump\":1,\"tid\":21,"
		       "\"cpu\":0.5,\"frames\":[\"select (libc.so.6+0x2)\"]}\n");
	mem_line(&c, 22, 60.2, "dump_end", "\"dump\":1,\"io\":{\"rchar\":1,\"wchar\":1}");
	mem_add(&job, "n1.21.jsonl", &c);
	ck_assert_uint_eq(ht_rep_read(&job), 2);
	ht_rep_analyse(&job);
	struct rep_proc *p = job.mains.v[0], *q = job.mains.v[1];
	ck_assert(p->last_dump->have_main);
	ck_assert_uint_eq(rep_dst(p->last_dump)->nframes, 2);
	ck_assert_str_eq(rep_dst(p->last_dump)->frames[1], "main (a.out+0x5)");
	ck_assert(q->last_dump->have_main);
	ck_assert_str_eq(rep_dst(q->last_dump)->frames[0], "select (libc.so.6+0x2)");
	ht_rep_job_free(&job);
	ht_rep_buf_free(&b);
	ht_rep_buf_free(&c);
}
END_TEST

static char *json_of(const char *fixture, int threads)
{
	struct rep_job job;
	char dir[PATH_MAX];
	char *out = NULL;
	size_t n = 0;
	ht_rep_job_init(&job);
	job.nthreads = threads;
	ck_assert_ptr_nonnull(fixture_dir(fixture, dir, sizeof(dir)));
	ck_assert_int_gt(ht_rep_add_path(&job, dir), 0);
	ck_assert_uint_gt(ht_rep_read(&job), 0);
	ht_rep_analyse(&job);
	FILE *f = open_memstream(&out, &n);
	ck_assert_int_eq(ht_rep_json(&job, f), 0);
	fclose(f);
	ht_rep_job_free(&job);
	return out;
}

/* One thread or four, first report or second: the same answer. */
START_TEST(test_repeatable)
{
	static const char *const cases[] = { "straggler", "missing_host", "collective_lag",
					     "bad_files", "wrappers" };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *a = json_of(cases[i], 1);
		char *b = json_of(cases[i], 4);
		char *c = json_of(cases[i], 1);
		ck_assert_str_eq(a, b);
		ck_assert_str_eq(a, c);
		free(a);
		free(b);
		free(c);
	}
}
END_TEST

START_TEST(test_evidence_text)
{
	struct rep_job job;
	struct rep_buf b = { 0 };
	ht_rep_job_init(&job);
	mem_header(&b, "n1", 30, 0, 1, 0);
	mem_line(&b, 30, 1, "connect", "\"dest\":\"10.0.0.1:29500\",\"role\":\"rendezvous\","
		 "\"result\":\"refused\",\"errno\":111,\"count\":4");
	mem_line(&b, 30, 2, "connect", "\"dest\":\"n\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
		 "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9:1\",\"result\":\"timeout\"");
	mem_add(&job, "n1.30.jsonl", &b);
	ck_assert_uint_eq(ht_rep_read(&job), 1);
	struct rep_proc *p = job.procs.v[0];
	ck_assert_uint_eq(p->nconn, 2);
	/* A connect line: its telling fields first; ts, mono, tid never. */
	ck_assert_str_eq(ht_rep_evidence(&job, &p->conn[0].loc, NULL, 300),
			 "n1.30.jsonl:3: {\"t\":\"connect\",\"dest\":\"10.0.0.1:29500\",\"result\":"
			 "\"refused\",\"count\":4,\"role\":\"rendezvous\"}");
	/* Other lines: every field but ts, mono and tid, in their order. */
	struct rep_loc launch = rep_ph_begin(p, HT_PHASE_LAUNCH);
	ck_assert_str_eq(ht_rep_evidence(&job, &launch, NULL, 300),
			 "n1.30.jsonl:2: {\"t\":\"phase\",\"phase\":\"launch\",\"state\":\"begin\"}");
	static const char *const keep[] = { "result", NULL };
	ck_assert_str_eq(ht_rep_evidence(&job, &p->conn[0].loc, keep, 300),
			 "n1.30.jsonl:3: {\"t\":\"connect\",\"result\":\"refused\"}");
	const char *cut = ht_rep_evidence(&job, &p->conn[0].loc, NULL, 40);
	ck_assert_uint_le(strlen(cut), strlen("n1.30.jsonl:3: ") + 40);
	ck_assert(strstr(cut, "...") != NULL);
	/* A cut never splits a UTF-8 character: the JSON output stays valid. */
	for (size_t max = 20; max < 60; max++) {
		const char *u = ht_rep_evidence(&job, &p->conn[1].loc, NULL, max);
		json_t *j = json_string(u);
		ck_assert_msg(j != NULL, "invalid UTF-8 at %zu: %s", max, u);
		json_decref(j);
	}
	ht_rep_job_free(&job);
	ht_rep_buf_free(&b);
}
END_TEST

/* A world size no job has (damage, or a fuzzer): not believed, and the
 * report does not try to list a trillion missing ranks. */
START_TEST(test_implausible_sizes)
{
	struct rep_job job;
	struct rep_buf b = { 0 };
	ht_rep_job_init(&job);
	ht_rep_buf_add(&b, "{\"t\":\"header\",\"ts\":1.0,\"mono\":1.0,\"format\":\"hangtrace/1\","
		       "\"host\":\"n1\",\"pid\":5,\"rank\":3,\"world_size\":1000000000000,"
		       "\"launcher\":\"env\"}\n");
	mem_line(&b, 5, 1, "nccl", "\"fn\":\"ncclCommInitRank\",\"state\":\"begin\","
		 "\"nranks\":99999999999,\"rank\":3,\"root\":\"1.2.3.4:5\",\"id_hash\":\"0x1\"");
	mem_add(&job, "n1.5.jsonl", &b);
	ck_assert_uint_eq(ht_rep_read(&job), 1);
	ht_rep_analyse(&job);
	ck_assert_int_eq(job.world_size, 4);	/* one past the highest rank */
	ck_assert_uint_eq(job.nmissing, 3);
	ht_rep_job_free(&job);
	ht_rep_buf_free(&b);
}
END_TEST

/* On disk: a file named twice is read once; a live file's cut last line is
 * a line being written, not a death. */
START_TEST(test_files_on_disk)
{
	char dir[] = "/tmp/ht-report-XXXXXX", path[64];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/n1.42.jsonl", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	double now = (double)time(NULL);
	fprintf(f, "{\"t\":\"header\",\"ts\":%.6f,\"mono\":1.0,\"format\":\"hangtrace/1\","
		"\"host\":\"n1\",\"pid\":42,\"rank\":0,\"world_size\":1,\"launcher\":\"env\","
		"\"timeout\":1.0}\n{\"t\":\"phase\",\"ts\":%.6f,\"mono\":1.5,\"tid\":42,"
		"\"phase\":\"launch\",\"state\":\"begin\"}\n{\"t\":\"pha", now - 2, now - 1);
	fclose(f);
	struct rep_job job;
	ht_rep_job_init(&job);
	ck_assert_int_eq(ht_rep_add_path(&job, dir), 1);
	ck_assert_int_eq(ht_rep_add_path(&job, path), 1);
	ck_assert_uint_eq(ht_rep_read(&job), 1);
	ck_assert(has_warning(&job, "n1.42.jsonl", 0, "the same file as n1.42.jsonl"));
	ck_assert(has_warning(&job, "n1.42.jsonl", 3, "incomplete last line"));
	ht_rep_analyse(&job);
	ck_assert_int_eq(((struct rep_proc *)job.mains.v[0])->end, REP_RUNNING);
	ht_rep_job_free(&job);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* A folder given twice: the listing looks no file up (read/files.c), so
 * the second names are found to be the same files only once read; the
 * job is read again without them: one record each, and a file's own
 * warnings (its bad line, its unknown event) once, not twice. */
START_TEST(test_folder_twice)
{
	char dir[] = "/tmp/ht-report-XXXXXX", path[64];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int pid = 42; pid <= 43; pid++) {
		snprintf(path, sizeof(path), "%s/n1.%d.jsonl", dir, pid);
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "{\"t\":\"header\",\"ts\":1.0,\"mono\":1.0,\"format\":\"hangtrace/1\","
			"\"host\":\"n1\",\"pid\":%d,\"rank\":%d,\"world_size\":2,"
			"\"launcher\":\"env\"}\nnot json\n{\"t\":\"gpu_temperature\",\"ts\":2.0,"
			"\"mono\":2.0,\"tid\":%d}\n", pid, pid - 42, pid);
		fclose(f);
	}
	struct rep_job job;
	ht_rep_job_init(&job);
	ck_assert_int_eq(ht_rep_add_path(&job, dir), 2);
	ck_assert_int_eq(ht_rep_add_path(&job, dir), 2);
	ck_assert_uint_eq(ht_rep_read(&job), 2);
	size_t same = 0, bad = 0, unknown = 0;
	for (size_t i = 0; i < job.nwarns; i++) {
		same += strstr(job.warns[i].msg, "the same file as") != NULL;
		bad += strstr(job.warns[i].msg, "not JSON") != NULL;
		unknown += strstr(job.warns[i].msg, "gpu_temperature' ignored (2 lines") != NULL;
	}
	ck_assert_uint_eq(same, 2);
	ck_assert_uint_eq(bad, 2);	/* one per file */
	ck_assert_uint_eq(unknown, 1);	/* two lines in all, not four */
	ck_assert(has_warning(&job, "n1.43.jsonl", 0, "the same file as n1.43.jsonl"));
	ht_rep_job_free(&job);
	for (int pid = 42; pid <= 43; pid++) {
		snprintf(path, sizeof(path), "%s/n1.%d.jsonl", dir, pid);
		unlink(path);
	}
	rmdir(dir);
}
END_TEST

/* Lines whose text after the tid repeats, rank after rank: read from the
 * repeated part parsed once (read/lines.c), each line's own head (times,
 * tid) still its own; a repeated line that does not parse is a warning
 * each time; a tail that names a head key again reads as the whole line
 * does (the later member wins). */
START_TEST(test_repeated_tails)
{
	struct rep_job job;
	enum { N = 6 };
	struct rep_buf b[N] = { 0 };
	char name[N][32];
	ht_rep_job_init(&job);
	job.nthreads = 1;	/* one cache sees every file */
	for (int r = 0; r < N; r++) {
		int pid = 100 + r;
		mem_header(&b[r], "n1", pid, r, N, 0);
		mem_line(&b[r], pid, 1 + r, "phase", "\"phase\":\"rendezvous\",\"state\":\"begin\"");
		mem_line(&b[r], pid, 2 + r, "phase", "\"phase\":\"rendezvous\",\"state\":\"end\"");
		mem_line(&b[r], pid, 3 + r, "nccl", "\"fn\":\"ncclCommInitRank\",\"state\":\"begin\","
			 "\"nranks\":6,\"root\":\"10.0.0.1:41234\"");
		/* "ts" again: the whole line's last member, 0.5 s after the header */
		mem_line(&b[r], pid, 4 + r, "call", "\"name\":\"ncclCommInitRank\",\"state\":\"begin\","
			 "\"id\":1,\"ts\":1700000000.5");
		ht_rep_buf_printf(&b[r], "{\"t\":\"version\",\"ts\":1700000005.0,\"mono\":105.0,"
				  "\"tid\":%d,\"what\":\"nccl\",\"value\":22105,}\n", pid);
		snprintf(name[r], sizeof(name[r]), "n1.%d.jsonl", pid);
		mem_add(&job, name[r], &b[r]);
	}
	ck_assert_uint_eq(ht_rep_read(&job), N);
	for (int r = 0; r < N; r++) {
		struct rep_proc *p = job.procs.v[r];
		ck_assert_int_eq(p->rank, r);
		ck_assert(rep_ph(p, HT_PHASE_RENDEZVOUS)->ended);
		ck_assert_double_eq_tol(rep_ph(p, HT_PHASE_RENDEZVOUS)->ts, 1700000001.0 + r, 1e-6);
		ck_assert_double_eq_tol(rep_ph(p, HT_PHASE_RENDEZVOUS)->end_ts, 1700000002.0 + r, 1e-6);
		ck_assert_uint_eq(p->ncomms, 1);
		ck_assert_int_eq(p->comms[0].tid, 100 + r);
		ck_assert_int_eq(rep_cid(&p->comms[0])->nranks, 6);
		ck_assert_uint_eq(p->ncalls, 1);
		ck_assert_double_eq_tol(p->calls[0].ts, 1700000000.5, 1e-6);
		ck_assert(has_warning(&job, name[r], 7, "not JSON"));
	}
	ht_rep_job_free(&job);
	for (int r = 0; r < N; r++)
		ht_rep_buf_free(&b[r]);
}
END_TEST

/* A line's head numbers are read without jansson (read/lines.c), so they
 * must read as jansson reads them: every text read is one jansson reads
 * to the same value, bit for bit and of the same kind; every text jansson
 * refuses is refused (the line then goes to jansson whole, which warns). */
START_TEST(test_numbers_as_jansson)
{
	static const struct {
		const char *s;
		bool common;	/* written by the library: must be read */
	} t[] = {
		{ "1700000003.010000", true }, { "1003.010000", true }, { "20000", true },
		{ "0", true }, { "0.004000", true }, { "-1", true }, { "-0", false },
		{ "-0.0", false }, { "1e5", false }, { "1E+5", false }, { "2.5e-3", false },
		{ "1e-400", false }, { "1e400", false }, { "-1e400", false },
		{ "9223372036854775807", false }, { "9223372036854775808", false },
		{ "-9223372036854775808", false }, { "-9223372036854775809", false },
		{ "2.2250738585072014e-308", false }, { "4.9e-324", false },
		{ "1.7976931348623157e308", false }, { "1.7976931348623159e308", false },
		{ "0.1", false }, { "123456789012345678901234567890.5", false },
		{ "9007199254740993", false }, { "9007199254740993.0", false },
		{ "00", false }, { "01", false }, { "-01", false }, { "-", false },
		{ "1.", false }, { ".5", false }, { "1.e5", false }, { "1e", false },
		{ "1e+", false }, { "+1", false }, { " 1", false }, { "1 ", false },
		{ "0x10", false }, { "Infinity", false }, { "NaN", false }, { "1_0", false },
		{ "1.5.5", false }, { "--1", false }, { "", false }, { "true", false },
		{ "\"1\"", false },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double d = 0;
		int64_t n = 0;
		bool ours = ht_rep__number_of(t[i].s, strlen(t[i].s), &d, &n);
		char buf[96];
		snprintf(buf, sizeof(buf), "[%s]", t[i].s);
		json_t *a = json_loadb(buf, strlen(buf), 0, NULL);
		json_t *v = json_array_get(a, 0);
		bool theirs = json_array_size(a) == 1 && json_is_number(v);
		if (t[i].common)
			ck_assert_msg(ours, "'%s' not read", t[i].s);
		if (!theirs)
			ck_assert_msg(!ours, "'%s' read, which jansson refuses", t[i].s);
		if (ours) {
			double j = json_number_value(v);
			ck_assert_msg(memcmp(&d, &j, sizeof(d)) == 0, "'%s': %a, jansson %a",
				      t[i].s, d, j);
			ck_assert_msg(n == ht_rep__int_of(v), "'%s': %lld as an integer, jansson %lld",
				      t[i].s, (long long)n, (long long)ht_rep__int_of(v));
		}
		json_decref(a);
	}
	/* Numbers as the library writes them (%.6f) and others, many of them. */
	static const char *fmt[] = { "%.6f", "%.3f", "%.1f", "%.15f", "%.17g", "%.9f", "%.0f" };
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 60000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double v = (double)(x >> 11) / (double)(1ull << 53);
		v *= (i % 3 == 0) ? 2e9 : (i % 3 == 1) ? 1e4 : 1.0;
		if (i % 5 == 0)
			v = -v;
		char num[64], buf[80];
		snprintf(num, sizeof(num), fmt[i % 7], v);
		snprintf(buf, sizeof(buf), "[%s]", num);
		double d = 0;
		int64_t n = 0;
		ck_assert_msg(ht_rep__number_of(num, strlen(num), &d, &n), "'%s' not read", num);
		json_t *a = json_loadb(buf, strlen(buf), 0, NULL);
		double j = json_number_value(json_array_get(a, 0));
		ck_assert_msg(memcmp(&d, &j, sizeof(d)) == 0, "'%s': %a, jansson %a", num, d, j);
		ck_assert_msg(n == ht_rep__int_of(json_array_get(a, 0)), "'%s' as an integer", num);
		json_decref(a);
	}
}
END_TEST

/* A new tail read member by member (read/members.c) is the object jansson
 * reads from the whole line, members in the same order, or it is refused
 * (the line then goes to jansson whole): read three times, the first with
 * every member new, then with the repeated ones kept. */
static void same_as_jansson(struct rep_rctx *c, const char *tail, bool must)
{
	char line[1024];
	snprintf(line, sizeof(line), "{\"t\":\"x\",%s", tail);
	json_t *whole = json_loadb(line, strlen(line), 0, NULL);
	json_object_del(whole, "t");
	for (int round = 0; round < 3; round++) {
		c->file = (uint32_t)round;	/* (a member is kept once seen in another file) */
		json_t *o = ht_rep__members_parse(c, tail, strlen(tail), REP_MEMBERS_EVENT);
		if (must)
			ck_assert_msg(o != NULL, "'%s' refused (round %d)", tail, round);
		if (o == NULL)
			continue;
		ck_assert_msg(whole != NULL, "'%s' read, which jansson refuses", tail);
		char *a = json_dumps(o, JSON_ENCODE_ANY), *b = json_dumps(whole, JSON_ENCODE_ANY);
		ck_assert_msg(strcmp(a, b) == 0, "'%s' (round %d): %s, jansson %s", tail, round, a, b);
		free(a);
		free(b);
		json_decref(o);
	}
	json_decref(whole);
}

START_TEST(test_members_as_jansson)
{
	struct rep_rctx c;
	memset(&c, 0, sizeof(c));
	static const char *ok[] = {
		"\"phase\":\"device\",\"state\":\"begin\",\"ordinal\":3}",
		"\"a\":{\"b\":[1,2,{\"c\":\"}\"}]},\"d\":\"x,\\\"y\\\",z\",\"e\":null}",
		"\"s\":\"back\\\\\",\"n\":-1.5e3,\"b\":true,\"f\":false}",
		"\"k\":1,\"k\":2,\"j\":3,\"k\":4}",
		"\"env\":{\"RANK\":\"3\",\"A\":\"\\u00e9\"},\"cmdline\":[\"a\",\"b,c\"]}",
		"\"a\": 1 ,\"b\":[ 1 , 2 ]}",
		"\"\\u006b\":1,\"k\":2}",
		"\"x\":[]}", "\"x\":{}}",
		"\"cmd\":[\"a\"],\"env\":{\"MASTER_ADDR\":\"10.0.0.1\",\"RANK\":\"3\","
		"\"NCCL_SOCKET_IFNAME\":\"ens5\",\"X\":{\"y\":[1,{\"z\":\"}\"}]},\"t\":\"inner\","
		"\"ts\":1,\"B\":\"\\\"q\\\"\"},\"n\":1}",
		/* scalars and arrays made without jansson (members.c scalar_of,
		 * array_of) */
		"\"calls\":[{\"name\":\"ncclCommInitRank\",\"tid\":3095836,\"age\":300.020000}],"
		"\"i\":123456789012345678,\"j\":-1234567890123456789,\"z\":-0,\"r\":1e1}",
		"\"c\":[{\"a\":1},{\"b\":[2]},3,\"s\",null,[],{}],\"d\":[{\"x\":1,\"x\":2}],"
		"\"e\":\"~\x7f\",\"f\":-0.0,\"g\":[true,false]}",
	};
	static const char *any[] = {
		"\"a\":1, \"b\":2}", "\"a\":1,}", "\"a\":1", "\"a\":1}}", "\"a\":[1}", "\"a\":{1]}",
		"\"a\":\"unclosed}", "\"a\":1}x}", "\"ts\":5}", "\"a\":1,\"tid\":2}", "}", "",
		"\"a\":01}", "\"a\":1e999}", "\"a\":\"\x01\"}", "\"a\":\"\xff\"}", "\"\xc3\":1}",
		"\"a\"1}", "\"a\":1,\"b\"}", "\"a\":[1,2],3}", "\"a\":nul}", "\"a\":tru}",
		"\"a\":\"\\x\"}", "\"a\":1 }", "\"a\":\"b\" ,\"c\":1}",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		same_as_jansson(&c, ok[i], i != 3 && i != 5 && i != 6);	/* (a key twice; spaces) */
	for (size_t i = 0; i < sizeof(any) / sizeof(any[0]); i++)
		same_as_jansson(&c, any[i], false);
	/* Each valid tail with one byte changed or left out. */
	static const char bytes[] = "\",:{}[]\\ a1";
	for (size_t b = 0; b < sizeof(ok) / sizeof(ok[0]); b++) {
		const char *base = ok[b];
		size_t n = strlen(base);
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k <= sizeof(bytes) - 1; k++) {
				char t[256];
				memcpy(t, base, n + 1);
				if (k < sizeof(bytes) - 1)
					t[i] = bytes[k];
				else
					memmove(t + i, t + i + 1, n - i);
				same_as_jansson(&c, t, false);
			}
	}
	ht_rep__lines_free(&c.lines);
	ht_rep__members_free(&c.members);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("report_reader");
	TCase *t = tcase_create("reader");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_damaged);
	tcase_add_test(t, test_nothing_readable);
	tcase_add_test(t, test_records);
	tcase_add_test(t, test_main_thread_found);
	tcase_add_test(t, test_repeatable);
	tcase_add_test(t, test_evidence_text);
	tcase_add_test(t, test_implausible_sizes);
	tcase_add_test(t, test_files_on_disk);
	tcase_add_test(t, test_folder_twice);
	tcase_add_test(t, test_repeated_tails);
	tcase_add_test(t, test_numbers_as_jansson);
	tcase_add_test(t, test_members_as_jansson);
	tcase_add_test(t, test_line_too_long);
	suite_add_tcase(s, t);
	return s;
}

HT_CHECK_SUITE(make)
