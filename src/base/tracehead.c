// SPDX-License-Identifier: MIT
/*
 * tracehead.c: the shared members of a trace header (tracehead.h).
 */
#include <string.h>
#include <unistd.h>

#include "hangtrace.h"
#include "procfs.h"
#include "redact.h"
#include "tracehead.h"

void ht_head_identity(struct ht_jw *w, const char *host, const struct ht_identity *id,
		      const char *relevant)
{
	ht_jw_str(w, "format", HT_TRACE_FORMAT);
	ht_jw_str(w, "version", HT_VERSION);
	ht_jw_str(w, "host", host);
	ht_jw_int(w, "pid", getpid());
	ht_jw_int(w, "ppid", getppid());
	ht_jw_int_or_null(w, "rank", id->rank, id->rank >= 0);
	ht_jw_int_or_null(w, "world_size", id->world_size, id->world_size >= 0);
	ht_jw_int_or_null(w, "local_rank", id->local_rank, id->local_rank >= 0);
	ht_jw_str(w, "launcher", id->launcher);
	ht_jw_str(w, "job", id->job[0] != '\0' ? id->job : NULL);
	ht_jw_str(w, "relevant", relevant);
}

void ht_head_path(struct ht_jw *w, const char *key, const char *link)
{
	char p[4096];
	ssize_t n = readlink(link, p, sizeof(p) - 1);
	if (n < 0)
		ht_jw_null(w, key);
	else
		ht_jw_strn(w, key, p, (size_t)n);
}

void ht_head_paths(struct ht_jw *w)
{
	ht_head_path(w, "exe", "/proc/self/exe");
	ht_head_path(w, "cwd", "/proc/self/cwd");
}

void ht_head_cmdline(struct ht_jw *w, char *text, size_t cap)
{
	ssize_t n = ht_read_file("/proc/self/cmdline", text, cap);
	const char *prev = NULL;

	ht_jw_arr_begin(w, "cmdline");
	for (ssize_t i = 0; n > 0 && i < n;) {
		const char *arg = text + i;
		size_t len = strlen(arg), keep;
		if (ht_arg_secret(arg, prev, &keep)) {
			char masked[256];
			size_t k = keep < sizeof(masked) - 4 ? keep : sizeof(masked) - 4;
			memcpy(masked, arg, k);
			memcpy(masked + k, "***", 4);
			ht_jw_str(w, NULL, masked);
		} else {
			ht_jw_strn(w, NULL, arg, len);
		}
		prev = arg;
		i += (ssize_t)len + 1;
	}
	ht_jw_end(w);
}

void ht_head_env(struct ht_jw *w, char *const *env)
{
	ht_jw_obj_begin(w, "env");
	for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
		const char *e = env[i];
		if (!ht_env_allowed(e))
			continue;
		const char *eq = strchr(e, '=');
		char name[128];
		size_t k = (size_t)(eq - e) < sizeof(name) - 1 ? (size_t)(eq - e) : sizeof(name) - 1;
		memcpy(name, e, k);
		name[k] = '\0';
		/* Names are ours to print as keys only when plain. */
		bool plain = true;
		for (size_t j = 0; j < k; j++)
			if (!((name[j] >= 'A' && name[j] <= 'Z') || (name[j] >= 'a' && name[j] <= 'z') ||
			      (name[j] >= '0' && name[j] <= '9') || name[j] == '_'))
				plain = false;
		if (plain)
			ht_jw_str(w, name, eq + 1);
	}
	ht_jw_end(w);
}
