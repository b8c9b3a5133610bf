// SPDX-License-Identifier: MIT
/*
 * phase.h: the phase model (phase.c).
 */
#ifndef HT_CORE_PHASE_H
#define HT_CORE_PHASE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hangtrace.h"

struct ht_phases {
	_Atomic uint32_t begun;		/* bit per phase */
	_Atomic uint32_t ended;
	_Atomic uint32_t errored;
	_Atomic int current;		/* last phase begun, -1 before launch */
	_Atomic int64_t changed_ns;	/* mono time of the last transition */
	_Atomic uint32_t epoch;		/* transitions so far */
};

void ht_phases_reset(struct ht_phases *p, int64_t now);
/* Each returns true for the first such transition of the phase only. */
bool ht_phases_begin(struct ht_phases *p, enum ht_phase ph, int64_t now);
bool ht_phases_end(struct ht_phases *p, enum ht_phase ph, int64_t now);
bool ht_phases_error(struct ht_phases *p, enum ht_phase ph, int64_t now);
bool ht_phases_has_begun(const struct ht_phases *p, enum ht_phase ph);
bool ht_phases_has_ended(const struct ht_phases *p, enum ht_phase ph);
/* Back to launch after exec: only launch counts as begun. */
void ht_phases_exec(struct ht_phases *p, int64_t now);

#endif
