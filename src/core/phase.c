// SPDX-License-Identifier: MIT
/*
 * phase.c: the phase model of SPEC section 5 as a few atomics. A phase
 * begins once and ends once; the first caller to flip its bit wins, so two
 * threads racing into cuInit record one transition. The watchdog reads
 * current and changed_ns without locks. Async-signal-safe.
 */
#include "hangtrace.h"
#include "phase.h"

void ht_phases_reset(struct ht_phases *p, int64_t now)
{
	atomic_store(&p->begun, 0);
	atomic_store(&p->ended, 0);
	atomic_store(&p->errored, 0);
	atomic_store(&p->current, -1);
	atomic_store(&p->changed_ns, now);
	atomic_store(&p->epoch, 0);
}

static bool flip(_Atomic uint32_t *bits, enum ht_phase ph)
{
	uint32_t bit = 1u << ph;
	return (atomic_fetch_or(bits, bit) & bit) == 0;
}

static void changed(struct ht_phases *p, int64_t now)
{
	atomic_store(&p->changed_ns, now);
	atomic_fetch_add(&p->epoch, 1);
}

bool ht_phases_begin(struct ht_phases *p, enum ht_phase ph, int64_t now)
{
	if ((unsigned)ph >= HT_PHASE_COUNT || !flip(&p->begun, ph))
		return false;
	atomic_store(&p->current, (int)ph);
	changed(p, now);
	return true;
}

bool ht_phases_end(struct ht_phases *p, enum ht_phase ph, int64_t now)
{
	if ((unsigned)ph >= HT_PHASE_COUNT || !ht_phases_has_begun(p, ph) ||
	    !flip(&p->ended, ph))
		return false;
	changed(p, now);
	return true;
}

bool ht_phases_error(struct ht_phases *p, enum ht_phase ph, int64_t now)
{
	if ((unsigned)ph >= HT_PHASE_COUNT || !ht_phases_has_begun(p, ph) ||
	    ht_phases_has_ended(p, ph) || !flip(&p->errored, ph))
		return false;
	changed(p, now);
	return true;
}

bool ht_phases_has_begun(const struct ht_phases *p, enum ht_phase ph)
{
	return (atomic_load(&p->begun) & (1u << ph)) != 0;
}

bool ht_phases_has_ended(const struct ht_phases *p, enum ht_phase ph)
{
	return (atomic_load(&p->ended) & (1u << ph)) != 0;
}

void ht_phases_exec(struct ht_phases *p, int64_t now)
{
	ht_phases_reset(p, now);
	ht_phases_begin(p, HT_PHASE_LAUNCH, now);
}
