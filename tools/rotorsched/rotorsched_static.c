/*
 * rotorsched -m static: one configuration of every OCS for the whole
 * step (TopoOpt, DELTA, a TPU slice), chosen from the DAG's traffic,
 * and the transfers it leaves without a circuit relayed over circuits.
 *
 * A unit (the flat net's switches; on a tiered fabric a rail's or an
 * uplink's ocs planes) is a set of owners (GPUs; a rail's or an
 * uplink's groups) and nv matchings among them: one per switch, or per
 * plane and port of an owner on it (an uplink's u).  The choice:
 *   1. a path through every owner with traffic, on matchings 0 and 1
 *      alternately (nv >= 2): the heaviest pairs first as a linear
 *      forest (each owner at most two, no cycle), its pieces then
 *      joined end to end in the order of their least owner.  The unit
 *      is then connected, and the rings of the collectives, whose pairs
 *      are the heaviest, lie in it where they fit;
 *   2. each matching in turn filled greedily, the pairs taken in the
 *      order of their bytes over one more than the circuits they have
 *      (the most bytes a circuit, were they given one more), so that a
 *      heavy pair gets a second circuit before a light one its first.
 * A transfer whose owners have no circuit goes over the fewest
 * circuits that join them (breadth first, matchings in order), relayed
 * at each owner on the way: by the GPU of the same local rank as its
 * source, a whole transfer a hop (model/relay).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/fabric.h"
#include "model/net.h"
#include "model/planes.h"
#include "model/relay.h"
#include "model/sched.h"
#include "records/die.h"
#include "rotorsched.h"
#include "rotorsched_static.h"

#define NONE	UINT32_MAX

/* ---- 1: the path through every owner with traffic ---- */

static uint32_t
find(uint32_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/* The linear forest of the heaviest pairs: nb[2o], nb[2o+1]. */
static void
forest(const struct tm_edge *e, size_t ne, uint32_t owners, uint32_t *nb)
{
	uint32_t *up = xcalloc(owners, sizeof(*up)), o, ra, rb;
	size_t i;

	for (o = 0; o < owners; o++) {
		up[o] = o;
		nb[2 * o] = nb[2 * o + 1] = NONE;
	}
	for (i = 0; i < ne; i++) {
		uint32_t a = e[i].a, b = e[i].b;

		if (nb[2 * a + 1] != NONE || nb[2 * b + 1] != NONE ||
		    (ra = find(up, a)) == (rb = find(up, b)))
			continue;
		up[ra] = rb;
		nb[2 * a + (nb[2 * a] != NONE)] = b;
		nb[2 * b + (nb[2 * b] != NONE)] = a;
	}
	free(up);
}

static void
join(struct st_unit *u, uint32_t a, uint32_t b, size_t k)
{
	uint32_t *m = &u->mate[(size_t)(k % 2) * u->owners];

	m[a] = b;
	m[b] = a;
}

/* The forest's paths end to end, on matchings 0 and 1 alternately. */
static void
skeleton(struct st_unit *u, const struct tm_edge *e, size_t ne)
{
	uint32_t *nb = xcalloc((size_t)u->owners * 2, sizeof(*nb));
	uint8_t *seen = xcalloc(u->owners, 1), *live = xcalloc(u->owners, 1);
	uint32_t o, at, prev, next, last = NONE;
	size_t i, k = 0;

	for (i = 0; i < ne; i++)
		live[e[i].a] = live[e[i].b] = 1;
	forest(e, ne, u->owners, nb);
	for (o = 0; o < u->owners; o++) {
		if (!live[o] || seen[o] || nb[2 * o + 1] != NONE)
			continue;		/* not a path's end */
		for (prev = NONE, at = o; at != NONE; prev = at, at = next) {
			seen[at] = 1;
			if (last != NONE)
				join(u, last, at, k++);
			last = at;
			next = nb[2 * at] != prev ? nb[2 * at] :
			    nb[2 * at + 1];
		}
	}
	free(nb);
	free(seen);
	free(live);
}

/* ---- 2: the greedy fill ---- */

static const uint32_t *fill_copies;

/* By bytes over one more circuit, heaviest first; then as tm_cmp_edge. */
static int
cmp_share(const void *x, const void *y)
{
	const struct tm_edge *p = x, *q = y;
	unsigned __int128 l = (unsigned __int128)p->w *
	    (fill_copies[q->pick] + 1);
	unsigned __int128 r = (unsigned __int128)q->w *
	    (fill_copies[p->pick] + 1);

	if (l != r)
		return l > r ? -1 : 1;
	return tm_cmp_edge(x, y);
}

/* The circuits each pair has: e[i].pick is i, copies[i] its count. */
static void
count_copies(const struct st_unit *u, const struct tm_edge *e, size_t ne,
    uint32_t *copies)
{
	uint32_t v;
	size_t i;

	for (i = 0; i < ne; i++) {
		copies[e[i].pick] = 0;
		for (v = 0; v < u->nv; v++)
			copies[e[i].pick] += u->mate[(size_t)v * u->owners +
			    e[i].a] == e[i].b;
	}
}

static void
fill(struct st_unit *u, struct tm_edge *e, size_t ne)
{
	uint32_t *copies = xcalloc(ne + 1, sizeof(*copies)), v;
	size_t i;

	for (i = 0; i < ne; i++)
		e[i].pick = (int)i;
	count_copies(u, e, ne, copies);
	fill_copies = copies;
	for (v = 0; v < u->nv; v++) {
		uint32_t *m = &u->mate[(size_t)v * u->owners];

		qsort(e, ne, sizeof(*e), cmp_share);
		for (i = 0; i < ne; i++) {
			if (m[e[i].a] != NONE || m[e[i].b] != NONE ||
			    (e[i].w == 0 && copies[e[i].pick] > 0))
				continue;
			m[e[i].a] = e[i].b;
			m[e[i].b] = e[i].a;
			copies[e[i].pick]++;
		}
	}
	fill_copies = NULL;
	free(copies);
}

void
st_choose(struct st_unit *u, struct tm_edge *e, size_t ne)
{
	size_t i;

	u->mate = xreallocarray(NULL, (size_t)u->nv * u->owners + 1,
	    sizeof(*u->mate));
	for (i = 0; i < (size_t)u->nv * u->owners; i++)
		u->mate[i] = NONE;
	qsort(e, ne, sizeof(*e), tm_cmp_edge);
	if (u->nv >= 2 && !u->nopath)
		skeleton(u, e, ne);
	fill(u, e, ne);
	qsort(e, ne, sizeof(*e), tm_cmp_edge);
}

/* ---- the relays: fewest circuits, breadth first ---- */

int
st_direct(const struct st_unit *u, uint32_t a, uint32_t b)
{
	uint32_t v;

	for (v = 0; v < u->nv; v++)
		if (u->mate[(size_t)v * u->owners + a] == b)
			return 1;
	return 0;
}

/*
 * The parent of every owner on a breadth-first tree from a, and the
 * matching of the circuit to it (NONE for those it does not reach; a's
 * own parent is a), the matchings tried from v0 on, cyclically.
 */
void
st_tree(const struct st_unit *u, uint32_t a, uint32_t v0, uint32_t *parent,
    uint32_t *pv, uint32_t *queue)
{
	size_t head = 0, tail = 0;
	uint32_t o, x, i, v;

	for (o = 0; o < u->owners; o++)
		parent[o] = pv[o] = NONE;
	parent[a] = a;
	queue[tail++] = a;
	while (head < tail) {
		x = queue[head++];
		for (i = 0; i < u->nv; i++) {
			v = (v0 + i) % u->nv;
			o = u->mate[(size_t)v * u->owners + x];
			if (o == NONE || parent[o] != NONE)
				continue;
			parent[o] = x;
			pv[o] = v;
			queue[tail++] = o;
		}
	}
}

void
st_free(struct st_unit *u)
{
	free(u->mate);
	u->mate = NULL;
}
