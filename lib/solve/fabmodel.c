/* fabmodel: Flux's problem on a tiered fabric as a mixed-integer model. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/planes.h"
#include "records/mem.h"
#include "solve/fabcand.h"
#include "solve/fabmodel.h"
#include "solve/milp.h"

#define NONE		UINT32_MAX
#define T(f, ps)	((double)(ps) / (double)(f)->unit)
#define REACH_WORDS	((size_t)1 << 23)	/* 64 MiB of reachability */

struct ent {			/* a resource a transfer may hold */
	uint64_t	 res;
	uint32_t	 t;		/* the transfer's task */
	uint32_t	 k;		/* on plane column y[k] */
};

struct fixed {			/* what a window's fixed transfers hold */
	uint64_t	*side;		/* per side: free from */
	uint64_t	*pend;		/* per port: its last use's end */
	uint32_t	*partner;	/* and partner, or NONE */
	uint64_t	*slot;		/* per slot: latest ends first */
};

struct pent {			/* two transfers that may share one */
	uint32_t	 i, j;		/* tasks, i < j */
	size_t		 a, b;		/* their first entries on it */
};

struct build {
	const struct dag	*d;
	const struct fabwin	*w;		/* or NULL: the whole DAG */
	const struct planes	*pl;
	struct fabmodel		*f;
	char			*err;
	size_t			 errlen;
	struct fabcand_ctx	 cx;
	struct fabcand		*cand;		/* per plane column */
	uint64_t		 nport;
	size_t			 maxc;		/* most columns of a transfer */
	uint32_t		*xi;		/* per task: transfer index */
	size_t			 nx, words;
	uint64_t		*reach;		/* [t * words]: who reaches t */
	uint32_t		*prev;		/* a compute's predecessor */
	uint64_t		*span;		/* per task: its least span */
	uint64_t		*head;		/* its earliest start */
	uint64_t		*tail;		/* least time after its end */
	uint64_t		*fend;		/* a fixed task's end, window */
	struct ent		*e;
	size_t			 ne;
	struct pent		*pe;
	size_t			 npe;
	int			*rc;
	double			*rv;
};

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Is task t a column of the model (the window's, or any)? */
static int
is_free(const struct build *b, size_t t)
{
	return b->w == NULL || b->w->free[t];
}

static uint64_t
max2(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static int
fail(struct build *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int
oom(struct build *b, const char *what)
{
	return fail(b, "out of memory (the exact model's %s)", what);
}

void
fabmodel_free(struct fabmodel *f)
{
	milp_free(&f->m);
	free(f->s);
	free(f->yoff);
	free(f->y);
	free(f->yplane);
	free(f->yslot);
	free(f->ydur);
	free(f->pi);
	free(f->pj);
	free(f->po);
	free(f->cut);
	free(f->sbase);
	free(f->slot0);
	memset(f, 0, sizeof(*f));
}

/* How many flows at once an oversubscribed eps plane p runs; 0: no
 * limit (as many as its ports). */
static uint32_t
slots(const struct build *b, size_t p)
{
	uint32_t n = b->cx.nslot[p];

	return n < b->pl->p[p].ports ? n : 0;
}

/* What the model takes: the planners' planes, not too many tasks. */
static int
check(struct build *b)
{
	const struct planes *pl = b->pl;
	size_t p;

	if (b->d->n > FABMODEL_MAX_TASKS)
		return fail(b, "the exact model on planes takes %u tasks at "
		    "most; the DAG has %zu", FABMODEL_MAX_TASKS, b->d->n);
	if (fabcand_init(&b->cx, pl, b->err, b->errlen) != 0)
		return -1;
	b->f->np = pl->n;
	if ((b->f->sbase = mem_array(pl->n + 1, sizeof(*b->f->sbase))) == NULL)
		return oom(b, "slots");
	for (p = 0; p < pl->n; p++) {
		b->f->sbase[p] = b->f->nslots;
		b->f->nslots += slots(b, p);
	}
	b->nport = b->cx.off[pl->n];
	return 0;
}

/* Room for k + n plane columns. */
static int
grow(struct build *b, size_t *cap, size_t n)
{
	struct fabmodel *f = b->f;
	size_t c = *cap;

	if (mem_grow(&f->yplane, &c, n, sizeof(*f->yplane)) != 0)
		return -1;
	c = *cap;
	if (mem_grow(&f->yslot, &c, n, sizeof(*f->yslot)) != 0)
		return -1;
	*cap = c;
	return 0;
}

/* The columns of transfer t: a plane each, a plane and slot each on an
 * oversubscribed eps plane. */
static int
columns_of(struct build *b, size_t t, const uint32_t *buf, size_t n,
    size_t *k, size_t *cap)
{
	struct fabmodel *f = b->f;
	size_t i, s, ns, k0 = *k;

	for (i = 0; i < n; i++) {
		ns = slots(b, buf[i]) > 0 ? slots(b, buf[i]) : 1;
		if (grow(b, cap, *k + ns) != 0)
			return oom(b, "planes");
		for (s = 0; s < ns; s++, (*k)++) {
			f->yplane[*k] = buf[i];
			f->yslot[*k] = slots(b, buf[i]) > 0 ? (uint32_t)s :
			    NONE;
		}
	}
	if (*k - k0 > b->maxc)
		b->maxc = *k - k0;
	(void)t;
	return 0;
}

/* The plane columns of every transfer, and what each stands for. */
static int
candidates(struct build *b)
{
	const struct dag *d = b->d;
	struct fabmodel *f = b->f;
	size_t t, k = 0, n, cap = 0;
	uint32_t *buf;

	if ((f->yoff = mem_calloc(d->n + 1, sizeof(*f->yoff))) == NULL ||
	    (buf = mem_array(b->pl->n + 1, sizeof(*buf))) == NULL)
		return oom(b, "planes");
	for (t = 0; t < d->n; t++) {
		f->yoff[t] = k;
		if (d->t[t].kind == DAG_COMPUTE || !is_free(b, t))
			continue;
		n = planes_joining(b->pl, d->t[t].gpu, d->t[t].dst, buf,
		    b->pl->n);
		if (n == 0) {
			free(buf);
			return fail(b, "transfer %zu: no plane joins GPUs %u "
			    "and %u: route the DAG for this fabric (dagbuild "
			    "--fabric)", t, d->t[t].gpu, d->t[t].dst);
		}
		if (columns_of(b, t, buf, n, &k, &cap) != 0) {
			free(buf);
			return -1;
		}
	}
	f->yoff[d->n] = k;
	free(buf);
	if ((b->cand = mem_array(k + 1, sizeof(*b->cand))) == NULL ||
	    (f->y = mem_array(k + 1, sizeof(*f->y))) == NULL ||
	    (f->ydur = mem_array(k + 1, sizeof(*f->ydur))) == NULL)
		return oom(b, "planes");
	for (t = 0; t < d->n; t++)
		for (k = f->yoff[t]; k < f->yoff[t + 1]; k++) {
			fabcand_on(&b->cx, f->yplane[k], d->t[t].gpu,
			    d->t[t].dst, d->t[t].amount, &b->cand[k]);
			f->ydur[k] = b->cand[k].dur;
		}
	return 0;
}

/* The first transfer that may take a unit of identical planes goes on
 * its first plane (owner: per unit's first plane, that task + 1); the
 * cut is kept for fabmodel_encode(). */
static int
symmetry(struct build *b, uint32_t *owner)
{
	const struct planes *pl = b->pl;
	struct fabmodel *f = b->f;
	size_t t, k, c = 0;

	for (t = 0; t < b->d->n; t++)
		for (k = f->yoff[t]; k < f->yoff[t + 1]; k++) {
			const struct plane *q = &pl->p[f->yplane[k]];
			uint32_t cnt = pl->fab->d[q->desc].count;
			size_t first = pl->base[q->desc] +
			    (size_t)q->unit * cnt;

			if (cnt < 2)
				continue;
			if (owner[first] == 0) {
				owner[first] = (uint32_t)t + 1;
				if (mem_grow(&f->cut, &c, f->ncut + 1,
				    sizeof(*f->cut)) != 0)
					return oom(b, "cuts");
				f->cut[f->ncut++] = (struct fabcut){
				    (uint32_t)t, (uint32_t)first, cnt };
			}
			if (owner[first] == t + 1 && f->yplane[k] != first)
				f->m.hi[f->y[k]] = 0;
		}
	return 0;
}

static int
columns(struct build *b, uint64_t horizon, uint64_t lb)
{
	const struct dag *d = b->d;
	struct fabmodel *f = b->f;
	double h = T(f, horizon);
	size_t t, k;
	uint32_t *owner;
	int rc;

	if ((f->s = mem_array(d->n + 1, sizeof(*f->s))) == NULL)
		return oom(b, "columns");
	for (t = 0; t < d->n; t++) {
		uint64_t need = sat_add(b->span[t], b->tail[t]), hi;

		f->s[t] = -1;
		if (!is_free(b, t))
			continue;
		hi = horizon > need ? horizon - need : 0;
		if (hi < b->head[t])
			hi = b->head[t];
		if ((f->s[t] = (int)milp_col(&f->m, T(f, b->head[t]), T(f, hi),
		    0, 0)) < 0)
			return oom(b, "columns");
	}
	if ((f->c = (int)milp_col(&f->m, T(f, lb < horizon ? lb : horizon), h,
	    1, 0)) < 0)
		return oom(b, "columns");
	for (t = 0; t < d->n; t++) {
		int one = f->yoff[t + 1] - f->yoff[t] == 1;

		for (k = f->yoff[t]; k < f->yoff[t + 1]; k++) {
			f->y[k] = (int)milp_col(&f->m, one, 1, 0, !one);
			if (f->y[k] < 0)
				return oom(b, "columns");
			f->nbin += !one;
		}
	}
	if (b->w != NULL)
		return 0;	/* a window's planes are not alike */
	if ((owner = mem_calloc(b->pl->n + 1, sizeof(*owner))) == NULL)
		return oom(b, "cuts");
	rc = symmetry(b, owner);
	free(owner);
	return rc;
}

static int
row(struct build *b, size_t n, int sense, double rhs)
{
	if (milp_row(&b->f->m, n, b->rc, b->rv, sense, rhs) != 0)
		return oom(b, "rows");
	return 0;
}

/* S_j - S_i - (i's time to its end) >= lag. */
static int
after(struct build *b, size_t i, size_t j)
{
	const struct fabmodel *f = b->f;
	const struct dag_task *k = &b->d->t[i];
	size_t n = 0, c;
	double lag = 0;

	b->rc[n] = f->s[j];
	b->rv[n++] = 1;
	b->rc[n] = f->s[i];
	b->rv[n++] = -1;
	if (k->kind == DAG_COMPUTE)
		lag = T(b->f, k->amount);
	else
		for (c = f->yoff[i]; c < f->yoff[i + 1]; c++) {
			b->rc[n] = f->y[c];
			b->rv[n++] = -T(b->f, b->cand[c].dur + b->cand[c].lat);
		}
	return row(b, n, MILP_GE, lag);
}

/* Each transfer on one plane; dependencies, GPU order, the makespan
 * after every task and the least time that must follow it. */
static int
precedence(struct build *b)
{
	const struct dag *d = b->d;
	struct fabmodel *f = b->f;
	size_t t, k, n;
	const uint32_t *dep;

	for (t = 0; t < d->n; t++) {
		if (!is_free(b, t))
			continue;
		if ((n = f->yoff[t + 1] - f->yoff[t]) > 1) {
			for (k = 0; k < n; k++) {
				b->rc[k] = f->y[f->yoff[t] + k];
				b->rv[k] = 1;
			}
			if (row(b, n, MILP_EQ, 1) != 0)
				return -1;
		}
		dep = dag_deps(d, t);
		for (k = 0; k < d->t[t].ndep; k++)
			if (is_free(b, dep[k]) && after(b, dep[k], t) != 0)
				return -1;
		if (b->prev[t] != NONE && is_free(b, b->prev[t]) &&
		    after(b, b->prev[t], t) != 0)
			return -1;
	}
	for (t = 0; t < d->n; t++) {
		if (!is_free(b, t))
			continue;
		b->rc[0] = f->c;
		b->rv[0] = 1;
		b->rc[1] = f->s[t];
		b->rv[1] = -1;
		n = 2;
		if (d->t[t].kind == DAG_COMPUTE) {
			if (row(b, n, MILP_GE, T(f, sat_add(d->t[t].amount,
			    b->tail[t]))) != 0)
				return -1;
			continue;
		}
		for (k = f->yoff[t]; k < f->yoff[t + 1]; k++) {
			b->rc[n] = f->y[k];
			b->rv[n++] = -T(f, b->cand[k].dur + b->cand[k].lat);
		}
		if (row(b, n, MILP_GE, T(f, b->tail[t])) != 0)
			return -1;
	}
	return 0;
}

/* A compute's predecessor on its GPU (computes run in id order). */
static int
chain(struct build *b)
{
	const struct dag *d = b->d;
	uint32_t *last;
	size_t t;

	b->prev = mem_array(d->n + 1, sizeof(*b->prev));
	last = mem_array((size_t)b->pl->gpus + 1, sizeof(*last));
	if (b->prev == NULL || last == NULL) {
		free(last);
		return oom(b, "order");
	}
	memset(last, 0xff, ((size_t)b->pl->gpus + 1) * sizeof(*last));
	for (t = 0; t < d->n; t++) {
		b->prev[t] = NONE;
		if (d->t[t].kind == DAG_COMPUTE) {
			b->prev[t] = last[d->t[t].gpu];
			last[d->t[t].gpu] = (uint32_t)t;
		}
	}
	free(last);
	return 0;
}

/* Predecessor k of task t (its dependencies, then its GPU's), or NONE. */
static uint32_t
pred(const struct build *b, size_t t, size_t k)
{
	if (k < b->d->t[t].ndep)
		return dag_deps(b->d, t)[k];
	return k == b->d->t[t].ndep ? b->prev[t] : NONE;
}

/* Transfer t's least span over the planes joining its GPUs, and (when
 * p is not NONE) its span on plane p. */
static uint64_t
least_span(struct build *b, size_t t, uint32_t *buf, uint32_t p,
    uint64_t *on)
{
	const struct dag_task *k = &b->d->t[t];
	struct fabcand c;
	uint64_t v = UINT64_MAX;
	size_t n, i;

	n = planes_joining(b->pl, k->gpu, k->dst, buf, b->pl->n);
	for (i = 0; i < n; i++) {
		fabcand_on(&b->cx, buf[i], k->gpu, k->dst, k->amount, &c);
		if (sat_add(c.dur, c.lat) < v)
			v = sat_add(c.dur, c.lat);
		if (buf[i] == p)
			*on = sat_add(c.dur, c.lat);
	}
	return v;
}

/* Every task's least span, and a window's fixed tasks' ends. */
static int
spans(struct build *b)
{
	const struct dag *d = b->d;
	uint32_t *buf;
	uint64_t on;
	size_t t;

	b->span = mem_calloc(d->n + 1, sizeof(*b->span));
	b->fend = mem_calloc(d->n + 1, sizeof(*b->fend));
	if (b->span == NULL || b->fend == NULL ||
	    (buf = mem_array(b->pl->n + 1, sizeof(*buf))) == NULL)
		return oom(b, "bounds");
	for (t = 0; t < d->n; t++) {
		on = UINT64_MAX;
		if (d->t[t].kind == DAG_COMPUTE)
			b->span[t] = on = d->t[t].amount;
		else
			b->span[t] = least_span(b, t, buf, b->w == NULL ? NONE :
			    b->w->plane[t], &on);
		if (on == UINT64_MAX)
			on = b->span[t];
		if (!is_free(b, t))
			b->fend[t] = sat_add(b->w->start[t], on);
	}
	free(buf);
	return 0;
}

/* Every task's earliest start (in a window: no earlier than its
 * start, after its fixed dependencies' ends) and least time after it,
 * each transfer on the plane where it is fastest. */
static int
window(struct build *b)
{
	const struct dag *d = b->d;
	uint64_t e;
	size_t t, k;
	uint32_t p;

	if (spans(b) != 0)
		return -1;
	b->head = mem_calloc(d->n + 1, sizeof(*b->head));
	b->tail = mem_calloc(d->n + 1, sizeof(*b->tail));
	if (b->head == NULL || b->tail == NULL)
		return oom(b, "bounds");
	for (t = 0; t < d->n; t++) {
		if (b->w != NULL)
			b->head[t] = b->w->from;
		for (k = 0; k <= d->t[t].ndep; k++) {
			if ((p = pred(b, t, k)) == NONE)
				continue;
			e = is_free(b, p) ? sat_add(b->head[p], b->span[p]) :
			    b->fend[p];
			if (e > b->head[t])
				b->head[t] = e;
		}
	}
	for (t = d->n; t-- > 0;)
		for (k = 0; k <= d->t[t].ndep; k++)
			if ((p = pred(b, t, k)) != NONE &&
			    sat_add(b->span[t], b->tail[t]) > b->tail[p])
				b->tail[p] = sat_add(b->span[t], b->tail[t]);
	return 0;
}

/* Which transfers reach each task through dependencies and GPU order. */
static int
reachability(struct build *b)
{
	const struct dag *d = b->d;
	size_t t, k, w;
	const uint32_t *dep;

	if ((b->xi = mem_array(d->n + 1, sizeof(*b->xi))) == NULL)
		return oom(b, "order");
	for (t = 0; t < d->n; t++)
		b->xi[t] = d->t[t].kind == DAG_COMPUTE || !is_free(b, t) ?
		    NONE : (uint32_t)b->nx++;
	b->words = (b->nx + 63) / 64;
	if (b->words > REACH_WORDS / (d->n + 1))
		return fail(b, "the exact model on planes of %zu tasks and %zu "
		    "transfers: their order would take more than %zu MiB",
		    d->n, b->nx, REACH_WORDS * 8 >> 20);
	if ((b->reach = mem_calloc(d->n * b->words + 1,
	    sizeof(*b->reach))) == NULL)
		return oom(b, "order");
	for (t = 0; t < d->n; t++) {
		uint64_t *to = b->reach + t * b->words;
		size_t np = d->t[t].ndep + (b->prev[t] != NONE);

		dep = dag_deps(d, t);
		for (k = 0; k < np; k++) {
			size_t p = k < d->t[t].ndep ? dep[k] : b->prev[t];
			const uint64_t *from = b->reach + p * b->words;

			for (w = 0; w < b->words; w++)
				to[w] |= from[w];
			if (b->xi[p] != NONE)
				to[b->xi[p] / 64] |= 1ULL << (b->xi[p] % 64);
		}
	}
	return 0;
}

static int
reaches(const struct build *b, size_t i, size_t j)
{
	uint32_t x = b->xi[i];

	return (b->reach[j * b->words + x / 64] >> (x % 64)) & 1;
}

static int
push(struct build *b, size_t *cap, uint64_t res, size_t t, size_t k)
{
	if (mem_grow(&b->e, cap, b->ne + 1, sizeof(*b->e)) != 0)
		return oom(b, "resources");
	b->e[b->ne++] = (struct ent){ res, (uint32_t)t, (uint32_t)k };
	return 0;
}

static int
push2(struct build *b, size_t *cap, uint64_t r1, uint64_t r2, size_t t,
    size_t k)
{
	if (push(b, cap, r1, t, k) != 0)
		return -1;
	return push(b, cap, r2, t, k);
}

static int
ent_cmp(const void *x, const void *y)
{
	const struct ent *a = x, *b = y;

	if (a->res != b->res)
		return a->res < b->res ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k;
}

/*
 * The resources of every transfer on every plane it may take: sides
 * (port x 2 + direction), the slots of oversubscribed eps planes (after
 * the sides), and the ports of ocs planes with a tau (after those),
 * which set tau apart.
 */
static int
resources(struct build *b)
{
	const struct fabmodel *f = b->f;
	const size_t *off = b->cx.off;
	uint64_t np = b->nport, S = b->f->nslots;
	size_t t, k, cap = 0;

	for (t = 0; t < b->d->n; t++)
		for (k = f->yoff[t]; k < f->yoff[t + 1]; k++) {
			const struct fabcand *c = &b->cand[k];
			const struct plane *q = &b->pl->p[c->plane];
			size_t p = c->plane;

			if (push2(b, &cap, (off[p] + c->x) * 2,
			    (off[p] + c->y) * 2 + 1, t, k) != 0)
				return -1;
			if (c->gp != FABCAND_NONE && push2(b, &cap,
			    (off[c->gp] + c->gx) * 2,
			    (off[c->gq] + c->gy) * 2 + 1, t, k) != 0)
				return -1;
			if (f->yslot[k] != NONE && push(b, &cap, 2 * np +
			    b->f->sbase[p] + f->yslot[k], t, k) != 0)
				return -1;
			if (q->kind == PLANE_OCS && q->reconfig_ps > 0 &&
			    push2(b, &cap, 2 * np + S + off[p] + c->x,
			    2 * np + S + off[p] + c->y, t, k) != 0)
				return -1;
		}
	if (b->ne > 0)
		qsort(b->e, b->ne, sizeof(*b->e), ent_cmp);
	return 0;
}

static int
pent_cmp(const void *x, const void *y)
{
	const struct pent *a = x, *b = y;

	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	if (a->j != b->j)
		return a->j < b->j ? -1 : 1;
	return a->a < b->a ? -1 : a->a > b->a;
}

/* Every two transfers that may hold one resource, once per resource. */
static int
pairs(struct build *b)
{
	size_t g0, g1, x, y, cap = 0;

	for (g0 = 0; g0 < b->ne; g0 = g1) {
		for (g1 = g0; g1 < b->ne && b->e[g1].res == b->e[g0].res; g1++)
			;
		for (x = g0; x < g1; x++) {
			if (x > g0 && b->e[x - 1].t == b->e[x].t)
				continue;
			for (y = x + 1; y < g1; y++) {
				if (b->e[y].t == b->e[x].t ||
				    b->e[y - 1].t == b->e[y].t)
					continue;
				if (b->npe >= FABMODEL_MAX_PAIRS)
					return fail(b, "the exact model on "
					    "planes: more than %u pairs of "
					    "transfers share a port or link",
					    FABMODEL_MAX_PAIRS);
				if (mem_grow(&b->pe, &cap, b->npe + 1,
				    sizeof(*b->pe)) != 0)
					return oom(b, "pairs");
				b->pe[b->npe++] = (struct pent){ b->e[x].t,
				    b->e[y].t, x, y };
			}
		}
	}
	if (b->npe > 0)
		qsort(b->pe, b->npe, sizeof(*b->pe), pent_cmp);
	return 0;
}

/*
 * Big-M for "later starts gap after first's time on the resource of
 * entry a": just enough to free the row, from the bounds of the two
 * starts and first's longest time there.
 */
static double
bigm(const struct build *b, size_t first, size_t a, size_t later,
    double gap)
{
	const struct fabmodel *f = b->f;
	uint64_t res = b->e[a].res, dur = 0;
	double M;
	size_t x;

	for (x = a; x < b->ne && b->e[x].res == res && b->e[x].t == first;
	    x++)
		if (b->cand[b->e[x].k].dur > dur)
			dur = b->cand[b->e[x].k].dur;
	M = f->m.hi[f->s[first]] + T(f, dur) + gap - f->m.lo[f->s[later]];
	return M > 0 ? M + 1 : 1;
}

/*
 * One transfer (first, its entries from a) before the other (its from
 * bb) by its time on the plane and gap when both hold the resource;
 * with order column o (>= 0) only when o says so (rel: 1 when o = 1
 * says first goes first, 0 when o = 0 does).
 */
static int
sep(struct build *b, size_t first, size_t a, size_t later, size_t bb,
    double gap, int o, int rel)
{
	const struct fabmodel *f = b->f;
	uint64_t res = b->e[a].res;
	double M = bigm(b, first, a, later, gap), rhs = -2 * M;
	size_t n = 0, x;

	b->rc[n] = f->s[later];
	b->rv[n++] = 1;
	b->rc[n] = f->s[first];
	b->rv[n++] = -1;
	for (x = a; x < b->ne && b->e[x].res == res && b->e[x].t == first;
	    x++) {
		b->rc[n] = f->y[b->e[x].k];
		b->rv[n++] = -T(f, b->cand[b->e[x].k].dur) - gap - M;
	}
	for (x = bb; x < b->ne && b->e[x].res == res && b->e[x].t == later;
	    x++) {
		b->rc[n] = f->y[b->e[x].k];
		b->rv[n++] = -M;
	}
	if (o >= 0) {
		b->rc[n] = o;
		b->rv[n++] = rel ? -M : M;
		rhs -= rel ? M : 0;
	}
	return row(b, n, MILP_GE, rhs);
}

/* The gap a shared resource sets between two transfers; < 0: none. */
static double
gap_of(const struct build *b, const struct pent *p)
{
	const struct fabcand *x = &b->cand[b->e[p->a].k];
	const struct fabcand *y = &b->cand[b->e[p->b].k];

	if (b->e[p->a].res < 2 * b->nport + b->f->nslots)
		return 0;
	if ((x->x == y->x && x->y == y->y) || (x->x == y->y && x->y == y->x))
		return -1;		/* one circuit */
	return T(b->f, b->pl->p[x->plane].reconfig_ps);
}

static int
order_col(struct build *b, size_t i, size_t j, int *o)
{
	struct fabmodel *f = b->f;
	size_t c = f->npair;

	if (*o >= 0)
		return 0;
	if ((*o = (int)milp_col(&f->m, 0, 1, 0, 1)) < 0 ||
	    mem_grow(&f->pi, &c, f->npair + 1, sizeof(*f->pi)) != 0)
		return oom(b, "pairs");
	c = f->npair;
	if (mem_grow(&f->pj, &c, f->npair + 1, sizeof(*f->pj)) != 0)
		return oom(b, "pairs");
	c = f->npair;
	if (mem_grow(&f->po, &c, f->npair + 1, sizeof(*f->po)) != 0)
		return oom(b, "pairs");
	f->pi[f->npair] = (uint32_t)i;
	f->pj[f->npair] = (uint32_t)j;
	f->po[f->npair++] = *o;
	f->nbin++;
	return 0;
}

/* The rows of the pairs pe[g0 .. g1), all of tasks i < j. */
static int
pair_rows(struct build *b, size_t g0, size_t g1)
{
	size_t i = b->pe[g0].i, j = b->pe[g0].j, x;
	int ij = reaches(b, i, j), ji = reaches(b, j, i), o = -1;
	double gap;

	for (x = g0; x < g1; x++) {
		const struct pent *p = &b->pe[x];

		if ((gap = gap_of(b, p)) < 0)
			continue;
		if (!ij && !ji && order_col(b, i, j, &o) != 0)
			return -1;
		if (!ji && sep(b, i, p->a, j, p->b, gap, o, 1) != 0)
			return -1;
		if (!ij && sep(b, j, p->b, i, p->a, gap, o, 0) != 0)
			return -1;
	}
	return 0;
}

static int
conflicts(struct build *b, size_t max_bin)
{
	size_t g0, g1;

	for (g0 = 0; g0 < b->npe; g0 = g1) {
		for (g1 = g0; g1 < b->npe && b->pe[g1].i == b->pe[g0].i &&
		    b->pe[g1].j == b->pe[g0].j; g1++)
			;
		if (pair_rows(b, g0, g1) != 0)
			return -1;
		if (b->f->nbin > max_bin)
			return fail(b, "the exact model on planes has more "
			    "than %zu binaries (a plane per transfer, an order "
			    "per pair that shares a port or link): %zu "
			    "transfers, %zu pairs so far; raise "
			    "--max-binaries, or plan by the greedy", max_bin,
			    b->nx, b->f->npair);
	}
	return 0;
}

/* Keep end e among the n latest of a plane's slots (latest first). */
static void
slot_end(uint64_t *sl, size_t n, uint64_t e)
{
	size_t i;

	if (n == 0 || e <= sl[n - 1])
		return;
	for (i = n - 1; i > 0 && sl[i - 1] < e; i--)
		sl[i] = sl[i - 1];
	sl[i] = e;
}

/* What a window's fixed transfer, started before it, leaves held. */
static void
held(struct build *b, struct fixed *x, size_t t)
{
	const struct dag_task *k = &b->d->t[t];
	const size_t *off = b->cx.off;
	const struct plane *q;
	struct fabcand c;
	uint64_t e;
	size_t p;

	fabcand_on(&b->cx, b->w->plane[t], k->gpu, k->dst, k->amount, &c);
	p = c.plane;
	q = &b->pl->p[p];
	e = sat_add(b->w->start[t], c.dur);
	x->side[(off[p] + c.x) * 2] = max2(x->side[(off[p] + c.x) * 2], e);
	x->side[(off[p] + c.y) * 2 + 1] = max2(x->side[(off[p] + c.y) * 2 + 1],
	    e);
	if (c.gp != FABCAND_NONE) {
		x->side[(off[c.gp] + c.gx) * 2] =
		    max2(x->side[(off[c.gp] + c.gx) * 2], e);
		x->side[(off[c.gq] + c.gy) * 2 + 1] =
		    max2(x->side[(off[c.gq] + c.gy) * 2 + 1], e);
	}
	if (q->kind == PLANE_OCS && e >= x->pend[off[p] + c.x]) {
		x->pend[off[p] + c.x] = e;
		x->partner[off[p] + c.x] = c.y;
	}
	if (q->kind == PLANE_OCS && e >= x->pend[off[p] + c.y]) {
		x->pend[off[p] + c.y] = e;
		x->partner[off[p] + c.y] = c.x;
	}
	if (slots(b, p) > 0)
		slot_end(x->slot + b->f->sbase[p], slots(b, p), e);
}

/* When candidate k can start for what the fixed transfers hold. */
static uint64_t
release(const struct build *b, const struct fixed *x, size_t k)
{
	const struct fabcand *c = &b->cand[k];
	const size_t *off = b->cx.off;
	const struct plane *q = &b->pl->p[c->plane];
	size_t p = c->plane;
	uint64_t r;

	r = max2(x->side[(off[p] + c->x) * 2], x->side[(off[p] + c->y) * 2 +
	    1]);
	if (c->gp != FABCAND_NONE)
		r = max2(r, max2(x->side[(off[c->gp] + c->gx) * 2],
		    x->side[(off[c->gq] + c->gy) * 2 + 1]));
	if (q->kind == PLANE_OCS && x->partner[off[p] + c->x] != NONE &&
	    x->partner[off[p] + c->x] != c->y)
		r = max2(r, sat_add(x->pend[off[p] + c->x], q->reconfig_ps));
	if (q->kind == PLANE_OCS && x->partner[off[p] + c->y] != NONE &&
	    x->partner[off[p] + c->y] != c->x)
		r = max2(r, sat_add(x->pend[off[p] + c->y], q->reconfig_ps));
	if (b->f->yslot[k] != NONE)
		r = max2(r, x->slot[b->f->sbase[p] + b->f->yslot[k]]);
	return r;
}

/* A window's transfer starts once what it needs is free: S_t >= the
 * release of the plane it takes. */
static int
release_rows(struct build *b, const struct fixed *x)
{
	const struct fabmodel *f = b->f;
	size_t t, k, n;
	uint64_t r;
	int need;

	for (t = 0; t < b->d->n; t++) {
		if (f->yoff[t + 1] == f->yoff[t])
			continue;
		b->rc[0] = f->s[t];
		b->rv[0] = 1;
		for (n = 1, need = 0, k = f->yoff[t]; k < f->yoff[t + 1]; k++) {
			r = release(b, x, k);
			need |= T(f, r) > f->m.lo[f->s[t]];
			b->rc[n] = f->y[k];
			b->rv[n++] = -T(f, r);
		}
		if (need && row(b, n, MILP_GE, 0) != 0)
			return -1;
	}
	return 0;
}

static int
fabwin_releases(struct build *b)
{
	struct fixed x;
	size_t t, n = b->nport;
	int rc = -1;

	x.side = mem_calloc(2 * n + 1, sizeof(*x.side));
	x.pend = mem_calloc(n + 1, sizeof(*x.pend));
	x.partner = mem_array(n + 1, sizeof(*x.partner));
	x.slot = mem_calloc(b->f->nslots + 1, sizeof(*x.slot));
	if (x.side == NULL || x.pend == NULL || x.partner == NULL ||
	    x.slot == NULL) {
		oom(b, "releases");
		goto out;
	}
	memset(x.partner, 0xff, (n + 1) * sizeof(*x.partner));
	for (t = 0; t < b->d->n; t++)
		if (!is_free(b, t) && b->d->t[t].kind != DAG_COMPUTE &&
		    b->w->start[t] < b->w->from)
			held(b, &x, t);
	rc = release_rows(b, &x);
	b->f->slot0 = x.slot;	/* for fabmodel_encode() */
	x.slot = NULL;
out:
	free(x.side);
	free(x.pend);
	free(x.partner);
	free(x.slot);
	return rc;
}

static int
build(struct build *b, uint64_t horizon, uint64_t lb, size_t max_bin)
{
	if (check(b) != 0 || candidates(b) != 0 || chain(b) != 0 ||
	    window(b) != 0 || columns(b, horizon, lb) != 0)
		return -1;
	b->rc = mem_array(2 * b->maxc + 8, sizeof(*b->rc));
	b->rv = mem_array(2 * b->maxc + 8, sizeof(*b->rv));
	if (b->rc == NULL || b->rv == NULL)
		return oom(b, "rows");
	if (precedence(b) != 0 || reachability(b) != 0 || resources(b) != 0 ||
	    (b->w != NULL && fabwin_releases(b) != 0) || pairs(b) != 0)
		return -1;
	return conflicts(b, max_bin);
}

int
fabmodel_build(const struct dag *d, const struct planes *pl,
    const struct fabwin *w, uint64_t horizon, uint64_t lb, size_t max_bin,
    struct fabmodel *f, char *err, size_t errlen)
{
	struct build b = { .d = d, .pl = pl, .w = w, .f = f, .err = err,
	    .errlen = errlen };
	int rc;

	memset(f, 0, sizeof(*f));
	milp_init(&f->m);
	f->n = d->n;
	for (f->unit = 1000; horizon / f->unit > FABMODEL_SPAN; f->unit *= 10)
		;
	rc = build(&b, horizon, lb, max_bin);
	fabcand_free(&b.cx);
	free(b.cand);
	free(b.xi);
	free(b.reach);
	free(b.prev);
	free(b.span);
	free(b.head);
	free(b.tail);
	free(b.fend);
	free(b.e);
	free(b.pe);
	free(b.rc);
	free(b.rv);
	if (rc != 0)
		fabmodel_free(f);
	return rc;
}

/* Plane p with a unit's planes swapped so that its cut holds. */
static uint32_t
swapped(const struct fabmodel *f, const uint32_t *plane, uint32_t p)
{
	size_t i;

	for (i = 0; i < f->ncut; i++) {
		const struct fabcut *c = &f->cut[i];
		uint32_t q = plane[c->t];

		if (q < c->first || q >= c->first + c->count ||
		    p < c->first || p >= c->first + c->count)
			continue;
		if (p == q)
			return c->first;
		if (p == c->first)
			return q;
		return p;
	}
	return p;
}

static const uint64_t *sort_start;

static int
by_start(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (sort_start[a] != sort_start[b])
		return sort_start[a] < sort_start[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Task t's columns on plane p, and the first. */
static size_t
on_plane(const struct fabmodel *f, size_t t, uint32_t p, size_t *first)
{
	size_t k, n = 0;

	for (k = f->yoff[t]; k < f->yoff[t + 1]; k++)
		if (f->yplane[k] == p && n++ == 0)
			*first = k;
	return n;
}

/* The slots of transfers on oversubscribed eps planes, in start order:
 * each takes the one free longest, as fabgreedy does (in a window,
 * after the fixed transfers' latest ends, as their releases have it). */
static int
slots_of(const struct fabmodel *f, const uint64_t *start,
    const uint32_t *plane, uint32_t *slot)
{
	uint32_t *ord;
	uint64_t *freeat;
	size_t t, n = 0, i, k = 0, ns, s, best;

	ord = mem_array(f->n + 1, sizeof(*ord));
	freeat = mem_calloc(f->nslots + 1, sizeof(*freeat));
	if (ord == NULL || freeat == NULL) {
		free(ord);
		free(freeat);
		return -1;
	}
	if (f->slot0 != NULL)
		memcpy(freeat, f->slot0, f->nslots * sizeof(*freeat));
	for (t = 0; t < f->n; t++) {
		slot[t] = NONE;
		if (f->yoff[t + 1] > f->yoff[t] &&
		    on_plane(f, t, plane[t], &k) > 0 && f->yslot[k] != NONE)
			ord[n++] = (uint32_t)t;
	}
	sort_start = start;
	qsort(ord, n, sizeof(*ord), by_start);
	for (i = 0; i < n; i++) {
		t = ord[i];
		ns = on_plane(f, t, plane[t], &k);
		for (s = best = 0; s < ns; s++)
			if (freeat[f->sbase[plane[t]] + s] <
			    freeat[f->sbase[plane[t]] + best])
				best = s;
		slot[t] = (uint32_t)best;
		freeat[f->sbase[plane[t]] + best] = start[t] + f->ydur[k];
	}
	free(ord);
	free(freeat);
	return 0;
}

int
fabmodel_encode(const struct fabmodel *f, const uint64_t *start,
    const uint32_t *plane, uint64_t makespan, double *x)
{
	uint32_t *pl, *slot;
	size_t t, k;

	pl = mem_array(f->n + 1, sizeof(*pl));
	slot = mem_array(f->n + 1, sizeof(*slot));
	if (pl == NULL || slot == NULL) {
		free(pl);
		free(slot);
		return -1;
	}
	for (t = 0; t < f->n; t++)
		pl[t] = f->yoff[t + 1] > f->yoff[t] ?
		    swapped(f, plane, plane[t]) : NONE;
	if (slots_of(f, start, pl, slot) != 0) {
		free(pl);
		free(slot);
		return -1;
	}
	memset(x, 0, f->m.ncol * sizeof(*x));
	for (t = 0; t < f->n; t++) {
		if (f->s[t] < 0)
			continue;
		x[f->s[t]] = T(f, start[t]);
		for (k = f->yoff[t]; k < f->yoff[t + 1]; k++)
			x[f->y[k]] = pl[t] == f->yplane[k] &&
			    (f->yslot[k] == NONE || f->yslot[k] == slot[t]);
	}
	x[f->c] = T(f, makespan);
	for (k = 0; k < f->npair; k++)
		x[f->po[k]] = start[f->pi[k]] <= start[f->pj[k]];
	free(pl);
	free(slot);
	return 0;
}

void
fabmodel_decode(const struct fabmodel *f, const double *x, uint32_t *plane,
    uint64_t *key)
{
	size_t t, k;
	double v;

	for (t = 0; t < f->n; t++) {
		if (f->s[t] < 0)
			continue;
		v = floor(x[f->s[t]] * (double)f->unit + 0.5);
		key[t] = v > 0 ? (uint64_t)v : 0;
		plane[t] = NONE;
		for (k = f->yoff[t]; k < f->yoff[t + 1]; k++)
			if (plane[t] == NONE || x[f->y[k]] > 0.5)
				plane[t] = f->yplane[k];
	}
}
