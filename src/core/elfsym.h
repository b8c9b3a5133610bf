// SPDX-License-Identifier: MIT
/*
 * elfsym.h: symbolisation for dumps without dladdr (which takes the loader
 * lock a stuck dlopen may hold) and without malloc: the module map comes
 * from /proc/self/maps, names from the ELF files' .symtab (or .dynsym),
 * memory from an arena the dump maps and unmaps.
 */
#ifndef HT_ELFSYM_H
#define HT_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ht_arena {
	char *base;
	size_t cap, used;
};

/* Maps an arena of cap bytes (anonymous, no reserve); 0 or -errno. */
int ht_arena_open(struct ht_arena *a, size_t cap);
void ht_arena_close(struct ht_arena *a);
/* 16-byte aligned; NULL when the arena is full. */
void *ht_arena_alloc(struct ht_arena *a, size_t n);
/* A copy of s (at most max bytes) in the arena, or NULL. */
char *ht_arena_strdup(struct ht_arena *a, const char *s, size_t max);

struct ht_map {
	uintptr_t lo, hi;
	uint64_t off;
	const char *path;	/* in the arena; "[vdso]" etc. for special ones */
};

struct ht_maps {
	struct ht_map *m;
	size_t n;
};

/* Parses the text of /proc/self/maps (pure: testable). */
int ht_maps_parse(struct ht_arena *a, const char *text, struct ht_maps *out);
/* Reads /proc/self/maps into out. */
int ht_maps_read(struct ht_arena *a, struct ht_maps *out);
const struct ht_map *ht_maps_find(const struct ht_maps *m, uintptr_t addr);

struct ht_symq {
	uintptr_t addr;		/* runtime address to name */
	const struct ht_map *map;	/* set by ht_symbolize, NULL if unmapped */
	uint64_t vaddr;		/* address in the ELF file's own terms */
	const char *name;	/* symbol, or NULL */
};

/* Names every query, one pass over each module's symbol table. */
void ht_symbolize(struct ht_arena *a, const struct ht_maps *m, struct ht_symq *q, size_t n);
/* The runtime address of the function symbol name in the object at path
 * (local symbols too, from .symtab), or 0. */
uintptr_t ht_sym_lookup(const struct ht_maps *m, const char *path, const char *name);
/* The span [*lo, *hi) of every PT_LOAD segment of the loaded object that
 * holds addr (dl_iterate_phdr: takes the loader's lock, not for dumps);
 * false when no object holds it. */
bool ht_object_span(const void *addr, uintptr_t *lo, uintptr_t *hi);
/* True when the ELF file at path exports name (defined, global or weak,
 * default or protected visibility) in its dynamic symbol table. open/mmap
 * only: usable in a dump. */
bool ht_elf_exports(const char *path, const char *name);
/* The last component of a path. */
const char *ht_basename(const char *path);

#endif
