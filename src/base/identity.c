// SPDX-License-Identifier: MIT
/*
 * identity.c: a rank's identity from the launcher's variables (SPEC sections
 * 3 and 4): the HANGTRACE_* overrides, then torchrun, Open MPI, PMI, PMIx and
 * Slurm, in that order. Reads only the envp it is given; no allocation.
 */
#include <string.h>

#include "common.h"
#include "fmt.h"
#include "identity.h"
#include "options.h"

const char *ht_env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

bool ht_identity_learn(struct ht_identity *id, int64_t rank, int64_t world_size)
{
	if (id->rank >= 0 || rank < 0 || world_size <= 0)
		return false;
	id->rank = rank;
	id->world_size = world_size;
	return true;
}

/* One launcher: where rank, size and local rank live. */
struct source {
	const char *launcher;
	const char *rank, *size, *local;
	const char *local2;	/* a second name for the local rank */
};

static const struct source sources[] = {
	{ "torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", NULL },
	{ "openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
	  "OMPI_COMM_WORLD_LOCAL_RANK", NULL },
	{ "pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "PMI_LOCAL_RANK" },
	{ "pmix", "PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK", NULL },
	{ "slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", NULL },
};

static void id_warn(struct ht_identity *id, const char *name, const char *v)
{
	if (id->nwarnings >= (int)HT_ARRAY_SIZE(id->warnings))
		return;
	char *w = id->warnings[id->nwarnings++];
	size_t n = ht_append(w, HT_WARNING_LEN, 0, name);
	n = ht_append(w, HT_WARNING_LEN, n, "='");
	n = ht_append(w, n + 64 < HT_WARNING_LEN ? n + 64 : HT_WARNING_LEN, n, v);
	ht_append(w, HT_WARNING_LEN, n, "' is not a rank number; ignored");
}

/* A non-negative integer variable, or -1 when absent or malformed. */
static int64_t get_count(char *const *envp, const char *name, struct ht_identity *id)
{
	const char *v;
	int64_t n;

	if (name == NULL || (v = ht_env_get(envp, name)) == NULL)
		return -1;
	if (!ht_parse_i64(v, &n) || n < 0 || n > INT32_MAX) {
		id_warn(id, name, v);
		return -1;
	}
	return n;
}

static void set_job(struct ht_identity *id, const char *v)
{
	size_t n = 0;

	/* The id names a folder: keep it to a safe file-name alphabet. */
	for (; v[0] != '\0' && n < sizeof(id->job) - 1; v++) {
		char c = v[0];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
		id->job[n++] = ok ? c : '_';
	}
	id->job[n] = '\0';
	if (strcmp(id->job, ".") == 0 || strcmp(id->job, "..") == 0)
		id->job[0] = '\0';
}

void ht_identity_from_env(char *const *envp, const struct ht_options *o,
			  struct ht_identity *id)
{
	memset(id, 0, sizeof(*id));
	id->rank = id->world_size = id->local_rank = -1;

	for (size_t i = 0; i < HT_ARRAY_SIZE(sources); i++) {
		const struct source *s = &sources[i];
		int64_t rank = get_count(envp, s->rank, id);
		if (rank < 0)
			continue;
		id->rank = rank;
		id->world_size = get_count(envp, s->size, id);
		id->local_rank = get_count(envp, s->local, id);
		if (id->local_rank < 0)
			id->local_rank = get_count(envp, s->local2, id);
		id->launcher = s->launcher;
		/* RANK alone (a hand-written launch) is not torchrun. */
		if (i == 0 && ht_env_get(envp, "TORCHELASTIC_RUN_ID") == NULL &&
		    ht_env_get(envp, "GROUP_RANK") == NULL &&
		    ht_env_get(envp, "LOCAL_WORLD_SIZE") == NULL)
			id->launcher = "env";
		break;
	}
	if (o->rank >= 0 || o->world_size >= 0 || o->local_rank >= 0) {
		if (o->rank >= 0)
			id->rank = o->rank;
		if (o->world_size >= 0)
			id->world_size = o->world_size;
		if (o->local_rank >= 0)
			id->local_rank = o->local_rank;
		if (o->rank >= 0)
			id->launcher = "hangtrace";
	}

	static const char *const jobs[] = {
		"SLURM_JOB_ID", "TORCHELASTIC_RUN_ID", "OMPI_MCA_ess_base_jobid",
		"PMIX_NAMESPACE", "PMI_JOBID",
	};
	for (size_t i = 0; i < HT_ARRAY_SIZE(jobs); i++) {
		const char *v = ht_env_get(envp, jobs[i]);
		/* torchrun's default run id is the word "none": not a job id. */
		if (v != NULL && v[0] != '\0' && strcmp(v, "none") != 0) {
			set_job(id, v);
			if (id->job[0] != '\0')
				break;
		}
	}
}
