// SPDX-License-Identifier: MIT
/*
 * check_digest.c: what the digest's writer and reader must agree on byte
 * for byte (read/dgcodec.c): times as whole microseconds only where a
 * double is one exactly, and a quoted line written as the members it
 * changes of its base's and made again from them: numbers (quoted or
 * not, with their decimals), nested objects and arrays, strings with
 * escapes; a line that is not the same members is written whole.
 */
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "ht_check.h"
#include "fixture.h"
#include "report/read/digest.h"
#include "report/read/evidence.h"

START_TEST(test_micros)
{
	int64_t n;
	ck_assert(ht_dg_micros(1700000001.956539, &n));
	ck_assert_int_eq(n, 1700000001956539LL);
	ck_assert((double)n / 1e6 == 1700000001.956539);
	ck_assert(ht_dg_micros(-2.5, &n) && n == -2500000);
	ck_assert(ht_dg_micros(0.0, &n) && n == 0);
	ck_assert(!ht_dg_micros(0.1234567, &n));	/* a seventh decimal */
	ck_assert(!ht_dg_micros(1.0 / 3.0, &n));
	ck_assert(!ht_dg_micros(NAN, &n));
	ck_assert(!ht_dg_micros(INFINITY, &n));
	ck_assert(!ht_dg_micros(1e17, &n));	/* past 2^53 microseconds */
}
END_TEST

/* cur written against base, and made again from what was written. */
static json_t *round_trip(const char *base, const char *cur)
{
	size_t size = 0, len = 0;
	json_t *d = ht_dg_text_delta(base, cur, strlen(cur), &size);
	if (d == NULL)
		return NULL;
	char *text = json_dumps(d, JSON_COMPACT);
	ck_assert_uint_eq(strlen(text), size);
	json_t *back = json_loads(text, 0, NULL);	/* as the reader has it */
	free(text);
	char *made = ht_dg_text_apply(base, back, &len);
	ck_assert_ptr_nonnull(made);
	ck_assert_uint_eq(len, strlen(cur));
	ck_assert_str_eq(made, cur);
	free(made);
	json_decref(back);
	return d;
}

START_TEST(test_text_delta)
{
	const char *h0 = "{\"t\":\"header\",\"host\":\"gpu00000\",\"pid\":3095836,\"rank\":0,"
			 "\"env\":{\"RANK\":\"0\",\"LOCAL_RANK\":\"0\",\"MASTER_ADDR\":\"10.0.0.1\"}}";
	const char *h1 = "{\"t\":\"header\",\"host\":\"gpu00000\",\"pid\":3095838,\"rank\":1,"
			 "\"env\":{\"RANK\":\"1\",\"LOCAL_RANK\":\"1\",\"MASTER_ADDR\":\"10.0.0.1\"}}";
	json_t *d = round_trip(h0, h1);
	ck_assert_ptr_nonnull(d);
	/* pid +2, rank +1, env's RANK and LOCAL_RANK +1 (in their quotes) */
	char *s = json_dumps(d, JSON_COMPACT);
	ck_assert_str_eq(s, "[2,2,3,1,4,[0,1,1,1]]");
	free(s);
	json_decref(d);

	/* Fixed decimals, a sign change, a string, an array's element. */
	const char *c0 = "{\"t\":\"connect\",\"first\":2901583.577313,\"dur\":0.001219,"
			 "\"dest\":\"10.0.0.1:29500\",\"calls\":[{\"tid\":5,\"age\":1.500000}]}";
	const char *c1 = "{\"t\":\"connect\",\"first\":2901584.149205,\"dur\":-0.000002,"
			 "\"dest\":\"10.0.0.2:29500\",\"calls\":[{\"tid\":7,\"age\":1.250000}]}";
	d = round_trip(c0, c1);
	ck_assert_ptr_nonnull(d);
	s = json_dumps(d, JSON_COMPACT);
	ck_assert_str_eq(s, "[1,571892,2,-1221,3,\"\\\"10.0.0.2:29500\\\"\",4,[0,[0,2,1,-250000]]]");
	free(s);
	json_decref(d);

	/* Decimals that differ, an exponent, "-0", a leading zero, escapes:
	 * written as text, and still made again byte for byte. */
	const char *n0 = "{\"a\":1.5,\"b\":2,\"c\":0,\"d\":\"x\\\"y\",\"e\":7,"
			 "\"same\":\"a long member that stays the same, so the rest is worth a delta\"}";
	const char *n1 = "{\"a\":1.25,\"b\":2e3,\"c\":-0,\"d\":\"x\\\\\\\"z\\u00e9\",\"e\":07,"
			 "\"same\":\"a long member that stays the same, so the rest is worth a delta\"}";
	d = round_trip(n0, n1);
	ck_assert_ptr_nonnull(d);
	s = json_dumps(d, JSON_COMPACT);
	ck_assert_str_eq(s, "[0,\"1.25\",1,\"2e3\",2,\"-0\",3,\"\\\"x\\\\\\\\\\\\\\\"z\\\\u00e9\\\"\",4,\"07\"]");
	free(s);
	json_decref(d);
	const char *q0 = "{\"v\":\"12\",\"w\":[1,2,3],\"host\":\"a-host-name-long-enough\"}";
	const char *q1 = "{\"v\":\"-4\",\"w\":[1,2,3,4],\"host\":\"a-host-name-long-enough\"}";
	d = round_trip(q0, q1);
	ck_assert_ptr_nonnull(d);
	s = json_dumps(d, JSON_COMPACT);
	ck_assert_str_eq(s, "[0,-16,1,\"[1,2,3,4]\"]");
	free(s);
	json_decref(d);
}
END_TEST

START_TEST(test_text_whole)
{
	size_t size;
	const char *a = "{\"t\":\"phase\",\"tid\":1,\"phase\":\"device\"}";
	/* other keys, another order, one more member, not an object */
	ck_assert_ptr_null(ht_dg_text_delta(a, "{\"t\":\"phase\",\"pid\":1,\"phase\":\"device\"}",
					    38, &size));
	ck_assert_ptr_null(ht_dg_text_delta(a, "{\"tid\":1,\"t\":\"phase\",\"phase\":\"device\"}",
					    38, &size));
	ck_assert_ptr_null(ht_dg_text_delta(a, "{\"t\":\"phase\",\"tid\":1,\"phase\":\"device\",\"x\":1}",
					    44, &size));
	ck_assert_ptr_null(ht_dg_text_delta("[1,2]", "[1,3]", 5, &size));
	/* a delta that does not fit its base is refused when made */
	json_t *d = json_loads("[9,1]", 0, NULL);
	size_t len;
	ck_assert_ptr_null(ht_dg_text_apply(a, d, &len));
	json_decref(d);
	d = json_loads("[1,\"\\\"a\\\"\"]", 0, NULL);	/* tid +"a": a string, not a number */
	char *s = ht_dg_text_apply(a, d, &len);
	ck_assert_str_eq(s, "{\"t\":\"phase\",\"tid\":\"a\",\"phase\":\"device\"}");
	free(s);
	json_decref(d);
	d = json_loads("[2,5]", 0, NULL);	/* a number added to a string */
	ck_assert_ptr_null(ht_dg_text_apply(a, d, &len));
	json_decref(d);
}
END_TEST

/* A record's mask: written as the members given, read back as their
 * places; a later format's members (past ours) counted and passed over;
 * what is not hex is no mask. */
START_TEST(test_mask)
{
	bool given[DG_MAX_MEMBERS] = { 0 };
	char m[DG_MASK_MAX + 1];
	uint16_t pos[DG_MAX_MEMBERS];
	size_t nv;
	ht_dg_mask_write(given, 40, m);
	ck_assert_str_eq(m, "");
	given[1] = given[3] = true;
	ht_dg_mask_write(given, 40, m);
	ck_assert_str_eq(m, "a");
	given[0] = given[4] = given[39] = true;
	ht_dg_mask_write(given, 40, m);
	ck_assert_str_eq(m, "800000001b");
	ck_assert(ht_dg_mask_read(m, strlen(m), 40, pos, &nv));
	ck_assert_uint_eq(nv, 5);
	ck_assert_uint_eq(pos[0], 1);
	ck_assert_uint_eq(pos[1], 2);
	ck_assert_uint_eq(pos[2], 0);
	ck_assert_uint_eq(pos[3], 3);
	ck_assert_uint_eq(pos[4], 4);
	ck_assert_uint_eq(pos[39], 5);
	/* A reader of 5 members: the rest counted, not placed. */
	ck_assert(ht_dg_mask_read(m, strlen(m), 5, pos, &nv));
	ck_assert_uint_eq(nv, 5);
	ck_assert_uint_eq(pos[4], 4);
	/* Every member of the largest table, and back. */
	for (size_t i = 0; i < DG_MAX_MEMBERS; i++)
		given[i] = i % 3 != 1;
	ht_dg_mask_write(given, DG_MAX_MEMBERS, m);
	ck_assert(ht_dg_mask_read(m, strlen(m), DG_MAX_MEMBERS, pos, &nv));
	for (size_t i = 0, j = 1; i < DG_MAX_MEMBERS; i++)
		ck_assert_uint_eq(pos[i], given[i] ? j++ : 0);
	ck_assert(!ht_dg_mask_read("1G", 2, 40, pos, &nv));
	ck_assert(!ht_dg_mask_read("", 0, 40, pos, &nv));
	ck_assert(!ht_dg_mask_read("A", 1, 40, pos, &nv));
}
END_TEST

/* v written as VLQ digits and read back, all of them taken. */
static void vlq_back(int64_t v)
{
	struct rep_buf b = { 0 };
	ht_dg_vlq_put(&b, v);
	const char *p = b.s;
	int64_t got;
	ck_assert_msg(ht_dg_vlq_get(&p, b.s + b.n, &got) && got == v && p == b.s + b.n,
		      "%lld as %.*s", (long long)v, (int)b.n, b.s);
	ck_assert_uint_le(b.n, 13);
	ht_rep_buf_free(&b);
}

/* Integers as the source maps' VLQ digits: the small ones one digit, the
 * sign in the first; every width, both ends of 64 bits; what is not a
 * digit, a last digit that says more follow, and a 14th digit refused. */
START_TEST(test_vlq)
{
	static const struct {
		int64_t v;
		const char *s;
	} known[] = { { 0, "A" }, { 1, "C" }, { -1, "D" }, { 15, "e" }, { -15, "f" },
		      { 16, "gB" }, { -16, "hB" }, { 511, "+f" }, { 512, "ggB" } };
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		struct rep_buf b = { 0 };
		ht_dg_vlq_put(&b, known[i].v);
		ck_assert_str_eq(b.s, known[i].s);
		ht_rep_buf_free(&b);
	}
	for (int bit = 0; bit < 63; bit++) {
		int64_t x = (int64_t)1 << bit;
		vlq_back(x);
		vlq_back(-x);
		vlq_back(x - 1);
		vlq_back(1 - x);
	}
	vlq_back(INT64_MAX);
	vlq_back(INT64_MIN);
	vlq_back(1700000001956539LL);
	int64_t v;
	const char *bad[] = { "", "g", "~", "gggggggggggggB" /* 14 digits */ };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *p = bad[i];
		ck_assert_msg(!ht_dg_vlq_get(&p, bad[i] + strlen(bad[i]), &v), "%s", bad[i]);
		ck_assert_ptr_eq(p, bad[i]);
	}
	const char *two = "CD", *p = two;	/* two numbers, one at a time */
	ck_assert(ht_dg_vlq_get(&p, two + 2, &v) && v == 1 && p == two + 1);
	ck_assert(ht_dg_vlq_get(&p, two + 2, &v) && v == -1 && p == two + 2);
}
END_TEST

/* Each kind of token written and read back, one after the other as a
 * record's values are; the format's example; cut or wrong tokens refused. */
START_TEST(test_tokens)
{
	static const char str[] = "say \"hi\"\\ \xc3\xa9t\xc3\xa9, (x) ~!";
	struct rep_dgtok in[] = {
		{ .k = DT_INT, .i = -596449 }, { .k = DT_NONE }, { .k = DT_TRUE },
		{ .k = DT_REAL, .d = 0.1234567 }, { .k = DT_REAL, .d = INFINITY },
		{ .k = DT_REAL, .d = -INFINITY }, { .k = DT_REAL, .d = -1.5e-300 },
		{ .k = DT_STR, .s = str, .len = sizeof(str) - 1 }, { .k = DT_STR, .s = "", .len = 0 },
		{ .k = DT_LOC, .i = 19, .text = -1, .file = -1 },
		{ .k = DT_LOC, .i = 4294967295LL, .text = 7, .file = 12 },
		{ .k = DT_INT, .i = 0 },
	};
	size_t n = sizeof(in) / sizeof(in[0]);
	struct rep_buf b = { 0 };
	for (size_t i = 0; i < n; i++)
		ht_dg_tok_put(&b, &in[i]);
	const char *p = b.s, *end = b.s + b.n;
	for (size_t i = 0; i < n; i++) {
		struct rep_dgtok t;
		ck_assert_msg(ht_dg_tok_get(&p, end, &t), "token %zu", i);
		ck_assert_int_eq(t.k, in[i].k);
		switch (t.k) {
		case DT_INT:
			ck_assert_int_eq(t.i, in[i].i);
			break;
		case DT_REAL:
			ck_assert(memcmp(&t.d, &in[i].d, sizeof(t.d)) == 0);
			break;
		case DT_STR:
			ck_assert_uint_eq(t.len, in[i].len);
			ck_assert(memcmp(t.s, in[i].s, t.len) == 0);
			break;
		case DT_LOC:
			ck_assert_int_eq(t.i, in[i].i);
			ck_assert_int_eq(t.text, in[i].text);
			ck_assert_int_eq(t.file, in[i].file);
			break;
		default:
			break;
		}
	}
	ck_assert_ptr_eq(p, end);
	ht_rep_buf_free(&b);

	/* doc/trace-format.md's example: members 1 and 3, "slurm" and 4. */
	bool given[8] = { false, true, false, true };
	char m[DG_MASK_MAX + 1];
	ht_dg_mask_write(given, 8, m);
	ht_rep_buf_add(&b, m);
	ht_rep_buf_add(&b, ":");
	ht_dg_tok_put(&b, &(struct rep_dgtok){ .k = DT_STR, .s = "slurm", .len = 5 });
	ht_dg_tok_put(&b, &(struct rep_dgtok){ .k = DT_INT, .i = 4 });
	ck_assert_str_eq(b.s, "a:'KslurmI");
	ht_rep_buf_free(&b);

	const char *bad[] = { "", "'K", "'Kslur", "'D", "(CA", "(C)", "(CAC", ".1.5", ".;", ".x;",
			      ".1e5x;", "g", "\"" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rep_dgtok t;
		const char *q = bad[i];
		ck_assert_msg(!ht_dg_tok_get(&q, bad[i] + strlen(bad[i]), &t), "%s", bad[i]);
	}
}
END_TEST

/* A member packed and read back; one not packed read as it is; a packed
 * one whose length, base-64 or stream is wrong is none. */
START_TEST(test_pack)
{
	struct rep_buf b = { 0 };
	ht_rep_buf_add(&b, "[");
	for (int i = 0; i < 300; i++)
		ht_rep_buf_printf(&b, "%s[\"poll (libc.so.6+0x%x)\",\"f%d\",%d]", i ? "," : "",
				  0xf8a3f + i, i % 7, i);
	ht_rep_buf_add(&b, "]");
	json_t *p = ht_dg_pack(b.s, b.n);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(json_integer_value(json_array_get(p, 0)), (json_int_t)b.n);
	ck_assert_uint_lt(json_string_length(json_array_get(p, 1)), b.n / 3);	/* it packs */
	json_t *back = ht_dg_unpack(p, NULL), *want = json_loads(b.s, 0, NULL);
	ck_assert(json_equal(back, want));
	json_decref(back);
	/* not packed: the member itself */
	back = ht_dg_unpack(want, NULL);
	ck_assert_ptr_eq(back, want);
	json_decref(back);
	ck_assert_ptr_null(ht_dg_unpack(NULL, NULL));
	/* wrong: the length, a base-64 digit, the stream cut */
	json_t *bad = json_deep_copy(p);
	json_array_set_new(bad, 0, json_integer((json_int_t)b.n + 1));
	ck_assert_ptr_null(ht_dg_unpack(bad, NULL));
	json_array_set_new(bad, 0, json_integer((json_int_t)1 << 40));
	ck_assert_ptr_null(ht_dg_unpack(bad, NULL));
	json_decref(bad);
	bad = json_deep_copy(p);
	char *t = strdup(json_string_value(json_array_get(p, 1)));
	t[10] = '*';
	json_array_set_new(bad, 1, json_string(t));
	ck_assert_ptr_null(ht_dg_unpack(bad, NULL));
	t[10] = json_string_value(json_array_get(p, 1))[10];
	t[strlen(t) / 2] = '\0';
	json_array_set_new(bad, 1, json_string(t));
	ck_assert_ptr_null(ht_dg_unpack(bad, NULL));
	free(t);
	json_decref(bad);
	/* One decoder and its buffers for one member after another: a small
	 * one after a large one, after one that could not be read. */
	struct rep_dgunpack u = { 0 };
	json_t *small = ht_dg_pack("[\"a\",[1]]", strlen("[\"a\",[1]]"));
	for (int k = 0; k < 3; k++) {
		back = ht_dg_unpack(p, &u);
		ck_assert(json_equal(back, want));
		json_decref(back);
		bad = json_deep_copy(p);
		json_array_set_new(bad, 0, json_integer((json_int_t)b.n - 1));
		ck_assert_ptr_null(ht_dg_unpack(bad, &u));
		json_decref(bad);
		back = ht_dg_unpack(small, &u);
		ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(back, 1), 0)), 1);
		json_decref(back);
	}
	ht_dg_unpack_free(&u);
	json_decref(small);
	/* nothing packs too */
	json_decref(p);
	p = ht_dg_pack("", 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_null(ht_dg_unpack(p, NULL));	/* (no JSON value in it) */
	json_decref(p);
	json_decref(want);
	ht_rep_buf_free(&b);
}
END_TEST

static size_t ndigits(size_t v)
{
	size_t d = 1;
	for (; v >= 10; v /= 10)
		d++;
	return d;
}

/* "pat" and "xat": the places of "procs" and "x" once their own digits
 * are in the line (each replacing a 0), across the lengths where they
 * grow (9 to 10, 99 to 100, ...), the records' length too. */
START_TEST(test_places)
{
	static const size_t plens[] = { 11, 88, 89, 90, 900, 998, 999, 1000, 99990, 123456 };
	for (size_t len = 4; len < 2000000; len += len < 1100 ? 1 : len < 11000 ? 7 : 997)
		for (size_t k = 0; k < sizeof(plens) / sizeof(plens[0]); k++) {
			size_t pat, xat;
			ht_dg_places(len, plens[k], &pat, &xat);
			ck_assert_uint_eq(pat, len - 3 + ndigits(pat) + ndigits(xat));
			ck_assert_uint_eq(xat, pat + plens[k]);
		}
	size_t pat, xat;
	ht_dg_places(100, 11, &pat, &xat);	/* 100 - 3 + 3 + 3 */
	ck_assert_uint_eq(pat, 103);
	ck_assert_uint_eq(xat, 114);
	ht_dg_places(92, 11, &pat, &xat);	/* 92 - 3 + 2 + 3: xat's third digit moves pat */
	ck_assert_uint_eq(pat, 94);
	ck_assert_uint_eq(xat, 105);
}
END_TEST

/* A JSON string read where it is when it is printable ASCII without an
 * escape, else by jansson; what is not one refused. */
START_TEST(test_jstr)
{
	static const struct {
		const char *in, *want;	/* want NULL: refused */
		size_t wlen;
		bool where;		/* read where it is */
	} cases[] = {
		{ "\"F0M:abc\",", "F0M:abc", 7, true },
		{ "\"\"]", "", 0, true },
		{ "\"a\\\"b\\\\c\",", "a\"b\\c", 5, false },
		{ "\"caf\xc3\xa9 \\u00e9\"", "caf\xc3\xa9 \xc3\xa9", 8, false },
		{ "\"a\\u0000b\"", NULL, 0, false },	/* a NUL, as jansson refuses it */
		{ "\"\xff\"", NULL, 0, false },	/* not UTF-8 */
		{ "\"a\tb\"", NULL, 0, false },	/* a raw control character */
		{ "\"abc", NULL, 0, false },		/* no end */
		{ "\"ab\\\"", NULL, 0, false },	/* its quote escaped: no end */
		{ "abc\"", NULL, 0, false },		/* no opening quote */
		{ "\"\\x\"", NULL, 0, false },	/* no such escape */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = cases[i].in, *end = p + strlen(p), *s;
		size_t len;
		char *own;
		bool ok = ht_dg_jstr(&p, end, &s, &len, &own);
		ck_assert_msg(ok == (cases[i].want != NULL), "case %zu", i);
		if (!ok) {
			ck_assert_ptr_eq(p, cases[i].in);
			continue;
		}
		ck_assert_uint_eq(len, cases[i].wlen);
		ck_assert_mem_eq(s, cases[i].want, len);
		ck_assert_msg((own == NULL) == cases[i].where, "case %zu", i);
		ck_assert_ptr_eq(p, strchr(cases[i].in, '\0') - (strchr(",]", end[-1]) != NULL));
		free(own);
	}
}
END_TEST

/* The report's text of job (read and analysed here). */
static char *text_of(struct rep_job *job)
{
	char *out = NULL;
	size_t n = 0;
	ck_assert_uint_gt(ht_rep_read(job), 0);
	ht_rep_analyse(job);
	FILE *f = open_memstream(&out, &n);
	ht_rep_text(job, f, false);
	fclose(f);
	return out;
}

/* A file of digests read a few bytes at a time: lines cut across blocks
 * (and longer than a block) give the report of the folder, their quoted
 * lines read again from where each digest is in the file (after a line
 * that is not one). A file changed since gives no line. */
START_TEST(test_blocks)
{
	static const char *const cases[] = { "missing_rank", "dataloader_stalled", "wrong_port" };
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char dir[PATH_MAX], path[] = "/tmp/check_digest.XXXXXX";
		ck_assert_ptr_nonnull(fixture_dir(cases[c], dir, sizeof(dir)));
		struct rep_job raw, w, dg;
		ht_rep_job_init(&raw);
		ck_assert_int_gt(ht_rep_add_path(&raw, dir), 0);
		char *want = text_of(&raw);
		/* The folder's digest, one line, in a file. */
		int fd = mkstemp(path);
		ck_assert_int_ge(fd, 0);
		FILE *f = fdopen(fd, "w");
		fprintf(f, "%*s\n", 3000 + (int)c * 777, "not a digest");
		ht_rep_job_init(&w);
		ht_rep_digest_prepare(&w);
		ck_assert_int_gt(ht_rep_add_path(&w, dir), 0);
		ck_assert_uint_gt(ht_rep_read(&w), 0);
		ck_assert_int_eq(ht_rep_digest_write(&w, f), 0);
		fclose(f);
		ht_rep_job_free(&w);
		for (size_t block = 7; block < 20000; block = block * 3 + 1) {
			ht_rep__digest_block(block);
			ht_rep_job_init(&dg);
			ck_assert_int_eq(ht_rep_add_digest(&dg, path), 1);
			char *got = text_of(&dg);
			ck_assert_msg(strcmp(got, want) == 0, "%s, %zu bytes a block", cases[c], block);
			free(got);
			ht_rep_job_free(&dg);
		}
		ht_rep__digest_block(0);
		/* Read, then the file cut: its records are there, no line is. */
		ht_rep_job_init(&dg);
		ck_assert_int_eq(ht_rep_add_digest(&dg, path), 1);
		ck_assert_uint_gt(ht_rep_read(&dg), 0);
		const struct rep_proc *p = dg.procs.v[0];
		char *line = ht_rep_line_text(&dg, &p->hdr);
		ck_assert_ptr_nonnull(line);
		ck_assert_ptr_nonnull(strstr(line, "\"t\":\"header\""));
		free(line);
		ht_rep_job_free(&dg);
		ht_rep_job_init(&dg);
		ck_assert_int_eq(ht_rep_add_digest(&dg, path), 1);
		ck_assert_uint_gt(ht_rep_read(&dg), 0);
		ck_assert_int_eq(truncate(path, 3500), 0);
		p = dg.procs.v[0];
		ck_assert_ptr_null(ht_rep_line_text(&dg, &p->hdr));
		ck_assert_ptr_null(ht_rep_line_text(&dg, &p->hdr));	/* (said once) */
		ht_rep_job_free(&dg);
		unlink(path);
		free(want);
		ht_rep_job_free(&raw);
	}
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("report_digest");
	TCase *t = tcase_create("codec");
	tcase_add_test(t, test_micros);
	tcase_add_test(t, test_mask);
	tcase_add_test(t, test_vlq);
	tcase_add_test(t, test_tokens);
	tcase_add_test(t, test_pack);
	tcase_add_test(t, test_places);
	tcase_add_test(t, test_jstr);
	tcase_add_test(t, test_text_delta);
	tcase_add_test(t, test_text_whole);
	tcase_add_test(t, test_blocks);
	suite_add_tcase(s, t);
	return s;
}

HT_CHECK_SUITE(make)
