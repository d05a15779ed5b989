/* simideal: the ideal fabric, max-min fair sharing of S*B per port. */
#include <stddef.h>
#include <stdint.h>

#include "sim/simideal.h"
#include "sim/simstate.h"

/*
 * Each flow's two ports and its places in their lists live in s->ifl,
 * by flow index, apart from struct flow; each list entry holds the
 * flow's other port too, so that collecting a component of flows reads
 * the lists of its ports only.
 */
static __attribute__((noinline)) int
port_grow(struct sim *s, struct port *p)
{
	size_t c = p->cap;

	if (sim_grow(s, &p->f, &c, (size_t)p->n + 1, sizeof(*p->f)))
		return -1;
	p->cap = (uint32_t)c;
	return 0;
}

static inline int
port_add(struct sim *s, uint32_t pt, uint32_t fi, uint32_t other, int which)
{
	struct port *p = &s->port[pt];

	if (p->n == p->cap && port_grow(s, p) != 0)
		return -1;
	s->ifl[fi].pos[which] = p->n;
	p->f[p->n++] = (struct pflow){ fi, other };
	return 0;
}

static inline void
port_del(struct sim *s, uint32_t pt, uint32_t fi, int which)
{
	struct port *p = &s->port[pt];
	uint32_t pos = s->ifl[fi].pos[which];
	struct pflow last = p->f[--p->n];

	p->f[pos] = last;
	if (last.fi != fi)
		s->ifl[last.fi].pos[pt < s->net->gpus ? 0 : 1] = pos;
}

/* Room for one component of nf flows in qflows, qleft and qrate. */
static int
qroom(struct sim *s, size_t nf)
{
	size_t c;

	if (nf <= s->qfcap)
		return 0;
	c = s->qfcap;
	if (sim_grow(s, &s->qflows, &c, nf, sizeof(*s->qflows)))
		return -1;
	c = s->qfcap;
	if (sim_grow(s, &s->qleft, &c, nf, sizeof(*s->qleft)))
		return -1;
	c = s->qfcap;
	if (sim_grow(s, &s->qrate, &c, nf, sizeof(*s->qrate)))
		return -1;
	s->qfcap = c;
	return 0;
}

static void
enqueue(struct sim *s, uint32_t pt, size_t *np)
{
	s->port[pt].mark = s->epoch;
	s->port[pt].qidx = (uint32_t)*np;
	s->qports[(*np)++] = pt;
}

/*
 * Collect the ports reachable from the seeds, breadth first, and their
 * flows, each where it is first met: at the first of its two ports in
 * that order, which is the one whose other port is not yet met or comes
 * later.  *maxn gets the most flows on one port.
 */
static size_t
component(struct sim *s, const uint32_t *seed, int nseed, size_t *nf,
    uint32_t *maxn)
{
	size_t np = 0, i, k;
	int j;

	s->epoch++;
	*nf = 0;
	*maxn = 0;
	for (j = 0; j < nseed; j++)
		if (s->port[seed[j]].mark != s->epoch)
			enqueue(s, seed[j], &np);
	for (i = 0; i < np; i++) {
		uint32_t pt = s->qports[i];
		const struct port *p = &s->port[pt];

		if (p->n > *maxn)
			*maxn = p->n;
		if (*nf + p->n > s->qfcap && qroom(s, *nf + p->n) != 0)
			return 0;
		for (k = 0; k < p->n; k++) {
			uint32_t o = p->f[k].other;
			struct qflow *q = &s->qflows[*nf];

			if (s->port[o].mark != s->epoch)
				enqueue(s, o, &np);
			else if (s->port[o].qidx < i)
				continue;	/* met at o */
			q->fi = p->f[k].fi;
			q->pt[0] = pt;
			q->pt[1] = o;
			(*nf)++;
		}
	}
	return np;
}

/*
 * The bottleneck share of this round: the least capacity per flow left
 * among the ports with flows still rising, compared exactly, in one
 * pass.  Every port at the least share so far gets the round's stamp,
 * and a new least takes a new stamp, so that at the end the ports with
 * *stamp are exactly those at the share.
 */
static uint64_t
bottleneck(struct sim *s, size_t np, uint32_t *stamp)
{
	struct port *b = NULL;
	size_t i;

	if (s->wstamp > UINT32_MAX - np - 1) {	/* stamps wrap: start over */
		for (i = 0; i < 2 * (size_t)s->net->gpus; i++)
			s->port[i].min = 0;
		s->wstamp = 0;
	}
	for (i = 0; i < np; i++) {
		struct port *p = &s->port[s->qports[i]];
		u128 x, y;

		if (p->cnt == 0)
			continue;
		if (b != NULL) {
			x = (u128)p->cap_bps * b->cnt;
			y = (u128)b->cap_bps * p->cnt;
			if (x > y)
				continue;
			if (x == y) {
				p->min = *stamp;
				continue;
			}
		}
		b = p;
		p->min = *stamp = ++s->wstamp;
	}
	return b->cap_bps / b->cnt;
}

/* Freeze a flow at share: its ports give it that much, and lose it. */
static void
freeze(struct sim *s, const struct qflow *f, uint64_t share)
{
	int j;

	for (j = 0; j < 2; j++) {
		struct port *q = &s->port[f->pt[j]];

		q->cap_bps -= share < q->cap_bps ? share : q->cap_bps;
		q->cnt--;
	}
}

/*
 * Progressive filling: all rates rise together; the ports that fill
 * first freeze their flows at that share; repeat with the rest.
 */
static void
waterfill(struct sim *s, size_t np, size_t nf)
{
	uint64_t C = (uint64_t)s->net->switches * s->net->bandwidth_bps;
	size_t i, left = nf;

	for (i = 0; i < np; i++) {
		s->port[s->qports[i]].cap_bps = C;
		s->port[s->qports[i]].cnt = s->port[s->qports[i]].n;
	}
	for (i = 0; i < nf; i++)
		s->qleft[i] = (uint32_t)i;
	while (left > 0) {
		uint32_t stamp = 0;
		uint64_t share = bottleneck(s, np, &stamp);

		for (i = 0; i < left;) {
			uint32_t q = s->qleft[i];
			const struct qflow *f = &s->qflows[q];

			if (s->port[f->pt[0]].min != stamp &&
			    s->port[f->pt[1]].min != stamp) {
				i++;
				continue;
			}
			s->qrate[q] = share;
			freeze(s, f, share);
			s->qleft[i] = s->qleft[--left];
		}
	}
}

/*
 * The first round of progressive filling, where every port has all of
 * S*B: the ports with the most flows are the bottleneck.  When each flow
 * is on one of them, that round is the whole of it; else the filling
 * starts over in full.  The rates that changed are set in component
 * order.
 */
static void
share(struct sim *s, size_t np, size_t nf, uint32_t maxn)
{
	uint64_t C = (uint64_t)s->net->switches * s->net->bandwidth_bps;
	uint64_t first = C / maxn;
	size_t i;

	for (i = 0; i < nf; i++) {
		const struct qflow *f = &s->qflows[i];

		if (s->port[f->pt[0]].n != maxn &&
		    s->port[f->pt[1]].n != maxn)
			break;
		s->qrate[i] = first;
	}
	if (i < nf)
		waterfill(s, np, nf);
	for (i = 0; i < nf; i++)
		if (s->qrate[i] != s->fl[s->qflows[i].fi].rate)
			sim_flow_rate(s, s->qflows[i].fi, s->qrate[i]);
}

/* Mark a port whose flows must be re-shared before time moves on. */
static void
dirty(struct sim *s, uint32_t pt)
{
	if (s->port[pt].isdirty)
		return;
	s->port[pt].isdirty = 1;
	s->dirty[s->ndirty++] = pt;
}

/* Re-share every component touched at this instant, all at once. */
void
simideal_rebalance(struct sim *s)
{
	size_t np, nf, i, k = 0;
	uint32_t maxn;

	for (i = 0; i < s->ndirty; i++) {
		s->port[s->dirty[i]].isdirty = 0;
		if (s->port[s->dirty[i]].n > 0)
			s->dirty[k++] = s->dirty[i];
	}
	s->ndirty = 0;
	if (k == 0)
		return;
	np = component(s, s->dirty, (int)k, &nf, &maxn);
	if (s->failed)
		return;
	if (nf > 0)
		share(s, np, nf, maxn);
}

void
simideal_add(struct sim *s, uint32_t fi)
{
	const struct pair *p = &s->pr[s->fl[fi].pair];
	uint32_t pts[2] = { p->src, s->net->gpus + p->dst };
	size_t c = s->iflcap;

	if (fi >= s->iflcap) {
		if (sim_grow(s, &s->ifl, &c, (size_t)fi + 1, sizeof(*s->ifl)))
			return;
		s->iflcap = c;
	}
	s->ifl[fi] = (struct iflow){ .pt = { pts[0], pts[1] } };
	if (port_add(s, pts[0], fi, pts[1], 0) ||
	    port_add(s, pts[1], fi, pts[0], 1))
		return;
	if (s->port[pts[0]].n == 1 && s->port[pts[1]].n == 1)
		sim_flow_rate(s, fi, (uint64_t)s->net->switches *
		    s->net->bandwidth_bps);
	else {
		dirty(s, pts[0]);
		dirty(s, pts[1]);
	}
}

void
simideal_remove(struct sim *s, uint32_t fi)
{
	const struct iflow *f = &s->ifl[fi];
	uint32_t pts[2] = { f->pt[0], f->pt[1] };

	port_del(s, pts[0], fi, 0);
	port_del(s, pts[1], fi, 1);
	dirty(s, pts[0]);
	dirty(s, pts[1]);
}
