// SPDX-License-Identifier: MIT
/*
 * redact.h: what of the environment and command line may be written
 * (redact.c).
 */
#ifndef HT_BASE_REDACT_H
#define HT_BASE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

/* True when the variable "NAME=value" may be recorded in a trace. */
bool ht_env_allowed(const char *entry);
/* True when the command-line argument argv[i] must be written as "***":
 * it follows, or carries after '=', an option whose name contains token,
 * key, secret or password. prev is argv[i-1] or NULL. Sets *keep_prefix to
 * the length of "--name=" to keep when the value is inline. */
bool ht_arg_secret(const char *arg, const char *prev, size_t *keep_prefix);

#endif
