// SPDX-License-Identifier: MIT
/*
 * pystack.c: the Python frames of every thread of a CPython process, from
 * the watchdog thread, without the GIL, through CPython's own traceback
 * dumper (the one faulthandler uses): PyUnstable_DumpTracebackThreads, else
 * the exported _Py_DumpTracebackThreads (3.8, 3.11, 3.12), else the same
 * function found in libpython's .symtab where it is local (3.9, 3.10, 3.13).
 * Its text goes to a memfd and is parsed into frames per thread. The
 * dumper is looked up once, outside any signal handler (dlsym allocates:
 * from a handler that interrupted malloc it deadlocks): by the watchdog
 * thread as it starts, in a forked child as the fork returns, else at the
 * first capture outside a handler. A capture from a signal handler (a
 * forked child has no watchdog: its dumps run there) uses what was found.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "elfsym.h"
#include "procfs.h"
#include "pystack.h"
#include "real.h"

typedef const char *(*dump_fn)(int fd, void *interp, void *tstate);

/* What the lookup found; written before found is set (release). */
static struct {
	int (*is_init)(void);
	dump_fn fn;
	const char *why;
	_Atomic bool found;	/* the lookup is done: is_init is CPython's */
} py;

static dump_fn find_dumper(const struct ht_maps *maps, const char **why)
{
	dump_fn fn = ht_real_dlsym(RTLD_DEFAULT, "PyUnstable_DumpTracebackThreads");
	if (fn == NULL)
		fn = ht_real_dlsym(RTLD_DEFAULT, "_Py_DumpTracebackThreads");
	if (fn != NULL)
		return fn;
	/* Local in 3.9, 3.10 and 3.13: look in the symbol table of the object
	 * that holds Py_IsInitialized (the executable or libpython). */
	void *anchor = ht_real_dlsym(RTLD_DEFAULT, "Py_IsInitialized");
	const struct ht_map *m = anchor != NULL ? ht_maps_find(maps, (uintptr_t)anchor) : NULL;
	if (m != NULL && m->path[0] == '/')
		fn = (dump_fn)ht_sym_lookup(maps, m->path, "_Py_DumpTracebackThreads");
	if (fn == NULL)
		*why = "unavailable: this CPython exports no traceback dumper and its "
		       "symbol table is stripped";
	return fn;
}

static void resolve(const struct ht_maps *maps)
{
	int (*is_init)(void) = ht_real_dlsym(RTLD_DEFAULT, "Py_IsInitialized");
	if (is_init == NULL)
		return;	/* not a CPython process, or not yet (libpython dlopen'ed later) */
	py.why = NULL;
	py.fn = find_dumper(maps, &py.why);
	py.is_init = is_init;
	/* Not found is not kept: the watchdog looks as the process starts,
	 * before the symbol table's search can succeed everywhere; a later
	 * capture outside a handler looks again. */
	if (py.fn != NULL)
		atomic_store_explicit(&py.found, true, memory_order_release);
}

void ht_py_prepare(void)
{
	struct ht_arena a;
	struct ht_maps maps = { 0 };

	if (atomic_load_explicit(&py.found, memory_order_acquire) ||
	    ht_real_dlsym(RTLD_DEFAULT, "Py_IsInitialized") == NULL)
		return;
	if (ht_arena_open(&a, 1 << 20) < 0)
		return;
	ht_maps_read(&a, &maps);
	resolve(&maps);
	ht_arena_close(&a);
}

/* "0x00007f..." after "Thread " or "Current thread ". */
static bool thread_line(const char *s, uint64_t *ident)
{
	const char *p = strstr(s, "hread 0x");
	if (p == NULL || (p != s + 1 && strncmp(s, "Current t", 9) != 0))
		return false;
	p += 8;
	uint64_t v = 0;
	for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
		v = v << 4 | (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	*ident = v;
	return true;
}

/* '  File "path", line N in func' -> "func (path:N)" */
static const char *frame_line(struct ht_arena *a, const char *s)
{
	const char *f = strstr(s, "File \"");
	if (f == NULL)
		return NULL;
	f += 6;
	const char *fe = strstr(f, "\", line ");
	if (fe == NULL)
		return NULL;
	const char *ln = fe + 8;
	const char *le = strstr(ln, " in ");
	if (le == NULL)
		return NULL;
	const char *fn = le + 4;
	size_t fnlen = strlen(fn), flen = (size_t)(fe - f), llen = (size_t)(le - ln);
	char *out = ht_arena_alloc(a, fnlen + flen + llen + 5);
	if (out == NULL)
		return NULL;
	size_t n = 0;
	memcpy(out + n, fn, fnlen);
	n += fnlen;
	memcpy(out + n, " (", 2);
	n += 2;
	memcpy(out + n, f, flen);
	n += flen;
	out[n++] = ':';
	memcpy(out + n, ln, llen);
	n += llen;
	out[n++] = ')';
	out[n] = '\0';
	return out;
}

const char *ht_py_capture(struct ht_arena *a, const struct ht_maps *maps,
			  struct ht_pythread **out, size_t *nout, bool in_handler)
{
	*out = NULL;
	*nout = 0;
	if (!atomic_load_explicit(&py.found, memory_order_acquire)) {
		if (in_handler)	/* nothing looked up here (dlsym allocates) */
			return py.is_init != NULL ? "unavailable: the traceback dumper was not "
						    "found before this dump" : NULL;
		resolve(maps);
		if (py.is_init == NULL)
			return NULL;	/* not a CPython process */
		if (py.fn == NULL)
			return py.why;
	}
	if (!py.is_init())
		return "unavailable: the interpreter is not initialised";
	dump_fn fn = py.fn;

	int fd = (int)syscall(SYS_memfd_create, "hangtrace-python", MFD_CLOEXEC);
	if (fd < 0)
		return "unavailable: memfd_create failed";
	const char *err = fn(fd, NULL, NULL);
	off_t len = lseek(fd, 0, SEEK_END);
	char *text = len > 0 && len < (16 << 20) ? ht_arena_alloc(a, (size_t)len + 1) : NULL;
	if (text != NULL && pread(fd, text, (size_t)len, 0) != len)
		text = NULL;
	syscall(SYS_close, fd);
	if (text == NULL)
		return err != NULL ? err : "unavailable: the traceback dumper wrote nothing";
	text[len] = '\0';

	/* Count threads to size the array, then fill it. */
	size_t threads = 0;
	for (char *p = text; (p = strstr(p, "hread 0x")) != NULL; p++)
		threads++;
	struct ht_pythread *t = ht_arena_alloc(a, (threads + 1) * sizeof(*t));
	const char **frames = ht_arena_alloc(a, (size_t)(len / 8 + 1) * sizeof(*frames));
	if (t == NULL || frames == NULL)
		return "unavailable: out of dump memory";
	size_t nt = 0, nf = 0;
	for (char *line = text; line != NULL && *line != '\0';) {
		char *eol = strchr(line, '\n');
		if (eol != NULL)
			*eol = '\0';
		uint64_t ident;
		if (thread_line(line, &ident) && nt < threads + 1) {
			t[nt].ident = ident;
			t[nt].frames = frames + nf;
			t[nt].n = 0;
			nt++;
		} else if (nt > 0) {
			const char *f = frame_line(a, line);
			if (f != NULL && nf < (size_t)(len / 8 + 1)) {
				frames[nf++] = f;
				t[nt - 1].n++;
			}
		}
		line = eol != NULL ? eol + 1 : NULL;
	}
	*out = t;
	*nout = nt;
	return "ok";
}
