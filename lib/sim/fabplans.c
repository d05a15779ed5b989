/*
 * fabplans: a tiered fabric's plan queues (sim/fabsetup.h,
 * fabsetup_plans()): every plan checked, and the plans put in queues,
 * one per (plane, source, destination), each by start and task.
 */
#include <stdint.h>
#include <stdlib.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/mem.h"
#include "sim/fabsetup.h"
#include "sim/fabsim.h"

#define NONE	UINT32_MAX

/*
 * Where GPU g sits on plane p among qspan() places, or -1 when it has
 * no port there: its port, or on an uplink plane (where a group's GPUs
 * share their ports) the GPU itself.
 */
static int64_t
qplace(const struct planes *pl, uint32_t p, uint32_t g)
{
	const struct plane_desc *d = &pl->fab->d[pl->p[p].desc];
	int64_t x = planes_port(pl, p, g);

	return x < 0 || d->attach != ATTACH_UPLINK ? x : (int64_t)g;
}

/* The places of the widest plane: ports, or GPUs on an uplink plane. */
static uint64_t
qspan(const struct planes *pl)
{
	uint64_t w = 1, x;
	size_t p;

	for (p = 0; p < pl->n; p++) {
		x = pl->fab->d[pl->p[p].desc].attach == ATTACH_UPLINK ?
		    pl->gpus : pl->p[p].ports;
		if (x > w)
			w = x;
	}
	return w;
}

/*
 * Plan i checked (a transfer of the DAG, planned once, on a plane that
 * joins its GPUs: x and y their places) and taken.
 */
static int
take_plan(struct fs *s, size_t i, int64_t *x, int64_t *y)
{
	const struct plan *p = &s->sc->p[i];
	const struct plane_desc *pd;
	const struct dag_task *t;

	if (p->task >= s->d->n || s->d->t[p->task].kind != DAG_TRANSFER) {
		fabsim_fail(s, "plan %zu: task %u is not a transfer of the "
		    "DAG", i, p->task);
		return -1;
	}
	t = &s->d->t[p->task];
	if (s->ts[p->task].plane != NONE) {
		fabsim_fail(s, "plan %zu: transfer %u is planned twice", i,
		    p->task);
		return -1;
	}
	if (p->sw >= s->pl->n || (*x = qplace(s->pl, p->sw, t->gpu)) < 0 ||
	    (*y = qplace(s->pl, p->sw, t->dst)) < 0 ||
	    ((pd = &s->pl->fab->d[s->pl->p[p->sw].desc])->attach ==
	    ATTACH_UPLINK && t->gpu / pd->k == t->dst / pd->k)) {
		fabsim_fail(s, "plan %zu: plane %u does not join GPUs %u and "
		    "%u of transfer %u (the fabric has %zu planes)", i, p->sw,
		    t->gpu, t->dst, p->task, s->pl->n);
		return -1;
	}
	s->ts[p->task].plane = p->sw;
	return 0;
}

/*
 * The plans sorted into queues, one per (plane, source, destination),
 * by two stable counting sorts: by the destination's place y, then by
 * (plane, the source's place x).  The counts are the fabric's size
 * (places, planes x places), not the plans'.
 */
struct qsort2 {
	struct fsentry	*r, *w;		/* the plans; room for them */
	uint32_t	*y;		/* plan i's destination place */
	uint32_t	*cy, *cp;	/* counts by y, by plane x places + x */
	uint64_t	 ny, np;	/* their sizes */
};

/*
 * Every plan checked, into q->r (its start, its task, aux its plane x
 * places + x) and q->y, and counted.
 */
static int
take_plans(struct fs *s, struct qsort2 *q)
{
	const struct dag *d = s->d;
	int64_t x, y;
	size_t i;

	for (i = 0; i < d->n; i++)
		s->ts[i].plane = NONE;
	for (i = 0; i < s->sc->np; i++) {
		if (take_plan(s, i, &x, &y) != 0)
			return -1;
		q->r[i].start = s->sc->p[i].start;
		q->r[i].task = s->sc->p[i].task;
		q->r[i].aux = (uint32_t)(s->sc->p[i].sw * q->ny + (uint64_t)x);
		q->y[i] = (uint32_t)y;
		q->cy[y]++;
		q->cp[q->r[i].aux]++;
	}
	for (i = 0; i < d->n; i++)
		if (d->t[i].kind == DAG_TRANSFER && s->ts[i].plane == NONE) {
			fabsim_fail(s, "transfer %zu (%u->%u) has no plan: on a "
			    "tiered fabric a schedule plans every transfer "
			    "(fluxsolve), or run -f ideal", i, d->t[i].gpu,
			    d->t[i].dst);
			return -1;
		}
	return 0;
}

/* Counts c[0..n) into the starts of their runs. */
static void
starts(uint32_t *c, uint64_t n)
{
	uint32_t sum = 0, k;
	uint64_t i;

	for (i = 0; i < n; i++) {
		k = c[i];
		c[i] = sum;
		sum += k;
	}
}

/*
 * The two passes: by y from r to w, then by (plane, x) from w back to
 * r, aux then y (w's runs of one y being known from the first pass's
 * ends).  After them cp[k] is the end of run k in r.
 */
static void
two_passes(struct qsort2 *q, size_t n)
{
	uint64_t y;
	size_t j, e;
	struct fsentry *t;

	starts(q->cy, q->ny);
	starts(q->cp, q->np);
	for (j = 0; j < n; j++)
		q->w[q->cy[q->y[j]]++] = q->r[j];
	for (y = 0, j = 0; y < q->ny; y++)
		for (e = q->cy[y]; j < e; j++) {
			t = &q->r[q->cp[q->w[j].aux]++];
			*t = q->w[j];
			t->aux = (uint32_t)y;
		}
}

static int
cmp_entry(const void *x, const void *y)
{
	const struct fsentry *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->task < b->task ? -1 : a->task > b->task;
}

/*
 * The queues from the sorted plans: a queue a run of one (plane, x)
 * and one y; each in (start, task) order: one in order (as schedulers
 * write them) costs a look, another a sort.  Tasks are planned once:
 * there are no ties.
 */
static int
fill_queues(struct fs *s, const struct qsort2 *q)
{
	struct fsentry *e = q->r;
	struct fsqueue *qu;
	size_t i, j, b;
	uint64_t k;

	for (k = 0, b = 0; k < q->np; b = q->cp[k++])
		for (i = b; i < q->cp[k]; i++)
			s->nq += i == b || e[i].aux != e[i - 1].aux;
	if ((s->q = mem_calloc(s->nq + 1, sizeof(*s->q))) == NULL)
		return -1;
	for (k = 0, b = 0, j = 0; k < q->np; b = q->cp[k++])
		for (i = b; i < q->cp[k]; i++) {
			if (i > 0 && (i == b || e[i].aux != e[i - 1].aux)) {
				s->q[j].end = (uint32_t)i;
				s->q[++j].at = (uint32_t)i;
			}
			s->ts[e[i].task].queue = (uint32_t)j;
		}
	if (s->nq > 0)
		s->q[j].end = (uint32_t)s->sc->np;
	for (j = 0; j < s->nq; j++) {
		qu = &s->q[j];
		e = &q->r[qu->at];
		for (i = 1; i < qu->end - qu->at; i++)
			if (cmp_entry(&e[i - 1], &e[i]) > 0)
				break;
		if (i < qu->end - qu->at)
			qsort(e, qu->end - qu->at, sizeof(*e), cmp_entry);
		qu->start = e->start;
		qu->task = e->task;
	}
	return 0;
}

int
fabsetup_plans(struct fs *s)
{
	struct qsort2 q = { 0 };
	size_t n = s->sc->np;
	int rc = -1;

	q.ny = qspan(s->pl);
	if ((unsigned __int128)s->pl->n * q.ny >= UINT32_MAX) {
		fabsim_fail(s, "%zu planes of %llu places each: too many plan "
		    "queues to number", s->pl->n, (unsigned long long)q.ny);
		return -1;
	}
	q.np = s->pl->n * q.ny;
	q.r = mem_array(n + 1, sizeof(*q.r));
	q.w = mem_array(n + 1, sizeof(*q.w));
	q.y = mem_array(n + 1, sizeof(*q.y));
	q.cy = mem_calloc(q.ny + 1, sizeof(*q.cy));
	q.cp = mem_calloc(q.np + 1, sizeof(*q.cp));
	if (q.r == NULL || q.w == NULL || q.y == NULL || q.cy == NULL ||
	    q.cp == NULL) {
		fabsim_fail(s, "out of memory (the plan queues)");
		goto out;
	}
	if (take_plans(s, &q) != 0)
		goto out;
	two_passes(&q, n);
	if (fill_queues(s, &q) != 0) {
		fabsim_fail(s, "out of memory (the plan queues)");
		goto out;
	}
	s->qe = q.r;
	q.r = NULL;
	rc = 0;
out:
	free(q.r);
	free(q.w);
	free(q.y);
	free(q.cy);
	free(q.cp);
	return rc;
}
