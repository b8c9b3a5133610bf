// SPDX-License-Identifier: MIT
/*
 * identity.h: who this rank is, from the launcher's variables (identity.c,
 * SPEC section 3).
 */
#ifndef HT_BASE_IDENTITY_H
#define HT_BASE_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"

struct ht_identity {
	int64_t rank, world_size, local_rank;	/* -1: unknown */
	const char *launcher;			/* static string or NULL */
	char job[64];				/* sanitised job id, "" if none */
	int nwarnings;
	char warnings[2][HT_WARNING_LEN];
};

/* Derives the rank identity from the launcher variables of envp and the
 * HANGTRACE_* overrides already in o (SPEC section 3). */
void ht_identity_from_env(char *const *envp, const struct ht_options *o,
			  struct ht_identity *id);
/* A rank identity learned after load (from ncclCommInitRank): fills in id
 * and returns true when id had no rank and the pair is valid. */
bool ht_identity_learn(struct ht_identity *id, int64_t rank, int64_t world_size);
/* The value of name in envp, or NULL (no getenv: usable before libc init). */
const char *ht_env_get(char *const *envp, const char *name);

#endif
