// SPDX-License-Identifier: MIT
/*
 * writer.c: the trace file of this process (SPEC section 7). The folder is
 * created 0700, the file opened O_NOFOLLOW|O_APPEND|O_CLOEXEC 0600 and never
 * truncated; after exec the new image finds its own file and appends an
 * exec event. Every event is one line written with one write(2), so a killed
 * process leaves only whole lines. Event writing is async-signal-safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "fmt.h"
#include "hangtrace.h"
#include "header.h"
#include "jsonw.h"
#include "procfs.h"
#include "state.h"
#include "writer.h"
#include "progress.h"

static _Atomic bool stop_reported;
/* Identity of our open trace file: a descriptor number the application
 * closed behind our back (close_range, a raw syscall) and reused for its
 * own file must never be written to. */
static dev_t trace_dev;
static ino_t trace_ino;

static pid_t my_tid(void)
{
	if (ht_tls.tid == 0)
		ht_tls.tid = (pid_t)syscall(SYS_gettid);
	return ht_tls.tid;
}

void ht_ev_begin(struct ht_jw *w, char *buf, size_t cap, enum ht_event_type t)
{
	ht_jw_init(w, buf, cap);
	ht_jw_obj_begin(w, NULL);
	ht_jw_str(w, "t", ht_event_name(t));
	ht_jw_secs(w, "ts", ht_clock_ns(CLOCK_REALTIME));
	ht_jw_secs(w, "mono", ht_now());
	/* A thread line's tid is the thread it describes (dump.c). */
	if (t != HT_EV_HEADER && t != HT_EV_THREAD)
		ht_jw_int(w, "tid", my_tid());
}

/* One short line on stderr, the only output the library ever makes there. */
void ht_say(const char *a, const char *b, const char *c)
{
	char line[512];
	size_t n = ht_append(line, sizeof(line) - 1, 0, "hangtrace[");
	n = ht_append_i64(line, sizeof(line) - 1, n, getpid());
	n = ht_append(line, sizeof(line) - 1, n, "]: ");
	const char *parts[] = { a, b, c };
	for (size_t i = 0; i < 3; i++)
		if (parts[i] != NULL)
			n = ht_append(line, sizeof(line) - 1, n, parts[i]);
	line[n++] = '\n';	/* room kept: every append had one byte less */
	ssize_t r HT_UNUSED = write(STDERR_FILENO, line, n);
}

static void tracing_stopped(int err)
{
	int fd = atomic_exchange(&ht_g.trace_fd, -1);
	if (fd >= 0)
		syscall(SYS_close, fd);
	if (!atomic_exchange(&stop_reported, true)) {
		const char *name = ht_errno_name(err);
		ht_say("tracing stopped: cannot write ", ht_g.trace_path,
		       name != NULL ? (err == ENOSPC ? ": no space left on device (ENOSPC)" :
				       err == EDQUOT ? ": disk quota exceeded (EDQUOT)" :
				       ": write failed") : ": write failed");
	}
}

static int open_existing(void);
static int high_fd(int fd);

/* The application closed our descriptor (close, dup2 onto it): open the
 * file again, by name. Async-signal-safe: open and fcntl only. */
static int reopen_lost(void)
{
	if (!ht_g.trace_lost || !ht_active() || syscall(SYS_getpid) != ht_g.pid)
		return -1;
	int fd = open_existing();
	if (fd < 0)
		return -1;
	fd = high_fd(fd);
	int expected = -1;
	if (!atomic_compare_exchange_strong(&ht_g.trace_fd, &expected, fd)) {
		syscall(SYS_close, fd);
		return expected;
	}
	ht_g.trace_lost = false;
	return fd;
}

int ht_ev_emit(struct ht_jw *w)
{
	int saved = errno;
	size_t len = ht_jw_finish(w);
	int fd = atomic_load_explicit(&ht_g.trace_fd, memory_order_acquire);
	int rc = 0;

	if (fd >= 0) {
		struct stat st;
		if (fstat(fd, &st) != 0 || st.st_dev != trace_dev || st.st_ino != trace_ino) {
			/* Not ours any more: let go of the number, do not close it. */
			int expected = fd;
			if (atomic_compare_exchange_strong(&ht_g.trace_fd, &expected, -1))
				ht_g.trace_lost = true;
			fd = -1;
		}
	}
	if (fd < 0)
		fd = reopen_lost();
	if (fd < 0 || len == 0) {
		errno = saved;
		return -EBADF;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t r = write(fd, w->buf + off, len - off);
		if (r > 0) {
			off += (size_t)r;
			ht_lib_add_write(r);	/* the library's own I/O (progress.h) */
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		rc = r < 0 ? -errno : -ENOSPC;
		tracing_stopped(-rc);
		break;
	}
	errno = saved;
	return rc;
}

void ht_ev_warning(const char *msg)
{
	char buf[1024];
	struct ht_jw w;

	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_WARNING);
	ht_jw_str(&w, "msg", msg);
	ht_ev_emit(&w);
}

/* ---- opening --------------------------------------------------------------- */

/* mkdir -p with mode 0700; the last component must end up ours. */
static int make_dir(const char *path)
{
	struct stat st;
	int rc = ht_mkdir_p(path, 0700);

	if (rc < 0)
		return rc;
	if (stat(path, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid())
		return -EACCES;
	return 0;
}

static size_t default_dir(char *out, size_t cap)
{
	size_t n = ht_append(out, cap, 0, "./hangtrace.");
	return ht_append(out, cap, n, ht_g.id.job[0] != '\0' ? ht_g.id.job : "local");
}

static int build_path(void)
{
	char dir[sizeof(ht_g.opt.dir)];
	size_t n;

	if (ht_g.opt.dir[0] != '\0')
		ht_dir_expand(dir, sizeof(dir), ht_g.opt.dir, ht_g.host, ht_g.id.job);
	else
		default_dir(dir, sizeof(dir));
	int rc = make_dir(dir);
	if (rc < 0)
		return rc;
	char *tp = ht_g.trace_path;
	size_t cap = sizeof(ht_g.trace_path);
	n = ht_append(tp, cap, 0, dir);
	n = ht_append(tp, cap, n, "/");
	n = ht_append(tp, cap, n, ht_g.host);
	n = ht_append(tp, cap, n, ".");
	n = ht_append_i64(tp, cap, n, ht_g.pid);
	if (ht_append(tp, cap, n, ".jsonl") != n + 6)
		return -ENAMETOOLONG;
	return 0;
}

/* Keeps our descriptor out of the range programs use and dup2 onto. */
static int high_fd(int fd)
{
	struct stat st;
	int h = fcntl(fd, F_DUPFD_CLOEXEC, 700);
	if (h < 0)
		h = fd;
	else
		syscall(SYS_close, fd);
	if (fstat(h, &st) == 0) {
		trace_dev = st.st_dev;
		trace_ino = st.st_ino;
	}
	return h;
}

static int open_existing(void)
{
	int fd = open(ht_g.trace_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		syscall(SYS_close, fd);
		return -EACCES;
	}
	return fd;
}

/*
 * The file exists: it is ours after an exec when its last header names this
 * very process (pid, boot and start time); otherwise the pid was reused and
 * a new header starts a new process record in the same file.
 */
static bool file_is_this_process(void)
{
	return ht_proc_trace_matches(ht_g.trace_path, ht_g.pid);
}

int ht_trace_open(enum ht_reason why)
{
	int rc = build_path();
	if (rc < 0)
		return rc;

	int fd = open(ht_g.trace_path,
		      O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	bool exec_continues = false;
	if (fd < 0 && errno == EEXIST) {
		exec_continues = file_is_this_process();
		fd = open_existing();
		if (fd < 0)
			return fd;
	} else if (fd < 0) {
		return -errno;
	}
	atomic_store(&ht_g.trace_fd, high_fd(fd));
	if (exec_continues)
		ht_proc_write_exec();
	else
		ht_proc_write_header(why);
	return 0;
}

int ht_trace_reopen_child(void)
{
	int fd = atomic_exchange(&ht_g.trace_fd, -1);
	if (fd >= 0)
		syscall(SYS_close, fd);
	ht_g.trace_lost = false;
	return ht_trace_open(HT_REASON_FORK);
}

