/* greedy: a list scheduler for Flux's model, and lower bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/heap.h"
#include "records/mem.h"
#include "solve/greedy.h"
#include "solve/greedystate.h"
#include "solve/ivs.h"

#define NONE	UINT32_MAX
#define PS	1000000000000ULL

/*
 * Where a port could take a new circuit: between two of its epochs, or
 * in an idle gap inside an epoch with another partner.
 */
struct win {
	uint64_t	lo, hi;		/* the transfer must fit in [lo, hi] */
	size_t		ep;		/* before epoch ep, or inside it */
	int		inside;
	uint64_t	gs, ge;		/* inside: the idle gap */
};

/*
 * A port's windows for a circuit to q, made one at a time from the
 * epoch where those that can still be used (ending after ready) begin:
 * try_fresh() mostly needs the first few.
 */
struct wgen {
	struct port		*p;
	uint32_t		 q;
	uint64_t		 ready;
	size_t			 i;	/* the epoch looked at */
	struct ivs		*gap;	/* its idle gaps, or NULL */
	size_t			 k;	/* the next one */
	struct win		 w;	/* the window made last */
};

/* A placement found for a transfer. */
struct spot {
	uint64_t	t;		/* start */
	uint32_t	sw;
	int		fresh;		/* a new circuit */
	uint64_t	up;		/* fresh: usable from */
	size_t		ia, ib;		/* reuse: the epochs */
	struct win	wa, wb;		/* fresh: the windows */
};

/*
 * Time to send bytes at the port rate, rounded up to a picosecond.  At
 * a rate that divides 8 * 10^12 bit/s (100, 200, 400 and 800 Gbit/s,
 * 1.6 Tbit/s) a byte takes a whole number of picoseconds, and the
 * 128-bit division, a libgcc call, is a multiply.
 */
uint64_t
greedy_duration(const struct net *n, uint64_t bytes)
{
	uint64_t bw = n->bandwidth_bps, per = 8 * PS / bw;
	unsigned __int128 t;

	if (per * bw == 8 * PS)
		t = (unsigned __int128)bytes * per;
	else
		t = ((unsigned __int128)bytes * 8 * PS + bw - 1) / bw;
	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

/* From a task's start to its end, circuits free. */
uint64_t
greedy_length(const struct dag *d, const struct net *n, size_t i)
{
	if (d->t[i].kind == DAG_COMPUTE)
		return d->t[i].amount;
	return greedy_duration(n, d->t[i].amount) + n->latency_ps;
}

/* Longest path from each task's start to the end (bottom level). */
static uint64_t *
bottom_levels(const struct dag *d, const struct net *n)
{
	uint64_t *bl;
	size_t i, j;

	if ((bl = mem_calloc(d->n + 1, sizeof(*bl))) == NULL)
		return NULL;
	for (i = d->n; i-- > 0;) {
		const uint32_t *dep = dag_deps(d, i);

		bl[i] += greedy_length(d, n, i);
		for (j = 0; j < d->t[i].ndep; j++)
			if (bl[i] > bl[dep[j]])
				bl[dep[j]] = bl[i];
	}
	return bl;
}

/* The latest a use of epoch i of p may end: tau before a new partner. */
static uint64_t
limit(const struct state *s, const struct port *p, size_t i)
{
	uint64_t tau = s->n->reconfig_ps;

	if (i + 1 >= p->nep)
		return UINT64_MAX;
	return p->ep[i + 1].up >= tau ? p->ep[i + 1].up - tau : 0;
}

/*
 * The epoch of p that time t lies in: the last one up by t, else the
 * first.  A port's epochs are in time order and their up strictly
 * increases (a circuit comes up after the previous one's last use and
 * tau), so a binary search finds it.
 */
static size_t
epoch_at(struct port *p, uint64_t t)
{
	size_t lo = 0, hi = p->nep, mid, h = p->hint;

	/*
	 * Nearly every look at a port finds the epoch the last one found
	 * (at 1024 GPUs, 99.8% of 71 M): try it first.
	 */
	if (h < hi && p->ep[h].up <= t && (h + 1 == hi || p->ep[h + 1].up > t))
		return h;
	while (lo < hi) {	/* the first epoch up after t */
		mid = lo + (hi - lo) / 2;
		if (p->ep[mid].up <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return p->hint = lo > 0 ? lo - 1 : 0;
}

/* The epoch of circuit circ, usable from up, on one of its ports. */
static size_t
epoch_of(struct port *p, uint32_t circ, uint64_t up)
{
	size_t i = epoch_at(p, up);

	return i < p->nep && p->ep[i].circ == circ ? i : p->nep;
}

/*
 * Reuse: a circuit a-b on sw with room for the transfer.  Of the
 * epochs before the one at ready none can take it (each ends by the
 * next one's up less tau, at or before ready), and later ones start it
 * no earlier (fit2() grows with its start), so the first epoch from
 * there with room is the best one, and none is once an epoch comes up
 * at or after the best start found so far.
 */
static void
try_reuse(struct state *s, uint32_t sw, uint32_t a, uint32_t b,
    uint64_t ready, uint64_t len, struct spot *best)
{
	struct port *pa = port(s, sw, a), *pb = port(s, sw, b);
	uint64_t t, lim, lb;
	size_t i, j;

	for (i = epoch_at(pa, ready); i < pa->nep && pa->ep[i].up < best->t;
	    i++) {
		if (pa->ep[i].partner != b)
			continue;
		j = epoch_of(pb, pa->ep[i].circ, pa->ep[i].up);
		lim = limit(s, pa, i);
		lb = limit(s, pb, j);
		lim = lb < lim ? lb : lim;
		t = fit2(pa, pb, ready > pa->ep[i].up ? ready : pa->ep[i].up,
		    len);
		if (t + len > lim || t >= best->t)
			continue;
		*best = (struct spot){ .t = t, .sw = sw, .ia = i, .ib = j };
		break;
	}
}

/*
 * A new circuit to q needs tau on each side but before a port's first
 * use; inside an epoch the circuit there is torn down at the gap's
 * start and set up again by its end.
 */

/*
 * A port's uses inside an epoch are its circuit's transfers, both ways
 * (those of the epochs beside it end tau before it comes up or start
 * tau after its last use), so the idle gaps in an epoch are those of
 * its circuit, kept per circuit as transfers come.  A gap that ends by
 * ready fits nothing.
 */
static void
gap_first(const struct state *s, struct wgen *g, uint32_t circ)
{
	g->gap = &s->gap[circ];
	g->k = ivs_first_after(g->gap, g->ready);
}

static int
gap_next(const struct state *s, struct wgen *g)
{
	uint64_t tau = s->n->reconfig_ps;
	const struct iv *u;

	if (g->k >= g->gap->n)
		return 0;
	u = &g->gap->v[g->k++];
	g->w = (struct win){ u->s + tau, u->e - tau, g->i, 1, u->s, u->e };
	return 1;
}

/*
 * The next window of a port: between epochs i - 1 and i, then in the
 * gaps of epoch i.  Returns 0 after the last, open-ended one.
 */
static int
win_next(const struct state *s, struct wgen *g)
{
	uint64_t tau = s->n->reconfig_ps;
	const struct circuit *c = s->g->sc.c;
	const struct port *p = g->p;
	struct win x;

	for (;;) {
		if (g->gap != NULL && gap_next(s, g))
			return 1;
		if (g->gap != NULL) {
			g->gap = NULL;
			g->i++;
		}
		if (g->i > p->nep)
			return 0;
		/*
		 * Between two epochs; next to one with q too, for q may
		 * have gone elsewhere meanwhile: a circuit set up anew.
		 */
		x.lo = g->i > 0 ? c[p->ep[g->i - 1].circ].to + tau : 0;
		x.hi = g->i < p->nep ? sub_tau(p->ep[g->i].up, tau) :
		    UINT64_MAX;
		x.ep = g->i;
		x.inside = 0;
		if (g->i < p->nep && p->ep[g->i].partner != g->q &&
		    c[p->ep[g->i].circ].to > g->ready)
			gap_first(s, g, p->ep[g->i].circ);
		else
			g->i++;
		if (x.hi > g->ready && x.hi > x.lo) {
			g->w = x;
			return 1;
		}
	}
}

/*
 * The first window of p for a circuit to q.  Epochs before the one at
 * ready leave none that ends after it: each ends by the next one's up
 * less tau.
 */
static int
win_first(const struct state *s, struct port *p, uint32_t q,
    uint64_t ready, struct wgen *g)
{
	*g = (struct wgen){ .p = p, .q = q, .ready = ready,
	    .i = epoch_at(p, ready) };
	return win_next(s, g);
}

/*
 * Set-up: a new circuit a-b on sw in a window of both ports.  Each
 * port's windows are disjoint and in time order, so a merge finds the
 * earliest start that fits both; windows ending by ready fit nothing,
 * so leaving them out changes nothing.
 */
static void
try_fresh(struct state *s, uint32_t sw, uint32_t a, uint32_t b,
    uint64_t ready, uint64_t len, struct spot *best)
{
	struct wgen ga, gb;
	uint64_t t, up, hi;

	if (!win_first(s, port(s, sw, a), b, ready, &ga) ||
	    !win_first(s, port(s, sw, b), a, ready, &gb))
		return;
	for (;;) {
		const struct win *x = &ga.w, *y = &gb.w;

		up = x->lo > y->lo ? x->lo : y->lo;
		t = up > ready ? up : ready;
		hi = x->hi < y->hi ? x->hi : y->hi;
		if (t >= best->t)
			break;
		if (t + len <= hi) {
			*best = (struct spot){ .t = t, .sw = sw, .fresh = 1,
			    .up = up, .wa = *x, .wb = *y };
			break;
		}
		if (x->hi < y->hi ? !win_next(s, &ga) : !win_next(s, &gb))
			break;
	}
}

static int
ep_insert(struct port *p, size_t i, uint32_t partner, uint32_t circ,
    uint64_t up)
{
	if (mem_grow(&p->ep, &p->epcap, p->nep + 1, sizeof(*p->ep)) != 0)
		return -1;
	memmove(p->ep + i + 1, p->ep + i, (p->nep - i) * sizeof(*p->ep));
	p->ep[i] = (struct epoch){ partner, circ, up };
	p->nep++;
	return 0;
}

/* Room for the idle gaps of every circuit so far, the new ones empty. */
static int
gaps_grow(struct state *s)
{
	size_t old = s->gapcap;

	if (mem_grow(&s->gap, &s->gapcap, s->g->sc.nc, sizeof(*s->gap)) != 0)
		return -1;
	memset(s->gap + old, 0, (s->gapcap - old) * sizeof(*s->gap));
	return 0;
}

/*
 * A transfer [t, e) on circuit circ, before its from and to take it in:
 * a gap opens before or after its uses, or the gaps it meets shrink to
 * what is left of them on either side.
 */
static int
gap_use(struct state *s, uint32_t circ, uint64_t t, uint64_t e)
{
	const struct circuit *c = &s->g->sc.c[circ];
	uint64_t tau2 = 2 * s->n->reconfig_ps;
	struct ivs *x = &s->gap[circ];
	size_t i;

	if (e < c->from)
		return c->from > e + tau2 ? ivs_put(x, 0, e, c->from) : 0;
	if (t > c->to)
		return t > c->to + tau2 ? ivs_put(x, x->n, c->to, t) : 0;
	for (i = ivs_first_after(x, t); i < x->n && x->v[i].s < e;) {
		struct iv u = x->v[i];
		int left = t > u.s + tau2, right = u.e > e + tau2;

		if (left && right) {
			x->v[i].e = t;
			return ivs_put(x, i + 1, e, u.e);
		}
		if (right) {		/* the transfer ends in this gap */
			x->v[i].s = e;
			return 0;
		}
		if (left)
			x->v[i++].e = t;
		else
			ivs_del(x, i);
	}
	return 0;
}

/*
 * A circuit split at its gap from gs: the gaps after it go with the
 * copy c2.
 */
static int
gap_split(struct state *s, uint32_t circ, uint32_t c2, uint64_t gs)
{
	struct ivs *x, *y;
	size_t k, m;

	if (gaps_grow(s) != 0)
		return -1;
	x = &s->gap[circ];
	y = &s->gap[c2];
	k = ivs_first_after(x, gs);
	m = x->n - k - 1;
	if (m > 0) {
		if (mem_grow(&y->v, &y->cap, m, sizeof(*y->v)) != 0)
			return -1;
		memcpy(y->v, x->v + k + 1, m * sizeof(*y->v));
	}
	y->n = m;
	x->n = k;
	return 0;
}

/*
 * Split epoch i of port p (and of its partner) around an idle gap:
 * the circuit ends at gs and a copy of it comes up again at ge, when
 * it is used next.  Up no sooner than that, the copy leaves the time
 * between the new circuit and ge open for the new circuit's partners
 * (the collective the gap was found for, step after step), where an
 * earlier up would shut it.  Returns the index where a new epoch goes,
 * between the two halves.
 */
static int
split(struct state *s, struct port *p, size_t i, uint64_t gs, uint64_t ge,
    size_t *at)
{
	struct schedule *sc = &s->g->sc;
	uint32_t circ = p->ep[i].circ, x = p->ep[i].partner, c2;
	struct port *px;
	size_t k;

	if (sched_add_circuit(sc, 0, 0, 1, 0, 1) != 0)
		return -1;
	c2 = (uint32_t)(sc->nc - 1);
	sc->c[c2] = sc->c[circ];
	sc->c[c2].from = ge;
	sc->c[circ].to = gs;
	if (gap_split(s, circ, c2, gs) != 0)
		return -1;
	px = &s->pt[(size_t)sc->c[circ].sw * s->n->gpus + x];
	k = epoch_of(px, circ, p->ep[i].up);
	if (ep_insert(p, i + 1, x, c2, ge) != 0 ||
	    ep_insert(px, k + 1, px->ep[k].partner, c2, ge) != 0)
		return -1;
	*at = i + 1;
	return 0;
}

static int
place_transfer(struct state *s, uint32_t t)
{
	const struct dag_task *tk = &s->d->t[t];
	uint64_t dur = greedy_duration(s->n, tk->amount);
	uint64_t len = dur > 0 ? dur : 1;	/* an empty transfer holds 1 ps */
	struct spot best = { .t = UINT64_MAX };
	struct schedule *sc = &s->g->sc;
	struct port *pa, *pb;
	struct circuit *c;
	uint32_t sw, circ;

	for (sw = 0; sw < s->n->switches; sw++) {
		try_reuse(s, sw, tk->gpu, tk->dst, s->ready[t], len, &best);
		try_fresh(s, sw, tk->gpu, tk->dst, s->ready[t], len, &best);
	}
	if (best.t == UINT64_MAX)
		return -2;	/* cannot happen: the last window is open */
	pa = port(s, best.sw, tk->gpu);
	pb = port(s, best.sw, tk->dst);
	if (best.fresh) {
		size_t ia = best.wa.ep, ib = best.wb.ep;

		if ((best.wa.inside && split(s, pa, best.wa.ep, best.wa.gs,
		    best.wa.ge, &ia) != 0) || (best.wb.inside &&
		    split(s, pb, best.wb.ep, best.wb.gs, best.wb.ge,
		    &ib) != 0))
			return -1;
		if (sched_add_circuit(sc, best.sw, tk->gpu, tk->dst, best.t,
		    best.t + len) != 0 || gaps_grow(s) != 0)
			return -1;
		circ = (uint32_t)(sc->nc - 1);
		if (ep_insert(pa, ia, tk->dst, circ, best.up) != 0 ||
		    ep_insert(pb, ib, tk->gpu, circ, best.up) != 0)
			return -1;
	} else
		circ = pa->ep[best.ia].circ;
	if (gap_use(s, circ, best.t, best.t + len) != 0)
		return -1;
	c = &sc->c[circ];
	c->from = best.t < c->from ? best.t : c->from;
	c->to = best.t + len > c->to ? best.t + len : c->to;
	if (ivs_add(&pa->tx, best.t, best.t + len) != 0 ||
	    ivs_add(&pb->rx, best.t, best.t + len) != 0 ||
	    mem_append(&sc->p, &sc->pcap, sc->np, sizeof(*sc->p)) != 0)
		return -1;
	sc->p[sc->np++] = (struct plan){ t, best.sw, best.t };
	s->g->start[t] = best.t;
	s->g->end[t] = best.t + dur + s->n->latency_ps;
	return 0;
}

/*
 * A transfer that waits for another takes its priority when that is
 * higher: the steps of a collective keep the priority of its first, so
 * that a long collective is not interleaved, step by step, with a
 * short one on the same ports, each step a change of partner.  Ids
 * are in dependency order, so one pass carries it down the chains.
 */
static void
inherit(const struct dag *d, uint64_t *bl)
{
	size_t i, j;

	for (i = 0; i < d->n; i++) {
		const uint32_t *dep = dag_deps(d, i);

		if (d->t[i].kind != DAG_TRANSFER)
			continue;
		for (j = 0; j < d->t[i].ndep; j++)
			if (d->t[dep[j]].kind == DAG_TRANSFER &&
			    bl[dep[j]] > bl[i])
				bl[i] = bl[dep[j]];
	}
}

/*
 * Compute tasks of a GPU run in task order: each waits for the GPU's
 * previous compute task as if it were a dependency.
 */
static uint32_t *
gpu_order(const struct dag *d, const struct net *n)
{
	uint32_t *prev, *last;
	size_t i;

	prev = mem_array(d->n + 1, sizeof(*prev));
	last = malloc((n->gpus + 1) * sizeof(*last));
	if (prev == NULL || last == NULL) {
		free(prev);
		free(last);
		return NULL;
	}
	memset(last, 0xff, (n->gpus + 1) * sizeof(*last));
	for (i = 0; i < d->n; i++) {
		prev[i] = NONE;
		if (d->t[i].kind != DAG_COMPUTE)
			continue;
		prev[i] = last[d->t[i].gpu];
		last[d->t[i].gpu] = (uint32_t)i;
	}
	free(last);
	return prev;
}

/* A compute task starts when it is ready and its GPU is free. */
static void
start_compute(const struct dag *d, uint32_t t, uint64_t ready,
    uint64_t *gpu_free, struct greedy *g)
{
	const struct dag_task *tk = &d->t[t];
	uint64_t st = ready;

	if (gpu_free[tk->gpu] > st)
		st = gpu_free[tk->gpu];
	g->start[t] = st;
	g->end[t] = st + tk->amount;
	gpu_free[tk->gpu] = st + tk->amount;
}

int
greedy_list(const struct dag *d, const uint32_t *prev, const uint64_t *key,
    int (*transfer)(void *, uint32_t), void *arg, uint64_t *ready,
    uint64_t *gpu_free, struct greedy *g)
{
	uint32_t *pending = NULL, *nexts = NULL;
	size_t *off = NULL, i, j;
	struct heap h;
	struct heap_item it;
	int rc = -1;

	heap_init(&h);
	if (dag_successors(d, prev, &off, &nexts) != 0 ||
	    (pending = mem_array(d->n + 1, sizeof(*pending))) == NULL)
		goto out;
	for (i = 0; i < d->n; i++)
		pending[i] = d->t[i].ndep + (prev != NULL && prev[i] != NONE);
	for (i = 0; i < d->n; i++)
		if (pending[i] == 0 && heap_push(&h, key[i], i, i) != 0)
			goto out;
	while (heap_pop(&h, &it)) {
		uint32_t t = (uint32_t)it.val;

		if (d->t[t].kind == DAG_COMPUTE)
			start_compute(d, t, ready[t], gpu_free, g);
		else if ((rc = transfer(arg, t)) != 0)
			goto out;
		if (g->end[t] > g->makespan)
			g->makespan = g->end[t];
		for (j = off[t]; j < off[t + 1]; j++) {
			uint32_t v = nexts[j];

			if (prev != NULL && d->t[v].kind == DAG_COMPUTE &&
			    prev[v] == t)
				;	/* order only: no data */
			else if (g->end[t] > ready[v])
				ready[v] = g->end[t];
			if (--pending[v] == 0 &&
			    heap_push(&h, key[v], v, v) != 0) {
				rc = -1;
				goto out;
			}
		}
	}
	rc = 0;
out:
	heap_free(&h);
	free(pending);
	free(off);
	free(nexts);
	return rc;
}

/*
 * With no reconfiguration delay the two models are one (a port is in
 * one circuit at a time), and the port model's placement is the more
 * flexible.  Epochs would also meet there, and give one pair two
 * circuits that touch, which ocssim does not replay (the second's set-up
 * is undone when the first goes down at the same instant).
 */
static int
allstop(const struct net *n)
{
	return n->model == NET_SWITCH && n->reconfig_ps > 0;
}

static int
next_transfer(void *s, uint32_t t)
{
	struct state *st = s;

	if (allstop(st->n))
		return greedystop_place(st, t);
	return place_transfer(st, t);
}

int
greedy_run(const struct dag *d, const struct net *n, struct greedy *g)
{
	struct state s = { d, n, g, NULL, NULL, NULL, NULL, 0, NULL, NULL };
	uint64_t *bl = NULL;
	uint32_t *prev = NULL;
	size_t i, np = (size_t)n->switches * n->gpus;
	int rc = -1;

	memset(g, 0, sizeof(*g));
	sched_init(&g->sc);
	snprintf(g->sc.scheduler, sizeof(g->sc.scheduler), "greedy");
	g->start = mem_calloc(d->n + 1, sizeof(*g->start));
	g->end = mem_calloc(d->n + 1, sizeof(*g->end));
	s.ready = mem_calloc(d->n + 1, sizeof(*s.ready));
	s.gpu_free = calloc(n->gpus + 1, sizeof(*s.gpu_free));
	s.pt = calloc(np + 1, sizeof(*s.pt));
	if (allstop(n)) {
		s.se = calloc(n->switches + 1, sizeof(*s.se));
		s.sl = calloc(np + 1, sizeof(*s.sl));
	}
	if (g->start == NULL || g->end == NULL || s.ready == NULL ||
	    s.gpu_free == NULL || s.pt == NULL ||
	    (allstop(n) && (s.se == NULL || s.sl == NULL)))
		goto out;
	if ((bl = bottom_levels(d, n)) == NULL ||
	    (prev = gpu_order(d, n)) == NULL)
		goto out;
	inherit(d, bl);
	for (i = 0; i < d->n; i++)	/* longest path first */
		bl[i] = ~bl[i];
	rc = greedy_list(d, prev, bl, next_transfer, &s, s.ready, s.gpu_free,
	    g);
	if (rc == 0 && allstop(n))
		greedystop_up(&s);
out:
	for (i = 0; s.pt != NULL && i < np; i++) {
		free(s.pt[i].ep);
		free(s.pt[i].tx.v);
		free(s.pt[i].rx.v);
	}
	for (i = 0; s.sl != NULL && i < np; i++)
		free(s.sl[i].v);
	for (i = 0; s.se != NULL && i < n->switches; i++)
		greedystop_free(&s.se[i]);
	free(s.sl);
	free(s.se);
	for (i = 0; s.gap != NULL && i < s.gapcap; i++)
		free(s.gap[i].v);
	free(s.gap);
	free(bl);
	free(prev);
	free(s.ready);
	free(s.gpu_free);
	free(s.pt);
	return rc;
}

uint32_t *
greedy_switches(const struct dag *d, const struct greedy *g)
{
	uint32_t *sw;
	size_t i;

	if ((sw = mem_calloc(d->n + 1, sizeof(*sw))) == NULL)
		return NULL;
	for (i = 0; i < g->sc.np; i++)
		sw[g->sc.p[i].task] = g->sc.p[i].sw;
	return sw;
}

void
greedy_free(struct greedy *g)
{
	free(g->start);
	free(g->end);
	sched_free(&g->sc);
	memset(g, 0, sizeof(*g));
}

/* For each GPU: release of its sends + their time over S ports + tail. */
static uint64_t
port_bound(const struct dag *d, const struct net *n, const uint64_t *head,
    const uint64_t *bl, int side)
{
	uint64_t *rel, *load, *tail, best = 0;
	size_t i;
	uint32_t g;

	rel = malloc((n->gpus + 1) * sizeof(*rel));
	tail = malloc((n->gpus + 1) * sizeof(*tail));
	load = calloc(n->gpus + 1, sizeof(*load));
	if (rel == NULL || tail == NULL || load == NULL)
		goto out;
	memset(rel, 0xff, (n->gpus + 1) * sizeof(*rel));
	memset(tail, 0xff, (n->gpus + 1) * sizeof(*tail));
	for (i = 0; i < d->n; i++) {
		uint64_t dur, after;

		if (d->t[i].kind != DAG_TRANSFER)
			continue;
		g = side == 0 ? d->t[i].gpu : d->t[i].dst;
		dur = greedy_duration(n, d->t[i].amount);
		after = bl[i] - dur;
		load[g] += dur;
		rel[g] = head[i] < rel[g] ? head[i] : rel[g];
		tail[g] = after < tail[g] ? after : tail[g];
	}
	for (g = 0; g < n->gpus; g++) {
		uint64_t b;

		if (load[g] == 0)
			continue;
		b = rel[g] + (load[g] + n->switches - 1) / n->switches + tail[g];
		best = b > best ? b : best;
	}
out:
	free(rel);
	free(tail);
	free(load);
	return best;
}

/* Earliest starts and bottom levels with circuits free. */
int
greedy_levels(const struct dag *d, const struct net *n, uint64_t **headp,
    uint64_t **blp)
{
	uint64_t *bl, *head;
	size_t i, j;

	if ((bl = bottom_levels(d, n)) == NULL)
		return -1;
	if ((head = mem_calloc(d->n + 1, sizeof(*head))) == NULL) {
		free(bl);
		return -1;
	}
	for (i = 0; i < d->n; i++) {
		const uint32_t *dep = dag_deps(d, i);

		for (j = 0; j < d->t[i].ndep; j++) {
			uint64_t e = head[dep[j]] + greedy_length(d, n, dep[j]);

			if (e > head[i])
				head[i] = e;
		}
	}
	*headp = head;
	*blp = bl;
	return 0;
}

uint64_t
greedy_bound(const struct dag *d, const struct net *n)
{
	uint64_t *bl, *head, cp = 0, pb;
	size_t i;

	if (greedy_levels(d, n, &head, &bl) != 0)
		return 0;
	for (i = 0; i < d->n; i++)
		if (bl[i] > cp)
			cp = bl[i];
	pb = port_bound(d, n, head, bl, 0);
	cp = pb > cp ? pb : cp;
	pb = port_bound(d, n, head, bl, 1);
	cp = pb > cp ? pb : cp;
	free(bl);
	free(head);
	return cp;
}
