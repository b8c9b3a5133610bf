// SPDX-License-Identifier: MIT
/*
 * lines.c: the repeated part of event lines, parsed once. The library
 * starts every event line but the header and thread lines the same way,
 * {"t":"<type>","ts":<secs>,"mono":<secs>,"tid":<int>, (src/core/writer.c),
 * and what follows is often the same text in line after line and rank
 * after rank: `"phase":"launch","state":"begin"}`, a version, a call's
 * name, a stall's calls, a host's facts for each of its ranks. Such a line
 * is cut after its tid: the head's numbers are read each time (as jansson
 * reads them, number_of), the tail once per distinct text and kept (an
 * object, jansson's); the two together are the line's members exactly (no
 * key in both), so the events read the same as from the whole line. A
 * tail is kept only once its text has been seen before (its hash in a
 * table of the texts seen); a tail met once, the usual case for a rank's
 * own fields, is read member by member (members.c), as is a header's,
 * cut after its mono. Anything unexpected (no tid where it belongs, a
 * number jansson would not read, a half that does not parse, a key of the
 * head in the tail) is the whole line's to parse, so its warnings are
 * those of the whole line.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

#define MAX_HEAD 256		/* where the tid must be */
#define MAX_KEPT 2048		/* tails kept per reading thread, at most */
#define MAX_KEPT_BYTES (512u << 10)	/* their text, at most */

struct rep_ltail {
	struct rep_tkey key;	/* first; its text is malloc's */
	json_t *o;		/* NULL: the line is parsed whole */
};

/* Forgets every tail kept (their objects: not alive past their line). */
static void drop_kept(struct rep_lcache *t)
{
	bool was = ht_rep__scratch_set(false);
	for (size_t i = 0; i < t->tab.cap; i++) {
		struct rep_ltail *x = (struct rep_ltail *)t->tab.slot[i];
		if (x == NULL)
			continue;
		json_decref(x->o);
		free((char *)x->key.text);
		free(x);
		t->tab.slot[i] = NULL;
	}
	ht_rep__scratch_set(was);
	t->tab.n = t->bytes = 0;
}

static bool is_head_key(const char *k)
{
	return strcmp(k, "t") == 0 || strcmp(k, "ts") == 0 || strcmp(k, "mono") == 0 ||
	       strcmp(k, "tid") == 0;
}

/* The tail {"...} parsed into memory of its own (not the line's scratch),
 * member by member (its members are often those of other tails: a host's
 * facts, but another host), or else whole: NULL when it does not parse
 * or holds a key of the head. */
static json_t *parse_tail(struct rep_rctx *c, const char *s, size_t n)
{
	bool was = ht_rep__scratch_set(false);
	json_t *o = ht_rep__members_parse(c, s, n, REP_MEMBERS_EVENT);
	if (o != NULL) {
		ht_rep__scratch_set(was);
		return o;
	}
	char *obj = malloc(n + 1);
	if (obj == NULL) {
		ht_rep__scratch_set(was);
		return NULL;
	}
	obj[0] = '{';
	memcpy(obj + 1, s, n);
	o = json_loadb(obj, n + 1, 0, NULL);
	free(obj);
	const char *k;
	json_t *v;
	bool ok = json_is_object(o);
	if (ok)
		json_object_foreach(o, k, v)
			if (is_head_key(k))
				ok = false;
	if (!ok) {
		json_decref(o);
		o = NULL;
	}
	ht_rep__scratch_set(was);
	return o;
}

/* A JSON number (RFC 8259 section 6, the text exactly that, no space)
 * read as jansson reads one: with no fraction and no exponent an integer,
 * by strtoll, which jansson refuses out of range; else a real, by strtod,
 * which jansson refuses when it overflows. jansson calls the same two
 * functions on the same text (in the C locale: the report sets none), so
 * the value is its value bit for bit. False for any other text and
 * wherever jansson would fail: the caller then gives the line to jansson
 * whole, and its warning is jansson's. (A line's times are the one part
 * of a repeated line that is new on every line; jansson spent more than
 * a microsecond on each head, most of it around strtod.) */
static bool number_of(const char *s, size_t n, double *d, int64_t *i)
{
	static const double pow10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
					1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
					1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	char buf[64];
	size_t k = 0, ndigits = 0, nfrac = 0;
	uint64_t m = 0;		/* the digits, while there are at most 19 */
	bool integer = true, neg = false;

	if (n == 0 || n >= sizeof(buf))
		return false;
	if (s[k] == '-') {
		neg = true;
		k++;
	}
	if (k < n && s[k] == '0') {
		k++;
	} else if (k < n && s[k] >= '1' && s[k] <= '9') {
		size_t f = k;
		for (unsigned dg; k < n && (dg = (unsigned)(s[k] - '0')) < 10; k++)
			m = m * 10 + dg;
		ndigits = k - f;
	} else {
		return false;
	}
	if (k < n && s[k] == '.') {
		size_t f = ++k;
		for (unsigned dg; k < n && (dg = (unsigned)(s[k] - '0')) < 10; k++)
			m = m * 10 + dg;
		if (k == f)
			return false;
		nfrac = k - f;
		ndigits += nfrac;
		integer = false;
	}
	bool exponent = false;
	if (k < n && (s[k] == 'e' || s[k] == 'E')) {
		k++;
		if (k < n && (s[k] == '+' || s[k] == '-'))
			k++;
		size_t f = k;
		while (k < n && s[k] >= '0' && s[k] <= '9')
			k++;
		if (k == f)
			return false;
		integer = false;
		exponent = true;
	}
	if (k != n)
		return false;
	/* An integer of at most 18 digits: what strtoll gives, never out of
	 * range (a rank's pid, rank, I/O counts: strtoll's locale and base
	 * handling were most of its time). */
	if (integer && ndigits <= 18) {
		*i = neg ? -(int64_t)m : (int64_t)m;
		*d = (double)*i;
		return true;
	}
	/* A fraction without exponent whose digits make an integer below 2^53
	 * and whose fraction has at most 22 digits: m and 10^nfrac are exact
	 * doubles and their quotient is rounded once, to the nearest, which is
	 * what strtod's correctly rounded result is (its slow part, a
	 * multiple-precision division, is most of its time). */
	if (!integer && !exponent && ndigits <= 19 && m < (1ull << 53) && nfrac <= 22) {
		double v = (double)m / pow10[nfrac];
		*d = neg ? -v : v;
		*i = (int64_t)*d;	/* |v| < 2^53 */
		return true;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	if (integer) {
		long long v = strtoll(buf, NULL, 10);
		if (errno == ERANGE)
			return false;
		*i = v;
		*d = (double)v;
	} else {
		double v = strtod(buf, NULL);
		if ((v == HUGE_VAL || v == -HUGE_VAL) && errno == ERANGE)
			return false;
		*i = v > -9e18 && v < 9e18 ? (int64_t)v : REP_UNKNOWN;
		*d = v;
	}
	return true;
}

bool ht_rep__number_of(const char *s, size_t n, double *d, int64_t *i)
{
	return number_of(s, n, d, i);
}

/* The head {"t":"<type>","ts":A,"mono":B,"tid":C (up to the comma after
 * C, which the tail's key follows; a header has no tid, and its tail
 * follows B) read into hd: the type as it is when it is printable ASCII
 * without a backslash (a string as JSON reads it), A, B and C when each
 * is one JSON number (number_of) and C an integer. The head is then
 * exactly the object of those members (the text between the keys is each
 * value's whole: a quote cannot occur unescaped inside a string, a key
 * inside a nested value leaves a value that is not a number). Returns
 * where the comma before the tail's key is, 0 when the line does not
 * start so (it is jansson's, whole). */
static size_t head_of(const char *s, size_t n, struct rep_head *hd)
{
	static const char t[] = "{\"t\":\"", ts[] = "\",\"ts\":", mono[] = ",\"mono\":",
			  tid[] = ",\"tid\":";
	size_t lim = n < MAX_HEAD ? n : MAX_HEAD;
	if (lim < sizeof(t) || memcmp(s, t, sizeof(t) - 1) != 0)
		return 0;
	const char *q = memchr(s + sizeof(t) - 1, '"', lim - (sizeof(t) - 1));
	if (q == NULL || (size_t)(s + lim - q) < sizeof(ts) || memcmp(q, ts, sizeof(ts) - 1) != 0)
		return 0;
	const char *ty = s + sizeof(t) - 1;
	size_t tn = (size_t)(q - ty);
	if (tn >= sizeof(hd->type))
		return 0;
	for (size_t i = 0; i < tn; i++)
		if (ty[i] < 0x20 || ty[i] > 0x7e || ty[i] == '\\')
			return 0;
	memcpy(hd->type, ty, tn);
	hd->type[tn] = '\0';
	bool header = strcmp(hd->type, "header") == 0;
	/* (a number has no comma: each ends at the first one) */
	const char *a = q + sizeof(ts) - 1, *end = s + lim;
	const char *m = memchr(a, ',', (size_t)(end - a));
	if (m == NULL || (size_t)(end - m) < sizeof(mono) - 1 ||
	    memcmp(m, mono, sizeof(mono) - 1) != 0)
		return 0;
	const char *b = m + sizeof(mono) - 1, *d, *e;
	int64_t unused;
	if (header) {
		d = e = memchr(b, ',', (size_t)(end - b));
		hd->tid = REP_UNKNOWN;
	} else {
		d = memchr(b, ',', (size_t)(end - b));
		if (d == NULL || (size_t)(end - d) < sizeof(tid) - 1 ||
		    memcmp(d, tid, sizeof(tid) - 1) != 0)
			return 0;
		const char *c = d + sizeof(tid) - 1;
		e = c;
		while (e < end && *e >= '0' && *e <= '9')
			e++;
		double ignored;
		if (e == c || !number_of(c, (size_t)(e - c), &ignored, &hd->tid))
			return 0;
	}
	if (e == NULL || e + 1 >= s + n || e[0] != ',' || e[1] != '"')
		return 0;
	if (!number_of(a, (size_t)(m - a), &hd->ts, &unused) ||
	    !number_of(b, (size_t)(d - b), &hd->mono, &unused))
		return 0;
	hd->t = hd->type;
	return (size_t)(e - s);
}

json_t *ht_rep__split_parse(struct rep_rctx *c, const char *s, size_t n, struct rep_head *hd,
			    json_t **own)
{
	struct rep_lcache *t = &c->lines;
	size_t cut = head_of(s, n, hd);
	*own = NULL;
	if (cut == 0)
		return NULL;
	const char *ts = s + cut + 1;
	size_t tn = n - cut - 1;
	if (strcmp(hd->type, "header") == 0)	/* its own, always */
		return *own = ht_rep__members_parse(c, ts, tn, REP_MEMBERS_NO_TID);
	uint64_t h = ht_rep_hash(ts, tn);
	struct rep_ltail *x = NULL;
	if (t->tab.cap != 0)
		x = (struct rep_ltail *)*ht_rep__ttab_slot(&t->tab, ts, tn, h);
	if (x == NULL) {
		uint32_t file = c->file;
		if (!ht_rep__seen(&t->seen, h, &file) || tn > MAX_KEPT_BYTES / 16)
			return *own = ht_rep__members_parse(c, ts, tn, REP_MEMBERS_EVENT);
		if (t->tab.n >= MAX_KEPT || t->bytes + tn > MAX_KEPT_BYTES)
			drop_kept(t);	/* full: the next files start again */
		if ((t->tab.n + 1) * 2 > t->tab.cap && !ht_rep__ttab_grow(&t->tab, 1024))
			return NULL;
		x = malloc(sizeof(*x));
		char *text = malloc(tn);
		if (x == NULL || text == NULL) {
			free(x);
			free(text);
			return NULL;
		}
		memcpy(text, ts, tn);
		*x = (struct rep_ltail){ { text, (uint32_t)tn, h }, parse_tail(c, ts, tn) };
		*ht_rep__ttab_slot(&t->tab, ts, tn, h) = &x->key;
		t->tab.n++;
		t->bytes += tn;
	}
	return x->o;
}

void ht_rep__lines_free(struct rep_lcache *t)
{
	drop_kept(t);
	free(t->tab.slot);
	ht_rep__seen_free(&t->seen);
	memset(t, 0, sizeof(*t));
}
