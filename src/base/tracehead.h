// SPDX-License-Identifier: MIT
/*
 * tracehead.h: the members of a trace header (doc/trace-format.md) that
 * the library's (src/core/header.c) and `hangtrace check`'s
 * (src/cli/check/trace.c) share, written once (tracehead.c). open, read
 * and readlink into the caller's buffers only: safe in a forked child.
 */
#ifndef HT_TRACEHEAD_H
#define HT_TRACEHEAD_H

#include <stddef.h>

#include "identity.h"
#include "jsonw.h"

/* format, version, host, pid, ppid, rank, world_size, local_rank,
 * launcher, job and relevant (why the process writes a trace). */
void ht_head_identity(struct ht_jw *w, const char *host, const struct ht_identity *id,
		      const char *relevant);
/* key: where the symbolic link at link points (null when unreadable). */
void ht_head_path(struct ht_jw *w, const char *key, const char *link);
/* exe and cwd, from /proc/self. */
void ht_head_paths(struct ht_jw *w);
/* cmdline, from /proc/self/cmdline read into text[cap], secret values
 * masked (redact.c); env, the allow-listed variables of env. The
 * variable-size parts: written last, so an overflow loses only them. */
void ht_head_cmdline(struct ht_jw *w, char *text, size_t cap);
void ht_head_env(struct ht_jw *w, char *const *env);

#endif
