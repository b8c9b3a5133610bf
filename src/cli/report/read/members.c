// SPDX-License-Identifier: MIT
/*
 * members.c: an event line's tail that is new, read member by member.
 * A tail seen once is most often a rank's own (its rank, its GPU's uuid,
 * its header), but most of its members are the same as on the other ranks
 * (a phase's name, the NCCL version, the command line): each member's text
 * `"key":value` that repeats is parsed once and kept, like the tails of
 * lines.c, and the members met for the first time are parsed together, in
 * one jansson call on `{m1,m2,...}`. A member whose value is a scalar (a
 * number, a plain string, a literal: most of a rank's own values, its
 * ages, durations, counts) is made where it is met, without the cache
 * (scalar_at), and so is an array new in its file whose elements are
 * scalars or plain objects (array_of: a stall's calls). The line's object
 * is then made of them all, member after member in the line's order (a
 * key given twice keeps its first place and its last value, as jansson's
 * own parse).
 *
 * Why it is the line: the cuts are made where a member of the top object
 * ends (a comma outside strings and nested values), and every piece is
 * given to jansson, alone or with the other new ones, or read here only
 * where its text is exactly what jansson would read (a number as
 * ht_rep__number_of reads it, a string of printable ASCII without an
 * escape, true, false, null); when each of them is one object of exactly
 * the one member cut, the line is those members, in that order (the text
 * `{m1,...,mk}` is the line's tail, and JSON reads a list of members
 * joined by commas as the members of each). Anything else (a space after
 * a comma, a piece that does not parse, a key of the head) gives NULL:
 * the line goes to jansson whole, and its warning is jansson's.
 */
#include <stdlib.h>
#include <string.h>

#include "reader.h"

#define MAX_MEMBERS 64			/* in a line, at most: more go whole */
#define MAX_KEPT 4096			/* members kept per reading thread, at most */
#define MAX_KEPT_BYTES (256u << 10)	/* their text, at most */
#define MAX_MEMBER_BYTES 2048		/* a longer member is never kept */
#define MIN_INNER 96			/* a new object value this long: by members */


struct rep_member {
	struct rep_tkey key;	/* first; its text is malloc's */
	char *k;		/* the key and value read (malloc's) */
	json_t *v;
	bool used;		/* since the last sweep */
};

/* Where the value that starts at s[i] ends: the index of the comma after
 * it or of the closing bracket close (the object's brace, an array's
 * bracket), 0 when there is neither (or a string is not closed). Strings
 * are skipped whole: a quote inside one is escaped, after an odd number
 * of backslashes. */
static size_t value_end(const char *s, size_t i, size_t n, char close)
{
	int depth = 0;
	while (i < n) {
		char ch = s[i];
		if (ch == '"') {
			const char *open = s + i + 1, *p = open;
			for (;;) {
				const char *q = memchr(p, '"', (size_t)(s + n - p));
				if (q == NULL)
					return 0;
				const char *b = q;
				while (b > open && b[-1] == '\\')
					b--;
				p = q + 1;
				if (((q - b) & 1) == 0)
					break;
			}
			i = (size_t)(p - s);
			continue;
		}
		if (ch == '{' || ch == '[') {
			depth++;
		} else if (ch == '}' || ch == ']') {
			if (depth == 0)
				return ch == close ? i : 0;
			depth--;
		} else if (ch == ',' && depth == 0) {
			return i;
		}
		i++;
	}
	return 0;
}

/* A key the line's head has already (enum rep_members). */
static bool is_head_key(const char *k, enum rep_members what)
{
	return what != REP_MEMBERS_INNER && (k[0] == 't' || k[0] == 'm') &&
	       (strcmp(k, "t") == 0 || strcmp(k, "ts") == 0 || strcmp(k, "mono") == 0 ||
		(what == REP_MEMBERS_EVENT && strcmp(k, "tid") == 0));
}

/* Bytes by what they may be: PLAIN inside a string whose text is its
 * value (printable ASCII but the quote and the backslash), NUM in a
 * number's text, REAL in a real's (jansson reads a number with a fraction
 * or an exponent as a real). */
enum { PLAIN = 1, NUM = 2, REAL = 4 };
static const unsigned char kind[256] = {
	[0x20 ... 0x21] = PLAIN,	/* (0x22, the quote: none) */
	[0x23 ... 0x2a] = PLAIN,
	['+'] = PLAIN | NUM,
	[','] = PLAIN,
	['-'] = PLAIN | NUM,
	['.'] = PLAIN | NUM | REAL,
	['/'] = PLAIN,
	['0' ... '9'] = PLAIN | NUM,
	[':' ... 'D'] = PLAIN,
	['E'] = PLAIN | NUM | REAL,
	['F' ... '['] = PLAIN,		/* (0x5c, the backslash: none) */
	[']' ... 'd'] = PLAIN,
	['e'] = PLAIN | NUM | REAL,
	['f' ... '~'] = PLAIN,
};

/* The key of the member m (n bytes) into key (cap bytes) and where its
 * value starts, when the key is printable ASCII without a backslash (so
 * its text is the key); 0 when not. */
static size_t key_of(const char *m, size_t n, char *key, size_t cap)
{
	size_t k = 1;
	while (k < n && k < cap && (kind[(unsigned char)m[k]] & PLAIN))
		k++;
	if (k >= n - 1 || k >= cap || m[k] != '"' || m[k + 1] != ':')
		return 0;
	memcpy(key, m + 1, k - 1);
	key[k - 1] = '\0';
	return k + 2;
}

/* The scalar at the start of v (of n bytes) as jansson reads it, and its
 * length (*len), when it is read without jansson: a number
 * (ht_rep__number_of: jansson's own strtoll or strtod, or the exactly
 * rounded quotient strtod gives), a string of printable ASCII without a
 * backslash (its text is its value), true, false or null. NULL for
 * anything else (an array, an object, an escape, a byte jansson checks as
 * UTF-8): the caller's general way. The caller checks what follows (a
 * comma or the closing bracket: else its general way, which then sees a
 * space or worse). A rank's own values are such scalars (its rank, pid,
 * ages, durations, I/O counts): made here, they are neither cut by
 * value_end, nor hashed, nor looked up in the cache of members, where
 * they would only miss. */
static json_t *scalar_at(const char *v, size_t n, size_t *len)
{
	size_t k;
	if (n == 0)
		return NULL;
	if (v[0] == '"') {
		for (k = 1; k < n && (kind[(unsigned char)v[k]] & PLAIN); k++)
			;
		if (k == n || v[k] != '"')
			return NULL;
		*len = k + 1;
		return json_stringn_nocheck(v + 1, k - 1);
	}
	if (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		unsigned seen = 0;
		for (k = 0; k < n && (kind[(unsigned char)v[k]] & NUM); k++)
			seen |= kind[(unsigned char)v[k]];
		bool real = (seen & REAL) != 0;
		double d;
		int64_t i;
		if (!ht_rep__number_of(v, k, &d, &i))
			return NULL;
		*len = k;
		return real ? json_real(d) : json_integer(i);
	}
	*len = v[0] == 'f' ? 5 : 4;
	if (n >= 4 && memcmp(v, "true", 4) == 0)
		return json_true();
	if (n >= 5 && memcmp(v, "false", 5) == 0)
		return json_false();
	if (n >= 4 && memcmp(v, "null", 4) == 0)
		return json_null();
	return NULL;
}

static void member_free(struct rep_member *x)
{
	json_decref(x->v);
	free(x->k);
	free((char *)x->key.text);
	free(x);
}

/* True when the member's hash was seen in another file than this one
 * (it is noted as seen here). A rank's own value repeated in its own
 * lines (its rank in the header, then in its NCCL lines) is not kept:
 * the next rank has another. */
static bool seen_elsewhere(struct rep_mcache *t, uint64_t h, uint32_t file)
{
	uint32_t last = file;
	return ht_rep__seen(&t->seen, h, &last) && last != file;
}

/* Makes room: the members not used since the last sweep go, and when
 * that is not enough, all of them (the files read next keep what they
 * use). */
static void sweep(struct rep_mcache *t)
{
	bool was = ht_rep__scratch_set(false);
	size_t kept = 0;
	struct rep_tkey **keep = malloc(t->tab.n * sizeof(*keep));
	for (size_t i = 0; i < t->tab.cap; i++) {
		struct rep_member *x = (struct rep_member *)t->tab.slot[i];
		t->tab.slot[i] = NULL;
		if (x == NULL)
			continue;
		if (x->used && keep != NULL) {
			x->used = false;
			keep[kept++] = &x->key;
		} else {
			t->bytes -= x->key.len;
			member_free(x);
		}
	}
	t->tab.n = 0;
	if (kept > MAX_KEPT / 2 || t->bytes > MAX_KEPT_BYTES / 2) {
		for (size_t i = 0; i < kept; i++) {
			t->bytes -= keep[i]->len;
			member_free((struct rep_member *)keep[i]);
		}
		kept = 0;
	}
	for (size_t i = 0; i < kept; i++)
		*ht_rep__ttab_slot(&t->tab, keep[i]->text, keep[i]->len, keep[i]->hash) = keep[i];
	t->tab.n = kept;
	free(keep);
	ht_rep__scratch_set(was);
}

/* Keeps the member whose text is m (n bytes) as jansson read it (k, v:
 * in the line's memory, copied into memory of its own). */
static void member_keep(struct rep_mcache *t, const char *m, size_t n, uint64_t h,
			const char *k, json_t *v)
{
	if ((t->tab.n + 1) * 2 > t->tab.cap && !ht_rep__ttab_grow(&t->tab, 1024))
		return;
	bool was = ht_rep__scratch_set(false);
	struct rep_member *x = malloc(sizeof(*x));
	char *text = malloc(n), *key = strdup(k);
	json_t *copy = json_deep_copy(v);
	if (x == NULL || text == NULL || key == NULL || copy == NULL) {
		free(x);
		free(text);
		free(key);
		json_decref(copy);
		ht_rep__scratch_set(was);
		return;
	}
	ht_rep__scratch_set(was);
	memcpy(text, m, n);
	*x = (struct rep_member){ { text, (uint32_t)n, h }, key, copy, true };
	*ht_rep__ttab_slot(&t->tab, m, n, h) = &x->key;
	t->tab.n++;
	t->bytes += n;
}

/* The array v (n bytes, `[...]`) as jansson reads it, made here when its
 * elements are scalars (scalar_at) or objects read as a line's inner
 * objects are (their members, the new ones in one jansson call); NULL
 * otherwise (a space, an array inside, an empty object: the batch's). A
 * stall's calls ([{"name":...,"tid":...,"age":...}], new on every stall of
 * every rank) are such. The elements are cut as a line's members are
 * (value_end), so they are the array's exactly. */
static json_t *array_of(struct rep_rctx *c, const char *v, size_t n)
{
	if (n < 2 || v[0] != '[' || v[n - 1] != ']')
		return NULL;
	json_t *a = json_array();
	if (a == NULL || n == 2)
		return a;
	for (size_t i = 1; i < n;) {
		size_t e, len;
		json_t *x = scalar_at(v + i, n - i, &len);
		if (x != NULL) {
			e = i + len;
			if (e >= n || (v[e] != ',' && (v[e] != ']' || e != n - 1))) {
				json_decref(x);
				goto refused;
			}
		} else if (v[i] == '{') {
			e = value_end(v, i, n, ']');
			if (e <= i || (v[e] == ']' && e != n - 1) || v[e - 1] != '}')
				goto refused;
			x = ht_rep__members_parse(c, v + i + 1, e - i - 1, REP_MEMBERS_INNER);
		} else {
			goto refused;
		}
		if (json_array_append_new(a, x) != 0)	/* (NULL refused) */
			goto refused;
		i = e + 1;
	}
	return a;
refused:
	json_decref(a);
	return NULL;
}

json_t *ht_rep__members_parse(struct rep_rctx *c, const char *s, size_t n,
			      enum rep_members what)
{
	struct rep_mcache *t = &c->members;
	struct {
		const struct rep_member *kept;	/* NULL: in the batch, inner or own */
		json_t *inner;			/* a long object, read the same way */
		json_t *own;			/* a scalar or an array, made here */
		uint64_t hash;
		bool keep;			/* seen before: kept once read */
	} mem[MAX_MEMBERS];
	char key[MAX_MEMBERS][64];
	size_t nmem = 0, nbatch = 0, batch_bytes = 0;
	uint32_t off[MAX_MEMBERS], len[MAX_MEMBERS];

	if (n < 2 || s[0] != '"' || s[n - 1] != '}')
		return NULL;
	/* Room first (a sweep during the line would free what it found), for
	 * the line and the objects inside it, read the same way (one level). */
	if (what != REP_MEMBERS_INNER &&
	    (t->tab.n + 2 * MAX_MEMBERS > MAX_KEPT || t->bytes + n > MAX_KEPT_BYTES))
		sweep(t);
	/* The cuts, and each member found in the cache or not. */
	for (size_t i = 0; i < n;) {
		if (nmem == MAX_MEMBERS || s[i] != '"')
			goto refused;
		const char *m = s + i;
		mem[nmem].keep = false;
		mem[nmem].inner = NULL;
		mem[nmem].kept = NULL;
		mem[nmem].own = NULL;
		off[nmem] = (uint32_t)i;
		size_t e, sl, v = key_of(m, n - i, key[nmem], sizeof(key[nmem]));
		if (v != 0 && (mem[nmem].own = scalar_at(m + v, n - i - v, &sl)) != NULL) {
			e = i + v + sl;
			if (e < n && (s[e] == ',' || (s[e] == '}' && e == n - 1))) {
				len[nmem++] = (uint32_t)(e - i);
				i = e + 1;
				continue;
			}
			json_decref(mem[nmem].own);	/* (a space, or worse: cut as any) */
			mem[nmem].own = NULL;
		}
		e = value_end(s, i, n, '}');
		if (e <= i || (s[e] == '}' && e != n - 1))
			goto refused;	/* (the object's brace ends the line) */
		size_t mn = e - i;
		len[nmem] = (uint32_t)mn;
		uint64_t h = ht_rep_hash(m, mn);
		struct rep_member *x = NULL;
		if (t->tab.cap != 0)
			x = (struct rep_member *)*ht_rep__ttab_slot(&t->tab, m, mn, h);
		if (x != NULL) {
			x->used = true;
		} else if (what != REP_MEMBERS_INNER && mn > MIN_INNER &&
			   v != 0 && m[v] == '{' &&
			   (mem[nmem].inner = ht_rep__members_parse(c, m + v + 1, mn - v - 1,
								    REP_MEMBERS_INNER)) != NULL) {
			/* its members apart: its own new ones in a call of their own */
		} else if ((mem[nmem].keep = mn <= MAX_MEMBER_BYTES &&
					     seen_elsewhere(t, h, c->file)) ||
			   what == REP_MEMBERS_INNER || v == 0 || m[v] != '[' ||
			   (mem[nmem].own = array_of(c, m + v, mn - v)) == NULL) {
			nbatch++;
			batch_bytes += mn + 1;
		}	/* (else an array new here, made without jansson) */
		mem[nmem].kept = x;
		mem[nmem].hash = h;
		nmem++;
		i = e + 1;	/* past the comma (or the closing brace: the end) */
	}
	/* The new members, together. */
	json_t *batch = NULL;
	void *it = NULL;
	if (nbatch > 0) {
		char small[4096];
		char *b = batch_bytes + 1 <= sizeof(small) ? small : malloc(batch_bytes + 1);
		if (b == NULL)
			goto refused;
		size_t k = 0;
		b[k++] = '{';
		for (size_t i = 0; i < nmem; i++) {
			if (mem[i].kept != NULL || mem[i].inner != NULL || mem[i].own != NULL)
				continue;
			if (k > 1)
				b[k++] = ',';
			memcpy(b + k, s + off[i], len[i]);
			k += len[i];
		}
		b[k++] = '}';
		batch = json_loadb(b, k, 0, NULL);
		if (b != small)
			free(b);
		if (json_object_size(batch) != nbatch) {
			json_decref(batch);
			goto refused;	/* not objects, or a key twice: jansson's, whole */
		}
		it = json_object_iter(batch);
	}
	/* The line's object, member after member (every key is jansson's, or
	 * printable ASCII: no UTF-8 check to repeat). */
	json_t *o = json_object();
	if (o == NULL) {
		json_decref(batch);
		goto refused;
	}
	for (size_t i = 0; i < nmem; i++) {
		const char *k;
		json_t *v;
		if (mem[i].kept != NULL) {
			k = mem[i].kept->k;
			v = mem[i].kept->v;
			c->shared++;	/* (o holds memory of the cache) */
		} else if (mem[i].inner != NULL) {
			k = key[i];
			v = mem[i].inner;
		} else if (mem[i].own != NULL) {
			k = key[i];
			v = mem[i].own;
		} else {
			k = json_object_iter_key(it);
			v = json_object_iter_value(it);
			it = json_object_iter_next(batch, it);
			/* a new member seen before: kept as read here */
			if (mem[i].keep && t->tab.n < MAX_KEPT && t->bytes + len[i] <= MAX_KEPT_BYTES)
				member_keep(t, s + off[i], len[i], mem[i].hash, k, v);
		}
		if (is_head_key(k, what) || json_object_set_nocheck(o, k, v) != 0) {
			json_decref(o);
			json_decref(batch);
			goto refused;
		}
	}
	json_decref(batch);
	for (size_t i = 0; i < nmem; i++) {
		json_decref(mem[i].inner);	/* (o holds them) */
		json_decref(mem[i].own);
	}
	return o;
refused:
	for (size_t i = 0; i < nmem; i++) {
		json_decref(mem[i].inner);
		json_decref(mem[i].own);
	}
	return NULL;
}

void ht_rep__members_free(struct rep_mcache *t)
{
	bool was = ht_rep__scratch_set(false);
	for (size_t i = 0; i < t->tab.cap; i++)
		if (t->tab.slot[i] != NULL)
			member_free((struct rep_member *)t->tab.slot[i]);
	ht_rep__scratch_set(was);
	free(t->tab.slot);
	ht_rep__seen_free(&t->seen);
	memset(t, 0, sizeof(*t));
}
