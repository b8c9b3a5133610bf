// SPDX-License-Identifier: MIT
/*
 * evidence.c: the trace lines a verdict quotes. A line is found again by
 * its place (file, offset, length) in the file or buffer it came from and
 * written as "FILE:LINE: {...}": parsed, without ts, mono and tid, the
 * telling fields of its type first, cut to the length asked.
 */
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/evidence.h"

char *ht_rep_line_text(const struct rep_job *job, const struct rep_loc *loc)
{
	if (!rep_has_loc(loc) || loc->file >= job->nfiles)
		return NULL;
	const struct rep_file *f = &job->files[loc->file];
	char *s = malloc((size_t)loc->len + 1);
	if (s == NULL)
		return NULL;
	if (f->mem != NULL) {
		if (loc->off + loc->len > f->memlen) {
			free(s);
			return NULL;
		}
		memcpy(s, f->mem + loc->off, loc->len);
	} else {
		int fd = f->path != NULL ? open(f->path, O_RDONLY | O_CLOEXEC) : -1;
		ssize_t r = fd >= 0 ? pread(fd, s, loc->len, (off_t)loc->off) : -1;
		if (fd >= 0)
			close(fd);
		if (r != (ssize_t)loc->len) {
			free(s);
			return NULL;
		}
	}
	s[loc->len] = '\0';
	return s;
}

/* Per event type, the fields quoted first (the telling ones); NULL: all. */
static const char *const header_keys[] = { "host", "pid", "rank", "world_size", "local_rank",
					   "launcher", NULL };
static const char *const connect_keys[] = { "dest", "result", "error", "count", "role",
					    "tcp_state", "probe", NULL };
static const char *const nccl_keys[] = { "fn", "state", "nranks", "rank", "root", "id_hash",
					 "result", "error", "last_error", "comm", NULL };
static const char *const cuda_keys[] = { "fn", "result", "error", "after_fork", "hung",
					 "ordinal", "parent", NULL };

static const char *const *default_keys(const char *t)
{
	if (t == NULL)
		return NULL;
	if (strcmp(t, "header") == 0)
		return header_keys;
	if (strcmp(t, "connect") == 0)
		return connect_keys;
	if (strcmp(t, "nccl") == 0)
		return nccl_keys;
	if (strcmp(t, "cuda") == 0)
		return cuda_keys;
	return NULL;
}

char *ht_rep_evidence(struct rep_job *job, const struct rep_loc *loc,
		      const char *const *keep, size_t max)
{
	char *text = ht_rep_line_text(job, loc);
	if (text == NULL)
		return NULL;
	json_t *o = json_loads(text, 0, NULL);
	char *body = NULL;
	if (json_is_object(o)) {
		const char *t = json_string_value(json_object_get(o, "t"));
		if (keep == NULL)
			keep = default_keys(t);
		json_t *out;
		if (keep != NULL) {
			out = json_object();
			json_object_set(out, "t", json_object_get(o, "t"));
			for (size_t i = 0; keep[i] != NULL; i++) {
				json_t *v = json_object_get(o, keep[i]);
				if (v != NULL)
					json_object_set(out, keep[i], v);
			}
		} else {
			out = json_incref(o);
			json_object_del(out, "ts");
			json_object_del(out, "mono");
			json_object_del(out, "tid");
		}
		body = json_dumps(out, JSON_COMPACT);
		json_decref(out);
	}
	json_decref(o);
	const char *b = body != NULL ? body : text;
	size_t n = strlen(b);
	char *r;
	if (n > max)
		r = ht_rep_printf(&job->a, "%s:%u: %.*s...", job->files[loc->file].name, loc->line,
				  (int)rep_utf8_cut(b, max > 3 ? max - 3 : 0), b);
	else
		r = ht_rep_printf(&job->a, "%s:%u: %s", job->files[loc->file].name, loc->line, b);
	free(body);
	free(text);
	return r;
}
