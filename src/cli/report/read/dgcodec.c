// SPDX-License-Identifier: MIT
/*
 * dgcodec.c: what the digest's writer and reader (digest_write.c,
 * digest_read.c) both need to agree on, byte for byte (digest.h): a
 * member's value as written (struct rep_dval: its kind, and times as
 * whole microseconds where they are), and a quoted line written as the
 * members it changes of its base line.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>
#include <zlib.h>

#include "digest.h"
#include "read/evidence.h"

bool ht_dg_micros(double v, int64_t *n)
{
	if (!isfinite(v))
		return false;
	double x = v * 1e6;
	if (!(fabs(x) < 9007199254740992.0))	/* 2^53: every integer exact */
		return false;
	long long k = llround(x);
	if ((double)k / 1e6 != v)
		return false;
	*n = k;
	return true;
}

bool ht_dg_dval_eq(const struct rep_dval *a, const struct rep_dval *b)
{
	if (a->k != b->k)
		return false;
	switch (a->k) {
	case DV_INT:
	case DV_MICRO:
	case DV_U64:
		return a->i == b->i;
	case DV_REAL:
		return memcmp(&a->d, &b->d, sizeof(a->d)) == 0;
	case DV_STR:
		return strcmp(a->s, b->s) == 0;
	case DV_LOC:
		return a->i == b->i && a->text == b->text && a->file == b->file;
	default:
		return true;
	}
}

/* For each member of each table: the index of the wall time its mono
 * time is written against, or -1 (rep_dg_pairs by name); and each
 * table's locations; made once. */
static int pairs[DG_NTABLES][DG_MAX_MEMBERS];
static size_t locs[DG_NTABLES][DG_MAX_MEMBERS], nlocs[DG_NTABLES];
static pthread_once_t pairs_once = PTHREAD_ONCE_INIT;

static void pairs_make(void)
{
	for (int t = 0; t < DG_NTABLES; t++) {
		const struct rep_dgtab *tab = &rep_dg_tabs[t];
		if (tab->n > DG_MAX_MEMBERS)
			abort();
		for (size_t i = 0; i < tab->n; i++)
			if (tab->fd[i].type == FT_LOC)
				locs[t][nlocs[t]++] = tab->fd[i].off;
		for (size_t i = 0; i < tab->n; i++) {
			pairs[t][i] = -1;
			for (size_t p = 0; p < FD_N(rep_dg_pairs); p++) {
				if (rep_dg_pairs[p].table != t ||
				    strcmp(rep_dg_pairs[p].mono, tab->fd[i].name) != 0)
					continue;
				for (size_t w = 0; w < tab->n; w++)
					if (strcmp(tab->fd[w].name, rep_dg_pairs[p].wall) == 0)
						pairs[t][i] = (int)w;
			}
		}
	}
}

const int *ht_dg_pairs(int t)
{
	pthread_once(&pairs_once, pairs_make);
	return pairs[t];
}

const size_t *ht_dg_locs(int t, size_t *n)
{
	pthread_once(&pairs_once, pairs_make);
	*n = nlocs[t];
	return locs[t];
}

void ht_dg_stack_base(const json_int_t *bs, size_t nb, const json_int_t *rs, size_t j,
		      json_int_t *fr, json_int_t *py)
{
	const json_int_t *s = bs != NULL && j < nb ? &bs[2 * j] : j > 0 ? &rs[2 * (j - 1)] : NULL;
	*fr = s != NULL ? s[0] : -1;
	*py = s != NULL ? s[1] : -1;
}

static size_t digits(size_t v)
{
	size_t n = 1;
	for (; v >= 10; v /= 10)
		n++;
	return n;
}

void ht_dg_places(size_t len, size_t plen, size_t *pat, size_t *xat)
{
	/* (each place's digits replace a 0: as many tries as digits change) */
	size_t dp = 1, dx = 1;
	for (;;) {
		*pat = len - 3 + dp + dx;
		*xat = *pat + plen;
		if (digits(*pat) == dp && digits(*xat) == dx)
			return;
		dp = digits(*pat);
		dx = digits(*xat);
	}
}

/* ---- which members a record gives ------------------------------------------------------ */

void ht_dg_mask_write(const bool *given, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t top = n;
	while (top > 0 && !given[top - 1])
		top--;
	size_t digits = (top + 3) / 4;
	for (size_t d = 0; d < digits; d++) {
		size_t lo = (digits - 1 - d) * 4;
		unsigned v = 0;
		for (size_t b = 0; b < 4 && lo + b < n; b++)
			v |= (unsigned)given[lo + b] << b;
		out[d] = hex[v];
	}
	out[digits] = '\0';
}

bool ht_dg_mask_read(const char *s, size_t len, size_t n, uint16_t *pos, size_t *nvals)
{
	memset(pos, 0, n * sizeof(*pos));
	size_t j = 1;
	if (len > DG_MASK_MAX * 4)	/* (room for tables 4 times ours) */
		return false;
	for (size_t q = 0; q < len * 4; q++) {
		char c = s[len - 1 - q / 4];
		int h = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (h < 0)
			return false;
		if (((unsigned)h >> (q % 4) & 1) == 0)
			continue;
		if (q < n)
			pos[q] = (uint16_t)j;
		j++;
	}
	*nvals = j - 1;
	return len > 0;
}

/* ---- a member's value as one token ------------------------------------------------ */

static const char vlq_digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void ht_dg_vlq_put(struct rep_buf *b, int64_t v)
{
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char out[16];
	size_t n = 0;
	unsigned d = (unsigned)(m & 15) << 1 | (v < 0);
	for (m >>= 4;; m >>= 5) {
		out[n++] = vlq_digits[d | (m != 0 ? 32 : 0)];
		if (m == 0)
			break;
		d = (unsigned)(m & 31);
	}
	ht_rep_buf_addn(b, out, n);
}

/* Each byte's value as a VLQ digit plus 1, 0 for what is none. */
static const unsigned char vlq_vals[256] = {
	['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6, ['G'] = 7, ['H'] = 8,
	['I'] = 9, ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15,
	['P'] = 16, ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22,
	['W'] = 23, ['X'] = 24, ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29,
	['d'] = 30, ['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36,
	['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42, ['q'] = 43,
	['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] = 49, ['x'] = 50,
	['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56, ['4'] = 57,
	['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64
};

bool ht_dg_vlq_get(const char **p, const char *end, int64_t *v)
{
	const char *s = *p;
	uint64_t m = 0;
	bool neg = false;
	for (unsigned shift = 0, k = 0;; k++) {
		int d = s < end ? vlq_vals[(unsigned char)*s] - 1 : -1;
		if (d < 0 || shift >= 64)	/* (13 digits hold 64 bits) */
			return false;
		s++;
		if (k == 0) {
			neg = d & 1;
			m = (uint64_t)(d >> 1 & 15);
			shift = 4;
		} else {
			m |= (uint64_t)(d & 31) << shift;
			shift += 5;
		}
		if (!(d & 32))
			break;
	}
	*v = (int64_t)(neg ? 0 - m : m);
	*p = s;
	return true;
}

void ht_dg_tok_put(struct rep_buf *b, const struct rep_dgtok *t)
{
	switch (t->k) {
	case DT_INT:
		ht_dg_vlq_put(b, t->i);
		break;
	case DT_REAL:
		if (isinf(t->d))
			ht_rep_buf_add(b, t->d > 0 ? ".inf;" : ".-inf;");
		else
			ht_rep_buf_printf(b, ".%.17g;", t->d);
		break;
	case DT_STR:
		ht_rep_buf_addn(b, "'", 1);
		ht_dg_vlq_put(b, (int64_t)t->len);
		ht_rep_buf_addn(b, t->s, t->len);
		break;
	case DT_LOC:
		ht_rep_buf_addn(b, "(", 1);
		ht_dg_vlq_put(b, t->i);
		ht_dg_vlq_put(b, t->text);
		if (t->file >= 0)
			ht_dg_vlq_put(b, t->file);
		ht_rep_buf_addn(b, ")", 1);
		break;
	case DT_TRUE:
		ht_rep_buf_addn(b, "!", 1);
		break;
	default:
		ht_rep_buf_addn(b, "~", 1);
		break;
	}
}

bool ht_dg_tok_get(const char **p, const char *end, struct rep_dgtok *t)
{
	const char *s = *p;
	if (s >= end)
		return false;
	*t = (struct rep_dgtok){ .k = *s, .file = -1 };
	switch (*s) {
	case DT_NONE:
	case DT_TRUE:
		s++;
		break;
	case DT_REAL: {
		const char *e = memchr(s + 1, ';', (size_t)(end - s - 1));
		char num[64];
		size_t n = e != NULL ? (size_t)(e - s - 1) : sizeof(num);
		if (n == 0 || n >= sizeof(num))
			return false;
		memcpy(num, s + 1, n);
		num[n] = '\0';
		char *rest;
		t->d = strtod(num, &rest);
		if (*rest != '\0')
			return false;
		s = e + 1;
		break;
	}
	case DT_STR: {
		int64_t n;
		s++;
		if (!ht_dg_vlq_get(&s, end, &n) || n < 0 || n > end - s)
			return false;
		t->s = s;
		t->len = (size_t)n;
		s += n;
		break;
	}
	case DT_LOC:
		s++;
		if (!ht_dg_vlq_get(&s, end, &t->i) || !ht_dg_vlq_get(&s, end, &t->text) ||
		    (s < end && *s != ')' && !ht_dg_vlq_get(&s, end, &t->file)) || s >= end ||
		    *s != ')')
			return false;
		s++;
		break;
	default:
		t->k = DT_INT;
		if (!ht_dg_vlq_get(&s, end, &t->i))
			return false;
		break;
	}
	*p = s;
	return true;
}

/* ---- packed members --------------------------------------------------------------- */

/* (a packed text is at most this many times its packed size: more is damage) */
#define PACK_RATIO 1032

json_t *ht_dg_pack(const char *s, size_t n)
{
	uLongf got = compressBound(n);
	Bytef *z = malloc(got);
	if (z == NULL || compress2(z, &got, (const Bytef *)s, n, Z_BEST_COMPRESSION) != Z_OK ||
	    sodium_init() < 0) {
		free(z);
		return NULL;
	}
	size_t blen = sodium_base64_encoded_len(got, sodium_base64_VARIANT_ORIGINAL);
	char *b = malloc(blen);
	json_t *v = NULL;
	if (b != NULL) {
		sodium_bin2base64(b, blen, z, got, sodium_base64_VARIANT_ORIGINAL);
		v = json_pack("[Is%]", (json_int_t)n, b, blen - 1);
	}
	free(b);
	free(z);
	return v;
}

void ht_dg_unpack_free(struct rep_dgunpack *u)
{
	if (u->ready)
		inflateEnd(&u->s);
	free(u->z);
	free(u->t);
	*u = (struct rep_dgunpack){ 0 };
}

/* Room for n bytes at *buf (of *cap), kept for the next member. */
static bool room(void *buf, size_t *cap, size_t n)
{
	void **b = buf;
	if (n <= *cap)
		return true;
	void *p = realloc(*b, n);
	if (p == NULL)
		return false;
	*b = p;
	*cap = n;
	return true;
}

const char *ht_dg_unpack_raw(int64_t n, const char *b64, size_t blen, struct rep_dgunpack *u,
			     size_t *len)
{
	size_t zlen = 0;
	if (!(n >= 0 && (uint64_t)n <= (uint64_t)blen * PACK_RATIO + 4096 && n < UINT32_MAX &&
	      sodium_init() >= 0 && room(&u->z, &u->zcap, blen / 4 * 3 + 3) &&
	      room(&u->t, &u->tcap, (size_t)n + 1) &&
	      sodium_base642bin(u->z, u->zcap, b64, blen, NULL, &zlen, NULL,
				sodium_base64_VARIANT_ORIGINAL) == 0 && zlen < UINT32_MAX))
		return NULL;
	/* (one inflater for every member, reset: its window made once) */
	if (!u->ready)
		u->ready = inflateInit(&u->s) == Z_OK;
	else if (inflateReset(&u->s) != Z_OK)
		return NULL;
	if (!u->ready)
		return NULL;
	u->s.next_in = u->z;
	u->s.avail_in = (uInt)zlen;
	u->s.next_out = (Bytef *)u->t;
	u->s.avail_out = (uInt)n;
	if (inflate(&u->s, Z_FINISH) != Z_STREAM_END || u->s.avail_in != 0 || u->s.avail_out != 0)
		return NULL;
	u->t[n] = '\0';
	*len = (size_t)n;
	return u->t;
}

const char *ht_dg_unpack_text(json_t *v, struct rep_dgunpack *u, size_t *len)
{
	json_t *jn = json_array_get(v, 0), *jt = json_array_get(v, 1);
	if (!json_is_integer(jn) || !json_is_string(jt) || json_array_size(v) != 2)
		return NULL;
	return ht_dg_unpack_raw(json_integer_value(jn), json_string_value(jt),
				json_string_length(jt), u, len);
}

json_t *ht_dg_unpack(json_t *v, struct rep_dgunpack *u)
{
	json_t *jn = json_array_get(v, 0), *jt = json_array_get(v, 1);
	if (!json_is_integer(jn) || !json_is_string(jt) || json_array_size(v) != 2)
		return v != NULL ? json_incref(v) : NULL;
	struct rep_dgunpack one = { 0 };
	size_t n;
	const char *t = ht_dg_unpack_text(v, u != NULL ? u : &one, &n);
	json_t *doc = t != NULL ? json_loadb(t, n, 0, NULL) : NULL;
	ht_dg_unpack_free(&one);
	return doc;
}

/* ---- a JSON string read where it is ------------------------------------------------- */

bool ht_dg_jstr(const char **p, const char *end, const char **s, size_t *len, char **own)
{
	const char *q = *p;
	*own = NULL;
	if (q >= end || *q != '"')
		return false;
	const char *b = q + 1, *e = memchr(b, '"', (size_t)(end - b));
	if (e == NULL)
		return false;
	/* (printable ASCII without a backslash: its bytes are its text) */
	unsigned odd = 0;
	for (const unsigned char *c = (const unsigned char *)b; c < (const unsigned char *)e; c++)
		odd |= (unsigned)(*c < 0x20) | (unsigned)(*c >= 0x80) | (unsigned)(*c == '\\');
	if (odd == 0) {
		*s = b;
		*len = (size_t)(e - b);
		*p = e + 1;
		return true;
	}
	/* Else its end past its escapes, and jansson reads it (its escapes,
	 * its UTF-8: refused as it refuses them). */
	for (e = b; e < end && *e != '"'; e++)
		if (*e == '\\')
			e++;
	if (e >= end)
		return false;
	json_t *v = json_loadb(q, (size_t)(e + 1 - q), JSON_DECODE_ANY, NULL);
	if (!json_is_string(v)) {
		json_decref(v);
		return false;
	}
	*len = json_string_length(v);
	*own = malloc(*len + 1);
	if (*own == NULL)
		abort();
	memcpy(*own, json_string_value(v), *len + 1);
	json_decref(v);
	*s = *own;
	*p = e + 1;
	return true;
}
/* ---- a quoted line as the members it changes ---------------------------------------- */

/* A number as a JSON text writes it without an exponent: its digits as
 * one integer and how many of them follow the point. */
static bool num_parse(const char *s, size_t n, int64_t *units, int *dec)
{
	size_t i = 0, digits = 0;
	bool neg = false;
	int64_t u = 0;
	*dec = -1;
	if (i < n && s[i] == '-') {
		neg = true;
		i++;
	}
	for (; i < n; i++) {
		if (s[i] == '.' && *dec < 0 && digits > 0) {
			*dec = 0;
			continue;
		}
		if (s[i] < '0' || s[i] > '9' || ++digits > 18)
			return false;
		u = u * 10 + (s[i] - '0');
		if (*dec >= 0)
			++*dec;
	}
	if (digits == 0 || *dec == 0)
		return false;
	if (*dec < 0)
		*dec = 0;
	*units = neg ? -u : u;
	return true;
}

/* units with dec digits after the point, as num_parse reads it. */
static void num_add(struct rep_buf *b, int64_t units, int dec)
{
	char tmp[48], *p = tmp + sizeof(tmp);
	uint64_t u = units < 0 ? -(uint64_t)units : (uint64_t)units;
	int k = 0;
	*--p = '\0';
	do {
		if (k == dec && dec > 0)
			*--p = '.';
		*--p = (char)('0' + u % 10);
		u /= 10;
		k++;
	} while (u != 0 || k <= dec);
	if (units < 0)
		*--p = '-';
	ht_rep_buf_add(b, p);
}

#define DGT_MEMBERS REP_MAX_MEMBERS
#define DGT_DEPTH 3

/* The members of the object, or the elements of the array, at v (key
 * NULL for an element); how many (0 when it is neither, or has more than
 * DGT_MEMBERS). */
static size_t parts_of(const char *v, struct rep_member *m)
{
	if (v[0] == '{') {
		size_t n = ht_rep_members(v, m, DGT_MEMBERS);
		return n < DGT_MEMBERS ? n : 0;
	}
	if (v[0] != '[' || v[1] == ']')
		return 0;
	size_t n = 0;
	for (const char *p = v + 1;;) {
		const char *e = ht_rep_value_end(p);
		if (e == NULL || e == p || n == DGT_MEMBERS - 1)
			return 0;
		m[n++] = (struct rep_member){ NULL, p, 0, (size_t)(e - p) };
		if (*e == ']')
			return n;
		if (*e != ',')
			return 0;
		p = e + 1;
	}
}

/* A number, or a string that holds one ("7"), as the digits of one
 * integer, how many follow the point, and whether it is quoted. */
static bool num_of(const char *s, size_t n, int64_t *units, int *dec, bool *quoted)
{
	*quoted = n >= 2 && s[0] == '"' && s[n - 1] == '"';
	return *quoted ? num_parse(s + 1, n - 2, units, dec) : num_parse(s, n, units, dec);
}

/* The value at v (vlen bytes) with delta x applied, onto b. */
static bool apply_value(struct rep_buf *b, const char *v, size_t vlen, json_t *x, int depth);

/* The object or array at obj with delta applied, onto b; false when the
 * delta does not fit it. */
static bool apply_obj(struct rep_buf *b, const char *obj, json_t *delta, int depth)
{
	struct rep_member m[DGT_MEMBERS];
	size_t n = parts_of(obj, m);
	size_t nd = json_array_size(delta);
	if (n == 0 || nd % 2 != 0)
		return false;
	ht_rep_buf_add(b, obj[0] == '{' ? "{" : "[");
	size_t d = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			ht_rep_buf_add(b, ",");
		if (m[i].key != NULL) {
			ht_rep_buf_addn(b, m[i].key - 1, m[i].klen + 2);
			ht_rep_buf_add(b, ":");
		}
		json_t *v = NULL;
		if (d < nd && json_integer_value(json_array_get(delta, d)) == (json_int_t)i) {
			v = json_array_get(delta, d + 1);
			d += 2;
		}
		if (v == NULL)
			ht_rep_buf_addn(b, m[i].val, m[i].vlen);
		else if (!apply_value(b, m[i].val, m[i].vlen, v, depth))
			return false;
	}
	ht_rep_buf_add(b, obj[0] == '{' ? "}" : "]");
	return d == nd;
}

static bool apply_value(struct rep_buf *b, const char *v, size_t vlen, json_t *x, int depth)
{
	if (json_is_string(x)) {
		ht_rep_buf_addn(b, json_string_value(x), json_string_length(x));
		return true;
	}
	if (json_is_integer(x)) {
		int64_t u;
		int dec;
		bool quoted;
		if (!num_of(v, vlen, &u, &dec, &quoted))
			return false;
		if (quoted)
			ht_rep_buf_add(b, "\"");
		num_add(b, (int64_t)((uint64_t)u + (uint64_t)json_integer_value(x)), dec);
		if (quoted)
			ht_rep_buf_add(b, "\"");
		return true;
	}
	if (json_is_array(x) && depth < DGT_DEPTH && (v[0] == '{' || v[0] == '['))
		return apply_obj(b, v, x, depth + 1);
	return false;
}

char *ht_dg_text_apply(const char *base, json_t *delta, size_t *len)
{
	struct rep_buf b = { 0 };
	if (!json_is_array(delta) || base[0] != '{' || !apply_obj(&b, base, delta, 0)) {
		ht_rep_buf_free(&b);
		return NULL;
	}
	*len = b.n;
	return b.s;
}

/* The members (or elements) of cur that differ from those of base, the
 * same keys in the same order: [index, value, ...] (a string: the value's
 * text; an integer: what is added to base's number, quoted or not; an
 * array: the same of an object or array); NULL when they are not the
 * same keys. */
static json_t *delta_obj(const char *base, const char *cur, int depth)
{
	struct rep_member mb[DGT_MEMBERS], mc[DGT_MEMBERS];
	size_t nb = parts_of(base, mb), nc = parts_of(cur, mc);
	if (nb == 0 || nb != nc || base[0] != cur[0])
		return NULL;
	json_t *d = json_array();
	for (size_t i = 0; i < nb; i++) {
		if (mb[i].klen != mc[i].klen ||
		    (mb[i].key != NULL && memcmp(mb[i].key, mc[i].key, mb[i].klen) != 0)) {
			json_decref(d);
			return NULL;
		}
		if (mb[i].vlen == mc[i].vlen && memcmp(mb[i].val, mc[i].val, mb[i].vlen) == 0)
			continue;
		int64_t ub, uc;
		int db, dc;
		bool qb, qc;
		json_t *v = NULL;
		if (num_of(mb[i].val, mb[i].vlen, &ub, &db, &qb) &&
		    num_of(mc[i].val, mc[i].vlen, &uc, &dc, &qc) && db == dc && qb == qc) {
			/* only where the number is made again as it is ("-0", "07" are not) */
			v = json_integer((json_int_t)((uint64_t)uc - (uint64_t)ub));
			struct rep_buf back = { 0 };
			if (!apply_value(&back, mb[i].val, mb[i].vlen, v, depth) || back.n != mc[i].vlen ||
			    memcmp(back.s, mc[i].val, back.n) != 0) {
				json_decref(v);
				v = NULL;
			}
			ht_rep_buf_free(&back);
		} else if (depth < DGT_DEPTH && (mb[i].val[0] == '{' || mb[i].val[0] == '[') &&
			 mb[i].val[0] == mc[i].val[0])
			v = delta_obj(mb[i].val, mc[i].val, depth + 1);
		if (v == NULL)
			v = json_stringn_nocheck(mc[i].val, mc[i].vlen);
		json_array_append_new(d, json_integer((json_int_t)i));
		json_array_append_new(d, v);
	}
	return d;
}

json_t *ht_dg_text_delta(const char *base, const char *cur, size_t len, size_t *size)
{
	if (base[0] != '{' || cur[0] != '{')
		return NULL;
	json_t *d = delta_obj(base, cur, 0);
	if (d == NULL)
		return NULL;
	size_t n;
	char *back = ht_dg_text_apply(base, d, &n);	/* what the reader will make of it */
	bool same = back != NULL && n == len && memcmp(back, cur, len) == 0;
	free(back);
	*size = json_dumpb(d, NULL, 0, JSON_COMPACT);
	if (!same || *size >= len) {
		json_decref(d);
		return NULL;
	}
	return d;
}

/* ---- a process record's arrays ------------------------------------------------------ */

void *ht_dg_arr(const struct rep_proc *p, int a, size_t *n)
{
	switch (a) {
	case DA_CONN: *n = p->nconn; return p->conn;
	case DA_LISTEN: *n = rep_rare(p)->nlisten; return rep_rare(p)->listen;
	case DA_BINDFAIL: *n = rep_rare(p)->bind_fail != NULL; return rep_rare(p)->bind_fail;
	case DA_STORE: *n = rep_rare(p)->store != NULL; return rep_rare(p)->store;
	case DA_RES: *n = rep_rare(p)->nres; return rep_rare(p)->res;
	case DA_CERR: *n = rep_rare(p)->ncerr; return rep_rare(p)->cerr;
	case DA_COMMS: *n = p->ncomms; return p->comms;
	case DA_RING: *n = p->nring; return p->ring;
	case DA_CALLS: *n = p->ncalls; return p->calls;
	case DA_DUMPS: *n = p->ndumps; return p->dumps;
	default: *n = 0; return NULL;
	}
}

void ht_dg_arr_set(struct rep_arena *ar, struct rep_proc *p, int a, void *v, size_t n)
{
	/* Listens, a failed bind, a FileStore, resolves and CUDA errors are
	 * in the process's struct rep_rare, made for the first item. */
	bool rare = a == DA_LISTEN || a == DA_BINDFAIL || a == DA_STORE || a == DA_RES ||
		    a == DA_CERR;
	if (rare && n == 0 && p->rare == NULL)
		return;
	struct rep_rare *r = rare ? ht_rep_rare_w(ar, p) : NULL;
	switch (a) {
	case DA_CONN: p->conn = v; p->nconn = n; break;
	case DA_LISTEN: r->listen = v; r->nlisten = n; break;
	case DA_BINDFAIL: r->bind_fail = n > 0 ? v : NULL; break;
	case DA_STORE: r->store = n > 0 ? v : NULL; break;
	case DA_RES: r->res = v; r->nres = n; break;
	case DA_CERR: r->cerr = v; r->ncerr = n; break;
	case DA_COMMS: p->comms = v; p->ncomms = n; break;
	case DA_RING: p->ring = v; p->nring = n; break;
	case DA_CALLS: p->calls = v; p->ncalls = n; break;
	case DA_DUMPS: p->dumps = v; p->ndumps = n; break;
	default: break;
	}
}

/* ---- a record's values, in memory used again ------------------------------------ */

struct rep_dgblk {
	struct rep_dgblk *next;
	size_t cap;
	max_align_t data[];
};

#define DGSLAB_BLOCK (16 * 1024)

void *ht_dg_slab_alloc(struct rep_dgslab *s, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	while (s->cur == NULL || s->used + n > s->cur->cap) {
		struct rep_dgblk *next = s->cur != NULL ? s->cur->next : s->head;
		if (next == NULL || next->cap < n) {
			size_t cap = n > DGSLAB_BLOCK ? n : DGSLAB_BLOCK;
			struct rep_dgblk *b = malloc(sizeof(*b) + cap);
			if (b == NULL)
				abort();
			b->cap = cap;
			/* (after the current block: those after it are free again) */
			if (s->cur != NULL) {
				b->next = s->cur->next;
				s->cur->next = b;
			} else {
				b->next = s->head;
				s->head = b;
			}
			next = b;
		}
		s->cur = next;
		s->used = 0;
	}
	void *p = (char *)s->cur->data + s->used;
	s->used += n;
	return p;
}

void ht_dg_slab_end(struct rep_dgslab *s, bool free_)
{
	for (struct rep_dgblk *b = free_ ? s->head : NULL, *n; b != NULL; b = n) {
		n = b->next;
		free(b);
	}
	if (free_)
		s->head = NULL;
	s->cur = NULL;
	s->used = 0;
}
