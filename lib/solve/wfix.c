/* wfix: the tail of a schedule as a problem with its boundary fixed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/fmodel.h"
#include "solve/greedy.h"
#include "solve/place.h"
#include "solve/wfix.h"

#define NONE	UINT32_MAX

static int
desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x > y ? -1 : x < y;
}

uint64_t
wfix_threshold(const struct dag *d, const struct greedy *g, size_t k)
{
	uint64_t *s, t = 0;
	size_t i, m = 0;

	if (k == 0 || (s = malloc((d->n + 1) * sizeof(*s))) == NULL)
		return 0;
	for (i = 0; i < d->n; i++)
		if (d->t[i].kind == DAG_TRANSFER)
			s[m++] = g->start[i];
	if (m > k) {
		qsort(s, m, sizeof(*s), desc);
		t = s[k - 1];
	}
	free(s);
	return t;
}

/* A fixed transfer's mark on one of its ports. */
static void
mark(struct fpport *x, uint64_t *latest, int send, uint32_t partner,
    uint64_t st, uint64_t end)
{
	if (x->partner == NONE || st >= *latest) {
		*latest = st;
		x->partner = partner;
	}
	if (send && end > x->txend)
		x->txend = end;
	if (!send && end > x->rxend)
		x->rxend = end;
	if (end > x->last)
		x->last = end;
}

/*
 * The states of the ports of the GPUs that kept transfers use (loc[g]
 * their index, or -1), from the fixed transfers.
 */
static int
ports(const struct dag *d, const struct net *n, const struct greedy *g,
    const uint32_t *sw, const int32_t *kept, const int32_t *loc, size_t nl,
    struct fprob *p)
{
	struct fpport *st;
	uint64_t *latest;
	size_t i, x, S = n->switches;
	int rc = -1;

	st = calloc(nl * S + 1, sizeof(*st));
	latest = calloc(nl * S + 1, sizeof(*latest));
	if (st == NULL || latest == NULL)
		goto out;
	for (i = 0; i < nl * S; i++)
		st[i].partner = NONE;
	for (i = 0; i < d->n; i++) {
		const struct dag_task *t = &d->t[i];
		uint64_t dur, end;

		if (t->kind != DAG_TRANSFER || kept[i] >= 0)
			continue;
		dur = greedy_duration(n, t->amount);
		end = g->start[i] + (dur > 0 ? dur : 1);
		if (loc[t->gpu] >= 0) {
			x = (size_t)loc[t->gpu] * S + sw[i];
			mark(&st[x], &latest[x], 1, t->dst, g->start[i], end);
		}
		if (loc[t->dst] >= 0) {
			x = (size_t)loc[t->dst] * S + sw[i];
			mark(&st[x], &latest[x], 0, t->gpu, g->start[i], end);
		}
	}
	for (i = 0; i < n->gpus; i++)	/* each port's GPU */
		for (x = 0; loc[i] >= 0 && x < S; x++)
			st[(size_t)loc[i] * S + x].gpu = (uint32_t)i;
	for (i = 0; i < nl * S; i++) {
		if (st[i].partner == NONE)
			continue;
		/* a use after the latest waits for its start, at least */
		st[i].txend = st[i].txend > latest[i] ? st[i].txend : latest[i];
		st[i].rxend = st[i].rxend > latest[i] ? st[i].rxend : latest[i];
		st[i].sw = (uint32_t)(i % S);
		if (fprob_port(p, &st[i]) != 0)
			goto out;
	}
	rc = 0;
out:
	free(st);
	free(latest);
	return rc;
}

/* The GPUs that kept transfers use, numbered; their port states. */
static int
boundary(const struct dag *d, const struct net *n, const struct greedy *g,
    const uint32_t *sw, const int32_t *kept, struct fprob *p)
{
	int32_t *loc, nl = 0;
	size_t k;
	int rc;

	if ((loc = malloc((n->gpus + 1) * sizeof(*loc))) == NULL)
		return -1;
	memset(loc, 0xff, (n->gpus + 1) * sizeof(*loc));
	for (k = 0; k < p->n; k++) {
		const struct fptask *t = &p->t[k];

		if (t->kind != DAG_TRANSFER)
			continue;
		if (loc[t->a] < 0)
			loc[t->a] = nl++;
		if (loc[t->b] < 0)
			loc[t->b] = nl++;
	}
	rc = ports(d, n, g, sw, kept, loc, (size_t)nl, p);
	free(loc);
	return rc;
}

/* A kept task: its release from fixed predecessors, arcs from kept. */
static int
keep(const struct dag *d, const struct net *n, const struct greedy *g,
    size_t i, int32_t *kept, struct fprob *p)
{
	const struct dag_task *tk = &d->t[i];
	const uint32_t *dep = dag_deps(d, i);
	uint64_t dur = greedy_duration(n, tk->amount);
	struct fptask t = { (uint32_t)i, tk->kind, tk->gpu, tk->dst,
	    tk->amount, greedy_length(d, n, i), 0, 0 };
	size_t j;

	if (tk->kind == DAG_TRANSFER)
		t.len = dur > 0 ? dur : 1;
	for (j = 0; j < tk->ndep; j++)
		if (kept[dep[j]] < 0 && g->end[dep[j]] > t.rel)
			t.rel = g->end[dep[j]];
	kept[i] = (int32_t)p->n;
	if (fprob_task(p, &t) != 0)
		return -1;
	for (j = 0; j < tk->ndep; j++)
		if (kept[dep[j]] >= 0 &&
		    fprob_arc(p, (uint32_t)kept[dep[j]], (uint32_t)kept[i], 0)
		    != 0)
			return -1;
	return 0;
}

/* Each GPU's computes in id order: the fixed ones release the first
 * kept one, which precede each other by arcs. */
static int
compute_order(const struct dag *d, const struct net *n,
    const struct greedy *g, const int32_t *kept, struct fprob *p)
{
	int32_t *last;
	size_t i;

	if ((last = malloc((n->gpus + 1) * sizeof(*last))) == NULL)
		return -1;
	memset(last, 0xff, (n->gpus + 1) * sizeof(*last));
	for (i = 0; i < d->n; i++) {
		const struct dag_task *t = &d->t[i];
		struct fptask *k;

		if (t->kind != DAG_COMPUTE)
			continue;
		if (kept[i] < 0) {
			last[t->gpu] = -2 - (int32_t)i;	/* fixed: its end */
			continue;
		}
		k = &p->t[kept[i]];
		if (last[t->gpu] <= -2 &&
		    g->end[-2 - last[t->gpu]] > k->rel)
			k->rel = g->end[-2 - last[t->gpu]];
		else if (last[t->gpu] >= 0 && fprob_arc(p,
		    (uint32_t)last[t->gpu], (uint32_t)kept[i], 0) != 0) {
			free(last);
			return -1;
		}
		last[t->gpu] = kept[i];
	}
	free(last);
	return 0;
}

long
wfix_tail(const struct dag *d, const struct net *n, const struct greedy *g,
    uint64_t T, struct fprob *p)
{
	int32_t *kept = NULL;
	uint32_t *sw = NULL;
	uint64_t lb = 0;
	size_t i;
	long rc = -1;

	fprob_setup(p, n, g->makespan, 0);
	kept = malloc((d->n + 1) * sizeof(*kept));
	if (kept == NULL || (sw = greedy_switches(d, g)) == NULL)
		goto out;
	for (i = 0; i < d->n; i++) {
		kept[i] = -1;
		if (g->start[i] < T) {
			lb = g->end[i] > lb ? g->end[i] : lb;
			continue;
		}
		if (keep(d, n, g, i, kept, p) != 0)
			goto out;
	}
	p->lb = lb;
	if (compute_order(d, n, g, kept, p) != 0 ||
	    boundary(d, n, g, sw, kept, p) != 0)
		goto out;
	rc = (long)p->n;
out:
	free(kept);
	free(sw);
	return rc;
}

int
wfix_splice(const struct dag *d, const struct net *n, const struct greedy *g,
    const struct fprob *p, const uint32_t *sw, const uint64_t *start,
    struct greedy *out)
{
	uint32_t *all;
	uint64_t *st;
	double *key;
	size_t i;
	int rc = -1;

	if (n->model == NET_SWITCH) {	/* the times as they are */
		if ((st = malloc((d->n + 1) * sizeof(*st))) == NULL ||
		    (all = greedy_switches(d, g)) == NULL) {
			free(st);
			return -1;
		}
		memcpy(st, g->start, d->n * sizeof(*st));
		for (i = 0; i < p->n; i++) {
			st[p->t[i].id] = start[i];
			if (p->t[i].kind == DAG_TRANSFER)
				all[p->t[i].id] = sw[i];
		}
		rc = place_fixed(d, n, all, st, out);
		free(st);
		free(all);
		return rc;
	}
	key = malloc((d->n + 1) * sizeof(*key));
	if (key == NULL || (all = greedy_switches(d, g)) == NULL) {
		free(key);
		return -1;
	}
	for (i = 0; i < d->n; i++)
		key[i] = (double)g->start[i];
	for (i = 0; i < p->n; i++) {
		key[p->t[i].id] = (double)start[i];
		if (p->t[i].kind == DAG_TRANSFER)
			all[p->t[i].id] = sw[i];
	}
	rc = place_run(d, n, all, key, out);
	free(key);
	free(all);
	return rc;
}
