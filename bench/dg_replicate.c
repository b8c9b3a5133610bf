// SPDX-License-Identifier: MIT
/*
 * dg_replicate.c: the input of bench/digest_million.sh, the digests of
 * the nodes of a job of a million ranks, made from the trace folder of a
 * few real-shaped nodes (bench/gen_traces.py --world-size). Each output
 * node k is a source node's trace files with another host name, boot id,
 * address, GPU UUIDs, rank numbers, pids and tids, and its wall and
 * monotonic times shifted by offsets drawn for k (start skew, uptime);
 * the files are then read by the report's own reader and written by its
 * own digest writer (ht_rep_read, ht_rep_digest_write), as `hangtrace
 * digest` would write that node's digest, one line per node. It knows
 * nothing of the digest's layout; it knows the trace format
 * (doc/trace-format.md): which members hold times, pids, ranks and host
 * facts. One node at a time: memory does not grow with the nodes.
 *
 * Source nodes are the files' host names (the name before the first
 * dot). A source node placed with --place (the straggler's, rank 0's) is
 * written once, at the output node named; every other output node k is
 * the (k mod n)-th of the sources not placed.
 */
#include <err.h>
#include <errno.h>
#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* What a member of a trace line holds, and so how it is rewritten. */
enum hole {
	H_WALL,		/* a wall-clock time, seconds: shifted by the node's skew */
	H_MONO,		/* a monotonic time: shifted by skew and uptime */
	H_BTIME,	/* the boot time (wall minus mono) */
	H_TICKS,	/* a start time in clock ticks (100 a second) */
	H_HOST,		/* the host name (a string's text) */
	H_BOOT,		/* the boot id */
	H_UUID,		/* a GPU's UUID */
	H_ADDR,		/* the host's own address (before its "/prefix") */
	H_PID,		/* a pid or tid */
	H_RANK,		/* a rank of the job */
	H_RANK_S,	/* the same as a string ("RANK":"3") */
	H_NODE,		/* the node's index (an srun task's rank) */
	H_NODE_S,	/* the same as a string (SLURM_PROCID, GROUP_RANK) */
};

/* A source file as literal text between holes: piece i is the text from
 * lit to at, then the hole [at, end) of kind, its source value v. */
struct piece {
	uint32_t lit, at, end;
	uint8_t kind;
	int64_t v;
};

struct sfile {
	char *name;		/* HOST.PID.jsonl */
	char *text;
	size_t len;
	struct piece *p;
	size_t np, cap;
	int64_t pid;		/* of its name */
	const char *tail;	/* its name after HOST.PID */
	bool agent;		/* an srun task: its rank is the node's index */
};

struct snode {
	char *host;
	struct sfile *f;
	size_t nf;
	int64_t rank0;		/* its lowest worker rank */
	int64_t index;		/* its place in the source job (its agent's rank) */
	bool placed;
};

/* What one output node k is: its names and offsets. */
struct onode {
	int64_t k, wall_us, mono_us, pid_shift, rank0;
	char host[32], boot[40], addr[20];
	uint64_t seed;
	bool identity;		/* every hole as in the source (--identity) */
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n != 0 ? n : 1, size);
	if (p == NULL)
		err(2, "out of memory");
	return p;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* A number drawn in [0, 1) from seed and what. */
static double draw(uint64_t seed, uint64_t what)
{
	return (double)(mix(seed ^ mix(what)) >> 11) / 9007199254740992.0;
}

/* ---- source files into pieces ------------------------------------------------------ */

/* The closing quote of the string whose text starts at i. */
static size_t str_end(const char *t, size_t n, size_t i)
{
	while (i < n && t[i] != '"')
		i += t[i] == '\\' ? 2 : 1;
	return i < n ? i : n;
}

static size_t num_end(const char *t, size_t n, size_t i)
{
	while (i < n && (t[i] == '-' || t[i] == '+' || t[i] == '.' || t[i] == 'e' ||
			 t[i] == 'E' || (t[i] >= '0' && t[i] <= '9')))
		i++;
	return i;
}

/* A decimal number's value in millionths (times are written with six
 * decimals: exact, no rounding through a double). */
static int64_t micros(const char *s, size_t n)
{
	int64_t v = 0, frac = 0;
	int nf = -1;
	bool neg = n > 0 && s[0] == '-';
	for (size_t i = neg; i < n; i++) {
		if (s[i] == '.') {
			nf = 0;
		} else if (nf < 0) {
			v = v * 10 + (s[i] - '0');
		} else if (nf < 6) {
			frac = frac * 10 + (s[i] - '0');
			nf++;
		}
	}
	for (; nf < 6; nf = nf < 0 ? 1 : nf + 1)
		frac *= 10;
	v = v * 1000000 + frac;
	return neg ? -v : v;
}

static void add_piece(struct sfile *f, size_t *lit, int kind, size_t at, size_t end)
{
	if (f->np == f->cap) {
		f->cap = f->cap != 0 ? f->cap * 2 : 256;
		f->p = realloc(f->p, f->cap * sizeof(*f->p));
		if (f->p == NULL)
			err(2, "out of memory");
	}
	const char *s = f->text + at;
	size_t n = end - at;
	int64_t v = 0;
	if (kind == H_WALL || kind == H_MONO || kind == H_BTIME)
		v = micros(s, n);
	else if (kind != H_HOST && kind != H_BOOT && kind != H_UUID && kind != H_ADDR)
		v = strtoll(s, NULL, 10);
	f->p[f->np++] = (struct piece){ (uint32_t)*lit, (uint32_t)at, (uint32_t)end, (uint8_t)kind,
					v };
	*lit = end;
}

/* Which hole a member of that key holds; -1: none. */
static int kind_of(const char *k, size_t n, bool agent, bool *string)
{
	static const struct {
		const char *key;
		int kind;
		bool string;
	} keys[] = {
		{ "ts", H_WALL, false }, { "mono", H_MONO, false }, { "first", H_MONO, false },
		{ "last", H_MONO, false }, { "btime", H_BTIME, false },
		{ "start_ticks", H_TICKS, false }, { "host", H_HOST, true },
		{ "hostname", H_HOST, true }, { "boot_id", H_BOOT, true }, { "uuid", H_UUID, true },
		{ "pid", H_PID, false }, { "ppid", H_PID, false }, { "tid", H_PID, false },
		{ "fork_parent", H_PID, false }, { "holder_pid", H_PID, false },
		{ "rank", H_RANK, false }, { "RANK", H_RANK_S, true },
		{ "GROUP_RANK", H_NODE_S, true }, { "SLURM_PROCID", H_NODE_S, true },
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strlen(keys[i].key) != n || memcmp(keys[i].key, k, n) != 0)
			continue;
		*string = keys[i].string;
		/* An srun task (the torchrun agent) is ranked by its node. */
		return keys[i].kind == H_RANK && agent ? H_NODE : keys[i].kind;
	}
	return -1;
}

/* The strings of an "addrs" array from i (its '['): each address but
 * the loopback's is the host's own. Returns the index after the array. */
static size_t scan_addrs(struct sfile *f, size_t i, size_t *lit)
{
	const char *t = f->text;
	while (i < f->len && t[i] != ']' && t[i] != '\n') {
		if (t[i] != '"') {
			i++;
			continue;
		}
		size_t e = str_end(t, f->len, i + 1);
		size_t slash = i + 1;
		while (slash < e && t[slash] != '/')
			slash++;
		if (e - (i + 1) < 4 || memcmp(t + i + 1, "127.", 4) != 0)
			add_piece(f, lit, H_ADDR, i + 1, slash);
		i = e + 1;
	}
	return i;
}

/* Cuts a source file into literal text and holes. */
static void scan(struct sfile *f)
{
	const char *t = f->text;
	size_t n = f->len, i = 0, lit = 0;
	while (i < n) {
		if (t[i] != '"') {
			i++;
			continue;
		}
		size_t ke = str_end(t, n, i + 1), j = ke + 1;
		if (j >= n || t[j] != ':') {
			i = j;		/* a string value */
			continue;
		}
		const char *key = t + i + 1;
		size_t klen = ke - (i + 1);
		j++;
		bool string = false;
		int kind = kind_of(key, klen, f->agent, &string);
		if (klen == 5 && memcmp(key, "addrs", 5) == 0 && j < n && t[j] == '[') {
			i = scan_addrs(f, j, &lit);
		} else if (kind >= 0 && string && j < n && t[j] == '"') {
			size_t e = str_end(t, n, j + 1);
			add_piece(f, &lit, kind, j + 1, e);
			i = e + 1;
		} else if (kind >= 0 && !string && j < n && (t[j] == '-' || (t[j] >= '0' && t[j] <= '9'))) {
			size_t e = num_end(t, n, j);
			add_piece(f, &lit, kind, j, e);
			i = e;
		} else {
			i = j;
		}
	}
}

static char *read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (fp == NULL)
		err(2, "%s", path);
	struct rep_buf b = { 0 };
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		ht_rep_buf_addn(&b, chunk, got);
	if (ferror(fp))
		err(2, "%s", path);
	fclose(fp);
	ht_rep_buf_addn(&b, "", 1);
	*len = b.n - 1;
	return b.s;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The value of member key (an integer or a string) of the first line of
 * f, as text (NULL: none). */
static char *header_member(const struct sfile *f, const char *key)
{
	const char *nl = memchr(f->text, '\n', f->len);
	size_t n = nl != NULL ? (size_t)(nl - f->text) : f->len;
	json_t *o = json_loadb(f->text, n, 0, NULL);
	json_t *v = json_object_get(o, key);
	char *s = json_is_string(v) ? strdup(json_string_value(v)) : NULL;
	if (json_is_integer(v) && asprintf(&s, "%" JSON_INTEGER_FORMAT, json_integer_value(v)) < 0)
		s = NULL;
	json_decref(o);
	return s;
}

/* The source nodes: the trace files of dir, by host name. */
static struct snode *load_sources(const char *dir, size_t *nnodes)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		err(2, "%s", dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l <= 6 || strcmp(e->d_name + l - 6, ".jsonl") != 0)
			continue;
		if (n == cap) {
			cap = cap != 0 ? cap * 2 : 256;
			names = realloc(names, cap * sizeof(*names));
			if (names == NULL)
				err(2, "out of memory");
		}
		if ((names[n++] = strdup(e->d_name)) == NULL)
			err(2, "out of memory");
	}
	closedir(d);
	if (n == 0)
		errx(2, "%s: no trace files", dir);
	qsort(names, n, sizeof(*names), cmp_name);
	struct snode *v = xcalloc(n, sizeof(*v));
	size_t nv = 0;
	for (size_t i = 0; i < n; i++) {
		const char *dot = strchr(names[i], '.');
		size_t hl = (size_t)(dot - names[i]);
		if (nv == 0 || strlen(v[nv - 1].host) != hl || memcmp(v[nv - 1].host, names[i], hl) != 0) {
			v[nv].host = strndup(names[i], hl);
			v[nv].f = xcalloc(n, sizeof(*v[nv].f));
			v[nv].rank0 = INT64_MAX;
			v[nv++].index = -1;
		}
		struct snode *s = &v[nv - 1];
		struct sfile *f = &s->f[s->nf++];
		char *path;
		if (asprintf(&path, "%s/%s", dir, names[i]) < 0)
			err(2, "out of memory");
		f->name = names[i];
		f->text = read_file(path, &f->len);
		free(path);
		char *end;
		f->pid = strtoll(dot + 1, &end, 10);
		f->tail = end;
		char *launcher = header_member(f, "launcher"), *rank = header_member(f, "rank");
		f->agent = launcher != NULL && strcmp(launcher, "slurm") == 0;
		if (rank != NULL && f->agent)
			s->index = strtoll(rank, NULL, 10);
		else if (rank != NULL && strtoll(rank, NULL, 10) < s->rank0)
			s->rank0 = strtoll(rank, NULL, 10);
		free(launcher);
		free(rank);
		scan(f);
	}
	free(names);
	for (size_t i = 0; i < nv; i++)
		if (v[i].index < 0 || v[i].rank0 == INT64_MAX)
			errx(2, "%s: host %s has no srun task (a Slurm identity) or no ranked worker",
			     dir, v[i].host);
	*nnodes = nv;
	return v;
}

/* ---- an output node ------------------------------------------------------------------ */

#define PID_LO 300
#define PID_SPAN (4194304 - PID_LO)	/* pids a host hands out (pid_max 2^22) */

static int64_t pid_of(const struct onode *o, int64_t pid)
{
	if (o->identity || pid < PID_LO)
		return pid;
	return PID_LO + (pid - PID_LO + o->pid_shift) % PID_SPAN;
}

static void put_micros(struct rep_buf *b, int64_t v)
{
	ht_rep_buf_printf(b, "%s%" PRId64 ".%06" PRId64, v < 0 ? "-" : "", (v < 0 ? -v : v) / 1000000,
		   (v < 0 ? -v : v) % 1000000);
}

/* One hole of source node s as output node o has it. */
static void put_hole(struct rep_buf *b, const struct sfile *f, const struct piece *p,
		     const struct snode *s, const struct onode *o)
{
	const char *src = f->text + p->at;
	size_t n = p->end - p->at;
	if (o->identity) {
		ht_rep_buf_addn(b, src, n);
		return;
	}
	switch (p->kind) {
	case H_WALL:
		put_micros(b, p->v + o->wall_us);
		break;
	case H_MONO:
		put_micros(b, p->v + o->mono_us);
		break;
	case H_BTIME:
		put_micros(b, p->v + o->wall_us - o->mono_us);
		break;
	case H_TICKS:
		ht_rep_buf_printf(b, "%" PRId64, p->v + o->mono_us / 10000);
		break;
	case H_HOST:
		ht_rep_buf_printf(b, "%s", o->host);
		break;
	case H_BOOT:
		ht_rep_buf_printf(b, "%s", o->boot);
		break;
	case H_ADDR:
		ht_rep_buf_printf(b, "%s", o->addr);
		break;
	case H_UUID: {
		/* the same GPU of the source, another on each node */
		uint64_t h = mix(o->seed ^ mix((uint64_t)o->k)), g = 1469598103934665603ULL;
		for (size_t i = 0; i < n; i++)
			g = (g ^ (unsigned char)src[i]) * 1099511628211ULL;
		h = mix(h ^ g);
		uint64_t h2 = mix(h);
		ht_rep_buf_printf(b, "GPU-%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
			   h >> 32, (h >> 16) & 0xffff, h & 0xffff, h2 >> 48, h2 & (uint64_t)0xffffffffffff);
		break;
	}
	case H_PID:
		ht_rep_buf_printf(b, "%" PRId64, pid_of(o, p->v));
		break;
	case H_RANK:
	case H_RANK_S:
		ht_rep_buf_printf(b, "%" PRId64, p->v - s->rank0 + o->rank0);
		break;
	case H_NODE:
	case H_NODE_S:
		ht_rep_buf_printf(b, "%" PRId64, p->v - s->index + o->k);
		break;
	default:
		ht_rep_buf_addn(b, src, n);
		break;
	}
}

static void render(struct rep_buf *b, const struct sfile *f, const struct snode *s,
		   const struct onode *o)
{
	b->n = 0;
	for (size_t i = 0; i < f->np; i++) {
		const struct piece *p = &f->p[i];
		ht_rep_buf_addn(b, f->text + p->lit, p->at - p->lit);
		put_hole(b, f, p, s, o);
	}
	size_t last = f->np > 0 ? f->p[f->np - 1].end : 0;
	ht_rep_buf_addn(b, f->text + last, f->len - last);
}

static void make_onode(struct onode *o, int64_t k, int per_host, uint64_t seed, double skew,
		       bool identity, const struct snode *s)
{
	memset(o, 0, sizeof(*o));
	o->k = k;
	o->seed = seed;
	o->identity = identity;
	o->rank0 = identity ? s->rank0 : k * per_host;
	snprintf(o->host, sizeof(o->host), "gpu%06" PRId64, k);
	if (identity)
		snprintf(o->host, sizeof(o->host), "%s", s->host);
	uint64_t r = mix(seed ^ mix((uint64_t)k * 7 + 1));
	snprintf(o->boot, sizeof(o->boot), "%08" PRIx64 "-%04" PRIx64 "-4%03" PRIx64 "-%04" PRIx64
		 "-%012" PRIx64, r >> 32, (r >> 16) & 0xffff, r & 0xfff,
		 0x8000 | (mix(r) >> 50), mix(r + 1) & (uint64_t)0xffffffffffff);
	/* 10.0.0.1 for node 0 (MASTER_ADDR), then on: never .0 or .255 */
	int64_t a = (10LL << 24) + (k / 254) * 256 + k % 254 + 1;
	snprintf(o->addr, sizeof(o->addr), "%d.%d.%d.%d", (int)(a >> 24), (int)((a >> 16) & 255),
		 (int)((a >> 8) & 255), (int)(a & 255));
	/* Node 0 (rank 0, the job's store) keeps the source's times; others
	 * start up to skew seconds later, after a host uptime of their own
	 * (from an hour less to 30 days more than the source's). */
	if (k != 0)
		o->wall_us = (int64_t)(draw(seed, (uint64_t)k * 7 + 2) * skew * 1e6);
	o->mono_us = o->wall_us + (int64_t)((draw(seed, (uint64_t)k * 7 + 3) * 31.0 - 1.0 / 24) *
					    86400e6);
	o->pid_shift = (int64_t)(draw(seed, (uint64_t)k * 7 + 4) * PID_SPAN);
}

struct ofile {
	char *name;
	struct rep_buf text;
};

static int cmp_ofile(const void *a, const void *b)
{
	return strcmp(((const struct ofile *)a)->name, ((const struct ofile *)b)->name);
}

/* Writes file f's text into folder dir (--traces). */
static void save_trace(const char *dir, const struct ofile *f)
{
	char *path;
	if (asprintf(&path, "%s/%s", dir, f->name) < 0)
		err(2, "out of memory");
	FILE *fp = fopen(path, "w");
	if (fp == NULL || fwrite(f->text.s, 1, f->text.n, fp) != f->text.n || fclose(fp) != 0)
		err(2, "%s", path);
	free(path);
}

/* Writes output node o (from source s) as one digest line onto out, and
 * its trace files into traces (when not NULL). */
static void write_node(FILE *out, const struct snode *s, const struct onode *o,
		       struct ofile *of, const char *traces)
{
	for (size_t i = 0; i < s->nf; i++) {
		free(of[i].name);
		if (asprintf(&of[i].name, "%s.%" PRId64 "%s", o->host, pid_of(o, s->f[i].pid),
			     s->f[i].tail) < 0)
			err(2, "out of memory");
		render(&of[i].text, &s->f[i], s, o);
	}
	qsort(of, s->nf, sizeof(*of), cmp_ofile);	/* as a folder lists them */
	for (size_t i = 0; traces != NULL && i < s->nf; i++)
		save_trace(traces, &of[i]);
	struct rep_job job;
	ht_rep_job_init(&job);
	job.nthreads = 1;
	ht_rep_digest_prepare(&job);
	for (size_t i = 0; i < s->nf; i++)
		ht_rep_add_buffer(&job, of[i].name, of[i].text.s, of[i].text.n);
	ht_rep_read(&job);
	if (ht_rep_digest_write(&job, out) != 0)
		errx(2, "node %" PRId64 ": the digest could not be written", o->k);
	ht_rep_job_free(&job);
}

static const char usage[] =
	"usage: dg_replicate [-n NODES] [--per-host K] [--place HOST:NODE]... [--part I/N]\n"
	"                    [--seed S] [--skew SECS] [--identity] [--traces DIR] -o FILE SRCDIR\n"
	"  Writes the digests of NODES nodes (one a line) made from the trace files of\n"
	"  SRCDIR (bench/gen_traces.py --world-size NODES*K): node k is a source host's\n"
	"  files with host gpu<k>, ranks from k*K, its own pids, boot id, address, GPU\n"
	"  UUIDs, and times shifted by up to SECS (default 2) seconds. --place puts a\n"
	"  source host at one node only (the straggler's); the others take turns.\n"
	"  --part I/N: only the I-th (from 0) of N equal ranges of nodes. --identity:\n"
	"  each source host as it is (nodes = sources; a check of the tool). --traces\n"
	"  DIR: the nodes' trace files too, into DIR (which exists), for a check.\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'n' }, { "per-host", required_argument, NULL, 'k' },
		{ "place", required_argument, NULL, 'p' }, { "part", required_argument, NULL, 'P' },
		{ "seed", required_argument, NULL, 's' }, { "skew", required_argument, NULL, 'w' },
		{ "identity", no_argument, NULL, 'I' }, { "output", required_argument, NULL, 'o' },
		{ "traces", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int64_t nodes = 131072, part = 0, parts = 1;
	int per_host = 8, c;
	uint64_t seed = 24;
	double skew = 2.0;
	bool identity = false;
	const char *out = NULL, *traces = NULL;
	char *place[16];
	size_t nplace = 0;
	while ((c = getopt_long(argc, argv, "n:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			nodes = strtoll(optarg, NULL, 10);
			break;
		case 'k':
			per_host = atoi(optarg);
			break;
		case 'p':
			if (nplace == sizeof(place) / sizeof(place[0]))
				errx(2, "too many --place");
			place[nplace++] = optarg;
			break;
		case 'P':
			if (sscanf(optarg, "%" SCNd64 "/%" SCNd64, &part, &parts) != 2 || parts < 1 ||
			    part < 0 || part >= parts)
				errx(2, "--part I/N: 0 <= I < N");
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'w':
			skew = atof(optarg);
			break;
		case 'I':
			identity = true;
			break;
		case 'o':
			out = optarg;
			break;
		case 'T':
			traces = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind + 1 != argc || out == NULL || nodes < 1 || per_host < 1) {
		fputs(usage, stderr);
		return 2;
	}
	/* Each node's reading allocates and frees the same few MB: kept in
	 * the heap, not mapped and unmapped per node (a third of the time
	 * was page faults: 2,048 nodes 6.8 s -> 4.9 s, the same bytes). */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	size_t ns;
	struct snode *src = load_sources(argv[optind], &ns);
	int64_t *placed_at = xcalloc(ns, sizeof(*placed_at));
	for (size_t i = 0; i < nplace; i++) {
		char *colon = strrchr(place[i], ':');
		if (colon == NULL)
			errx(2, "--place HOST:NODE");
		*colon = '\0';
		size_t j = 0;
		while (j < ns && strcmp(src[j].host, place[i]) != 0)
			j++;
		if (j == ns)
			errx(2, "--place: no host %s in %s", place[i], argv[optind]);
		src[j].placed = true;
		placed_at[j] = strtoll(colon + 1, NULL, 10);
		if (placed_at[j] < 0 || placed_at[j] >= nodes)
			errx(2, "--place %s: node %" PRId64 " is not below %" PRId64, place[i],
			     placed_at[j], nodes);
	}
	size_t *plain = xcalloc(ns, sizeof(*plain)), nplain = 0;
	for (size_t j = 0; j < ns; j++)
		if (!src[j].placed)
			plain[nplain++] = j;
	if (identity)
		nodes = (int64_t)ns;
	if (nplain == 0 && !identity)
		errx(2, "every source host is placed: none left for the other nodes");
	FILE *fp = fopen(out, "w");
	if (fp == NULL)
		err(2, "%s", out);
	size_t maxf = 0;
	for (size_t j = 0; j < ns; j++)
		maxf = src[j].nf > maxf ? src[j].nf : maxf;
	struct ofile *of = xcalloc(maxf, sizeof(*of));
	int64_t from = nodes * part / parts, to = nodes * (part + 1) / parts;
	for (int64_t k = from; k < to; k++) {
		size_t j = identity ? (size_t)k : plain[(size_t)k % nplain];
		for (size_t i = 0; i < ns && !identity; i++)
			if (src[i].placed && placed_at[i] == k)
				j = i;
		struct onode o;
		make_onode(&o, k, per_host, seed, skew, identity, &src[j]);
		write_node(fp, &src[j], &o, of, traces);
	}
	if (fclose(fp) != 0)
		err(2, "%s", out);
	return 0;
}
