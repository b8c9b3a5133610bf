// SPDX-License-Identifier: MIT
/*
 * options.c: the one table of HANGTRACE_* variables (SPEC section 3), read
 * once at load by scanning environ. A malformed value or an unknown name is
 * recorded as a warning with the default used; it never stops the job. No
 * getenv, no malloc: the constructor runs this before libc may be ready.
 */
#include <string.h>

#include "clock.h"
#include "fmt.h"
#include "options.h"

/* OPT_PATH values are copied into fields of one size. */
_Static_assert(sizeof(((struct ht_options *)0)->command) == sizeof(((struct ht_options *)0)->dir),
	       "OPT_PATH fields share one size");

enum opt_kind { OPT_PATH, OPT_SECONDS, OPT_ON_STALL, OPT_COUNT, OPT_BOOL };

/* name, kind, default (as the user would write it), parse target */
#define HT_OPTION_MAP(XX)                                       \
	XX("HANGTRACE_DIR", OPT_PATH, "./hangtrace.<job>", dir)        \
	XX("HANGTRACE_TIMEOUT", OPT_SECONDS, "300", timeout_ns)        \
	XX("HANGTRACE_ON_STALL", OPT_ON_STALL, "dump", on_stall)       \
	XX("HANGTRACE_BRIEF", OPT_BOOL, "1", brief)                    \
	XX("HANGTRACE_COMMAND", OPT_PATH, "beside the library", command) \
	XX("HANGTRACE_RANK", OPT_COUNT, "unset", rank)                 \
	XX("HANGTRACE_WORLD_SIZE", OPT_COUNT, "unset", world_size)     \
	XX("HANGTRACE_LOCAL_RANK", OPT_COUNT, "unset", local_rank)     \
	XX("HANGTRACE_NCCL_LOG", OPT_BOOL, "0", nccl_log)              \
	XX("HANGTRACE_DISABLE", OPT_BOOL, "0", disable)

static void warn(struct ht_options *o, const char *a, const char *b,
		 const char *c, const char *d)
{
	if (o->nwarnings >= HT_MAX_WARNINGS)
		return;
	char *w = o->warnings[o->nwarnings++];
	size_t n = 0;
	const char *parts[] = { a, b, c, d };
	w[0] = '\0';
	for (size_t i = 0; i < 4; i++)
		if (parts[i] != NULL)
			n = ht_append(w, HT_WARNING_LEN, n, parts[i]);
}

static void malformed(struct ht_options *o, const char *entry, const char *why,
		      const char *dflt)
{
	char quoted[96];
	ht_append(quoted, sizeof(quoted), 0, entry);
	warn(o, quoted, why, "; using ", dflt);
}

static bool parse_bool(const char *v, bool *out)
{
	if (strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "true") == 0) {
		*out = true;
		return true;
	}
	if (strcmp(v, "0") == 0 || strcmp(v, "no") == 0 || strcmp(v, "false") == 0 ||
	    v[0] == '\0') {
		*out = false;
		return true;
	}
	return false;
}

static void parse_one(struct ht_options *o, const char *entry, enum opt_kind kind,
		      const char *dflt, void *target)
{
	const char *v = strchr(entry, '=') + 1;
	int64_t n;
	bool b;

	switch (kind) {
	case OPT_PATH:
		if (v[0] == '\0')
			return;		/* empty means default */
		if (strlen(v) >= sizeof(o->dir)) {
			malformed(o, entry, " is too long", dflt);
			return;
		}
		ht_strlcpy(target, v, sizeof(o->dir));
		if (target == o->dir && ht_dir_bad_percent(v) != NULL) {
			char quoted[96], at[8] = { '%', ht_dir_bad_percent(v)[1], '\0' };
			ht_append(quoted, sizeof(quoted), 0, entry);
			warn(o, quoted, ": ", at[1] != '\0' ? at : "a lone %",
			     " is not a substitution (%h the host, %j the job, %% a percent sign); "
			     "kept as written");
		}
		return;
	case OPT_SECONDS:
		if (!ht_parse_secs(v, &n) || n <= 0)
			malformed(o, entry, " is not a positive number of seconds", dflt);
		else
			*(int64_t *)target = n;
		return;
	case OPT_ON_STALL:
		if (strcmp(v, "dump") == 0)
			*(enum ht_on_stall *)target = HT_ON_STALL_DUMP;
		else if (strcmp(v, "abort") == 0)
			*(enum ht_on_stall *)target = HT_ON_STALL_ABORT;
		else
			malformed(o, entry, " is neither dump nor abort", dflt);
		return;
	case OPT_COUNT:
		if (!ht_parse_i64(v, &n) || n < 0 || n > INT32_MAX)
			malformed(o, entry, " is not a non-negative integer", dflt);
		else
			*(int64_t *)target = n;
		return;
	case OPT_BOOL:
		if (!parse_bool(v, &b))
			malformed(o, entry, " is not 0 or 1", dflt);
		else
			*(bool *)target = b;
		return;
	}
}

void ht_options_parse(char *const *envp, struct ht_options *o)
{
	static const char prefix[] = "HANGTRACE_";

	memset(o, 0, sizeof(*o));
	o->timeout_ns = 300 * HT_NS_PER_SEC;
	o->on_stall = HT_ON_STALL_DUMP;
	o->brief = true;
	o->rank = o->world_size = o->local_rank = -1;

	for (size_t i = 0; envp != NULL && envp[i] != NULL; i++) {
		const char *e = envp[i];
		if (strncmp(e, prefix, sizeof(prefix) - 1) != 0)
			continue;
		const char *eq = strchr(e, '=');
		if (eq == NULL)
			continue;
		size_t len = (size_t)(eq - e);
		bool known = false;
#define XX(name, kind, dflt, field)                                       \
		if (!known && len == sizeof(name) - 1 && memcmp(e, name, len) == 0) { \
			known = true;                                           \
			parse_one(o, e, kind, dflt, &o->field);                 \
		}
		HT_OPTION_MAP(XX)
#undef XX
		if (!known) {
			char name[80];
			size_t n = len < sizeof(name) - 1 ? len : sizeof(name) - 1;
			memcpy(name, e, n);
			name[n] = '\0';
			warn(o, "unknown variable ", name, " ignored", NULL);
		}
	}
}
