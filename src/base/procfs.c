// SPDX-License-Identifier: MIT
/*
 * procfs.c: readers of /proc files and of the last header of a trace file,
 * with open/read/close only (no stdio, no malloc), so the dump path and a
 * freshly forked child can use them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fmt.h"
#include "procfs.h"

size_t ht_task_path(char *out, size_t cap, pid_t tid, const char *file)
{
	size_t n = ht_append(out, cap, 0, "/proc/self/task/");
	n = ht_append_i64(out, cap, n, tid);
	n = ht_append(out, cap, n, "/");
	return ht_append(out, cap, n, file);
}

ssize_t ht_read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return -errno;
	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	syscall(SYS_close, fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

static const char *skip_fields(const char *p, int n)
{
	for (int i = 0; i < n && p != NULL; i++) {
		p = strchr(p, ' ');
		if (p != NULL)
			p++;
	}
	return p;
}

static uint64_t num(const char *p)
{
	uint64_t v = 0;
	while (p != NULL && *p >= '0' && *p <= '9')
		v = v * 10 + (uint64_t)(*p++ - '0');
	return v;
}

bool ht_parse_stat(const char *text, struct ht_stat *st)
{
	/* "pid (comm) S ppid ...": comm may hold spaces and parentheses. */
	const char *open_paren = strchr(text, '(');
	const char *close_paren = strrchr(text, ')');

	memset(st, 0, sizeof(*st));
	if (open_paren == NULL || close_paren == NULL || close_paren < open_paren ||
	    close_paren[1] != ' ')
		return false;
	size_t clen = (size_t)(close_paren - open_paren - 1);
	if (clen >= sizeof(st->comm))
		clen = sizeof(st->comm) - 1;
	memcpy(st->comm, open_paren + 1, clen);
	st->comm[clen] = '\0';
	const char *p = close_paren + 2;	/* field 3: state */
	st->state = *p;
	st->ppid = (pid_t)num(skip_fields(p, 1));	/* field 4 */
	st->majflt = num(skip_fields(p, 9));		/* field 12 */
	st->utime = num(skip_fields(p, 11));		/* field 14 */
	st->stime = num(skip_fields(p, 12));		/* field 15 */
	const char *s = skip_fields(p, 19);		/* field 22 */
	if (s == NULL)
		return false;
	st->start_ticks = num(s);
	return true;
}

bool ht_read_stat(const char *path, struct ht_stat *st)
{
	char buf[1024];
	return ht_read_file(path, buf, sizeof(buf)) > 0 && ht_parse_stat(buf, st);
}

void ht_boot_id(char out[40])
{
	ssize_t n = ht_read_file("/proc/sys/kernel/random/boot_id", out, 40);
	if (n < 0)
		n = 0;
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		n--;
	out[n] = '\0';
}

/* Finds "key": followed by a number or a string in line[0..n); copies it. */
static bool field(const char *line, size_t n, const char *key, char *out, size_t cap)
{
	size_t k = strlen(key);
	for (size_t i = 0; i + k + 3 < n; i++) {
		if (line[i] != '"' || memcmp(line + i + 1, key, k) != 0 ||
		    line[i + 1 + k] != '"' || line[i + 2 + k] != ':')
			continue;
		const char *v = line + i + 3 + k;
		size_t j = 0;
		if (*v == '"')
			v++;
		while (v + j < line + n && v[j] != '"' && v[j] != ',' && v[j] != '}' &&
		       j + 1 < cap) {
			out[j] = v[j];
			j++;
		}
		out[j] = '\0';
		return true;
	}
	return false;
}

bool ht_proc_trace_matches(const char *path, pid_t pid)
{
	static const char marker[] = "{\"t\":\"header\"";
	char buf[16384];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	bool match = false;

	if (fd < 0)
		return false;
	off_t end = lseek(fd, 0, SEEK_END);
	/* Scan backwards, chunk by chunk, for the last line that is a header. */
	for (off_t pos = end; pos > 0 && !match;) {
		off_t start = pos > (off_t)sizeof(buf) - 1 ? pos - (off_t)sizeof(buf) + 1 : 0;
		ssize_t n = pread(fd, buf, (size_t)(pos - start), start);
		if (n <= 0)
			break;
		for (ssize_t i = n - (ssize_t)sizeof(marker) + 1; i >= 0; i--) {
			if (memcmp(buf + i, marker, sizeof(marker) - 1) != 0)
				continue;
			/* A header starts a line; at a chunk's start we cannot tell,
			 * and the next (overlapping) chunk will see it again. */
			if (i > 0 ? buf[i - 1] != '\n' : start != 0)
				continue;
			char line[8192];
			ssize_t m = pread(fd, line, sizeof(line), start + i);
			if (m <= 0)
				goto out;
			char v[64], boot[40], want[24];
			struct ht_stat st;
			ht_boot_id(boot);
			ht_fmt_i64(want, pid);
			match = field(line, (size_t)m, "pid", v, sizeof(v)) && strcmp(v, want) == 0 &&
				field(line, (size_t)m, "boot_id", v, sizeof(v)) && strcmp(v, boot) == 0 &&
				ht_read_stat("/proc/self/stat", &st) &&
				field(line, (size_t)m, "start_ticks", v, sizeof(v)) &&
				num(v) == st.start_ticks;
			goto out;
		}
		if (start == 0)
			break;
		/* Overlap by a marker's length so a header across chunks is seen. */
		pos = start + (off_t)sizeof(marker);
	}
out:
	syscall(SYS_close, fd);
	return match;
}

size_t ht_dir_each(int fd, size_t limit, bool (*fn)(void *arg, int fd, const struct dirent64 *d),
		   void *arg)
{
	char buf[4096];
	size_t seen = 0;
	for (;;) {
		long r = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (r <= 0)
			return seen;
		for (long off = 0; off < r;) {
			const struct dirent64 *d = (const struct dirent64 *)(buf + off);
			off += d->d_reclen;
			if (limit != 0 && seen >= limit)
				return seen;
			seen++;
			if (!fn(arg, fd, d))
				return seen;
		}
	}
}

int ht_mkdir_p(const char *path, unsigned mode)
{
	char p[1280];
	size_t n = strlen(path);
	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST)
			return -errno;
		p[i] = c;
	}
	return 0;
}
