/*
 * rotorsched, traffic-matrix schedules: the iteration's traffic matrix,
 * made symmetric for duplex circuits, decomposed into weighted
 * matchings (Birkhoff-von Neumann style) and dealt to the switches
 * longest first, each followed by tau of reconfiguration.
 */
#include <stdint.h>
#include <stdlib.h>

#include "dag.h"
#include "dagin.h"
#include "die.h"
#include "net.h"
#include "sched.h"

#include "rotorsched.h"

#define PS	RS_PS

struct edge {
	uint64_t	w;
	uint32_t	a, b;
	int		pick;
};

struct slotm {
	uint64_t	dur;
	size_t		off, n;		/* into the chosen edges */
};

static int
cmp_edge(const void *x, const void *y)
{
	const struct edge *p = x, *q = y;

	if (p->w != q->w)
		return p->w > q->w ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

static uint64_t
ps_for(uint64_t bytes, uint64_t bps)
{
	unsigned __int128 t = (unsigned __int128)bytes * 8 * PS;

	t = (t + bps - 1) / bps;
	if (t >= SCHED_FOREVER)
		die("%llu bytes at %llu bit/s take more than 2^64 ps",
		    (unsigned long long)bytes, (unsigned long long)bps);
	return (uint64_t)t;
}

/*
 * Pick a maximal matching, heaviest edges first; returns the lightest.
 * used[] is all 0 on entry and on return: the work is the edges'.
 */
static uint64_t
pick_matching(struct edge *e, size_t live, uint8_t *used)
{
	uint64_t min = UINT64_MAX;
	size_t i;

	qsort(e, live, sizeof(*e), cmp_edge);
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
 * Decompose W into weighted matchings: a matching on the support of W
 * lasts as long as its lightest edge needs at rate B; subtract; repeat
 * until W is empty.  Every round empties at least one edge.
 */
static size_t
decompose(struct edge *e, size_t live, const struct net *n,
    struct slotm **out, struct edge **chosen)
{
	uint8_t *used = xcalloc(n->gpus, 1);
	size_t ns = 0, cap = 0, ccap = 0, nch = 0, i, k;
	struct slotm *sl = NULL;
	struct edge *ch = NULL;
	uint64_t min;

	while (live > 0) {
		min = pick_matching(e, live, used);
		xgrow(&sl, &cap, ns + 1, sizeof(*sl));
		sl[ns] = (struct slotm){ ps_for(min, n->bandwidth_bps), nch,
		    0 };
		for (i = k = 0; i < live; i++) {
			if (e[i].pick) {
				xgrow(&ch, &ccap, nch + 1, sizeof(*ch));
				ch[nch++] = e[i];
				e[i].w -= min;
			}
			if (e[i].w > 0)
				e[k++] = e[i];
		}
		sl[ns].n = nch - sl[ns].off;
		live = k;
		ns++;
	}
	free(used);
	*out = sl;
	*chosen = ch;
	return ns;
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
static size_t
traffic_edges(const struct dag *d, struct edge **out)
{
	struct pair *x;
	size_t nx = 0, ne = 0, i, j;
	struct edge *e;

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
		e[ne++] = (struct edge){ ab > ba ? ab : ba, x[i].a, x[i].b,
		    0 };
	}
	free(x);
	*out = e;
	return ne;
}

/* Deal the matchings to the switches longest first, least load first. */
void
bvn(struct schedule *sc, const struct dagin *in)
{
	const struct net *n = &in->net;
	struct slotm *sl;
	struct edge *e, *ch;
	uint64_t *load, start;
	uint32_t *order, s, best;
	size_t ne, ns, i, j, k;

	if ((ne = traffic_edges(&in->dag, &e)) == 0)
		die("stdin: no transfers: there is no traffic to schedule");
	ns = decompose(e, ne, n, &sl, &ch);
	order = xcalloc(ns, sizeof(*order));
	load = xcalloc(n->switches, sizeof(*load));
	for (i = 0; i < ns; i++)
		order[i] = (uint32_t)i;
	for (i = 1; i < ns; i++)	/* stable: longest first */
		for (j = i; j > 0 && sl[order[j]].dur > sl[order[j - 1]].dur;
		    j--) {
			uint32_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < ns; i++) {
		const struct slotm *m = &sl[order[i]];

		for (best = 0, s = 1; s < n->switches; s++)
			if (load[s] < load[best])
				best = s;
		start = load[best];
		if (__builtin_add_overflow(start, m->dur, &load[best]) ||
		    __builtin_add_overflow(load[best], n->reconfig_ps,
		    &load[best]) || load[best] == SCHED_FOREVER)
			die("the period passes 2^64 - 1 ps on switch %u", best);
		for (k = m->off; k < m->off + m->n; k++)
			if (sched_add_circuit(sc, best, ch[k].a, ch[k].b, start,
			    start + m->dur) != 0)
				die("out of memory");
	}
	sc->periodic = 1;
	for (s = 0; s < n->switches; s++)
		if (load[s] > sc->period)
			sc->period = load[s];
	free(order);
	free(load);
	free(sl);
	free(ch);
	free(e);
}
