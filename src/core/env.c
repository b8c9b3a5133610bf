// SPDX-License-Identifier: MIT
/* env.c: the variables of other programs the library reads (core/env.h). */
#include <stddef.h>

#include "env.h"
#include "identity.h"

extern char **environ;

static const char *const names[HT_ENV_COUNT] = {
#define HT_ENVVAR(name, reader) [HT_ENV_##name] = #name,
#include "envvars.def"
#undef HT_ENVVAR
};

const char *ht_env_name(enum ht_envvar v)
{
	return (unsigned)v < HT_ENV_COUNT ? names[v] : NULL;
}

const char *ht_env(enum ht_envvar v)
{
	const char *name = ht_env_name(v);
	return name != NULL ? ht_env_get(environ, name) : NULL;
}
