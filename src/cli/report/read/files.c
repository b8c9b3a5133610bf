// SPDX-License-Identifier: MIT
/*
 * files.c: a job's trace files: every *.jsonl under the folders given
 * (searched recursively, in name order, real folders only, links to files
 * taken), or a file given by name, or a buffer (tests, fuzzing). The
 * entries of a big folder (a file per rank) are looked up on a few
 * threads. reader.c reads them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader.h"

#define MAX_DEPTH 8
#define MAX_DIRFDS 64	/* folders kept open to open their files in (openat) */

/* ---- finding files ---------------------------------------------------------------- */

/* Adds a file; path and name are the job's from then on (NULL: none). */
static void add_file_own(struct rep_job *job, char *path, char *name, const char *mem,
			 size_t len, const struct stat *st)
{
	if (job->nfiles == job->cap_files) {
		job->cap_files = job->cap_files != 0 ? job->cap_files * 2 : 64;
		struct rep_file *f = realloc(job->files, job->cap_files * sizeof(*f));
		if (f == NULL)
			abort();
		job->files = f;
	}
	struct rep_file *f = &job->files[job->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = path;
	f->name = name;
	if (path != NULL) {
		f->dev = st != NULL ? (uint64_t)st->st_dev : 0;
		f->ino = st != NULL ? (uint64_t)st->st_ino : 0;
		f->known = st != NULL;
	} else {
		f->mem = mem;
		f->memlen = len;
	}
	f->dir = -1;
}

static void add_file(struct rep_job *job, const char *path, const char *name,
		     const char *mem, size_t len, const struct stat *st)
{
	add_file_own(job, path != NULL ? strdup(path) : NULL, strdup(name), mem, len, st);
}

/* a, sep and b in one new string (NULL when out of memory). */
static char *join(const char *a, const char *sep, const char *b)
{
	size_t na = strlen(a), ns = strlen(sep), nb = strlen(b);
	char *s = malloc(na + ns + nb + 1);
	if (s != NULL) {
		memcpy(s, a, na);
		memcpy(s + na, sep, ns);
		memcpy(s + na + ns, b, nb + 1);
	}
	return s;
}

void ht_rep_add_buffer(struct rep_job *job, const char *name, const char *buf, size_t len)
{
	add_file(job, NULL, name, buf, len, NULL);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_jsonl(const char *name)
{
	size_t n = strlen(name);
	return n > 6 && strcmp(name + n - 6, ".jsonl") == 0;
}

/* An entry whose type readdir gave (a file, a folder: what lstat would
 * say) is not looked up: a file's identity (to read it once) comes from
 * the fstat of its reading (reader.c). A link, or any entry of a
 * filesystem that gives no types, is looked up; those of a big folder
 * (a file per rank) on a few threads, before they are taken in order. */
#define LOOK_SPLIT 4096

struct look {
	int dfd;
	char **names;
	const unsigned char *types;
	struct stat *st;
	bool *ok;
	size_t from, to;
	pthread_t th;
};

static void *look_range(void *arg)
{
	struct look *l = arg;
	for (size_t i = l->from; i < l->to; i++)
		if (l->types[i] != DT_REG && l->types[i] != DT_DIR)
			l->ok[i] = fstatat(l->dfd, l->names[i], &l->st[i], AT_SYMLINK_NOFOLLOW) == 0;
	return NULL;
}

/* Looks every name up (no link followed) into st, ok, on nth threads. */
static void look_all(int dfd, char **names, const unsigned char *types, size_t n,
		     struct stat *st, bool *ok, int nth)
{
	struct look l[8];
	int started = 0;
	if (nth > 8)
		nth = 8;
	for (int i = 0; i < nth; i++)
		l[i] = (struct look){ dfd, names, types, st, ok, n * (size_t)i / (size_t)nth,
				      n * (size_t)(i + 1) / (size_t)nth, 0 };
	for (int i = 1; i < nth; i++) {
		if (pthread_create(&l[i].th, NULL, look_range, &l[i]) != 0)
			break;
		started = i;
	}
	for (int i = started + 1; i < nth; i++)	/* the shares of threads that did not start */
		look_range(&l[i]);
	look_range(&l[0]);
	for (int i = 1; i <= started; i++)
		pthread_join(l[i].th, NULL);
}

static int add_dir(struct rep_job *job, const char *dir, const char *rel, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	unsigned char *types = NULL;
	size_t n = 0, cap = 0;
	int added = 0;

	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap != 0 ? cap * 2 : 256;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (nn == NULL)
				break;
			names = nn;
		}
		/* (the type rides in the byte before the name: sorted with it) */
		size_t len = strlen(e->d_name);
		char *s = malloc(len + 2);
		if (s == NULL)
			break;
		s[0] = (char)e->d_type;
		memcpy(s + 1, e->d_name, len + 1);
		names[n++] = s + 1;
	}
	rep_sort(names, n, sizeof(*names), cmp_str);
	types = malloc(n + 1);
	if (types == NULL)
		abort();
	for (size_t i = 0; i < n; i++)
		types[i] = (unsigned char)names[i][-1];
	struct stat *sts = NULL;
	bool *oks = NULL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (n >= LOOK_SPLIT && cpus > 1) {
		sts = malloc(n * sizeof(*sts));
		oks = malloc(n * sizeof(*oks));
		if (sts != NULL && oks != NULL)
			look_all(dirfd(d), names, types, n, sts, oks, (int)cpus);
	}
	/* The files are opened in the folder (one step of path each, not
	 * the whole path again) while a few folders are kept open. */
	int dix = -1;
	size_t dlen = strlen(dir);
	for (size_t i = 0; i < n; i++) {
		char *path = join(dir, "/", names[i]);
		char *name = join(rel, rel[0] != '\0' ? "/" : "", names[i]);
		struct stat st;
		if (path == NULL || name == NULL) {
			free(path);
			free(name);
			free(names[i] - 1);
			continue;
		}
		/* Folders are entered only when they are real folders (no
		 * symbolic link loops); files may be links. Looked up in the
		 * open folder: one step of path each, and a file that is no
		 * link needs no second look. */
		bool got, typed = types[i] == DT_REG || types[i] == DT_DIR;
		if (typed) {
			got = true;
			st.st_mode = types[i] == DT_REG ? S_IFREG : S_IFDIR;
		} else if (sts != NULL && oks != NULL) {
			got = oks[i];
			st = sts[i];
		} else {
			got = fstatat(dirfd(d), names[i], &st, AT_SYMLINK_NOFOLLOW) == 0;
		}
		if (got && S_ISDIR(st.st_mode)) {
			if (depth < MAX_DEPTH) {
				int r = add_dir(job, path, name, depth + 1);
				if (r > 0)
					added += r;
			}
		} else if (is_jsonl(names[i]) && got &&
			   (!S_ISLNK(st.st_mode) || fstatat(dirfd(d), names[i], &st, 0) == 0) &&
			   S_ISREG(st.st_mode)) {
			add_file_own(job, path, name, NULL, 0, typed ? NULL : &st);
			path = name = NULL;
			added++;
			if (dix < 0 && job->ndirfds < MAX_DIRFDS) {
				if (job->dirfds == NULL)
					job->dirfds = malloc(MAX_DIRFDS * sizeof(*job->dirfds));
				int fd = job->dirfds != NULL ? fcntl(dirfd(d), F_DUPFD_CLOEXEC, 0) : -1;
				if (fd >= 0) {
					dix = (int)job->ndirfds;
					job->dirfds[job->ndirfds++] = fd;
				}
			}
			struct rep_file *f = &job->files[job->nfiles - 1];
			f->dir = dix;
			f->base = dix >= 0 ? f->path + dlen + 1 : NULL;
		}
		free(path);
		free(name);
		free(names[i] - 1);
	}
	closedir(d);
	free(types);
	free(sts);
	free(oks);
	free(names);
	return added;
}

int ht_rep_add_path(struct rep_job *job, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return add_dir(job, path, "", 0);
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	const char *slash = strrchr(path, '/');
	add_file(job, path, slash != NULL ? slash + 1 : path, NULL, 0, &st);
	return 1;
}

void ht_rep_close_dirs(struct rep_job *job)
{
	for (size_t i = 0; i < job->ndirfds; i++)
		close(job->dirfds[i]);
	free(job->dirfds);
	job->dirfds = NULL;
	job->ndirfds = 0;
	for (size_t i = 0; i < job->nfiles; i++)
		job->files[i].dir = -1;
}
