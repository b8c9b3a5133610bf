// SPDX-License-Identifier: MIT
/*
 * report_fuzz.c: the fuzz target of the report's reader (libFuzzer's
 * LLVMFuzzerTestOneInput; AFL++ runs it too). The input is one or more
 * trace files separated by NUL bytes (a NUL never occurs in a JSON text),
 * so one input can stage several ranks and exercise the model and every
 * rule, not only the parser. Each input runs the whole report: read,
 * model, verdicts, stacks, and the three writers. Built by
 * tests/fuzz/run.sh, never by make's test globs (it has no main).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#define MAX_FILES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rep_job job;
	char *copy = malloc(size + 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	ht_rep_job_init(&job);
	job.nthreads = 1;
	size_t start = 0;
	int files = 0;
	for (size_t i = 0; i <= size && files < MAX_FILES; i++) {
		if (i < size && copy[i] != '\0')
			continue;
		char name[32];
		snprintf(name, sizeof(name), "h%d.%d.jsonl", files, 100 + files);
		ht_rep_add_buffer(&job, name, copy + start, i - start);
		files++;
		start = i + 1;
	}
	if (ht_rep_read(&job) > 0) {
		ht_rep_analyse(&job);
		FILE *out = fopen("/dev/null", "w");
		if (out != NULL) {
			ht_rep_text(&job, out, true);
			ht_rep_json(&job, out);
			ht_rep_chrome(&job, out);
			fclose(out);
		}
	}
	ht_rep_job_free(&job);
	free(copy);
	return 0;
}
