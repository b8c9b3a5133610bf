// SPDX-License-Identifier: MIT
/*
 * options.h: the HANGTRACE_* variables, read once at load (options.c).
 */
#ifndef HT_BASE_OPTIONS_H
#define HT_BASE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

enum ht_on_stall { HT_ON_STALL_DUMP, HT_ON_STALL_ABORT };

#define HT_MAX_WARNINGS 4
#define HT_WARNING_LEN 200

struct ht_options {
	char dir[1024];			/* empty: the default ./hangtrace.<job> */
	int64_t timeout_ns;
	enum ht_on_stall on_stall;
	bool brief;			/* HANGTRACE_BRIEF: the verdicts on a stall */
	char command[1024];		/* the hangtrace command, "": beside the library */
	int64_t rank, world_size, local_rank;	/* -1: not given */
	bool nccl_log;
	bool disable;
	int nwarnings;
	char warnings[HT_MAX_WARNINGS][HT_WARNING_LEN];
};

/* Reads every HANGTRACE_* variable of envp into o; defaults for the rest.
 * Unknown names and malformed values are recorded in o->warnings. */
void ht_options_parse(char *const *envp, struct ht_options *o);

#endif
