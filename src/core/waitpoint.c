// SPDX-License-Identifier: MIT
/*
 * waitpoint.c: the main thread against the signature table (waitpoint.h).
 * A wait that spins (Open MPI's barrier polls in opal_progress) changes its
 * innermost frames from look to look; the frames at and outside the
 * matched wait frame do not, so only those are hashed.
 */
#include <setjmp.h>
#include <string.h>

#include "clock.h"
#include "common.h"
#include "fmt.h"
#include "hangtrace.h"
#include "jsonw.h"
#include "state.h"
#include "writer.h"
#include "elfsym.h"
#include "progress.h"
#include "pystack.h"
#include "waitpoint.h"

#define MAX_NATIVE 64

static uint64_t native_h[MAX_NATIVE];
static int nnative;
static int native_match = -1;	/* depth of the wait frame among native ones */
static const struct ht_sig *best, *activity;
#define MAX_PYTHON 64

static uint64_t py_fh[MAX_PYTHON];	/* each Python frame's hash, with its line */
static uint64_t py_wait_h;		/* the Python wait frame's, without its line */
static int npython;
static int py_match = -1;		/* depth of the Python wait frame, -1 none */
static uint64_t py_h;
static bool py_entry;			/* the outermost Python frame so far is an entry */
static bool seen;

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static void consider(const struct ht_sig *s)
{
	if (s != NULL && ht_sig_kind_is_wait(s->kind) && (best == NULL || s < best))
		best = s;
	if (s != NULL && !ht_sig_kind_is_wait(s->kind) && (activity == NULL || s < activity))
		activity = s;
}

void ht_wp_begin(void)
{
	nnative = 0;
	native_match = -1;
	best = activity = NULL;
	py_h = 0;
	npython = 0;
	py_match = -1;
	py_entry = false;
	seen = false;
}

/* "func (file:line)" without its line: a Python wait that polls (the c10d
 * store barrier's sleep-and-add loop, file_baton's) moves between lines of
 * the wait function, not out of it. */
static uint64_t fnv_noline(const char *s)
{
	const char *colon = strrchr(s, ':');
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s != '\0' && s != colon; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The Python frames' hash: every frame with its line, or, at a Python
 * wait frame, that frame without its line and those outside it (as for a
 * native wait that spins: the frames inside it move while it waits). */
static uint64_t py_final(void)
{
	if (py_match < 0)
		return py_h;
	uint64_t h = py_wait_h;
	for (int k = py_match + 1; k < npython; k++)
		h = (h ^ py_fh[k]) * 0x100000001b3ULL + (uint64_t)k;
	return h;
}

void ht_wp_native(int depth, const char *frame)
{
	seen = true;
	if (depth >= MAX_NATIVE)
		return;
	native_h[depth] = fnv(frame);
	if (depth + 1 > nnative)
		nnative = depth + 1;
	const struct ht_sig *s = ht_sig_match_frame(frame, false);
	if (s != NULL && ht_sig_kind_is_wait(s->kind) && native_match < 0)
		native_match = depth;
	consider(s);
}

void ht_wp_python(int depth, const char *frame)
{
	seen = true;
	uint64_t fh = fnv(frame);
	py_h = (py_h ^ fh) * 0x100000001b3ULL + (uint64_t)depth;
	py_entry = strncmp(frame, "<module> (", 10) == 0 ||
		   strncmp(frame, "_run_module_as_main (", 21) == 0;
	if (depth < MAX_PYTHON) {
		py_fh[depth] = fh;
		if (depth + 1 > npython)
			npython = depth + 1;
	}
	const struct ht_sig *s = ht_sig_match_frame(frame, true);
	if (s != NULL && ht_sig_kind_is_wait(s->kind) && py_match < 0 && depth < MAX_PYTHON) {
		py_match = depth;
		py_wait_h = fnv_noline(frame);
	}
	consider(s);
}

void ht_wp_end(struct ht_look *out)
{
	uint64_t h = py_final();
	for (int k = native_match >= 0 ? native_match : 0; k < nnative; k++)
		h = (h ^ native_h[k]) * 0x100000001b3ULL;
	out->valid = seen;
	out->sig = best;
	out->activity = activity;
	out->hash = h;
	out->py_hash = py_final();
	out->py_cut = npython > 0 && !py_entry;
}

bool ht_wp_python_look(uint64_t *py_hash, const struct ht_sig **sig)
{
	struct ht_arena a;
	struct ht_lib_mark mark;
	bool found = false;

	if (ht_arena_open(&a, 16u << 20) < 0)
		return false;
	ht_lib_mark_begin(&mark);
	struct ht_maps maps = { 0 };
	ht_maps_read(&a, &maps);
	struct ht_pythread *py = NULL;
	size_t npy = 0;
	const char *status = NULL;
	sigjmp_buf back;
	if (sigsetjmp(back, 1) == 0) {
		ht_tls.fault_jmp = &back;
		status = ht_py_capture(&a, &maps, &py, &npy, false);
	}
	ht_tls.fault_jmp = NULL;
	uint64_t main = atomic_load(&ht_g.main_pthread);
	if (status != NULL && strcmp(status, "ok") == 0) {
		for (size_t i = 0; i < npy && !found; i++) {
			if (py[i].ident != main)
				continue;
			ht_wp_begin();
			for (int f = 0; f < py[i].n; f++)
				ht_wp_python(f, py[i].frames[f]);
			*py_hash = py_final();
			*sig = best;
			found = py[i].n > 0;
		}
	}
	ht_lib_mark_end(&mark);
	ht_arena_close(&a);
	return found;
}
