// SPDX-License-Identifier: MIT
/*
 * families.c: the family table (hooks/families.def) and the loops the core
 * runs over it, one per core event (hooks/families.h). The table is
 * constant, so with link-time optimisation each loop becomes the direct
 * calls of the families that fill in its entry.
 */
#include <string.h>

#include "families.h"
#include "jsonw.h"

static const struct ht_family *const families[] = {
#define HT_FAMILY(f) &ht_family_##f,
#include "families.def"
#undef HT_FAMILY
};

#define NFAMILIES (sizeof(families) / sizeof(families[0]))

void ht_families_activate(void)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (families[i]->activate != NULL)
			families[i]->activate();
}

void ht_families_fork_child(void)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (families[i]->fork_child != NULL)
			families[i]->fork_child();
}

void ht_families_dump(void)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (families[i]->dump != NULL)
			families[i]->dump();
}

void ht_families_dump_end(struct ht_jw *w)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (families[i]->dump_end != NULL)
			families[i]->dump_end(w);
}

bool ht_families_may_signal(pid_t tid)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (families[i]->may_signal != NULL && !families[i]->may_signal(tid))
			return false;
	return true;
}

uint64_t ht_families_progress(void)
{
	uint64_t n = 0;
	for (size_t i = 0; i < NFAMILIES; i++)
		if (families[i]->progress != NULL)
			n += families[i]->progress();
	return n;
}

bool ht_families_startup_pending(void)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (families[i]->startup_pending != NULL && families[i]->startup_pending())
			return true;
	return false;
}

void ht_families_fd_closing(int fd)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (families[i]->fd_closing != NULL)
			families[i]->fd_closing(fd);
}

void ht_families_fd_range_closing(unsigned int first, unsigned int last)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (families[i]->fd_range_closing != NULL)
			families[i]->fd_range_closing(first, last);
}

/* The first family whose prefix name starts with hands out its wrapper (or
 * the real function); the others are not asked. */
void *ht_families_dlsym(void *handle, const char *name, void *found)
{
	for (size_t i = 0; i < NFAMILIES; i++) {
		const struct ht_family *f = families[i];
		if (f->dlsym == NULL || f->dlsym_prefixes == NULL)
			continue;
		for (const char *const *p = f->dlsym_prefixes; *p != NULL; p++)
			if (strncmp(name, *p, strlen(*p)) == 0)
				return f->dlsym(handle, name, found);
	}
	return found;
}
