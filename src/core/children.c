// SPDX-License-Identifier: MIT
/*
 * children.c: forked children to dump with their parent (children.h). A
 * child is asked only while it is still ours (its parent pid is this
 * process) and still catches our dump signal (SigCgt in its status): one
 * that exec'd another program, or was never traced, is left alone (the
 * signal's default action would end it).
 */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "fmt.h"
#include "hangtrace.h"
#include "jsonw.h"
#include "state.h"
#include "writer.h"
#include "children.h"
#include "procfs.h"

#define MAX_CHILDREN 256

static _Atomic pid_t kids[MAX_CHILDREN];

void ht_children_add(pid_t pid)
{
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < MAX_CHILDREN; i++) {
			pid_t cur = atomic_load(&kids[i]);
			if (cur == 0 && atomic_compare_exchange_strong(&kids[i], &cur, pid))
				return;
		}
		/* Full: forget the children that are gone, then try again. */
		for (int i = 0; i < MAX_CHILDREN; i++) {
			pid_t cur = atomic_load(&kids[i]);
			if (cur != 0 && syscall(SYS_kill, cur, 0) != 0)
				atomic_compare_exchange_strong(&kids[i], &cur, 0);
		}
	}
}

void ht_children_forget(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		atomic_store(&kids[i], 0);
}

/* Bit sig-1 of the hex mask after "name:" in a status text. */
static bool mask_has(const char *status, const char *name, int sig)
{
	const char *p = strstr(status, name);
	if (p == NULL)
		return false;
	p += strlen(name);
	while (*p == ' ' || *p == '\t')
		p++;
	const char *end = p;
	while ((*end >= '0' && *end <= '9') || (*end >= 'a' && *end <= 'f'))
		end++;
	int bit = sig - 1;
	const char *digit = end - 1 - bit / 4;
	if (digit < p)
		return false;
	int v = *digit <= '9' ? *digit - '0' : *digit - 'a' + 10;
	return (v >> (bit % 4)) & 1;
}

void ht_children_dump(void)
{
	char path[64], buf[2048];
	for (int i = 0; i < MAX_CHILDREN; i++) {
		pid_t pid = atomic_load(&kids[i]);
		if (pid == 0)
			continue;
		size_t n = ht_append(path, sizeof(path), 0, "/proc/");
		n = ht_append_i64(path, sizeof(path), n, pid);
		ht_append(path, sizeof(path), n, "/status");
		if (ht_read_file(path, buf, sizeof(buf)) <= 0) {
			atomic_store(&kids[i], 0);	/* gone */
			continue;
		}
		char want[32];
		size_t k = ht_append(want, sizeof(want), 0, "\nPPid:\t");
		k = ht_append_i64(want, sizeof(want), k, ht_g.pid);
		ht_append(want, sizeof(want), k, "\n");
		if (strstr(buf, want) == NULL) {
			atomic_store(&kids[i], 0);	/* not our child any more */
			continue;
		}
		if (ht_g.dump_signal > 0 && mask_has(buf, "\nSigCgt:", ht_g.dump_signal))
			syscall(SYS_kill, pid, ht_g.dump_signal);
	}
}
