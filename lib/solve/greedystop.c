/* greedystop: the greedy scheduler's placement under the switch model. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/mem.h"
#include "solve/greedy.h"
#include "solve/greedystate.h"
#include "solve/ivs.h"

/* A placement found under the switch model. */
struct sspot {
	uint64_t	t;		/* start */
	uint32_t	sw;
	size_t		k;		/* the epoch's place in ord[] */
	int		fresh;		/* a new epoch instead */
};

/*
 * The switch model.  A transfer goes on the switch and epoch where it
 * starts earliest: into an epoch whose matching holds its circuit or
 * can take it (each port unused in the epoch or already with the
 * other), starting tau or more after the last use of the epoch before
 * and ending tau or more before the first use of the epoch after; or
 * into a new epoch where the whole switch is idle from tau before it
 * to tau after it, which splits the epoch around that time if there is
 * one.  Within an epoch a port's uses are with its one partner there,
 * and those of other epochs end tau before the epoch begins or start
 * tau after it ends, so fit2() on the port's uses finds the room.
 */
static struct slots *
slots(struct state *s, uint32_t sw, uint32_t g)
{
	return &s->sl[(size_t)sw * s->n->gpus + g];
}

/* The epoch at place k in time order. */
static struct swep *
ep_at(const struct sweps *x, size_t k)
{
	return &x->ep[x->ord[k]];
}

/* The earliest start in epoch k: tau after the epoch before ends. */
static uint64_t
ep_lo(const struct state *s, const struct sweps *x, size_t k)
{
	return k > 0 ? ep_at(x, k - 1)->last + s->n->reconfig_ps : 0;
}

/* The latest end in epoch k: tau before the epoch after begins. */
static uint64_t
ep_hi(const struct state *s, const struct sweps *x, size_t k)
{
	if (k + 1 >= x->nord)
		return UINT64_MAX;
	return sub_tau(ep_at(x, k + 1)->first, s->n->reconfig_ps);
}

/* The first slot of p in an epoch with first at or after first. */
static size_t
slot_find(const struct sweps *x, const struct slots *p, uint64_t first)
{
	size_t lo = 0, hi = p->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (x->ep[p->v[mid].id].first < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Whether port p, at its slot i (the first in epoch k or after), is
 * free for a circuit to q in that epoch.
 */
static int
slot_free(const struct sweps *x, const struct slots *p, size_t i, size_t k,
    uint32_t q)
{
	return i >= p->n || p->v[i].id != x->ord[k] || p->v[i].partner == q;
}

/*
 * The epochs of sw for a-b.  Those whose room ends before ready + len
 * (the first ones: ep_hi grows along them) have none.  In an epoch the
 * start found is at most the later of ready and its last use, no later
 * than in any epoch after; so the first with room is the best, and
 * none is once a start reaches the best one found so far.
 */
static void
try_epochs(struct state *s, uint32_t sw, uint32_t a, uint32_t b,
    uint64_t ready, uint64_t len, struct sspot *best)
{
	const struct sweps *x = &s->se[sw];
	const struct slots *sa = slots(s, sw, a), *sb = slots(s, sw, b);
	size_t lo = 0, hi = x->nord, mid, k, i, j;
	uint64_t from, t, first;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ep_hi(s, x, mid) < ready + len)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= x->nord)
		return;
	i = slot_find(x, sa, ep_at(x, lo)->first);
	j = slot_find(x, sb, ep_at(x, lo)->first);
	for (k = lo; k < x->nord; k++) {
		from = ep_lo(s, x, k);
		from = from > ready ? from : ready;
		if (from >= best->t)
			return;
		first = ep_at(x, k)->first;
		for (; i < sa->n && x->ep[sa->v[i].id].first < first; i++)
			;
		for (; j < sb->n && x->ep[sb->v[j].id].first < first; j++)
			;
		if (!slot_free(x, sa, i, k, b) || !slot_free(x, sb, j, k, a))
			continue;
		t = fit2(port(s, sw, a), port(s, sw, b), from, len);
		if (t >= best->t)
			return;
		if (t + len <= ep_hi(s, x, k)) {
			*best = (struct sspot){ t, sw, k, 0 };
			return;
		}
	}
}

/*
 * A new epoch on sw: the earliest start t from ready with every use of
 * the switch tau or more away from [t, t + len), if before the best.
 * Only the uses from tau before ready on can be in the way.
 */
static void
try_fresh_epoch(struct state *s, uint32_t sw, uint64_t ready, uint64_t len,
    struct sspot *best)
{
	const struct ivs *x = &s->se[sw].busy;
	uint64_t tau = s->n->reconfig_ps, t = ready;
	size_t lo = 0, hi = x->n, mid;

	while (lo < hi) {	/* the first use that reaches t less tau */
		mid = lo + (hi - lo) / 2;
		if (x->v[mid].e + tau <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x->n && t < best->t; lo++) {
		if (t + len + tau <= x->v[lo].s)
			break;
		if (x->v[lo].e + tau > t)
			t = x->v[lo].e + tau;
	}
	if (t < best->t)
		*best = (struct sspot){ t, sw, 0, 1 };
}

static int
slot_insert(struct slots *p, size_t i, uint32_t id, uint32_t partner,
    uint32_t circ)
{
	if (mem_grow(&p->v, &p->cap, p->n + 1, sizeof(*p->v)) != 0)
		return -1;
	memmove(p->v + i + 1, p->v + i, (p->n - i) * sizeof(*p->v));
	p->v[i] = (struct slot){ id, partner, circ };
	p->n++;
	return 0;
}

static int
ep_add_circ(struct swep *e, uint32_t c)
{
	if (mem_grow(&e->circ, &e->cap, e->nc + 1, sizeof(*e->circ)) != 0)
		return -1;
	e->circ[e->nc++] = c;
	return 0;
}

/* A new epoch at place k of sw, used during [t, u); its id in *id. */
static int
ep_new(struct sweps *x, size_t k, uint64_t t, uint64_t u, uint32_t *id)
{
	if (mem_grow(&x->ep, &x->epcap, x->nep + 1, sizeof(*x->ep)) != 0 ||
	    mem_grow(&x->ord, &x->ordcap, x->nord + 1, sizeof(*x->ord)) != 0)
		return -1;
	x->ep[x->nep] = (struct swep){ t, u, NULL, 0, 0 };
	memmove(x->ord + k + 1, x->ord + k, (x->nord - k) * sizeof(*x->ord));
	x->ord[k] = *id = (uint32_t)x->nep++;
	x->nord++;
	return 0;
}

/* The last end of p's uses by t, and its first start from u on. */
static void
uses_around(struct port *p, uint64_t t, uint64_t u, uint64_t *before,
    uint64_t *after)
{
	struct ivs *d[2] = { &p->tx, &p->rx };
	size_t i, k;

	*before = 0;
	*after = UINT64_MAX;
	for (k = 0; k < 2; k++) {
		i = ivs_first_after(d[k], t);
		if (i > 0 && d[k]->v[i - 1].e > *before)
			*before = d[k]->v[i - 1].e;
		i = ivs_first_after(d[k], u);
		if (i < d[k]->n && d[k]->v[i].s < *after)
			*after = d[k]->v[i].s;
	}
}

/*
 * The part after [gs, ge) of circuit c of epoch id, whose uses are on
 * both sides, as a copy c2 in epoch id2: the slots of its ports gain
 * one, next to the one they have.
 */
static int
split_circuit(struct state *s, uint32_t sw, uint32_t id, uint32_t id2,
    uint32_t c, uint64_t gs, uint64_t ge)
{
	struct schedule *sc = &s->g->sc;
	struct sweps *x = &s->se[sw];
	uint32_t g[2], c2 = (uint32_t)sc->nc;
	uint64_t before, after;
	struct slots *p;
	size_t i, k;

	if (sched_add_circuit(sc, 0, 0, 1, 0, 1) != 0 ||
	    ep_add_circ(&x->ep[id2], c2) != 0)
		return -1;
	sc->c[c2] = sc->c[c];
	g[0] = sc->c[c].a;
	g[1] = sc->c[c].b;
	uses_around(port(s, sw, g[0]), gs, ge, &before, &after);
	sc->c[c].to = before;
	sc->c[c2].from = after;
	for (k = 0; k < 2; k++) {
		p = slots(s, sw, g[k]);
		i = slot_find(x, p, x->ep[id].first);
		if (slot_insert(p, i + 1, id2, g[1 - k], c2) != 0)
			return -1;
	}
	return 0;
}

/*
 * Split the epoch at place k of sw around the idle time [gs, ge): its
 * uses after it go to a new epoch, with copies of the circuits used on
 * both sides.
 */
static int
split_epoch(struct state *s, uint32_t sw, size_t k, uint64_t gs,
    uint64_t ge)
{
	struct schedule *sc = &s->g->sc;
	struct sweps *x = &s->se[sw];
	uint32_t id = x->ord[k], id2, c;
	size_t i, n, m, j;
	struct swep *e;

	if (ep_new(x, k + 1, ge, x->ep[id].last, &id2) != 0)
		return -1;
	x->ep[id].last = gs;
	for (i = 0, n = 0; i < x->ep[id].nc; i++) {
		e = &x->ep[id];
		c = e->circ[i];
		if (sc->c[c].to <= gs) {
			e->circ[n++] = c;
			continue;
		}
		if (sc->c[c].from < gs) {
			e->circ[n++] = c;
			if (split_circuit(s, sw, id, id2, c, gs, ge) != 0)
				return -1;
			continue;
		}
		if (ep_add_circ(&x->ep[id2], c) != 0)
			return -1;
		for (m = 0; m < 2; m++) {	/* its slots move along */
			struct slots *p = slots(s, sw, m ? sc->c[c].b :
			    sc->c[c].a);

			j = slot_find(x, p, ge);
			p->v[j - 1].id = id2;
		}
	}
	x->ep[id].nc = n;
	return 0;
}

/*
 * The new epoch for [t, u) on sw, between the epochs before and after
 * it, splitting the one around it; its place in ord[] in *k.
 */
static int
fresh_epoch(struct state *s, uint32_t sw, uint64_t t, uint64_t u, size_t *k)
{
	struct sweps *x = &s->se[sw];
	struct ivs *b = &x->busy;
	size_t lo = 0, hi = x->nord, mid, i;
	uint32_t id;

	while (lo < hi) {	/* the first epoch that begins after t */
		mid = lo + (hi - lo) / 2;
		if (ep_at(x, mid)->first <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && ep_at(x, lo - 1)->last > t) {
		i = ivs_first_after(b, t);	/* the uses on either side */
		if (split_epoch(s, sw, lo - 1, b->v[i - 1].e, b->v[i].s) != 0)
			return -1;
	}
	*k = lo;
	return ep_new(x, lo, t, u, &id);
}

/*
 * The circuit a-b in the epoch at k of sw, used during [t, u): the one
 * the epoch has, or a new one in the slots of both ports.
 */
static int
epoch_circuit(struct state *s, uint32_t sw, size_t k, uint32_t a,
    uint32_t b, uint64_t t, uint64_t u)
{
	struct schedule *sc = &s->g->sc;
	struct sweps *x = &s->se[sw];
	struct slots *sa = slots(s, sw, a), *sb = slots(s, sw, b);
	uint64_t first = ep_at(x, k)->first;
	size_t i = slot_find(x, sa, first), j = slot_find(x, sb, first);
	uint32_t id = x->ord[k], c = (uint32_t)sc->nc;

	if (i < sa->n && sa->v[i].id == id) {
		c = sa->v[i].circ;
		sc->c[c].from = t < sc->c[c].from ? t : sc->c[c].from;
		sc->c[c].to = u > sc->c[c].to ? u : sc->c[c].to;
		return 0;
	}
	if (sched_add_circuit(sc, sw, a, b, t, u) != 0 ||
	    ep_add_circ(&x->ep[id], c) != 0 ||
	    slot_insert(sa, i, id, b, c) != 0 ||
	    slot_insert(sb, j, id, a, c) != 0)
		return -1;
	return 0;
}

/*
 * Place a transfer: in an epoch of any switch, then in a new epoch
 * only if that starts earlier, for it darkens the whole switch.  On a
 * tie the lower switch.
 */
int
greedystop_place(struct state *s, uint32_t t)
{
	const struct dag_task *tk = &s->d->t[t];
	uint64_t dur = greedy_duration(s->n, tk->amount);
	uint64_t len = dur > 0 ? dur : 1;	/* an empty one holds 1 ps */
	struct sspot best = { .t = UINT64_MAX };
	struct schedule *sc = &s->g->sc;
	uint64_t st, u;
	struct swep *e;
	uint32_t sw;

	for (sw = 0; sw < s->n->switches; sw++)
		try_epochs(s, sw, tk->gpu, tk->dst, s->ready[t], len, &best);
	for (sw = 0; sw < s->n->switches; sw++)
		try_fresh_epoch(s, sw, s->ready[t], len, &best);
	if (best.t == UINT64_MAX)
		return -2;	/* cannot happen: the end is free */
	st = best.t;
	u = st + len;
	if (best.fresh && fresh_epoch(s, best.sw, st, u, &best.k) != 0)
		return -1;
	e = ep_at(&s->se[best.sw], best.k);
	e->first = st < e->first ? st : e->first;
	e->last = u > e->last ? u : e->last;
	if (epoch_circuit(s, best.sw, best.k, tk->gpu, tk->dst, st, u) != 0 ||
	    ivs_union(&s->se[best.sw].busy, st, u) != 0 ||
	    ivs_add(&port(s, best.sw, tk->gpu)->tx, st, u) != 0 ||
	    ivs_add(&port(s, best.sw, tk->dst)->rx, st, u) != 0 ||
	    mem_grow(&sc->p, &sc->pcap, sc->np + 1, sizeof(*sc->p)) != 0)
		return -1;
	sc->p[sc->np++] = (struct plan){ t, best.sw, st };
	s->g->start[t] = st;
	s->g->end[t] = st + dur + s->n->latency_ps;
	return 0;
}

/*
 * Every circuit of an epoch comes up with the epoch, at its first use:
 * a circuit that changes a port's partner then starts when no circuit
 * of the switch started before it is up, tau after they all end.
 */
void
greedystop_up(struct state *s)
{
	const struct sweps *x;
	size_t sw, k, i;

	for (sw = 0; sw < s->n->switches; sw++) {
		x = &s->se[sw];
		for (k = 0; k < x->nep; k++)
			for (i = 0; i < x->ep[k].nc; i++)
				s->g->sc.c[x->ep[k].circ[i]].from =
				    x->ep[k].first;
	}
}

void
greedystop_free(struct sweps *x)
{
	size_t k;

	for (k = 0; k < x->nep; k++)
		free(x->ep[k].circ);
	free(x->ep);
	free(x->ord);
	free(x->busy.v);
}
