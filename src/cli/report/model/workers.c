// SPDX-License-Identifier: MIT
/*
 * workers.c: a rank's DataLoader workers (SPEC section 4 and 8). PyTorch's
 * DataLoader (torch 1.13, torch/utils/data/dataloader.py and
 * _utils/worker.py) forks num_workers children that run _worker_loop: an
 * idle one waits for an index in index_queue.get, a busy one is in the
 * dataset's __getitem__, the fetcher or collate_fn. Each worker has a trace
 * file of its own marked with its parent's pid (fork_parent); here it is
 * tied to its rank's main process, given a state from its dumps (idle,
 * stuck, working) or from how it ended (an exit status, a signal, no exit
 * record at all: SIGKILL or the OOM killer), and never counted as a rank.
 * The main process polls its workers (MP_STATUS_CHECK_INTERVAL, 5 s) and
 * raises "DataLoader worker (pid(s) ...) exited unexpectedly" when one is
 * gone; a live worker that is stuck is waited for forever.
 */
#include <math.h>
#include <string.h>

#include "model/workers.h"
#include "read/buildlock.h"

#define WHERE_FRAMES 4		/* Python frames named, innermost first */
#define NATIVE_FRAMES 5

const char *ht_rep_worker_state_name(enum rep_worker_state s)
{
	static const char *const names[] = {
#define XX(id, name) name,
		REP_WORKER_STATE_MAP(XX)
#undef XX
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* ---- frames ------------------------------------------------------------------- */

/* A Python frame "func (file:line)" is func, in a file whose path holds file. */
static bool py_is(const char *frame, const char *func, const char *file)
{
	size_t n = strlen(func);
	if (strncmp(frame, func, n) != 0 || strncmp(frame + n, " (", 2) != 0)
		return false;
	return file == NULL || strstr(frame + n, file) != NULL;
}

static int loop_index(const struct rep_dump *d)
{
	if (d == NULL)
		return -1;
	const struct rep_dstack *st = rep_dst(d);
	for (uint32_t i = 0; i < st->npy; i++)
		if (py_is(st->py[i], "_worker_loop", "torch/utils/data/_utils/worker"))
			return (int)i;
	return -1;
}

/* Idle: _worker_loop calls index_queue.get (multiprocessing/queues.py). */
static bool idle_at(const struct rep_dump *d)
{
	int i = loop_index(d);
	if (i < 1)
		return false;
	const char **py = rep_dst(d)->py;
	for (int k = i - 1; k >= 0; k--) {
		if (py_is(py[k], "get", "multiprocessing/queues"))
			return true;
		/* Only the queue's own machinery may sit under it. */
		if (strstr(py[k], "multiprocessing/") == NULL && strstr(py[k], "selectors") == NULL &&
		    strstr(py[k], "threading") == NULL)
			return false;
	}
	return false;
}

/* "func (file:line)" with the file's folders dropped. */
static const char *short_frame(struct rep_job *job, const char *f)
{
	const char *open = strstr(f, " (");
	if (open == NULL)
		return f;
	const char *close = strrchr(f, ')');
	const char *slash = NULL;
	for (const char *q = open + 2; close != NULL && q < close; q++)
		if (*q == '/')
			slash = q;
	if (slash == NULL)
		return f;
	return ht_rep_printf(&job->a, "%.*s (%s", (int)(open - f), f, slash + 1);
}

static const char *py_where(struct rep_job *job, const struct rep_dump *d)
{
	const struct rep_dstack *st = rep_dst(d);
	int stop = loop_index(d);
	if (stop < 0)
		stop = (int)st->npy;
	struct rep_buf b = { 0 };
	for (int i = 0; i < stop && i < WHERE_FRAMES; i++)
		ht_rep_buf_printf(&b, "%s%s", i > 0 ? " < " : "", short_frame(job, st->py[i]));
	if (stop > WHERE_FRAMES)
		ht_rep_buf_add(&b, " < ...");
	const char *s = b.n > 0 ? ht_rep_strdup(&job->a, b.s) : NULL;
	ht_rep_buf_free(&b);
	return s;
}

/* The native frames down to the first that names a wait (a lock), or the
 * innermost few that have a symbol. */
static const char *native_where(struct rep_job *job, const struct rep_dump *d, bool *lock)
{
	const struct rep_dstack *st = rep_dst(d);
	uint32_t upto = 0, from = 0;
	for (uint32_t i = 0; i < st->nframes && i < 16; i++)
		if (strncmp(st->frames[i], "__restore_rt ", 13) == 0 ||
		    strstr(st->frames[i], "(libhangtrace.so") != NULL)
			from = i + 1;	/* up to here: the dump's own signal handler */
	for (uint32_t i = from; i < st->nframes && i < from + 16; i++) {
		const struct ht_sig *s = ht_sig_match_frame(st->frames[i], false);
		if (s != NULL && s->kind == HT_SIG_LOCK) {
			*lock = true;
			upto = i + 1;
			break;
		}
	}
	struct rep_buf b = { 0 };
	size_t named = 0;
	for (uint32_t i = from; i < st->nframes && named < NATIVE_FRAMES; i++) {
		if (upto > 0 && i >= upto)
			break;
		const char *f = st->frames[i];
		if (strncmp(f, "?? ", 3) == 0 || strstr(f, "(libhangtrace.so") != NULL ||
		    strncmp(f, "__restore_rt ", 13) == 0)
			continue;	/* unknown, or the dump's own signal frames */
		const char *open = strstr(f, " (");
		int n = open != NULL ? (int)(open - f) : (int)strlen(f);
		ht_rep_buf_printf(&b, "%s%.*s", named++ > 0 ? " < " : "", n, f);
		if (upto == 0 && strstr(f, "_PyEval_EvalFrame") != NULL)
			break;	/* the interpreter: the Python frames say the rest */
	}
	const char *s = b.n > 0 ? ht_rep_strdup(&job->a, b.s) : NULL;
	ht_rep_buf_free(&b);
	return s;
}

/* ---- which processes are workers ------------------------------------------------ */

static bool fork_child(const struct rep_proc *q)
{
	return rep_id(q)->relevant != NULL && strcmp(rep_id(q)->relevant, "fork") == 0 && q->nexec == 0;
}

static bool python_proc(const struct rep_proc *p)
{
	return rep_id(p)->exe != NULL && strstr(rep_id(p)->exe, "python") != NULL;
}

static const struct rep_dump *first_dump(const struct rep_proc *q)
{
	for (size_t i = 0; i < q->ndumps; i++)
		if (q->dumps[i].epoch == q->epoch && q->dumps[i].have_main)
			return &q->dumps[i];
	return NULL;
}

static bool is_worker(const struct rep_proc *q, const struct rep_proc *m)
{
	if (!fork_child(q) || q->parent != m || !python_proc(m))
		return false;
	const struct rep_dump *d = q->last_dump;
	const struct rep_dstack *st = d != NULL ? rep_dst(d) : &ht_rep_dst_none;
	if (st->npy == 0)
		return true;	/* not dumped, or no Python frames: a fork child of a Python main */
	if (loop_index(d) >= 0)
		return true;
	const struct ht_sig *s = ht_sig_match_stack((const char *const *)st->py, st->npy,
						    (const char *const *)st->frames, st->nframes);
	return s != NULL && (s->kind == HT_SIG_QUEUE || s->kind == HT_SIG_DATALOADER);
}

/* The same place in two dumps: the same Python frames where both have
 * them (a dump taken from a signal handler, on SIGTERM, adds the handler's
 * native frames to the same place), else the same stack. */
static bool same_place(const struct rep_dump *a, const struct rep_dump *b)
{
	const struct rep_dstack *x = rep_dst(a), *y = rep_dst(b);
	if (x->npy == 0 || y->npy == 0)
		return x->stack_hash == y->stack_hash;
	if (x->npy != y->npy)
		return false;
	for (uint32_t i = 0; i < x->npy; i++)
		if (strcmp(x->py[i], y->py[i]) != 0)
			return false;
	return true;
}

static bool kill_signal(const char *s)
{
	return s != NULL && (strcmp(s, "SIGTERM") == 0 || strcmp(s, "SIGINT") == 0 ||
			     strcmp(s, "SIGHUP") == 0);
}

static double end_ts_of(const struct rep_proc *p)
{
	return p->have_exit ? p->exit_ts : p->end == REP_VANISHED ? p->last_ts : NAN;
}

/* The main ended by itself (not in the job's kill, not by a kill signal). */
static bool ended_by_itself(const struct rep_proc *m)
{
	if (m->end == REP_RUNNING || m->killed)
		return false;
	return !(m->end == REP_SIGNALED && kill_signal(m->exit_signal));
}

static void judge(struct rep_job *job, struct rep_worker *w, const struct rep_proc *m)
{
	struct rep_proc *q = w->p;
	w->end_ts = NAN;
	/* Ended with its rank by a kill signal (a launcher giving up on a
	 * hung job signals every process): judged by its dumps, as it was. */
	bool with_rank = q->have_exit && kill_signal(q->exit_signal) && q->ndumps > 0 &&
			 m->end == REP_SIGNALED && kill_signal(m->exit_signal);
	if (q->have_exit && !with_rank) {
		w->end_ts = q->exit_ts;
		if (q->exit_signal != NULL) {
			w->state = REP_WK_KILLED;
			w->doing = ht_rep_printf(&job->a, "killed by %s", q->exit_signal);
			w->bad_end = !kill_signal(q->exit_signal);
		} else {
			w->state = REP_WK_EXITED;
			w->doing = ht_rep_printf(&job->a, "exited with status %lld",
						 (long long)q->exit_status);
			w->bad_end = q->exit_status != 0;
		}
		return;
	}
	/* No exit record. The model's vanished() expects a watchdog's dumps,
	 * which a worker may not have: a worker is gone only when its file was
	 * cut, or its main ended by itself after the worker's last line. */
	double me = end_ts_of(m);
	if (q->truncated || (ended_by_itself(m) && isfinite(me) && me >= q->last_ts)) {
		w->state = REP_WK_VANISHED;
		w->end_ts = q->last_ts;
		w->doing = "ended without an exit record (SIGKILL, or the OOM killer)";
		w->bad_end = true;
		return;
	}
	if (with_rank)
		w->end_ts = q->exit_ts;
	const struct rep_dump *last = q->last_dump, *first = first_dump(q);
	const struct rep_dstack *st = last != NULL ? rep_dst(last) : &ht_rep_dst_none;
	if (last == NULL || !last->have_main || (st->npy == 0 && st->nframes == 0)) {
		w->state = REP_WK_RUNNING;
		w->doing = q->ndumps == 0 ? "alive; never dumped (what it does is unknown)" :
			   "alive; its dump has no stack of its main thread";
		return;
	}
	w->sig = ht_sig_match_stack((const char *const *)st->py, st->npy,
				    (const char *const *)st->frames, st->nframes);
	w->py_where = py_where(job, last);
	w->native = native_where(job, last, &w->lock_wait);
	if (idle_at(last)) {
		w->state = REP_WK_IDLE;
		w->doing = "idle: waiting for an index (index_queue.get)";
		return;
	}
	if (first == NULL || first == last)
		w->state = REP_WK_BUSY;
	else
		w->state = same_place(first, last) ? REP_WK_STUCK : REP_WK_WORKING;
	const char *what = w->sig != NULL && w->sig->kind != HT_SIG_WORKER ? w->sig->words : NULL;
	const char *where = w->py_where != NULL ? w->py_where : w->native;
	w->doing = ht_rep_printf(&job->a, "%s%s%s%s%s%s",
				 w->state == REP_WK_STUCK ? "stuck" :
				 w->state == REP_WK_WORKING ? "working (its stack changed)" :
				 "busy (one dump)",
				 what != NULL ? ": " : "", what != NULL ? what : "",
				 where != NULL ? ", in " : "", where != NULL ? where : "",
				 w->native != NULL && where != w->native ?
				 ht_rep_printf(&job->a, "; native: %s", w->native) : "");
}

void ht_rep_workers(struct rep_job *job)
{
	for (size_t i = 0; i < job->procs.n; i++) {
		struct rep_proc *q = job->procs.v[i];
		struct rep_proc *m = q->parent;
		if (m == NULL || !m->is_main || !is_worker(q, m))
			continue;
		struct rep_rare *r = ht_rep_rare_w(&job->a, m);
		if (r->workers == NULL)
			r->workers = ht_rep_alloc(&job->a, sizeof(*r->workers));
		struct rep_workers *ws = r->workers;
		if ((ws->n & (ws->n - 1)) == 0) {	/* 0, 1, 2, 4...: grow */
			struct rep_worker *v = ht_rep_alloc(&job->a, (ws->n ? ws->n * 2 : 1) * sizeof(*v));
			if (ws->n > 0)
				memcpy(v, ws->v, ws->n * sizeof(*v));
			ws->v = v;
		}
		struct rep_worker *w = &ws->v[ws->n++];
		memset(w, 0, sizeof(*w));
		w->p = q;
		q->worker = true;
		judge(job, w, m);
		ws->nbad += w->bad_end;
		ws->nstuck += w->state == REP_WK_STUCK;
	}
	/* A rank waiting at its DataLoader waits on the stuck worker; one
	 * at a build lock, on the lock file. */
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *m = job->mains.v[i];
		const struct rep_buildlock *blk = rep_rare(m)->blk;
		const struct rep_workers *ws = rep_rare(m)->workers;
		if (m->sig != NULL && m->sig->kind == HT_SIG_FILE_LOCK && blk != NULL &&
		    blk->nlocks > 0 && m->waits_on != NULL)
			m->waits_on = blk->locks[0].path;
		if (ws == NULL || m->sig == NULL || m->sig->kind != HT_SIG_DATALOADER)
			continue;
		for (size_t k = 0; k < ws->n; k++) {
			const struct rep_worker *w = &ws->v[k];
			if (w->state == REP_WK_STUCK || (w->bad_end && ws->nstuck == 0)) {
				m->waits_on = ht_rep_printf(&job->a, "its DataLoader worker (pid %lld, %s)",
							    (long long)w->p->pid,
							    ht_rep_worker_state_name(w->state));
				break;
			}
		}
	}
}

/* ---- output ----------------------------------------------------------------------- */

json_t *ht_rep_workers_json(const struct rep_proc *p)
{
	json_t *a = json_array();
	for (size_t k = 0; rep_rare(p)->workers != NULL && k < rep_rare(p)->workers->n; k++) {
		const struct rep_worker *w = &rep_rare(p)->workers->v[k];
		json_t *o = json_pack("{s:I,s:s,s:s?}", "pid", (json_int_t)w->p->pid, "state",
				      ht_rep_worker_state_name(w->state), "doing", w->doing);
		if (w->py_where != NULL)
			json_object_set_new(o, "python", json_string(w->py_where));
		if (w->native != NULL)
			json_object_set_new(o, "native", json_string(w->native));
		if (w->state == REP_WK_EXITED)
			json_object_set_new(o, "exit", json_pack("{s:I}", "status",
								 (json_int_t)w->p->exit_status));
		else if (w->state == REP_WK_KILLED)
			json_object_set_new(o, "exit", json_pack("{s:s}", "signal", w->p->exit_signal));
		else if (w->state == REP_WK_VANISHED)
			json_object_set_new(o, "exit", json_pack("{s:b}", "vanished", 1));
		else
			json_object_set_new(o, "exit", json_null());
		json_object_set_new(o, "dumps", json_integer((json_int_t)w->p->ndumps));
		json_array_append_new(a, o);
	}
	return a;
}

#define TEXT_INDENT 22	/* "rank 1    pid 4101    " */
#define TEXT_WIDTH 100

/* Writes s from column indent, broken at spaces before width, then '\n'. */
static void wrap_words(FILE *f, const char *s, int indent, int width)
{
	int col = indent;
	while (*s != '\0') {
		size_t n = strcspn(s, " ");
		if (col > indent && col + 1 + (int)n > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)n, s);
		col += (int)n;
		s += n;
		while (*s == ' ')
			s++;
	}
	fputc('\n', f);
}

void ht_rep_workers_text(struct rep_job *job, FILE *f)
{
	bool any = false;
	for (size_t i = 0; i < job->mains.n; i++) {
		const struct rep_proc *m = job->mains.v[i];
		if (rep_rare(m)->workers == NULL)
			continue;
		if (!any)
			fprintf(f, "\nWORKERS (DataLoader, under their rank)\n");
		any = true;
		for (size_t k = 0; k < rep_rare(m)->workers->n; k++) {
			const struct rep_worker *w = &rep_rare(m)->workers->v[k];
			char who[64] = "";
			if (k == 0)
				snprintf(who, sizeof(who), "rank %lld", (long long)m->rank);
			fprintf(f, "%-9s pid %-7lld ", who, (long long)w->p->pid);
			wrap_words(f, w->doing != NULL ? w->doing : "?", TEXT_INDENT, TEXT_WIDTH);
		}
	}
}

/* Microseconds on the job's timeline (wall clock, as chrome.c places
 * times it has no monotonic clock for). */
static double at_us(const struct rep_job *job, double ts)
{
	if (isnan(ts) || isnan(job->t0))
		return 0;
	double us = (ts - job->t0) * 1e6;
	return us < 0 ? 0 : us;
}

json_t *ht_rep_worker_events(struct rep_job *job, const struct rep_proc *p, int64_t pid)
{
	json_t *a = json_array();
	for (size_t k = 0; rep_rare(p)->workers != NULL && k < rep_rare(p)->workers->n; k++) {
		const struct rep_worker *w = &rep_rare(p)->workers->v[k];
		int tid = 10 + (int)k;
		char name[64];
		snprintf(name, sizeof(name), "DataLoader worker pid %lld", (long long)w->p->pid);
		json_array_append_new(a, json_pack("{s:s,s:s,s:I,s:i,s:{s:s}}", "name", "thread_name",
						   "ph", "M", "pid", (json_int_t)pid, "tid", tid,
						   "args", "name", name));
		double b = at_us(job, w->p->ts0);
		double e = at_us(job, isfinite(w->end_ts) ? w->end_ts : job->now);
		json_t *ev = json_pack("{s:s,s:s,s:s,s:I,s:i,s:f,s:f,s:{s:s,s:s?}}", "name",
				       ht_rep_worker_state_name(w->state), "cat", "worker", "ph", "X",
				       "pid", (json_int_t)pid, "tid", tid, "ts", b, "dur",
				       e > b ? e - b : 0, "args", "state",
				       ht_rep_worker_state_name(w->state), "doing", w->doing);
		if (w->state == REP_WK_STUCK || w->bad_end)
			json_object_set_new(ev, "cname", json_string("terrible"));
		json_array_append_new(a, ev);
		if (isfinite(w->end_ts))
			json_array_append_new(a, json_pack("{s:s?,s:s,s:s,s:s,s:I,s:i,s:f}", "name",
							   w->doing, "cat", "exit", "ph", "i", "s",
							   "t", "pid", (json_int_t)pid, "tid", tid,
							   "ts", e));
	}
	return a;
}
