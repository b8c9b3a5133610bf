// SPDX-License-Identifier: MIT
/*
 * watch.c: `hangtrace watch DIR... [--interval S]` (SPEC section 1): reads
 * the job's traces every S seconds and shows the job in one line, every
 * rank's phase and how long it has been in it (ranks alike in one line
 * when they do not fit), and the verdict lines. On a terminal the screen is
 * redrawn in place (the cursor hidden, shown again however watch ends);
 * otherwise a frame is appended only when something other than the clock
 * changed. Ends when every rank has ended, or on Ctrl-C.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "report/render/live.h"
#include "report/report.h"

static volatile sig_atomic_t stop_sig;

static const char usage[] =
	"NAME\n"
	"    hangtrace watch - the phase of every rank and the verdicts, live\n"
	"\n"
	"SYNOPSIS\n"
	"    hangtrace watch [--interval S] DIR...\n"
	"\n"
	"DESCRIPTION\n"
	"    Reads the trace files under each DIR every S seconds (default 2) and shows\n"
	"    the job in one line, the phase of every rank and how long it has been in it,\n"
	"    and the report's verdict lines, most likely cause first. On a terminal the\n"
	"    screen is redrawn in place; otherwise a new frame is appended whenever it\n"
	"    changes. Ends when every rank has ended (an exit record, or a process of\n"
	"    this host that is gone), or on Ctrl-C. DIR need not exist yet.\n"
	"\n"
	"EXIT STATUS\n"
	"    0  no verdict of severity error in the last frame\n"
	"    1  a verdict of severity error in the last frame\n"
	"    2  a usage error\n";

static void on_signal(int sig)
{
	stop_sig = sig;
}

struct screen {
	bool tty;
	int rows, cols;
	char host[256];
};

struct frame {
	struct rep_buf text;	/* what is shown */
	struct rep_buf key;	/* the same without the clock and the ages */
	size_t lines;
	bool ended, error;
};

static void line(struct frame *f, const struct screen *s, bool keyed, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void line(struct frame *f, const struct screen *s, bool keyed, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	size_t n = strlen(buf);
	if (s->tty && s->cols > 0 && n > (size_t)s->cols)
		n = rep_utf8_cut(buf, (size_t)s->cols);
	ht_rep_buf_addn(&f->text, buf, n);
	if (s->tty)
		ht_rep_buf_add(&f->text, "\033[K");
	ht_rep_buf_add(&f->text, "\n");
	if (keyed) {
		ht_rep_buf_addn(&f->key, buf, n);
		ht_rep_buf_add(&f->key, "\n");
	}
	f->lines++;
}

static double wall_now(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* A process of this host whose pid is gone ended without an exit record
 * (SIGKILL); the model cannot know it until the traces say so. */
static bool gone(const struct screen *s, const struct rep_proc *p)
{
	return p->end == REP_RUNNING && rep_id(p)->host != NULL && strcmp(rep_id(p)->host, s->host) == 0 &&
	       p->pid > 0 && kill((pid_t)p->pid, 0) != 0 && errno == ESRCH;
}

static const char *state(struct rep_job *job, const struct screen *s, const struct rep_proc *p)
{
	switch (p->end) {
	case REP_EXITED:
		return ht_rep_printf(&job->a, "exited %lld", (long long)p->exit_status);
	case REP_SIGNALED:
		return ht_rep_printf(&job->a, "%s%s", p->exit_signal,
				     p->waiting ? " while waiting" : "");
	case REP_VANISHED:
		return "vanished";
	default:
		if (gone(s, p))
			return "gone (no exit record)";
		return p->stalled ? "STALLED" : ht_rep_steady(p) ? "steady" : "running";
	}
}

/* Seconds p has been in its phase (until it ended). */
static double in_phase(const struct rep_proc *p, double now)
{
	double begin = p->cur_phase >= 0 ? p->ph[p->cur_phase].ts : p->ts0;
	double end = p->have_exit ? p->exit_ts : p->end == REP_VANISHED ? p->last_ts : now;
	return isnan(begin) || end < begin ? 0 : end - begin;
}

static const char *secs(struct rep_job *job, double v)
{
	if (v < 100)
		return ht_rep_printf(&job->a, "%.0fs", floor(v));
	if (v < 6000)
		return ht_rep_printf(&job->a, "%.0fm%02.0fs", floor(v / 60), fmod(floor(v), 60));
	return ht_rep_printf(&job->a, "%.0fh%02.0fm", floor(v / 3600), fmod(floor(v / 60), 60));
}

struct bucket {
	int phase;
	const char *state;
	int64_t *ranks;
	size_t n;
	double lo, hi;
};

static void ranks_lines(struct rep_job *job, const struct screen *s, struct frame *f,
			size_t room, double now)
{
	size_t n = job->mains.n;
	line(f, s, true, "%-22s %-14s %-17s %8s  %s", "RANK", "HOST", "PHASE", "FOR", "STATE");
	if (n + 1 <= room || !s->tty) {
		for (size_t i = 0; i < n; i++) {
			struct rep_proc *p = job->mains.v[i];
			const char *st = state(job, s, p);
			/* The key holds the state, not the age: a new frame when it moves. */
			ht_rep_buf_printf(&f->key, "%lld %s %s\n", (long long)p->rank,
					  ht_rep_phase_name(p->cur_phase), st);
			char who[32];
			snprintf(who, sizeof(who), "%lld", (long long)p->rank);
			line(f, s, false, "%-22s %-14.14s %-17s %8s  %s", who, rep_id(p)->host,
			     ht_rep_phase_name(p->cur_phase), secs(job, in_phase(p, now)), st);
		}
		return;
	}
	/* Too many to list: one line per phase and state, with the range of ages. */
	struct bucket *b = calloc(n + 1, sizeof(*b));
	int64_t *all = malloc((n + 1) * sizeof(*all));
	size_t nb = 0;
	if (b == NULL || all == NULL)
		abort();
	for (size_t i = 0; i < n; i++) {
		struct rep_proc *p = job->mains.v[i];
		const char *st = state(job, s, p);
		size_t k = 0;
		while (k < nb && !(b[k].phase == p->cur_phase && strcmp(b[k].state, st) == 0))
			k++;
		if (k == nb) {
			b[nb] = (struct bucket){ p->cur_phase, st, NULL, 0, INFINITY, -INFINITY };
			nb++;
		}
		double a = in_phase(p, now);
		b[k].lo = a < b[k].lo ? a : b[k].lo;
		b[k].hi = a > b[k].hi ? a : b[k].hi;
		b[k].n++;
	}
	size_t off = 0;
	for (size_t k = 0; k < nb; k++) {
		b[k].ranks = all + off;
		off += b[k].n;
		b[k].n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct rep_proc *p = job->mains.v[i];
		const char *st = state(job, s, p);
		for (size_t k = 0; k < nb; k++)
			if (b[k].phase == p->cur_phase && strcmp(b[k].state, st) == 0) {
				b[k].ranks[b[k].n++] = p->rank;
				break;
			}
	}
	for (size_t k = 0; k < nb && k + 2 < room; k++) {
		char list[23];
		ht_rep_ranges(b[k].ranks, ht_rep_ranks_sort(b[k].ranks, b[k].n), list, 22);
		char hosts[16];
		snprintf(hosts, sizeof(hosts), "%zu rank%s", b[k].n, b[k].n == 1 ? "" : "s");
		ht_rep_buf_printf(&f->key, "%s %d %s\n", list, b[k].phase, b[k].state);
		const char *lo = secs(job, b[k].lo), *hi = secs(job, b[k].hi);
		line(f, s, false, "%-22s %-14s %-17s %8s  %s", list, hosts, ht_rep_phase_name(b[k].phase),
		     strcmp(lo, hi) == 0 ? hi : ht_rep_printf(&job->a, "%s-%s", lo, hi), b[k].state);
	}
	free(all);
	free(b);
}

static void build(struct frame *f, const struct screen *s, char **dirs, int ndirs,
		  double interval)
{
	struct rep_job job;
	double now = wall_now();
	time_t t = (time_t)now;
	struct tm tm;
	char clock[16];

	localtime_r(&t, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	memset(f, 0, sizeof(*f));
	line(f, s, false, "hangtrace watch: %s%s (every %g s; Ctrl-C to stop)  %s", dirs[0],
	     ndirs > 1 ? " ..." : "", interval, clock);
	ht_rep_job_init(&job);
	for (int i = 0; i < ndirs; i++)
		ht_rep_add_path(&job, dirs[i]);
	if (job.nfiles == 0 || ht_rep_read(&job) == 0) {
		line(f, s, true, "waiting for trace files under %s", dirs[0]);
		ht_rep_job_free(&job);
		return;
	}
	ht_rep_analyse(&job);
	line(f, s, true, "job      %s%s", ht_rep_job_line(&job),
	     job.nwarns > 0 ? ht_rep_printf(&job.a, " (%zu warnings)", job.nwarns) : "");
	line(f, s, true, "%s", "");
	size_t nv = job.nverdicts;
	size_t room = s->rows > 0 ? (size_t)s->rows : 40;
	size_t vlines = nv == 0 ? 2 : nv + 1 < room / 2 ? nv + 1 : room / 2;
	size_t used = f->lines + vlines + 2;
	ranks_lines(&job, s, f, room > used ? room - used : 1, now);
	line(f, s, true, "%s", "");
	if (nv == 0) {
		line(f, s, true, "VERDICTS none yet");
	} else {
		line(f, s, true, "VERDICTS (most likely cause first)");
		size_t width = s->tty && s->cols > 0 ? (size_t)s->cols : 0;
		for (size_t i = 0; i < nv && i + 1 < vlines; i++)
			line(f, s, true, "%s", ht_rep_verdict_line(&job, i, width));
		if (nv + 1 > vlines)
			line(f, s, true, "... %zu more: hangtrace report %s", nv + 1 - vlines, dirs[0]);
	}
	f->error = ht_rep_has_error(&job);
	f->ended = job.mains.n + job.unranked.n > 0;
	for (size_t i = 0; i < job.mains.n; i++) {
		const struct rep_proc *p = job.mains.v[i];
		f->ended &= p->end != REP_RUNNING || gone(s, p);
	}
	for (size_t i = 0; i < job.unranked.n; i++) {
		const struct rep_proc *p = job.unranked.v[i];
		f->ended &= p->end != REP_RUNNING || gone(s, p);
	}
	ht_rep_job_free(&job);
}

static void term_size(struct screen *s)
{
	struct winsize w;
	s->rows = 40;
	s->cols = 0;
	if (s->tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_row > 0) {
		s->rows = w.ws_row;
		s->cols = w.ws_col;
	}
}

int ht_watch_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double interval = 2;
	struct screen s = { 0 };
	struct rep_buf last = { 0 };
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': {
			char *end;
			interval = strtod(optarg, &end);
			if (*end != '\0' || !(interval >= 0.1 && interval <= 3600)) {
				warnx("watch: --interval takes 0.1 to 3600 seconds, not '%s'", optarg);
				return HT_EXIT_USAGE;
			}
			break;
		}
		case 'h':
			fputs(usage, stdout);
			return HT_EXIT_OK;
		default:
			fputs("usage: hangtrace watch [--interval S] DIR... (see --help)\n", stderr);
			return HT_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fputs("usage: hangtrace watch [--interval S] DIR... (see --help)\n", stderr);
		return HT_EXIT_USAGE;
	}
	s.tty = isatty(STDOUT_FILENO);
	if (gethostname(s.host, sizeof(s.host) - 1) != 0)
		s.host[0] = '\0';
	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;	/* no SA_RESTART: the sleep ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (s.tty)
		fputs("\033[?25l\033[H\033[2J", stdout);
	int status = HT_EXIT_OK;
	bool ended = false;
	while (!stop_sig && !ended) {
		struct frame f;
		term_size(&s);
		build(&f, &s, argv + optind, argc - optind, interval);
		if (s.tty) {
			fputs("\033[H", stdout);
			fputs(f.text.s, stdout);
			fputs("\033[J", stdout);
		} else if (last.s == NULL || strcmp(last.s, f.key.s) != 0) {
			fputs(f.text.s, stdout);
			fputc('\n', stdout);
			last.n = 0;
			ht_rep_buf_add(&last, f.key.s);
		}
		fflush(stdout);
		ended = f.ended;
		status = f.error ? HT_EXIT_VERDICT : HT_EXIT_OK;
		ht_rep_buf_free(&f.text);
		ht_rep_buf_free(&f.key);
		if (ended || stop_sig)
			break;
		struct timespec ts = { (time_t)interval, (long)(fmod(interval, 1) * 1e9) };
		nanosleep(&ts, NULL);
	}
	if (s.tty)
		fputs("\033[?25h", stdout);
	if (ended)
		printf("hangtrace watch: every rank has ended; the whole report: hangtrace report %s\n",
		       argv[optind]);
	else
		printf("hangtrace watch: stopped\n");
	fflush(stdout);
	ht_rep_buf_free(&last);
	if (stop_sig != 0) {
		/* End by the signal, as the shell that sent it expects. */
		signal(stop_sig, SIG_DFL);
		raise(stop_sig);
	}
	return status;
}
