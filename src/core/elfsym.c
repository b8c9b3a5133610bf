// SPDX-License-Identifier: MIT
/*
 * elfsym.c: names for return addresses, for the dump path. Reads the module
 * map from /proc/self/maps, maps each module's file read-only, converts the
 * address to the file's virtual address through its PT_LOAD headers and
 * looks it up in .symtab (static functions included) or .dynsym. Every
 * offset read from a file is checked against the file's size. No malloc,
 * no stdio, no loader locks. Also the two other ELF questions of the
 * library: whether a file exports a name (ht_elf_exports, for the NCCL
 * family's dump) and the span of a loaded object (ht_object_span, for the
 * resolvers; that one goes through the loader).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "elfsym.h"
#include "procfs.h"

int ht_arena_open(struct ht_arena *a, size_t cap)
{
	void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		a->base = NULL;
		a->cap = a->used = 0;
		return -errno;
	}
	a->base = p;
	a->cap = cap;
	a->used = 0;
	return 0;
}

void ht_arena_close(struct ht_arena *a)
{
	if (a->base != NULL)
		munmap(a->base, a->cap);
	a->base = NULL;
	a->cap = a->used = 0;
}

void *ht_arena_alloc(struct ht_arena *a, size_t n)
{
	size_t at = (a->used + 15) & ~(size_t)15;
	if (a->base == NULL || at > a->cap || n > a->cap - at)
		return NULL;
	a->used = at + n;
	return a->base + at;
}

char *ht_arena_strdup(struct ht_arena *a, const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *d = ht_arena_alloc(a, n + 1);
	if (d != NULL) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

const char *ht_basename(const char *path)
{
	const char *s = strrchr(path, '/');
	return s != NULL ? s + 1 : path;
}

static uint64_t hexnum(const char **pp)
{
	const char *p = *pp;
	uint64_t v = 0;
	for (;; p++) {
		int d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			break;
		v = v << 4 | (uint64_t)d;
	}
	*pp = p;
	return v;
}

int ht_maps_parse(struct ht_arena *a, const char *text, struct ht_maps *out)
{
	size_t lines = 0;
	for (const char *p = text; *p != '\0'; p++)
		lines += *p == '\n';
	out->m = ht_arena_alloc(a, (lines + 1) * sizeof(*out->m));
	out->n = 0;
	if (out->m == NULL)
		return -ENOMEM;
	for (const char *p = text; *p != '\0';) {
		const char *eol = strchr(p, '\n');
		size_t len = eol != NULL ? (size_t)(eol - p) : strlen(p);
		struct ht_map m = { 0 };
		const char *q = p;
		m.lo = hexnum(&q);
		if (*q++ == '-') {
			m.hi = hexnum(&q);
			/* perms, then offset */
			while (*q == ' ')
				q++;
			while (*q != ' ' && *q != '\n' && *q != '\0')
				q++;
			while (*q == ' ')
				q++;
			m.off = hexnum(&q);
			/* dev, inode, then the path after the spaces */
			for (int f = 0; f < 2; f++) {
				while (*q == ' ')
					q++;
				while (*q != ' ' && *q != '\n' && *q != '\0')
					q++;
			}
			while (*q == ' ')
				q++;
			size_t plen = (size_t)(p + len - q);
			if (plen > 0 && (*q == '/' || *q == '[') && m.hi > m.lo) {
				char path[4096];
				if (plen >= sizeof(path))
					plen = sizeof(path) - 1;
				memcpy(path, q, plen);
				path[plen] = '\0';
				/* Reuse the previous line's copy for the same file. */
				if (out->n > 0 && strcmp(out->m[out->n - 1].path, path) == 0)
					m.path = out->m[out->n - 1].path;
				else
					m.path = ht_arena_strdup(a, path, plen);
				if (m.path != NULL)
					out->m[out->n++] = m;
			}
		}
		p += len + (eol != NULL);
	}
	return 0;
}

int ht_maps_read(struct ht_arena *a, struct ht_maps *out)
{
	size_t cap = 4 << 20;
	char *text = ht_arena_alloc(a, cap);
	if (text == NULL)
		return -ENOMEM;
	ssize_t n = ht_read_file("/proc/self/maps", text, cap);
	if (n < 0)
		return (int)n;
	a->used -= cap - (size_t)n - 1;	/* give back the unused tail */
	return ht_maps_parse(a, text, out);
}

const struct ht_map *ht_maps_find(const struct ht_maps *m, uintptr_t addr)
{
	size_t lo = 0, hi = m->n;
	/* /proc/self/maps is sorted by address. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < m->m[mid].lo)
			hi = mid;
		else if (addr >= m->m[mid].hi)
			lo = mid + 1;
		else
			return &m->m[mid];
	}
	return NULL;
}

/* ---- one ELF file, mapped read-only ------------------------------------------ */

struct elf {
	const unsigned char *p;
	size_t size;
	const Elf64_Sym *sym;
	size_t nsym;
	const char *str;
	size_t strsz;
};

static bool in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

static const Elf64_Ehdr *ehdr(const struct elf *e)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *)e->p;
	if (e->size < sizeof(*h) || memcmp(h->e_ident, ELFMAG, SELFMAG) != 0 ||
	    h->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	return h;
}

/* Picks the first usable symbol table of type want (SHT_SYMTAB or
 * SHT_DYNSYM), with its string table. */
static bool find_table(struct elf *e, Elf64_Word want)
{
	const Elf64_Ehdr *h = ehdr(e);
	if (h == NULL || h->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(e, h->e_shoff, (uint64_t)h->e_shnum * sizeof(Elf64_Shdr)))
		return false;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(e->p + h->e_shoff);
	for (unsigned i = 0; i < h->e_shnum; i++) {
		if (sh[i].sh_type != want || sh[i].sh_link >= h->e_shnum)
			continue;
		const Elf64_Shdr *st = &sh[sh[i].sh_link];
		if (!in_file(e, sh[i].sh_offset, sh[i].sh_size) ||
		    !in_file(e, st->sh_offset, st->sh_size) ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym))
			continue;
		e->sym = (const Elf64_Sym *)(e->p + sh[i].sh_offset);
		e->nsym = sh[i].sh_size / sizeof(Elf64_Sym);
		e->str = (const char *)(e->p + st->sh_offset);
		e->strsz = st->sh_size;
		return true;
	}
	return false;
}

/* Picks .symtab, else .dynsym. */
static bool find_symtab(struct elf *e)
{
	return find_table(e, SHT_SYMTAB) || find_table(e, SHT_DYNSYM);
}

/* The program headers, checked against the file; NULL when unusable. */
static const Elf64_Phdr *phdrs(const struct elf *e, unsigned *n)
{
	const Elf64_Ehdr *h = ehdr(e);
	if (h == NULL || h->e_phentsize != sizeof(Elf64_Phdr) ||
	    !in_file(e, h->e_phoff, (uint64_t)h->e_phnum * sizeof(Elf64_Phdr)))
		return NULL;
	*n = h->e_phnum;
	return (const Elf64_Phdr *)(e->p + h->e_phoff);
}

/* File offset to the file's virtual address, through PT_LOAD. */
static bool off_to_vaddr(const struct elf *e, uint64_t off, uint64_t *vaddr)
{
	unsigned n = 0;
	const Elf64_Phdr *ph = phdrs(e, &n);
	for (unsigned i = 0; ph != NULL && i < n; i++) {
		if (ph[i].p_type == PT_LOAD && off >= ph[i].p_offset &&
		    off < ph[i].p_offset + ph[i].p_memsz) {
			*vaddr = ph[i].p_vaddr + (off - ph[i].p_offset);
			return true;
		}
	}
	return false;
}

/* And back: a virtual address to its offset in the file. */
static bool vaddr_to_off(const struct elf *e, uint64_t vaddr, uint64_t *off)
{
	unsigned n = 0;
	const Elf64_Phdr *ph = phdrs(e, &n);
	for (unsigned i = 0; ph != NULL && i < n; i++) {
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr < ph[i].p_vaddr + ph[i].p_filesz) {
			*off = ph[i].p_offset + (vaddr - ph[i].p_vaddr);
			return true;
		}
	}
	return false;
}

static bool elf_open(struct elf *e, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(e, 0, sizeof(*e));
	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		syscall(SYS_close, fd);
		return false;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	syscall(SYS_close, fd);
	if (p == MAP_FAILED)
		return false;
	e->p = p;
	e->size = (size_t)st.st_size;
	return true;
}

static void elf_close(struct elf *e)
{
	if (e->p != NULL)
		munmap((void *)e->p, e->size);
	e->p = NULL;
}

static bool is_func(const Elf64_Sym *s)
{
	int type = ELF64_ST_TYPE(s->st_info);
	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF &&
	       s->st_value != 0;
}

static const char *sym_name(const struct elf *e, const Elf64_Sym *s)
{
	if (s->st_name >= e->strsz)
		return NULL;
	const char *n = e->str + s->st_name;
	if (memchr(n, '\0', e->strsz - s->st_name) == NULL || *n == '\0')
		return NULL;
	return n;
}

/* ---- the lookups ---------------------------------------------------------------- */

/* Shell sort of an index array by key (no qsort: it may allocate). */
static void sort_idx(uint32_t *idx, size_t n, const struct ht_symq *q, bool by_vaddr)
{
	static const size_t gaps[] = { 1750, 701, 301, 132, 57, 23, 10, 4, 1 };
	for (size_t g = 0; g < HT_ARRAY_SIZE(gaps); g++) {
		size_t gap = gaps[g];
		for (size_t i = gap; i < n; i++) {
			uint32_t v = idx[i];
			size_t j = i;
			for (; j >= gap; j -= gap) {
				const struct ht_symq *a = &q[idx[j - gap]], *b = &q[v];
				bool greater = by_vaddr ? a->vaddr > b->vaddr :
					(uintptr_t)a->map->path > (uintptr_t)b->map->path;
				if (!greater)
					break;
				idx[j] = idx[j - gap];
			}
			idx[j] = v;
		}
	}
}

static void name_module(struct ht_arena *a, struct ht_symq *q, uint32_t *idx, size_t n)
{
	struct elf e;
	const char *path = q[idx[0]].map->path;

	if (path[0] != '/' || !elf_open(&e, path))
		return;
	for (size_t i = 0; i < n; i++) {
		struct ht_symq *s = &q[idx[i]];
		if (!off_to_vaddr(&e, s->addr - s->map->lo + s->map->off, &s->vaddr))
			s->vaddr = 0;
	}
	sort_idx(idx, n, q, true);
	if (find_symtab(&e)) {
		/* Best (smallest) containing symbol per query. */
		size_t mark = a->used;
		uint64_t *best = ht_arena_alloc(a, n * sizeof(*best));
		const char **names = ht_arena_alloc(a, n * sizeof(*names));
		if (best == NULL || names == NULL) {
			elf_close(&e);
			return;
		}
		for (size_t i = 0; i < n; i++) {
			best[i] = UINT64_MAX;
			names[i] = NULL;
		}
		for (size_t k = 0; k < e.nsym; k++) {
			const Elf64_Sym *sy = &e.sym[k];
			if (!is_func(sy) || sy->st_size == 0)
				continue;
			size_t lo = 0, hi = n;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (q[idx[mid]].vaddr < sy->st_value)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (size_t i = lo; i < n && q[idx[i]].vaddr < sy->st_value + sy->st_size; i++) {
				if (sy->st_size < best[i]) {
					const char *nm = sym_name(&e, sy);
					if (nm != NULL) {
						best[i] = sy->st_size;
						names[i] = nm;
					}
				}
			}
		}
		/* The names point into the file: copy them before unmapping it,
		 * over the scratch arrays, which are no longer needed. */
		const char **keep = names;
		a->used = mark;
		for (size_t i = 0; i < n; i++) {
			const char *nm = keep[i];
			q[idx[i]].name = nm != NULL ? nm : NULL;
		}
		for (size_t i = 0; i < n; i++)
			if (q[idx[i]].name != NULL)
				q[idx[i]].name = ht_arena_strdup(a, q[idx[i]].name, 1024);
	}
	elf_close(&e);
}

void ht_symbolize(struct ht_arena *a, const struct ht_maps *m, struct ht_symq *q, size_t n)
{
	uint32_t *idx = ht_arena_alloc(a, (n + 1) * sizeof(*idx));
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		q[i].name = NULL;
		q[i].vaddr = 0;
		q[i].map = ht_maps_find(m, q[i].addr);
		if (q[i].map != NULL && idx != NULL)
			idx[k++] = (uint32_t)i;
	}
	if (idx == NULL || k == 0)
		return;
	sort_idx(idx, k, q, false);
	/* One pass over each module's symbols for all its queries. */
	for (size_t i = 0; i < k;) {
		size_t j = i;
		while (j < k && q[idx[j]].map->path == q[idx[i]].map->path)
			j++;
		name_module(a, q, idx + i, j - i);
		i = j;
	}
}

uintptr_t ht_sym_lookup(const struct ht_maps *m, const char *path, const char *name)
{
	struct elf e;
	uintptr_t addr = 0;

	if (!elf_open(&e, path))
		return 0;
	if (find_symtab(&e)) {
		for (size_t k = 0; k < e.nsym && addr == 0; k++) {
			const Elf64_Sym *sy = &e.sym[k];
			const char *nm;
			uint64_t off;
			if (!is_func(sy) || (nm = sym_name(&e, sy)) == NULL || strcmp(nm, name) != 0)
				continue;
			if (!vaddr_to_off(&e, sy->st_value, &off))
				break;
			for (size_t i = 0; i < m->n; i++) {
				const struct ht_map *mp = &m->m[i];
				if (strcmp(mp->path, path) == 0 && off >= mp->off &&
				    off < mp->off + (mp->hi - mp->lo)) {
					addr = mp->lo + (off - mp->off);
					break;
				}
			}
		}
	}
	elf_close(&e);
	return addr;
}

bool ht_elf_exports(const char *path, const char *name)
{
	struct elf e;
	bool found = false;
	size_t len = strlen(name);

	if (!elf_open(&e, path))
		return false;
	if (!find_table(&e, SHT_DYNSYM))
		e.nsym = 0;
	for (size_t k = 0; k < e.nsym && !found; k++) {
		const Elf64_Sym *s = &e.sym[k];
		int bind = ELF64_ST_BIND(s->st_info);
		int vis = ELF64_ST_VISIBILITY(s->st_other);
		if (s->st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) ||
		    (vis != STV_DEFAULT && vis != STV_PROTECTED) || s->st_name + len + 1 > e.strsz)
			continue;
		found = memcmp(e.str + s->st_name, name, len + 1) == 0;
	}
	elf_close(&e);
	return found;
}

struct span_arg {
	uintptr_t addr, lo, hi;
};

static int find_span(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct span_arg *s = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	bool inside = false;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
		if (s->addr >= a && s->addr < a + ph->p_memsz)
			inside = true;
	}
	if (!inside)
		return 0;
	s->lo = lo;
	s->hi = hi;
	return 1;
}

bool ht_object_span(const void *addr, uintptr_t *lo, uintptr_t *hi)
{
	struct span_arg s = { (uintptr_t)addr, 0, 0 };

	if (dl_iterate_phdr(find_span, &s) == 0)
		return false;
	*lo = s.lo;
	*hi = s.hi;
	return true;
}
