// SPDX-License-Identifier: MIT
/*
 * names.c: the printable names of phases, event types, verdicts and dump
 * reasons, generated from the X-macro lists of hangtrace.h. Shared by the
 * library and the command; the lookups are plain array reads, safe in
 * signal handlers.
 */
#include <stddef.h>
#include <string.h>

#include "hangtrace.h"

static const char *const phase_names[] = {
#define XX(id, name) name,
	HT_PHASE_MAP(XX)
#undef XX
};

static const char *const event_names[] = {
#define XX(id, name) name,
	HT_EVENT_MAP(XX)
#undef XX
};

static const char *const verdict_names[] = {
#define XX(id, name, prio, sev, role) name,
	HT_VERDICT_MAP(XX)
#undef XX
};

static const char *const reason_names[] = {
#define XX(id, name) name,
	HT_DUMP_REASON_MAP(XX)
#undef XX
};

#define NAME_AT(tab, i) \
	((i) >= 0 && (size_t)(i) < sizeof(tab) / sizeof((tab)[0]) ? (tab)[i] : NULL)

const char *ht_phase_name(int phase) { return NAME_AT(phase_names, phase); }
const char *ht_event_name(int type) { return NAME_AT(event_names, type); }
const char *ht_verdict_name(int code) { return NAME_AT(verdict_names, code); }
const char *ht_dump_reason_name(int reason) { return NAME_AT(reason_names, reason); }

static int find(const char *const *tab, size_t n, const char *s)
{
	if (s == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)	/* (the first letter first: the report asks per line) */
		if (tab[i][0] == s[0] && strcmp(tab[i], s) == 0)
			return (int)i;
	return -1;
}

#define FIND(tab, s) find(tab, sizeof(tab) / sizeof((tab)[0]), s)

int ht_phase_from_name(const char *s) { return FIND(phase_names, s); }
int ht_event_from_name(const char *s) { return FIND(event_names, s); }
int ht_verdict_from_name(const char *s) { return FIND(verdict_names, s); }
