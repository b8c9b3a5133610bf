// SPDX-License-Identifier: MIT
/*
 * parse_check.c: the "check" lines of a `hangtrace check` run and the "ib"
 * facts of any process, into its record (rep_proc.chk, read/checkfacts.h).
 */
#include <stdlib.h>
#include <string.h>

#include "read/checkfacts.h"
#include "reader.h"

#include "check/names.h"

#define MAX_CHECK_LINES 64

static struct rep_checkfacts *facts_of(struct rep_rctx *c, struct rep_proc *p)
{
	struct rep_rare *r = ht_rep_rare_w(&c->a, p);
	if (r->chk == NULL)
		r->chk = ht_rep_alloc(&c->a, sizeof(*r->chk));
	return r->chk;
}

void ht_rep__on_check(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc)
{
	int id = ht_check_from_name(json_string_value(json_object_get(o, "check")));
	const char *res = json_string_value(json_object_get(o, "result"));
	struct rep_checkfacts *f;
	if (id < 0 || res == NULL)
		return;
	f = facts_of(c, p);
	if (f->n >= MAX_CHECK_LINES)
		return;
	struct rep_chkline *l = REP_PUSH(&c->a, f->lines, f->n);
	l->check = id;
	l->result = ht_rep_strdup(&c->a, res);
	l->code = ht_rep__str(&c->a, o, "code");
	l->why = ht_rep__str(&c->a, o, "why");
	l->loc = *loc;
	json_t *rk = json_object_get(o, "ranks");
	if (json_is_array(rk)) {
		size_t i;
		json_t *v;
		l->ranks = ht_rep_alloc(&c->a, (json_array_size(rk) + 1) * sizeof(*l->ranks));
		json_array_foreach(rk, i, v) {
			if (json_is_integer(v))
				l->ranks[l->nranks++] = json_integer_value(v);
		}
	}
}

void ht_rep__on_ib(struct rep_rctx *c, struct rep_proc *p, json_t *o, const struct rep_loc *loc)
{
	struct rep_checkfacts *f = facts_of(c, p);
	size_t i;
	json_t *v;
	f->have_ib = true;
	f->ib_loc = *loc;
	f->ib_in_use = ht_rep__bool(o, "in_use") == 1;
	f->gid_index = ht_rep__str(&c->a, o, "nccl_ib_gid_index");
	f->hca = ht_rep__str(&c->a, o, "nccl_ib_hca");
	json_array_foreach(json_object_get(o, "ports"), i, v) {
		const char *ll = json_string_value(json_object_get(v, "link_layer"));
		if (ht_rep__bool(v, "selected") == 1 && ll != NULL && strcmp(ll, "Ethernet") == 0)
			f->roce = true;
	}
	json_t *pr = json_object_get(o, "problems");
	f->nprobs = 0;
	json_array_foreach(pr, i, v) {
		if (f->nprobs >= 16)
			break;
		struct rep_ibprob *b = REP_PUSH(&c->a, f->probs, f->nprobs);
		b->dev = ht_rep__str(&c->a, v, "dev");
		b->what = ht_rep__str(&c->a, v, "what");
		b->port = ht_rep__int(v, "port");
	}
}

bool ht_rep_is_check_run(const struct rep_job *job)
{
	for (size_t i = 0; i < job->procs.n; i++) {
		const struct rep_proc *p = job->procs.v[i];
		if (rep_rare(p)->chk != NULL && rep_rare(p)->chk->n > 0)
			return true;
	}
	return false;
}

