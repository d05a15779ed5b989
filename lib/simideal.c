/* simideal: the ideal fabric, max-min fair sharing of S*B per port. */
#include <stddef.h>
#include <stdint.h>

#include "simideal.h"
#include "simstate.h"

static int
port_add(struct sim *s, uint32_t pt, uint32_t fi, int which)
{
	struct port *p = &s->port[pt];

	if (p->n == p->cap) {
		size_t c = p->cap;

		if (sim_grow(s, &p->f, &c, (size_t)p->n + 1,
		    sizeof(*p->f)))
			return -1;
		p->cap = (uint32_t)c;
	}
	s->fl[fi].pos[which] = p->n;
	p->f[p->n++] = fi;
	return 0;
}

static void
port_del(struct sim *s, uint32_t pt, uint32_t fi, int which)
{
	struct port *p = &s->port[pt];
	uint32_t pos = s->fl[fi].pos[which], last = p->f[--p->n];

	p->f[pos] = last;
	if (last != fi)
		s->fl[last].pos[pt < s->net->gpus ? 0 : 1] = pos;
}

static uint32_t
other_port(const struct sim *s, uint32_t fi, uint32_t pt)
{
	const struct pair *p = &s->pr[s->fl[fi].pair];
	uint32_t in = s->net->gpus + p->dst;

	return pt == p->src ? in : p->src;
}

/* Collect the ports and flows reachable from the seeds. */
static size_t
component(struct sim *s, const uint32_t *seed, int nseed, size_t *nf)
{
	size_t np = 0, i, k;
	int j;

	s->epoch += 2;
	*nf = 0;
	for (j = 0; j < nseed; j++)
		if (s->port[seed[j]].mark != s->epoch) {
			s->port[seed[j]].mark = s->epoch;
			s->qports[np++] = seed[j];
		}
	for (i = 0; i < np; i++) {
		struct port *p = &s->port[s->qports[i]];

		for (k = 0; k < p->n; k++) {
			uint32_t fi = p->f[k], o;

			if (s->fl[fi].mark == s->epoch)
				continue;
			s->fl[fi].mark = s->epoch;
			if (*nf == s->qfcap && sim_grow(s, &s->qflows,
			    &s->qfcap, *nf + 1, sizeof(*s->qflows)))
				return 0;
			s->qflows[(*nf)++] = fi;
			o = other_port(s, fi, s->qports[i]);
			if (s->port[o].mark != s->epoch) {
				s->port[o].mark = s->epoch;
				s->qports[np++] = o;
			}
		}
	}
	return np;
}

/*
 * Progressive filling: all rates rise together; the ports that fill
 * first freeze their flows at that share; repeat with the rest.
 */
static void
waterfill(struct sim *s, size_t np, size_t nf)
{
	uint64_t C = (uint64_t)s->net->switches * s->net->bandwidth_bps;
	size_t i, k, left = nf, nmin;

	for (i = 0; i < np; i++) {
		s->port[s->qports[i]].cap_bps = C;
		s->port[s->qports[i]].cnt = s->port[s->qports[i]].n;
	}
	while (left > 0) {
		struct port *b = NULL;
		uint64_t share;

		for (i = 0; i < np; i++) {
			struct port *p = &s->port[s->qports[i]];

			if (p->cnt > 0 && (b == NULL || (u128)p->cap_bps *
			    b->cnt < (u128)b->cap_bps * p->cnt))
				b = p;
		}
		share = b->cap_bps / b->cnt;
		for (i = nmin = 0; i < np; i++) {
			struct port *p = &s->port[s->qports[i]];

			if (p->cnt > 0 && (u128)p->cap_bps * b->cnt ==
			    (u128)b->cap_bps * p->cnt)
				s->minp[nmin++] = s->qports[i];
		}
		for (i = 0; i < nmin; i++) {
			struct port *m = &s->port[s->minp[i]];

			for (k = 0; k < m->n; k++) {
				uint32_t fi = m->f[k], pts[2];
				int j;

				if (s->fl[fi].mark != s->epoch)
					continue;
				s->fl[fi].mark = s->epoch + 1;
				s->fl[fi].nrate = share;
				left--;
				pts[0] = s->pr[s->fl[fi].pair].src;
				pts[1] = s->net->gpus +
				    s->pr[s->fl[fi].pair].dst;
				for (j = 0; j < 2; j++) {
					struct port *q = &s->port[pts[j]];

					q->cap_bps -= share < q->cap_bps ?
					    share : q->cap_bps;
					q->cnt--;
				}
			}
		}
	}
	for (i = 0; i < nf; i++) {
		uint32_t fi = s->qflows[i];

		if (s->fl[fi].nrate != s->fl[fi].rate)
			sim_flow_rate(s, fi, s->fl[fi].nrate);
	}
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

	for (i = 0; i < s->ndirty; i++) {
		s->port[s->dirty[i]].isdirty = 0;
		if (s->port[s->dirty[i]].n > 0)
			s->dirty[k++] = s->dirty[i];
	}
	s->ndirty = 0;
	if (k == 0)
		return;
	np = component(s, s->dirty, (int)k, &nf);
	if (nf == 1) {		/* alone on both its ports: all of them */
		uint64_t C = (uint64_t)s->net->switches * s->net->bandwidth_bps;

		if (s->fl[s->qflows[0]].rate != C)
			sim_flow_rate(s, s->qflows[0], C);
	} else if (nf > 1)
		waterfill(s, np, nf);
}

void
simideal_add(struct sim *s, uint32_t fi)
{
	const struct pair *p = &s->pr[s->fl[fi].pair];
	uint32_t pts[2] = { p->src, s->net->gpus + p->dst };

	if (port_add(s, pts[0], fi, 0) || port_add(s, pts[1], fi, 1))
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
	const struct pair *p = &s->pr[s->fl[fi].pair];
	uint32_t pts[2] = { p->src, s->net->gpus + p->dst };

	port_del(s, pts[0], fi, 0);
	port_del(s, pts[1], fi, 1);
	dirty(s, pts[0]);
	dirty(s, pts[1]);
}
