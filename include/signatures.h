// SPDX-License-Identifier: MIT
/*
 * signatures.h: the stack-signature table (include/signatures.def), shared by
 * the library and the report. Matching is plain string work over the frame
 * text a dump writes ("function (where)"): no allocation, no locks, so the
 * watchdog can use it as well as the report.
 */
#ifndef HT_SIGNATURES_H
#define HT_SIGNATURES_H

#include <stdbool.h>
#include <stddef.h>

/* XX(id, name, wait): wait is 1 for a wait point, 0 for an activity. */
#define HT_SIG_KIND_MAP(XX)              \
	XX(STORE, "store", 1)                  \
	XX(BOOTSTRAP, "bootstrap", 1)          \
	XX(COLLECTIVE, "collective", 1)        \
	XX(BARRIER, "barrier", 1)              \
	XX(COORDINATOR, "coordinator", 1)      \
	XX(DATALOADER, "dataloader", 1)        \
	XX(QUEUE, "queue", 1)                  \
	XX(LOCK, "lock", 1)                    \
	XX(FILE_LOCK, "file_lock", 1)          \
	XX(SLEEP, "sleep", 1)                  \
	XX(CHECKPOINT, "checkpoint", 0)        \
	XX(DOWNLOAD, "download", 0)            \
	XX(COMPILE, "compile", 0)              \
	XX(LOGGER, "logger", 0)                \
	XX(IMPORT, "import", 0)                \
	XX(WORKER, "dataloader_worker", 0)

enum ht_sig_kind {
#define XX(id, name, wait) HT_SIG_##id,
	HT_SIG_KIND_MAP(XX)
#undef XX
	HT_SIG_KIND_COUNT
};

struct ht_sig {
	const char *id;
	enum ht_sig_kind kind;
	bool python;		/* P: func is a Python function's name */
	const char *func;
	const char *file;	/* Python only: substring of the file, "" any */
	const char *words;
};

extern const struct ht_sig ht_sigs[];
extern const size_t ht_nsigs;

bool ht_sig_kind_is_wait(enum ht_sig_kind k);
/* The entry that one frame, as a dump writes it ("function (where)"),
 * matches, or NULL. python: the frame is a Python one. */
const struct ht_sig *ht_sig_match_frame(const char *frame, bool python);
/* Over a thread's Python and native frames, the matching entry listed
 * first in the table (the most specific); NULL when none matches. */
const struct ht_sig *ht_sig_match_stack(const char *const *python, size_t npython,
					const char *const *native, size_t nnative);

#endif /* HT_SIGNATURES_H */
