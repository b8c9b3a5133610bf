// SPDX-License-Identifier: MIT
/*
 * buildlock.c: the JIT build lock, seen from a dump. PyTorch's
 * torch.utils.cpp_extension.load (1.13: _jit_compile in cpp_extension.py)
 * builds in <root>/<name>, guarded by <root>/<name>/lock, a file created
 * with O_CREAT|O_EXCL; FileBaton.wait (torch/utils/file_baton.py) loops
 * while it exists, with no timeout. A build killed mid-way leaves it behind
 * and every later load waits forever. The root is TORCH_EXTENSIONS_DIR, else
 * <cache>/torch_extensions/py<XY>_<cpu|cuXY> with <cache> XDG_CACHE_HOME or
 * ~/.cache (_get_build_directory, get_default_build_root). When a thread is
 * dumped in that wait, one build_lock line names the lock files found there
 * with their age, and the compilers and ninja processes running below any
 * traced process of this host (the holder of a live lock builds through
 * them). Variables are read once, at load; the dump path uses only open,
 * getdents64, fstatat and read, with fixed bounds.
 */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "buildlock.h"
#include "clock.h"
#include "env.h"
#include "fmt.h"
#include "hangtrace.h"
#include "jsonw.h"
#include "procfs.h"
#include "pystack.h"
#include "signatures.h"
#include "state.h"
#include "writer.h"

#define MAX_LOCKS 16
#define MAX_ENTRIES 512		/* directory entries looked at per folder */
#define MAX_PROCS 32768		/* /proc entries looked at */
#define MAX_TRACED 4096		/* traced pids of this host */
#define MAX_TRACE_FILES (1 << 18)	/* entries of the trace folder looked at (all hosts') */
#define MAX_BUILDERS 16
#define MAX_DEPTH 32		/* parents followed from a builder */

static char ext_dir[1024];	/* TORCH_EXTENSIONS_DIR, or "" */
static char cache_root[1024];	/* <cache>/torch_extensions */
static char line[16384];
static pid_t traced[MAX_TRACED];
static size_t ntraced;

/* Where the framework keeps its builds, through the variables of
 * src/core/envvars.def (read when a lock wait is dumped, as every family
 * reads them when it needs them). */
static void buildlock_env(void)
{
	ext_dir[0] = cache_root[0] = '\0';
	const char *v = ht_env(HT_ENV_TORCH_EXTENSIONS_DIR);
	if (v != NULL && v[0] != '\0')
		ht_strlcpy(ext_dir, v, sizeof(ext_dir));
	const char *xdg = ht_env(HT_ENV_XDG_CACHE_HOME);
	const char *home = ht_env(HT_ENV_HOME);
	size_t n = 0;
	if (xdg != NULL && xdg[0] == '/')
		n = ht_append(cache_root, sizeof(cache_root), 0, xdg);
	else if (home != NULL && home[0] == '/')
		n = ht_append(cache_root, sizeof(cache_root),
			      ht_append(cache_root, sizeof(cache_root), 0, home), "/.cache");
	if (n > 0)
		ht_append(cache_root, sizeof(cache_root), n, "/torch_extensions");
}

static bool waits_on_lock(const struct ht_pythread *py, size_t npy)
{
	for (size_t k = 0; k < npy; k++)
		for (int f = 0; f < py[k].n; f++) {
			const struct ht_sig *s = ht_sig_match_frame(py[k].frames[f], true);
			if (s != NULL && s->kind == HT_SIG_FILE_LOCK)
				return true;
		}
	return false;
}

/* Calls fn(arg, dirfd, name) for each subfolder of the folder open at fd
 * (at most MAX_ENTRIES entries read). */
struct subdirs {
	void (*fn)(void *, int, const char *);
	void *arg;
};

static bool one_subdir(void *arg, int fd, const struct dirent64 *d)
{
	const struct subdirs *s = arg;
	if (d->d_name[0] != '.' && (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN))
		s->fn(s->arg, fd, d->d_name);
	return true;
}

static void each_subdir(int fd, void (*fn)(void *, int, const char *), void *arg)
{
	struct subdirs s = { fn, arg };
	ht_dir_each(fd, MAX_ENTRIES, one_subdir, &s);
}

struct scan {
	struct ht_jw *w;
	const char *base;	/* path of the folder being searched */
	char path[1536];
	size_t len;
	int depth;		/* subfolder levels still to go down */
	int found;
	struct timespec now;
};

static void visit(void *arg, int fd, const char *name)
{
	struct scan *s = arg;
	size_t keep = s->len;
	s->len = ht_append(s->path, sizeof(s->path), s->len, "/");
	s->len = ht_append(s->path, sizeof(s->path), s->len, name);
	if (s->depth == 0) {
		char rel[300];
		struct stat st;
		ht_append(rel, sizeof(rel), ht_append(rel, sizeof(rel), 0, name), "/lock");
		if (s->found < MAX_LOCKS && fstatat(fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			char p[1600];
			ht_append(p, sizeof(p), ht_append(p, sizeof(p), 0, s->path), "/lock");
			int64_t age = ((int64_t)s->now.tv_sec - st.st_mtim.tv_sec) * HT_NS_PER_SEC +
				      (s->now.tv_nsec - st.st_mtim.tv_nsec);
			ht_jw_obj_begin(s->w, NULL);
			ht_jw_str(s->w, "path", p);
			ht_jw_secs(s->w, "age", age > 0 ? age : 0);
			ht_jw_end(s->w);
			s->found++;
		}
	} else {
		int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (sub >= 0) {
			s->depth--;
			each_subdir(sub, visit, s);
			s->depth++;
			syscall(SYS_close, sub);
		}
	}
	s->len = keep;
	s->path[keep] = '\0';
}

/* Lock files <root>/<name>/lock (depth 0) or <root>/<tag>/<name>/lock (1). */
static int find_locks(struct ht_jw *w, const char *root, int depth)
{
	struct scan s = { .w = w, .depth = depth };
	clock_gettime(CLOCK_REALTIME, &s.now);
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	s.len = ht_append(s.path, sizeof(s.path), 0, root);
	each_subdir(fd, visit, &s);
	syscall(SYS_close, fd);
	return s.found;
}

/* The pids with a trace file of this host in our folder: <host>.<pid>.jsonl. */
/* A trace file of this host ("<host>.<pid>.jsonl"): its pid is traced. */
static bool one_trace_file(void *arg, int fd, const struct dirent64 *d)
{
	const char *n = d->d_name;
	size_t hl = strlen(ht_g.host);
	(void)arg;
	(void)fd;
	if (strncmp(n, ht_g.host, hl) != 0 || n[hl] != '.')
		return true;
	char num[24];
	size_t k = 0;
	for (const char *q = n + hl + 1; *q >= '0' && *q <= '9' && k < sizeof(num) - 1; q++)
		num[k++] = *q;
	num[k] = '\0';
	int64_t pid;
	if (strcmp(n + hl + 1 + k, ".jsonl") == 0 && ht_parse_i64(num, &pid) && ntraced < MAX_TRACED)
		traced[ntraced++] = (pid_t)pid;
	return true;
}

static void list_traced(void)
{
	char dir[sizeof(ht_g.trace_path)];
	ntraced = 0;
	ht_strlcpy(dir, ht_g.trace_path, sizeof(dir));
	char *slash = strrchr(dir, '/');
	if (slash == NULL)
		return;
	*slash = '\0';
	int fd = open(dir[0] != '\0' ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	ht_dir_each(fd, MAX_TRACE_FILES, one_trace_file, NULL);
	syscall(SYS_close, fd);
}

static bool is_traced(pid_t p)
{
	for (size_t i = 0; i < ntraced; i++)
		if (traced[i] == p)
			return true;
	return false;
}

/* What builds an extension: the build tool, compilers, assemblers, linkers. */
static bool builder_comm(const char *c)
{
	static const char *const names[] = { "ninja", "nvcc", "cicc", "ptxas", "cc1plus", "cc1",
					     "c++", "g++", "gcc", "cc", "clang", "clang++", "as",
					     "ld", "collect2", "make", "cmake", "hipcc" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(c, names[i]) == 0)
			return true;
	return strncmp(c, "g++-", 4) == 0 || strncmp(c, "gcc-", 4) == 0;
}

static bool stat_of(pid_t pid, struct ht_stat *st)
{
	char path[48];
	size_t n = ht_append(path, sizeof(path), 0, "/proc/");
	n = ht_append_i64(path, sizeof(path), n, pid);
	ht_append(path, sizeof(path), n, "/stat");
	return ht_read_stat(path, st);
}

/* A traced process is among p's parents (MAX_DEPTH of them). */
static bool below_traced(pid_t ppid)
{
	for (int d = 0; d < MAX_DEPTH && ppid > 1; d++) {
		if (is_traced(ppid))
			return true;
		struct ht_stat st;
		if (!stat_of(ppid, &st))
			return false;
		ppid = st.ppid;
	}
	return false;
}

static double uptime_secs(void)
{
	char buf[64];
	if (ht_read_file("/proc/uptime", buf, sizeof(buf)) <= 0)
		return -1;
	double v = 0, scale = 0;
	for (const char *p = buf; *p != '\0' && *p != ' '; p++) {
		if (*p == '.')
			scale = 1;
		else if (*p >= '0' && *p <= '9') {
			v = v * 10 + (*p - '0');
			if (scale > 0)
				scale *= 10;
		}
	}
	return scale > 0 ? v / scale : v;
}

struct builders {
	struct ht_jw *w;
	long ticks;
	double up;
	size_t found;
};

/* One /proc entry: a compiler below a traced process is a builder. */
static bool one_builder(void *arg, int fd, const struct dirent64 *d)
{
	struct builders *b = arg;
	int64_t pid;
	struct ht_stat st;
	(void)fd;
	if (!ht_parse_i64(d->d_name, &pid) || !stat_of((pid_t)pid, &st) || !builder_comm(st.comm) ||
	    !below_traced(st.ppid))
		return true;
	ht_jw_obj_begin(b->w, NULL);
	ht_jw_int(b->w, "pid", pid);
	ht_jw_str(b->w, "comm", st.comm);
	ht_jw_int(b->w, "ppid", st.ppid);
	if (b->up >= 0 && b->ticks > 0) {
		double age = b->up - (double)st.start_ticks / (double)b->ticks;
		ht_jw_secs(b->w, "age", age > 0 ? (int64_t)(age * 1e9) : 0);
	}
	ht_jw_end(b->w);
	return ++b->found < MAX_BUILDERS;
}

static void find_builders(struct ht_jw *w)
{
	struct builders b = { w, sysconf(_SC_CLK_TCK), uptime_secs(), 0 };
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	list_traced();
	ht_dir_each(fd, MAX_PROCS, one_builder, &b);
	syscall(SYS_close, fd);
}

void ht_buildlock_dump(const struct ht_pythread *py, size_t npy)
{
	if (py == NULL || !waits_on_lock(py, npy))
		return;
	buildlock_env();
	struct ht_jw w;
	ht_ev_begin(&w, line, sizeof(line), HT_EV_BUILD_LOCK);
	const char *root = ext_dir[0] != '\0' ? ext_dir : cache_root;
	ht_jw_str(&w, "root", root[0] != '\0' ? root : NULL);
	ht_jw_str(&w, "via", ext_dir[0] != '\0' ? "TORCH_EXTENSIONS_DIR" : "default");
	ht_jw_arr_begin(&w, "locks");
	if (root[0] != '\0')
		find_locks(&w, root, ext_dir[0] != '\0' ? 0 : 1);
	ht_jw_end(&w);
	ht_jw_arr_begin(&w, "builders");
	find_builders(&w);
	ht_jw_end(&w);
	ht_ev_emit(&w);
}
