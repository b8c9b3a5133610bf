// SPDX-License-Identifier: MIT
/*
 * env.h: the variables of other programs the library reads
 * (src/core/envvars.def), through one function. The families never call
 * getenv themselves.
 */
#ifndef HT_CORE_ENV_H
#define HT_CORE_ENV_H

enum ht_envvar {
#define HT_ENVVAR(name, reader) HT_ENV_##name,
#include "envvars.def"
#undef HT_ENVVAR
	HT_ENV_COUNT
};

/*
 * The value of v in the process's environment now, or NULL. Read at the
 * event that needs it (activation, cuInit), not at load: a Python program
 * sets os.environ["CUDA_VISIBLE_DEVICES"] or MASTER_ADDR before its first
 * CUDA or NCCL call, and the CUDA driver and torch.distributed see the
 * value of that moment. Never allocates; not async-signal-safe only in
 * that the environment may change under it (the application's setenv).
 */
const char *ht_env(enum ht_envvar v);
/* "MASTER_ADDR" for HT_ENV_MASTER_ADDR. */
const char *ht_env_name(enum ht_envvar v);

#endif
