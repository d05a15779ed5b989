/* fabmodel: Flux's problem on a tiered fabric as a mixed-integer model:
 * its columns, precedence and bounds, and the entry points. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/net.h"
#include "model/planes.h"
#include "records/mem.h"
#include "solve/fabbuild.h"
#include "solve/fabcand.h"
#include "solve/fabmodel.h"
#include "solve/milp.h"

int
fabbuild_fail(struct build *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int
fabbuild_oom(struct build *b, const char *what)
{
	return fabbuild_fail(b, "out of memory (the exact model's %s)", what);
}

int
fabbuild_row(struct build *b, size_t n, int sense, double rhs)
{
	if (milp_row(&b->f->m, n, b->rc, b->rv, sense, rhs) != 0)
		return fabbuild_oom(b, "rows");
	return 0;
}

/* How many flows at once an oversubscribed eps plane p runs; 0: no
 * limit (as many as its ports). */
uint32_t
fabbuild_slots(const struct build *b, size_t p)
{
	uint32_t n = b->cx.nslot[p];

	return n < b->pl->p[p].ports ? n : 0;
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

/* What the model takes: the planners' planes, not too many tasks. */
static int
check(struct build *b)
{
	const struct planes *pl = b->pl;
	size_t p;

	if (b->d->n > FABMODEL_MAX_TASKS)
		return fabbuild_fail(b, "the exact model on planes takes %u "
		    "tasks at most; the DAG has %zu", FABMODEL_MAX_TASKS,
		    b->d->n);
	if (fabcand_init(&b->cx, pl, b->err, b->errlen) != 0)
		return -1;
	for (p = 0; p < pl->n; p++)
		if (pl->p[p].kind == PLANE_OCS && pl->p[p].model != NET_PORT)
			return fabbuild_fail(b, "plane %zu (description %u): "
			    "the exact model on planes takes the port model "
			    "only; the greedy plans the switch model", p,
			    pl->p[p].desc);
	b->f->np = pl->n;
	if ((b->f->sbase = mem_array(pl->n + 1, sizeof(*b->f->sbase))) == NULL)
		return fabbuild_oom(b, "slots");
	for (p = 0; p < pl->n; p++) {
		b->f->sbase[p] = b->f->nslots;
		b->f->nslots += fabbuild_slots(b, p);
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
	uint32_t sl;

	for (i = 0; i < n; i++) {
		sl = fabbuild_slots(b, buf[i]);
		ns = sl > 0 ? sl : 1;
		if (grow(b, cap, *k + ns) != 0)
			return fabbuild_oom(b, "planes");
		for (s = 0; s < ns; s++, (*k)++) {
			f->yplane[*k] = buf[i];
			f->yslot[*k] = sl > 0 ? (uint32_t)s : NONE;
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
		return fabbuild_oom(b, "planes");
	for (t = 0; t < d->n; t++) {
		f->yoff[t] = k;
		if (d->t[t].kind == DAG_COMPUTE || !is_free(b, t))
			continue;
		n = planes_joining(b->pl, d->t[t].gpu, d->t[t].dst, buf,
		    b->pl->n);
		if (n == 0) {
			free(buf);
			return fabbuild_fail(b, "transfer %zu: no plane joins "
			    "GPUs %u and %u: route the DAG for this fabric "
			    "(dagbuild --fabric)", t, d->t[t].gpu, d->t[t].dst);
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
		return fabbuild_oom(b, "planes");
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
					return fabbuild_oom(b, "cuts");
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
		return fabbuild_oom(b, "columns");
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
			return fabbuild_oom(b, "columns");
	}
	if ((f->c = (int)milp_col(&f->m, T(f, lb < horizon ? lb : horizon), h,
	    1, 0)) < 0)
		return fabbuild_oom(b, "columns");
	for (t = 0; t < d->n; t++) {
		int one = f->yoff[t + 1] - f->yoff[t] == 1;

		for (k = f->yoff[t]; k < f->yoff[t + 1]; k++) {
			f->y[k] = (int)milp_col(&f->m, one, 1, 0, !one);
			if (f->y[k] < 0)
				return fabbuild_oom(b, "columns");
			f->nbin += !one;
		}
	}
	if (b->w != NULL)
		return 0;	/* a window's planes are not alike */
	if ((owner = mem_calloc(b->pl->n + 1, sizeof(*owner))) == NULL)
		return fabbuild_oom(b, "cuts");
	rc = symmetry(b, owner);
	free(owner);
	return rc;
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
	return fabbuild_row(b, n, MILP_GE, lag);
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
			if (fabbuild_row(b, n, MILP_EQ, 1) != 0)
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
			if (fabbuild_row(b, n, MILP_GE, T(f,
			    sat_add(d->t[t].amount, b->tail[t]))) != 0)
				return -1;
			continue;
		}
		for (k = f->yoff[t]; k < f->yoff[t + 1]; k++) {
			b->rc[n] = f->y[k];
			b->rv[n++] = -T(f, b->cand[k].dur + b->cand[k].lat);
		}
		if (fabbuild_row(b, n, MILP_GE, T(f, b->tail[t])) != 0)
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
		return fabbuild_oom(b, "order");
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
		return fabbuild_oom(b, "bounds");
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
		return fabbuild_oom(b, "bounds");
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

/* The plane binaries alone within max_bin, before any other work. */
static int
planes_fit(struct build *b, size_t max_bin)
{
	const struct fabmodel *f = b->f;
	size_t t, n, nb = 0;

	for (t = 0; t < b->d->n; t++)
		if ((n = f->yoff[t + 1] - f->yoff[t]) > 1)
			nb += n;
	if (nb <= max_bin)
		return 0;
	return fabbuild_fail(b, "the exact model on planes has more than %zu "
	    "binaries: %zu for the planes of its transfers alone; raise "
	    "--max-binaries, or plan by the greedy", max_bin, nb);
}

static int
build(struct build *b, uint64_t horizon, uint64_t lb, size_t max_bin)
{
	if (check(b) != 0 || candidates(b) != 0 ||
	    planes_fit(b, max_bin) != 0 || chain(b) != 0 || window(b) != 0 ||
	    columns(b, horizon, lb) != 0)
		return -1;
	b->rc = mem_array(2 * b->maxc + 8, sizeof(*b->rc));
	b->rv = mem_array(2 * b->maxc + 8, sizeof(*b->rv));
	if (b->rc == NULL || b->rv == NULL)
		return fabbuild_oom(b, "rows");
	if (precedence(b) != 0 || fabbuild_reach(b) != 0 ||
	    fabbuild_resources(b) != 0 ||
	    (b->w != NULL && fabbuild_releases(b) != 0) ||
	    fabbuild_pairs(b) != 0)
		return -1;
	return fabbuild_conflicts(b, max_bin);
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
