/* fabwin: a window of a plan in fabmodel's model: what the fixed
 * transfers that started before it hold delays its transfers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/planes.h"
#include "records/mem.h"
#include "solve/fabbuild.h"
#include "solve/fabcand.h"
#include "solve/fabmodel.h"
#include "solve/milp.h"

struct fixed {			/* what a window's fixed transfers hold */
	uint64_t	*side;		/* per side: free from */
	uint64_t	*pend;		/* per port: its last use's end */
	uint32_t	*partner;	/* and partner, or NONE */
	uint64_t	*slot;		/* per slot: latest ends first */
};

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
	if (fabbuild_slots(b, p) > 0)
		slot_end(x->slot + b->f->sbase[p], fabbuild_slots(b, p), e);
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
		if (need && fabbuild_row(b, n, MILP_GE, 0) != 0)
			return -1;
	}
	return 0;
}

int
fabbuild_releases(struct build *b)
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
		fabbuild_oom(b, "releases");
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
