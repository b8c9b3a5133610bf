// SPDX-License-Identifier: MIT
/*
 * nccl_test.h: what the NCCL test programs share: nccl.h (or the fake's
 * stand-in where no CUDA toolkit is installed), the rank identity from the
 * launcher (Open MPI or plain env), the unique id passed through a file,
 * and progress lines on stdout.
 */
#ifndef HT_TESTS_NCCL_TEST_H
#define HT_TESTS_NCCL_TEST_H

#if defined(__has_include) && __has_include(<nccl.h>) && __has_include(<cuda_runtime.h>)
#include <nccl.h>
#else
#include "fake_nccl/nccl_fallback.h"
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int t_rank, t_world;

static inline int t_env_int(const char *name, int dflt)
{
	const char *s = getenv(name);
	return s != NULL && *s != '\0' ? atoi(s) : dflt;
}

static inline void t_identity(void)
{
	t_rank = t_env_int("OMPI_COMM_WORLD_RANK", t_env_int("RANK", 0));
	t_world = t_env_int("OMPI_COMM_WORLD_SIZE", t_env_int("WORLD_SIZE", 1));
}

static inline void t_say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("rank %d: %s\n", t_rank, line);
	fflush(stdout);
}

static inline void t_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Rank 0 (or every rank with OWN_ID=1) makes the id with make(); the
 * others read it from $ID_FILE, written whole with a rename. */
static inline int t_get_id(ncclUniqueId *id, ncclResult_t (*make)(ncclUniqueId *))
{
	const char *path = getenv("ID_FILE");
	char tmp[4096];

	if (t_env_int("OWN_ID", 0))
		return make(id) == ncclSuccess ? 0 : -1;
	if (path == NULL)
		return -1;
	if (t_rank == 0) {
		ncclResult_t rc = make(id);
		if (rc != ncclSuccess) {
			t_say("ncclGetUniqueId failed: %d", (int)rc);
			return -1;
		}
		snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
		FILE *f = fopen(tmp, "wb");
		if (f == NULL || fwrite(id, sizeof(*id), 1, f) != 1 || fclose(f) != 0 ||
		    rename(tmp, path) != 0)
			return -1;
		return 0;
	}
	for (int i = 0; i < 2000; i++, t_sleep_ms(10)) {
		FILE *f = fopen(path, "rb");
		if (f == NULL)
			continue;
		size_t n = fread(id, sizeof(*id), 1, f);
		fclose(f);
		if (n == 1)
			return 0;
	}
	t_say("no id in %s", path);
	return -1;
}

#endif
