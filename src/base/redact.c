// SPDX-License-Identifier: MIT
/*
 * redact.c: what of a job's environment and command line may reach a trace
 * file (SPEC section 7). Only allow-listed variables are written, and never
 * one whose name looks like a credential; arguments that carry a token,
 * key, secret or password are written as "***". Async-signal-safe.
 */
#include <stddef.h>
#include <string.h>

#include "common.h"
#include "redact.h"

static const char *const allowed_prefixes[] = {
	"CUDA_", "NCCL_", "TORCH_", "MASTER_", "SLURM_", "OMPI_", "PMI", "GLOO_",
	"JAX_", "TORCHELASTIC_", "HANGTRACE_", "NVIDIA_", "OMP_NUM_THREADS=",
	"RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "GROUP_RANK=", "LOCAL_WORLD_SIZE=",
	"ROLE_RANK=", "ROLE_WORLD_SIZE=", "MPI_LOCALRANKID=", "LD_PRELOAD=",
	"HOSTNAME=", "HOROVOD_", "DEEPSPEED_", "ACCELERATE_", "CROSS_RANK=",
	"CROSS_SIZE=",
};

static const char *const secret_words[] = {
	"token", "key", "secret", "password", "passwd", "credential",
};

/* Case-insensitive search of word in s[0..n). */
static bool contains_word(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);

	for (size_t i = 0; i + w <= n; i++) {
		size_t j = 0;
		while (j < w) {
			char c = s[i + j];
			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			if (c != word[j])
				break;
			j++;
		}
		if (j == w)
			return true;
	}
	return false;
}

static bool secret_name(const char *s, size_t n)
{
	for (size_t i = 0; i < HT_ARRAY_SIZE(secret_words); i++)
		if (contains_word(s, n, secret_words[i]))
			return true;
	return false;
}

bool ht_env_allowed(const char *entry)
{
	const char *eq = strchr(entry, '=');

	if (eq == NULL)
		return false;
	if (secret_name(entry, (size_t)(eq - entry)))
		return false;
	for (size_t i = 0; i < HT_ARRAY_SIZE(allowed_prefixes); i++) {
		const char *p = allowed_prefixes[i];
		if (strncmp(entry, p, strlen(p)) == 0)
			return true;
	}
	return false;
}

/* An option's name: "--name" or "-n", before any '='. */
static bool option_name(const char *arg, size_t *len)
{
	if (arg[0] != '-')
		return false;
	const char *eq = strchr(arg, '=');
	*len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
	return true;
}

bool ht_arg_secret(const char *arg, const char *prev, size_t *keep_prefix)
{
	size_t len;

	*keep_prefix = 0;
	if (option_name(arg, &len) && arg[len] == '=' && secret_name(arg, len)) {
		*keep_prefix = len + 1;
		return true;
	}
	/* "--token VALUE": the value is the argument after the name. */
	if (prev != NULL && option_name(prev, &len) && prev[len] == '\0' &&
	    secret_name(prev, len) && arg[0] != '-')
		return true;
	/* "NAME=value" words (env-style assignments on a command line). */
	const char *eq = strchr(arg, '=');
	if (arg[0] != '-' && eq != NULL && eq != arg && secret_name(arg, (size_t)(eq - arg))) {
		*keep_prefix = (size_t)(eq - arg) + 1;
		return true;
	}
	return false;
}
