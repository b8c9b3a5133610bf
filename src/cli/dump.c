// SPDX-License-Identifier: MIT
/*
 * dump.c: `hangtrace dump DIR`: sends the dump signal each traced process
 * recorded in its header to every process of this host listed in DIR that
 * is still the same process (pid, boot and start time match, no exit
 * record), so no unrelated process that reused a pid is ever signalled.
 */
#include <dirent.h>
#include <err.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "procfs.h"

struct target {
	long pid;
	long rank;
	int sig;
	long long start;
	char boot[40];
	bool exited;
};

/* Reads the last process record of a trace file. */
static bool read_target(const char *path, struct target *t)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	bool have = false;

	if (f == NULL)
		return false;
	while (getline(&line, &cap, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		if (j == NULL)
			continue;
		const char *type = json_string_value(json_object_get(j, "t"));
		if (type != NULL && strcmp(type, "header") == 0) {
			memset(t, 0, sizeof(*t));
			t->pid = (long)json_integer_value(json_object_get(j, "pid"));
			json_t *r = json_object_get(j, "rank");
			t->rank = json_is_integer(r) ? (long)json_integer_value(r) : -1;
			t->sig = (int)json_integer_value(json_object_get(j, "dump_signal"));
			t->start = json_integer_value(json_object_get(j, "start_ticks"));
			const char *b = json_string_value(json_object_get(j, "boot_id"));
			snprintf(t->boot, sizeof(t->boot), "%s", b != NULL ? b : "");
			have = true;
		} else if (have && type != NULL && strcmp(type, "exec") == 0) {
			json_t *s = json_object_get(j, "dump_signal");
			if (json_is_integer(s))
				t->sig = (int)json_integer_value(s);
		} else if (have && type != NULL && strcmp(type, "exit") == 0) {
			t->exited = true;
		}
		json_decref(j);
	}
	free(line);
	fclose(f);
	return have;
}

int ht_dump_main(int argc, char **argv)
{
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: hangtrace dump DIR\n");
		return HT_EXIT_USAGE;
	}
	DIR *d = opendir(argv[1]);
	if (d == NULL) {
		warn("dump: %s", argv[1]);
		return HT_EXIT_USAGE;
	}
	char host[256], boot[40];
	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	ht_boot_id(boot);
	int sent = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name), hl = strlen(host);
		if (n < 7 || strcmp(e->d_name + n - 6, ".jsonl") != 0 ||
		    strncmp(e->d_name, host, hl) != 0 || e->d_name[hl] != '.')
			continue;
		char path[4096];
		struct target t;
		struct ht_stat st;
		snprintf(path, sizeof(path), "%s/%s", argv[1], e->d_name);
		if (!read_target(path, &t) || t.exited || t.sig <= 0 || strcmp(t.boot, boot) != 0)
			continue;
		char stat_path[64];
		snprintf(stat_path, sizeof(stat_path), "/proc/%ld/stat", t.pid);
		if (!ht_read_stat(stat_path, &st) || (long long)st.start_ticks != t.start)
			continue;
		if (kill((pid_t)t.pid, t.sig) == 0) {
			if (t.rank >= 0)
				printf("asked pid %ld (rank %ld) for a dump\n", t.pid, t.rank);
			else
				printf("asked pid %ld for a dump\n", t.pid);
			sent++;
		} else {
			warn("dump: pid %ld", t.pid);
		}
	}
	closedir(d);
	if (sent == 0)
		fprintf(stderr, "hangtrace: dump: no running traced process of host %s in %s\n",
			host, argv[1]);
	return sent > 0 ? HT_EXIT_OK : HT_EXIT_VERDICT;
}
