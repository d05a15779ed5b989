/* fabmodel_io: solutions of fabmodel's model, from a plan and back. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "records/mem.h"
#include "solve/fabbuild.h"
#include "solve/fabmodel.h"

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

