// SPDX-License-Identifier: MIT
/*
 * portholder.c: who holds a port that a bind found taken (EADDRINUSE):
 * the listening socket's inode from /proc/net/tcp and tcp6, then the
 * process whose fd links to "socket:[inode]", and its command line with
 * secret values masked. The library runs it once, in the failing bind's
 * thread (normal context), and `hangtrace check` where rank 0 cannot
 * listen; bounded: it reads at most MAX_SCAN fd entries.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fmt.h"
#include "portholder.h"
#include "procfs.h"
#include "redact.h"

#define MAX_SCAN 200000

/* The inode of a socket listening on port in one of /proc/net/tcp{,6}, or 0. */
static unsigned long listen_inode(const char *path, int port)
{
	char buf[8192];
	size_t have = 0;
	unsigned long inode = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (r <= 0)
			break;
		have += (size_t)r;
		buf[have] = '\0';
		char *line = buf, *nl;
		while ((nl = strchr(line, '\n')) != NULL && inode == 0) {
			*nl = '\0';
			/* "  0: 0100007F:7451 00000000:0000 0A ... uid timeout inode" */
			char *colon = strchr(line, ':');
			char *local = colon != NULL ? strchr(colon + 1, ':') : NULL;
			char *end;
			long p = local != NULL ? strtol(local + 1, &end, 16) : -1;
			if (p == port && end[0] == ' ') {
				char *f = end;
				int field = 0;
				char st[3] = { 0 };
				/* rem_address, st, tx:rx, tr:when, retrnsmt, uid, timeout, inode */
				while (*f != '\0' && field < 8) {
					while (*f == ' ')
						f++;
					char *w = f;
					while (*f != '\0' && *f != ' ')
						f++;
					field++;
					if (field == 2 && f - w == 2)
						memcpy(st, w, 2);
					if (field == 8 && strcmp(st, "0A") == 0)
						inode = strtoul(w, NULL, 10);
				}
			}
			line = nl + 1;
		}
		if (inode != 0)
			break;
		have = strlen(line);
		memmove(buf, line, have);
	}
	syscall(SYS_close, fd);
	return inode;
}

struct hunt {
	unsigned long inode;
	size_t scanned;		/* fd entries read, all processes */
	const char *pid;	/* the process whose fds are read */
	pid_t found;
};

/* One fd link of hunt->pid: socket:[inode] ends the hunt. */
static bool one_fd(void *arg, int fd, const struct dirent64 *d)
{
	struct hunt *h = arg;
	char link[64];
	if (d->d_name[0] == '.')
		return true;
	if (++h->scanned > MAX_SCAN)
		return false;
	ssize_t n = readlinkat(fd, d->d_name, link, sizeof(link) - 1);
	if (n <= 9 || memcmp(link, "socket:[", 8) != 0)
		return true;
	link[n] = '\0';
	if (strtoul(link + 8, NULL, 10) == h->inode)
		h->found = (pid_t)atoi(h->pid);
	return h->found == 0;
}

/* One /proc entry: a process, whose fds are read. */
static bool one_proc(void *arg, int fd, const struct dirent64 *d)
{
	struct hunt *h = arg;
	char dir[64];
	(void)fd;
	if (d->d_name[0] < '1' || d->d_name[0] > '9')
		return true;
	ht_append(dir, sizeof(dir), ht_append(dir, sizeof(dir), ht_append(dir, sizeof(dir), 0,
				  "/proc/"), d->d_name), "/fd");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return true;
	h->pid = d->d_name;
	ht_dir_each(dfd, 0, one_fd, h);
	syscall(SYS_close, dfd);
	return h->found == 0 && h->scanned <= MAX_SCAN;
}

pid_t ht_net_port_holder(int port, char *cmd, size_t cap)
{
	unsigned long inode = listen_inode("/proc/net/tcp", port);
	if (inode == 0)
		inode = listen_inode("/proc/net/tcp6", port);
	cmd[0] = '\0';
	if (inode == 0)
		return 0;
	struct hunt h = { .inode = inode };
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ht_dir_each(fd, 0, one_proc, &h);
	syscall(SYS_close, fd);
	pid_t found = h.found;
	if (found == 0)
		return 0;
	/* Its command line, arguments joined by spaces, secret values masked. */
	char path[64], text[1024];
	ht_append(path, sizeof(path), ht_append_i64(path, sizeof(path),
						    ht_append(path, sizeof(path), 0, "/proc/"), found),
		  "/cmdline");
	ssize_t n = ht_read_file(path, text, sizeof(text));
	size_t out = 0;
	const char *prev = NULL;
	for (ssize_t i = 0; n > 0 && i < n && out + 1 < cap;) {
		const char *arg = text + i;
		size_t len = strlen(arg), keep = len;
		bool secret = ht_arg_secret(arg, prev, &keep);
		if (out > 0)
			cmd[out++] = ' ';
		for (size_t k = 0; k < (secret ? keep : len) && out + 1 < cap; k++)
			cmd[out++] = arg[k];
		for (const char *m = secret ? "***" : ""; *m != '\0' && out + 1 < cap; m++)
			cmd[out++] = *m;
		prev = arg;
		i += (ssize_t)len + 1;
	}
	cmd[out < cap ? out : cap - 1] = '\0';
	return found;
}
