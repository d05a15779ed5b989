/*
 * wload: wsearch's per-GPU loads, kept as transfers are placed, and a
 * node's lower bound from them (wstate.h).
 */
#include <stdint.h>

#include "solve/fmodel.h"
#include "solve/wstate.h"

/* Does transfer j count for GPU g in direction d? */
static int
counts(const struct wtask *t, uint32_t g, size_t d)
{
	return d == 2 ? (t->a == g || t->b == g) : d == 1 ? t->a == g :
	    t->b == g;
}

/* The earliest ready time and the shortest path after, again. */
static void
rescan(struct ws *w, uint32_t g, size_t d)
{
	struct gl *l = &w->gl[g];
	uint64_t er = INF, ea = INF, mv = INF, ma = INF;
	size_t k;

	for (k = 0; k < w->ngx[g]; k++) {
		uint32_t j = w->gx[g * w->n + k];

		if (w->placed >> j & 1 || !counts(&w->t[j], g, d))
			continue;
		if (w->rdy[j] < er) {
			er = w->rdy[j];
			ea = j;
		}
		if (w->t[j].after < mv) {
			mv = w->t[j].after;
			ma = j;
		}
	}
	if (l->er[d] != er)
		set(w, &l->er[d], er);
	if (l->ea[d] != ea)
		set(w, &l->ea[d], ea);
	if (l->mv[d] != mv)
		set(w, &l->mv[d], mv);
	if (l->ma[d] != ma)
		set(w, &l->ma[d], ma);
}

/* Transfer j (unplaced) is ready later: the GPUs it counts for. */
void
ws_later(struct ws *w, uint32_t j)
{
	const struct wtask *t = &w->t[j];
	size_t d;

	for (d = 0; d < 3; d++) {
		if (d != 0 && w->gl[t->a].ea[d] == j)
			rescan(w, t->a, d);
		if (d != 1 && w->gl[t->b].ea[d] == j)
			rescan(w, t->b, d);
	}
}

/* Transfer j is placed: the work of its two GPUs. */
void
ws_unload(struct ws *w, uint32_t j)
{
	const struct wtask *t = &w->t[j];
	size_t e, d;

	for (e = 0; e < 2; e++) {
		uint32_t g = e == 0 ? t->a : t->b, o = e == 0 ? t->b : t->a;
		uint64_t *x = &w->wt[((size_t)g * w->ng + o) * 2];
		uint64_t snd = e == 0, old = max64(x[0], x[1]);
		struct gl *l = &w->gl[g];

		set(w, &x[snd], x[snd] - t->len);
		set(w, &l->L[snd], l->L[snd] - t->len);
		set(w, &l->L[2], l->L[2] - old + max64(x[0], x[1]));
		if (x[snd] == 0) {
			set(w, &l->P[snd][o >> 6], l->P[snd][o >> 6] &
			    ~(1ULL << (o & 63)));
			set(w, &l->np[snd], l->np[snd] - 1);
		}
		if (x[0] == 0 && x[1] == 0) {
			set(w, &l->P[2][o >> 6], l->P[2][o >> 6] &
			    ~(1ULL << (o & 63)));
			set(w, &l->np[2], l->np[2] - 1);
		}
		for (d = 0; d < 3; d++)
			if ((d == 2 || d == snd) &&
			    (l->ea[d] == j || l->ma[d] == j))
				rescan(w, g, d);
	}
}

/* The loads at the root. */
void
ws_load_init(struct ws *w)
{
	size_t i, d;
	uint32_t g;

	for (i = 0; i < w->n; i++) {
		const struct wtask *t = &w->t[i];
		uint64_t *x, *y;

		if (!t->xfer)
			continue;
		x = &w->wt[((size_t)t->a * w->ng + t->b) * 2];
		y = &w->wt[((size_t)t->b * w->ng + t->a) * 2];
		w->gl[t->a].L[2] += max64(x[0], x[1] + t->len) -
		    max64(x[0], x[1]);
		x[1] += t->len;
		w->gl[t->b].L[2] += max64(y[0] + t->len, y[1]) -
		    max64(y[0], y[1]);
		y[0] += t->len;
		w->gl[t->a].L[1] += t->len;
		w->gl[t->b].L[0] += t->len;
		w->gl[t->a].P[1][t->b >> 6] |= 1ULL << (t->b & 63);
		w->gl[t->b].P[0][t->a >> 6] |= 1ULL << (t->a & 63);
		w->gl[t->a].P[2][t->b >> 6] |= 1ULL << (t->b & 63);
		w->gl[t->b].P[2][t->a >> 6] |= 1ULL << (t->a & 63);
	}
	for (g = 0; g < w->ng; g++)
		for (d = 0; d < 3; d++) {
			const uint64_t *P = w->gl[g].P[d];

			w->gl[g].np[d] = (uint64_t)__builtin_popcountll(P[0]) +
			    (uint64_t)__builtin_popcountll(P[1]);
			w->gl[g].er[d] = w->gl[g].mv[d] = INF;
			w->gl[g].ea[d] = w->gl[g].ma[d] = INF;
			rescan(w, g, d);
		}
}

/*
 * GPU g in direction d: the work left on its ports from when each is
 * free, shared over the m that are free first (for the m that gives
 * the least), plus tau for each partner it needs beyond one per port
 * (a port's second circuit needs a change after its first), then the
 * shortest path after.  Both ways (d 2) a circuit is busy at least for
 * the larger of its two directions, so a partner weighs the larger of
 * what goes to it and what comes from it.  A port whose partner is not
 * needed changes before any use.
 */
static uint64_t
load_dir(struct ws *w, uint32_t g, size_t d)
{
	const struct gl *l = &w->gl[g];
	uint64_t fs[FMODEL_MAX_SWITCHES], sum, f, best = INF, E;
	size_t np, m;
	uint32_t s;

	if (l->L[d] == 0)
		return 0;
	E = max64(l->er[d], w->cursor);
	np = l->np[d];
	for (s = 0; s < w->S; s++) {
		const struct wport *x = port(w, s, g);

		f = E;
		if (x->used && x->partner < w->ng &&
		    (l->P[d][x->partner >> 6] >> (x->partner & 63) & 1))
			f = max64(f, d == 2 ? min64(x->tx, x->rx) :
			    d ? x->tx : x->rx);
		else if (x->used)
			f = max64(f, x->last + w->tau);
		for (m = s; m > 0 && fs[m - 1] > f; m--)
			fs[m] = fs[m - 1];
		fs[m] = f;
	}
	/* The work may go to the m ports free first, for any m. */
	for (m = 1, sum = 0; m <= w->S; m++) {
		sum += fs[m - 1];
		f = sum + l->L[d] + (np > m ? (np - m) * w->tau : 0);
		/* two switches are the common case: no division */
		f = m == 1 ? f : m == 2 ? (f + 1) >> 1 : (f + m - 1) / m;
		best = min64(best, f);
	}
	return best + l->mv[d];
}

static uint64_t
load_gpu(struct ws *w, uint32_t g)
{
	if (w->o->flags & WSEARCH_NOLOAD)
		return 0;
	return max64(load_dir(w, g, 2), max64(load_dir(w, g, 1),
	    load_dir(w, g, 0)));
}

/*
 * The lower bound of the node (wsearch.h); the parent's bound holds for
 * the child too.
 */
uint64_t
ws_node_bound(struct ws *w, uint64_t parent)
{
	uint64_t lb = max64(parent, max64(w->floor, w->maxend));
	size_t i;
	uint32_t g;

	lb = max64(lb, w->R);
	for (i = 0; i < w->nbyq; i++)
		if (!(w->placed >> w->byq[i] & 1)) {
			lb = max64(lb, w->cursor + w->t[w->byq[i]].q);
			break;
		}
	for (g = 0; g < w->ng; g++)
		lb = max64(lb, load_gpu(w, g));
	return lb;
}
