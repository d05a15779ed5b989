/*
 * rotorsched, traffic-matrix schedules.  What every traffic-matrix
 * scheduler shares: the iteration's traffic matrix, made symmetric for
 * duplex circuits (tm_edges), a circuit for the pairs of no byte
 * (tm_empty_pairs), and the deal of a list of configurations to the
 * switches, longest first, each followed by tau of reconfiguration
 * (tm_deal).  And BvN's decomposition into weighted matchings
 * (Birkhoff-von Neumann style).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/die.h"
#include "records/wclock.h"

#include "rotorsched.h"

#define PS	RS_PS

int
tm_cmp_edge(const void *x, const void *y)
{
	const struct tm_edge *p = x, *q = y;

	if (p->w != q->w)
		return p->w > q->w ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* The ps bytes take at bps, rounded up, exact whatever its size. */
static unsigned __int128
ps_exact(uint64_t bytes, uint64_t bps)
{
	return ((unsigned __int128)bytes * 8 * PS + bps - 1) / bps;
}

uint64_t
tm_ps_for(uint64_t bytes, uint64_t bps)
{
	unsigned __int128 t = ps_exact(bytes, bps);

	if (t >= SCHED_FOREVER)
		die("%llu bytes at %llu bit/s take more than 2^64 ps",
		    (unsigned long long)bytes, (unsigned long long)bps);
	return (uint64_t)t;
}

int
tm_late(double deadline)
{
	return deadline > 0 && wclock_now() >= deadline;
}

/*
 * Pick a maximal matching of e[0..live), sorted heaviest first; returns
 * the lightest picked.  used[] is all 0 on entry and on return.
 */
static uint64_t
pick_matching(struct tm_edge *e, size_t live, uint8_t *used)
{
	uint64_t min = UINT64_MAX;
	size_t i;

	for (i = 0; i < live; i++) {
		e[i].pick = !used[e[i].a] && !used[e[i].b];
		if (!e[i].pick)
			continue;
		used[e[i].a] = used[e[i].b] = 1;
		if (e[i].w < min)
			min = e[i].w;
	}
	for (i = 0; i < live; i++)
		used[e[i].a] = used[e[i].b] = 0;
	return min;
}

/*
 * Take min off the picked edges and drop those emptied.  The picked
 * edges left all lost the same bytes, so they keep their order among
 * themselves, and the others theirs: e stays sorted as the merge of the
 * two (tmp has room for live).  Returns the edges left.
 */
static size_t
take(struct tm_edge *e, size_t live, uint64_t min, struct tm_edge *tmp)
{
	struct tm_edge *a;
	size_t i, na = 0, nb = 0, ia = 0, ib = 0;

	for (i = 0; i < live; i++) {
		if (!e[i].pick) {
			e[na++] = e[i];
			continue;
		}
		e[i].w -= min;
		e[i].pick = 0;
		if (e[i].w > 0)
			tmp[nb++] = e[i];
	}
	a = memmove(tmp + nb, e, na * sizeof(*e));	/* after the picked */
	for (i = 0; ia < na || ib < nb; i++)
		e[i] = ib == nb || (ia < na &&
		    tm_cmp_edge(&a[ia], &tmp[ib]) < 0) ? a[ia++] : tmp[ib++];
	return na + nb;
}

/*
 * Decompose W into weighted matchings: a matching on the support of W
 * lasts as long as its lightest edge needs at rate B; subtract; repeat
 * until W is empty.  Every round empties at least one edge.  Past the
 * deadline, the edges left go to tm_rest().
 */
static void
decompose(struct tm_edge *e, size_t live, const struct net *n,
    struct tm_plan *pl, double deadline)
{
	uint8_t *used = xcalloc(n->gpus, 1);
	struct tm_edge *tmp = xreallocarray(NULL, live ? live : 1,
	    sizeof(*tmp));
	uint64_t min;
	size_t i;

	qsort(e, live, sizeof(*e), tm_cmp_edge);
	while (live > 0 && !tm_late(deadline)) {
		min = pick_matching(e, live, used);
		tm_config(pl, tm_ps_for(min, n->bandwidth_bps));
		for (i = 0; i < live; i++)
			if (e[i].pick)
				tm_circuit(pl, e[i].a, e[i].b);
		live = take(e, live, min, tmp);
	}
	if (live > 0) {
		warnmsg("-T: the time limit cut BvN after %zu "
		    "configurations; the %zu pairs left go in maximal "
		    "matchings, heaviest first", pl->ncf, live);
		tm_rest(e, live, n, pl);
	}
	free(tmp);
	free(used);
}

void
tm_rest(struct tm_edge *e, size_t live, const struct net *n,
    struct tm_plan *pl)
{
	uint8_t *used = xcalloc(n->gpus, 1);
	size_t i, k;

	qsort(e, live, sizeof(*e), tm_cmp_edge);
	while (live > 0) {
		tm_config(pl, tm_ps_for(e[0].w, n->bandwidth_bps));
		(void)pick_matching(e, live, used);
		for (i = k = 0; i < live; i++) {
			if (e[i].pick)
				tm_circuit(pl, e[i].a, e[i].b);
			else
				e[k++] = e[i];
		}
		live = k;
	}
	free(used);
}

/* The bytes of one transfer between a < b: a to b in ab, b to a in ba. */
struct pair {
	uint32_t	a, b;
	uint64_t	ab, ba;
};

static int
cmp_pair(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/*
 * The pairs with traffic and their weights max(D[a][b], D[b][a]),
 * from the transfers alone: memory follows the tasks, not N^2.
 */
size_t
tm_edges(const struct dag *d, uint64_t bps, struct tm_edge **out)
{
	struct pair *x;
	size_t nx = 0, ne = 0, i, j;
	struct tm_edge *e;

	x = xcalloc(d->n, sizeof(*x));
	for (i = 0; i < d->n; i++) {
		const struct dag_task *t = &d->t[i];
		int up = t->gpu < t->dst;

		if (t->kind != DAG_TRANSFER)
			continue;
		x[nx].a = up ? t->gpu : t->dst;
		x[nx].b = up ? t->dst : t->gpu;
		x[nx].ab = up ? t->amount : 0;
		x[nx++].ba = up ? 0 : t->amount;
	}
	qsort(x, nx, sizeof(*x), cmp_pair);
	e = xcalloc(nx, sizeof(*e));
	for (i = 0; i < nx; i = j) {
		uint64_t ab = 0, ba = 0;

		for (j = i; j < nx && x[j].a == x[i].a && x[j].b == x[i].b;
		    j++)
			if (__builtin_add_overflow(ab, x[j].ab, &ab) ||
			    __builtin_add_overflow(ba, x[j].ba, &ba))
				die("stdin: the bytes between GPUs %u and %u "
				    "exceed 2^64", x[i].a, x[i].b);
		e[ne++] = (struct tm_edge){ ab > ba ? ab : ba, x[i].a, x[i].b,
		    0 };
		/* the pair's own time first: a sum of them names no pair */
		if (ps_exact(e[ne - 1].w, bps) >= SCHED_FOREVER)
			die("stdin: the %llu bytes between GPUs %u and %u take "
			    "more than 2^64 ps at %llu bit/s",
			    (unsigned long long)e[ne - 1].w, x[i].a, x[i].b,
			    (unsigned long long)bps);
	}
	free(x);
	if (ne == 0) {
		free(e);
		die("stdin: no transfers: there is no traffic to schedule");
	}
	*out = e;
	return ne;
}

void
tm_config(struct tm_plan *pl, uint64_t dur)
{
	if (pl->ncf > 0 && pl->cf[pl->ncf - 1].n == 0) {
		pl->cf[pl->ncf - 1].dur = dur;
		return;
	}
	xgrow(&pl->cf, &pl->cfcap, pl->ncf + 1, sizeof(*pl->cf));
	pl->cf[pl->ncf++] = (struct tm_config){ dur, pl->np, 0 };
}

void
tm_circuit(struct tm_plan *pl, uint32_t a, uint32_t b)
{
	xgrow(&pl->p, &pl->pcap, pl->np + 1, sizeof(*pl->p));
	pl->p[pl->np++] = (struct tm_edge){ 0, a, b, 0 };
	pl->cf[pl->ncf - 1].n++;
}

/*
 * A transfer of no byte still waits for a circuit between its GPUs, so
 * a pair whose transfers carry no byte needs one too, but no time of
 * its own: it joins the first configuration in which both its GPUs are
 * free, and those left over share new configurations of 1 ps, maximal
 * matchings taken in the order given.
 */
void
tm_empty_pairs(struct tm_plan *pl, const struct tm_edge *z, size_t nz,
    uint32_t gpus)
{
	struct tm_plan q = { 0 };
	uint8_t *used, *placed;
	size_t i, k, left = nz;

	if (nz == 0)
		return;
	used = xcalloc(gpus, 1);
	placed = xcalloc(nz, 1);
	for (i = 0; i < pl->ncf || left > 0; i++) {
		const struct tm_config *cf = i < pl->ncf ? &pl->cf[i] : NULL;

		if (cf != NULL && cf->n == 0)
			continue;
		tm_config(&q, cf != NULL ? cf->dur : 1);
		for (k = 0; cf != NULL && k < cf->n; k++) {
			const struct tm_edge *c = &pl->p[cf->off + k];

			tm_circuit(&q, c->a, c->b);
			used[c->a] = used[c->b] = 1;
		}
		for (k = 0; k < nz && left > 0; k++) {
			if (placed[k] || used[z[k].a] || used[z[k].b])
				continue;
			tm_circuit(&q, z[k].a, z[k].b);
			used[z[k].a] = used[z[k].b] = placed[k] = 1;
			left--;
		}
		cf = &q.cf[q.ncf - 1];
		for (k = 0; k < cf->n; k++)
			used[q.p[cf->off + k].a] = used[q.p[cf->off + k].b] = 0;
	}
	free(used);
	free(placed);
	free(pl->cf);
	free(pl->p);
	*pl = q;
}

struct rank {
	uint64_t	dur;
	size_t		i;
};

/* Longest first, equal ones in the order made. */
static int
cmp_rank(const void *x, const void *y)
{
	const struct rank *p = x, *q = y;

	if (p->dur != q->dur)
		return p->dur > q->dur ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/* Deal the configurations longest first, each to the least-loaded switch. */
void
tm_deal(struct schedule *sc, const struct net *n, struct tm_plan *pl)
{
	uint64_t *load, start;
	struct rank *order;
	uint32_t s, best;
	size_t no, i, k;

	order = xcalloc(pl->ncf, sizeof(*order));
	load = xcalloc(n->switches, sizeof(*load));
	for (i = no = 0; i < pl->ncf; i++)
		if (pl->cf[i].n > 0)
			order[no++] = (struct rank){ pl->cf[i].dur, i };
	qsort(order, no, sizeof(*order), cmp_rank);
	for (i = 0; i < no; i++) {
		const struct tm_config *m = &pl->cf[order[i].i];

		for (best = 0, s = 1; s < n->switches; s++)
			if (load[s] < load[best])
				best = s;
		start = load[best];
		if (__builtin_add_overflow(start, m->dur, &load[best]) ||
		    __builtin_add_overflow(load[best], n->reconfig_ps,
		    &load[best]) || load[best] == SCHED_FOREVER)
			die("the period passes 2^64 - 1 ps on switch %u", best);
		for (k = m->off; k < m->off + m->n; k++)
			if (sched_add_circuit(sc, best, pl->p[k].a, pl->p[k].b,
			    start, start + m->dur) != 0)
				die("out of memory");
	}
	sc->periodic = 1;
	for (s = 0; s < n->switches; s++)
		if (load[s] > sc->period)
			sc->period = load[s];
	free(order);
	free(load);
	free(pl->cf);
	free(pl->p);
	*pl = (struct tm_plan){ 0 };
}

void
bvn(struct schedule *sc, const struct dagin *in, double deadline)
{
	struct tm_plan pl = { 0 };
	struct tm_edge *e, *z;
	size_t ne, nz, i, k;

	ne = tm_edges(&in->dag, in->net.bandwidth_bps, &e);
	z = xcalloc(ne, sizeof(*z));
	for (i = k = nz = 0; i < ne; i++) {
		if (e[i].w == 0)
			z[nz++] = e[i];
		else
			e[k++] = e[i];
	}
	decompose(e, k, &in->net, &pl, deadline);
	tm_empty_pairs(&pl, z, nz, in->net.gpus);
	free(z);
	free(e);
	tm_deal(sc, &in->net, &pl);
}
