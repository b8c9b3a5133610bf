// SPDX-License-Identifier: MIT
/*
 * procfs.h: small readers of /proc and of our own trace file (procfs.c),
 * shared by the library's writer, header and dump and by the command. All use open/read/close only: no stdio,
 * no malloc, so they may run in the dump path and in forked children.
 */
#ifndef HT_PROCFS_H
#define HT_PROCFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* "/proc/self/task/<tid>/<file>" into out[cap] (64 bytes hold any); returns
 * its length. */
size_t ht_task_path(char *out, size_t cap, pid_t tid, const char *file);

/* Reads at most cap-1 bytes of path into buf, NUL-terminated; length or -errno. */
ssize_t ht_read_file(const char *path, char *buf, size_t cap);

struct ht_stat {
	char state;		/* R, S, D, Z, T, t, ... */
	uint64_t majflt;	/* major page faults */
	uint64_t utime, stime;	/* clock ticks */
	uint64_t start_ticks;	/* since boot */
	pid_t ppid;
	char comm[20];
};

/* Parses /proc/<pid>/stat or /proc/self/task/<tid>/stat contents. */
bool ht_parse_stat(const char *text, struct ht_stat *st);
/* Reads and parses the stat file at path. */
bool ht_read_stat(const char *path, struct ht_stat *st);
/* The boot id (36 characters), "" when unreadable. */
void ht_boot_id(char out[40]);
/* mkdir -p path with mode for each folder made: 0 or -errno. open and
 * mkdir only, on a copy on the stack (paths below 1280 bytes). */
int ht_mkdir_p(const char *path, unsigned mode);
struct dirent64;
/* Calls fn(arg, fd, entry) for each entry of the folder open at fd, "." and
 * ".." included, until fn returns false; at most limit entries (0: no
 * limit). getdents64 into a buffer on the stack: async-signal-safe.
 * Returns the number of entries passed to fn. */
size_t ht_dir_each(int fd, size_t limit, bool (*fn)(void *arg, int fd, const struct dirent64 *d),
		   void *arg);
/* True when the last header of the trace file at path names this process. */
bool ht_proc_trace_matches(const char *path, pid_t pid);

#endif
