/* fabpair: the transfers of fabmodel's model that may share a resource
 * (a port's side, a group link's side, an eps slot, an ocs port), their
 * order binaries and big-M rows. */
#include <stdint.h>
#include <stdlib.h>

#include "model/dag.h"
#include "model/planes.h"
#include "records/mem.h"
#include "solve/fabbuild.h"
#include "solve/fabcand.h"
#include "solve/fabmodel.h"
#include "solve/milp.h"

#define REACH_WORDS	((size_t)1 << 23)	/* 64 MiB of reachability */

/* Which transfers reach each task through dependencies and GPU order. */
int
fabbuild_reach(struct build *b)
{
	const struct dag *d = b->d;
	size_t t, k, w;
	const uint32_t *dep;

	if ((b->xi = mem_array(d->n + 1, sizeof(*b->xi))) == NULL)
		return fabbuild_oom(b, "order");
	for (t = 0; t < d->n; t++)
		b->xi[t] = d->t[t].kind == DAG_COMPUTE || !is_free(b, t) ?
		    NONE : (uint32_t)b->nx++;
	b->words = (b->nx + 63) / 64;
	if (b->words > REACH_WORDS / (d->n + 1))
		return fabbuild_fail(b, "the exact model on planes of %zu "
		    "tasks and %zu transfers: their order would take more "
		    "than %zu MiB", d->n, b->nx, REACH_WORDS * 8 >> 20);
	if ((b->reach = mem_calloc(d->n * b->words + 1,
	    sizeof(*b->reach))) == NULL)
		return fabbuild_oom(b, "order");
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
		return fabbuild_oom(b, "resources");
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
int
fabbuild_resources(struct build *b)
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
int
fabbuild_pairs(struct build *b)
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
					return fabbuild_fail(b, "the exact "
					    "model on planes: more than %u "
					    "pairs of transfers share a port "
					    "or link",
					    FABMODEL_MAX_PAIRS);
				if (mem_grow(&b->pe, &cap, b->npe + 1,
				    sizeof(*b->pe)) != 0)
					return fabbuild_oom(b, "pairs");
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
	return fabbuild_row(b, n, MILP_GE, rhs);
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
		return fabbuild_oom(b, "pairs");
	c = f->npair;
	if (mem_grow(&f->pj, &c, f->npair + 1, sizeof(*f->pj)) != 0)
		return fabbuild_oom(b, "pairs");
	c = f->npair;
	if (mem_grow(&f->po, &c, f->npair + 1, sizeof(*f->po)) != 0)
		return fabbuild_oom(b, "pairs");
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

int
fabbuild_conflicts(struct build *b, size_t max_bin)
{
	size_t g0, g1;

	for (g0 = 0; g0 < b->npe; g0 = g1) {
		for (g1 = g0; g1 < b->npe && b->pe[g1].i == b->pe[g0].i &&
		    b->pe[g1].j == b->pe[g0].j; g1++)
			;
		if (pair_rows(b, g0, g1) != 0)
			return -1;
		if (b->f->nbin > max_bin)
			return fabbuild_fail(b, "the exact model on planes has "
			    "more than %zu binaries (a plane per transfer, an "
			    "order per pair that shares a port or link): %zu "
			    "transfers, %zu pairs so far; raise "
			    "--max-binaries, or plan by the greedy", max_bin,
			    b->nx, b->f->npair);
	}
	return 0;
}
