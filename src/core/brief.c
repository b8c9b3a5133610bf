// SPDX-License-Identifier: MIT
/*
 * brief.c: the verdicts in the job's log (SPEC section 3, HANGTRACE_BRIEF).
 * Once a stall of this process is declared, the first process of the job
 * to create the marker in the trace folder starts `hangtrace report --brief
 * DIR` with posix_spawn (glibc 2.36 spawns with CLONE_VM|CLONE_VFORK: no
 * copy of this image, no atfork handler, no thread of the job duplicated),
 * its stdout on our stderr, and reaps it within a bound. Runs on the
 * watchdog thread only, and takes no lock the stalled main thread may hold:
 * no stdio, no dladdr (it takes the loader's lock, which a rank hung in a
 * constructor holds: the library's folder comes from /proc/self/maps,
 * self.h), and
 * no allocation of ours (glibc 2.36's posix_spawn_file_actions_add* do
 * allocate, from the watchdog thread's own malloc arena).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "brief.h"
#include "clock.h"
#include "common.h"
#include "fmt.h"
#include "real.h"
#include "state.h"
#include "writer.h"
#include "procfs.h"
#include "self.h"

extern char **environ;

#define MAX_ENV 2048
#define CMD_MAX 1100

static _Atomic bool done;
static char *envv[MAX_ENV + 1];
static char preload[4096 + sizeof("LD_PRELOAD=")];

/* The hangtrace command: HANGTRACE_COMMAND (set by hangtrace run), else
 * beside the library: the build folder's, ../bin installed (lib/ or
 * lib/hangtrace/). */
static bool find_command(char *out, size_t cap)
{
	static const char *const rel[] = { "/hangtrace", "/../bin/hangtrace",
					   "/../../bin/hangtrace" };
	char folder[1024];

	if (ht_g.opt.command[0] != '\0' && access(ht_g.opt.command, X_OK) == 0) {
		ht_strlcpy(out, ht_g.opt.command, cap);
		return true;
	}
	if (!ht_self_folder(folder, sizeof(folder)))
		return false;
	for (size_t i = 0; i < HT_ARRAY_SIZE(rel); i++) {
		size_t n = ht_append(out, cap, 0, folder);
		n = ht_append(out, cap, n, rel[i]);
		if (n < cap - 1 && access(out, X_OK) == 0)
			return true;
	}
	return false;
}

/* The job's environment, without the library in LD_PRELOAD: the report
 * must not trace itself (it would inherit the rank's identity). */
static void child_env(void)
{
	static const char key[] = "LD_PRELOAD=";
	size_t n = 0;
	for (size_t i = 0; environ != NULL && environ[i] != NULL && n < MAX_ENV; i++) {
		char *e = environ[i];
		if (strncmp(e, key, sizeof(key) - 1) == 0) {
			size_t k = ht_append(preload, sizeof(preload), 0, key);
			if (ht_brief_strip_preload(e + sizeof(key) - 1, preload + k,
						   sizeof(preload) - k) <= 0)
				continue;	/* nothing else preloaded, or too long */
			e = preload;
		}
		envv[n++] = e;
	}
	envv[n] = NULL;
}

/* The trace folder: the trace file's path without its name. */
static bool trace_folder(char *out, size_t cap)
{
	size_t n = ht_strlcpy(out, ht_g.trace_path, cap);
	if (n >= cap)
		return false;
	while (n > 0 && out[n - 1] != '/')
		n--;
	if (n <= 1)
		return false;
	out[n - 1] = '\0';
	return true;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * A marker left by an earlier job in the same folder (a reused
 * ./hangtrace.local): it names a process of this host ("host pid") that no
 * longer runs. Removed, so that this job's brief is printed. A marker of
 * another host is never judged: its process cannot be looked at from here.
 */
static bool stale_marker(const char *path)
{
	char buf[320];
	if (ht_read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	size_t hl = strlen(ht_g.host);
	if (strncmp(buf, ht_g.host, hl) != 0 || buf[hl] != ' ')
		return false;
	int64_t pid;
	char *nl = strchr(buf + hl + 1, '\n');
	if (nl != NULL)
		*nl = '\0';
	if (!ht_parse_i64(buf + hl + 1, &pid) || pid <= 0 || pid == getpid())
		return false;
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return false;
	return unlink(path) == 0;
}

/*
 * The marker made in place of a stale one: judged, removed and made again
 * under a lock on the folder, so that of the ranks of this host that all
 * found it stale (their deadlines fall together) one replaces it and the
 * others then find its marker alive. Without the lock the second one
 * removed the first one's new marker, by its name, and both printed the
 * brief. Where the folder cannot be locked (flock on some network file
 * systems), the same without it. -1 when not made.
 */
static int replace_stale(const char *dir, const char *path)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool go = dfd < 0;	/* (held past a second: the holder replaces it) */
	for (int i = 0; dfd >= 0 && i < 100 && !go; i++) {
		if (ht_real.flock(dfd, LOCK_EX | LOCK_NB) == 0 || (errno != EWOULDBLOCK && errno != EINTR))
			go = true;	/* locked, or cannot be locked here */
		else
			sleep_ms(10);
	}
	int fd = -1;
	if (go && stale_marker(path))
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (dfd >= 0)
		ht_real.close(dfd);	/* (the lock with it) */
	return fd;
}

static bool claim(const char *dir)
{
	char path[sizeof(ht_g.trace_path) + sizeof(HT_BRIEF_MARKER)];
	size_t n = ht_append(path, sizeof(path), 0, dir);
	n = ht_append(path, sizeof(path), n, "/" HT_BRIEF_MARKER);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST)
		fd = replace_stale(dir, path);
	if (fd < 0)
		return false;
	char line[320];
	n = ht_append(line, sizeof(line), 0, ht_g.host);
	n = ht_append(line, sizeof(line), n, " ");
	n = ht_append_i64(line, sizeof(line), n, getpid());
	n = ht_append(line, sizeof(line), n, "\n");
	ssize_t w HT_UNUSED = write(fd, line, n);
	ht_real.close(fd);
	return true;
}

/* Sleeps ms in steps, serving the watchdog's requests between them. */
static void wait_serving(long ms, void (*serve)(void))
{
	for (long done = 0; done < ms; done += 20) {
		sleep_ms(ms - done < 20 ? ms - done : 20);
		serve();
	}
}

/* Waits for the child at most HT_BRIEF_LIMIT_MS, then kills it; reaps it
 * either way (unless the application's own SIGCHLD handler did). */
static void reap(pid_t pid, const char *dir, void (*serve)(void))
{
	int64_t deadline = ht_now() + (int64_t)HT_BRIEF_LIMIT_MS * 1000000;
	int st;
	for (;;) {
		pid_t r = ht_real.waitpid(pid, &st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return;
		if (ht_now() >= deadline)
			break;
		wait_serving(20, serve);
	}
	kill(pid, SIGKILL);
	while (ht_real.waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	ht_say("the brief report took too long and was stopped; run: hangtrace report ",
	       dir, NULL);
}

void ht_brief_on_stall(void (*serve)(void))
{
	char dir[sizeof(ht_g.trace_path)], cmd[CMD_MAX];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	pid_t pid;
	int saved = errno;

	if (!ht_g.opt.brief || atomic_exchange(&done, true) || !trace_folder(dir, sizeof(dir)))
		goto out;
	if (!claim(dir))
		goto out;	/* another process of the job has it */
	if (!find_command(cmd, sizeof(cmd))) {
		ht_say("no brief report: cannot find the hangtrace command beside the library "
		       "(set HANGTRACE_COMMAND); run: hangtrace report ", dir, NULL);
		goto out;
	}
	/* Let the other ranks, whose deadlines fall about now, write their dumps. */
	wait_serving(HT_BRIEF_SETTLE_MS, serve);
	child_env();
	/* The report bounds itself too: it outlives this process if the job
	 * is killed while it runs. */
	char *argv[] = { cmd, (char *)"report", (char *)"--brief", (char *)"--time-limit",
			 (char *)"10", dir, NULL };
	if (posix_spawn_file_actions_init(&fa) != 0)
		goto out;
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&at, &none);	/* ours blocks everything */
	posix_spawnattr_setsigdefault(&at, &all);	/* what the job ignores */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	int rc = posix_spawn(&pid, cmd, &fa, &at, argv, envv);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		ht_say("no brief report: cannot start ", cmd, NULL);
		goto out;
	}
	reap(pid, dir, serve);
out:
	errno = saved;
}
