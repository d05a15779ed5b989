/* greedy: a list scheduler for Flux's model, and lower bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "greedy.h"
#include "heap.h"
#include "mem.h"
#include "net.h"
#include "sched.h"

#define NONE	UINT32_MAX
#define PS	1000000000000ULL

/* Busy intervals [s, e) of one port direction, sorted and disjoint. */
struct ivs {
	struct iv { uint64_t s, e; } *v;
	size_t		n, cap;
};

/* A circuit as one of its ports sees it, usable from up. */
struct epoch {
	uint32_t	partner;
	uint32_t	circ;
	uint64_t	up;
};

/* Per switch and GPU port: its circuits in time order, its uses. */
struct port {
	struct epoch	*ep;
	size_t		 nep, epcap;
	struct ivs	 tx, rx;
};


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

struct wins {
	struct win	*v;
	size_t		 n, cap;
};

struct state {
	const struct dag	*d;
	const struct net	*n;
	struct greedy		*g;
	struct port		*pt;		/* [sw * gpus + gpu] */
	uint64_t		*gpu_free;
	uint64_t		*ready;		/* data ready, per task */
	struct wins		 wa, wb;	/* scratch for try_fresh */
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

/* Time to send bytes at the port rate, rounded up to a picosecond. */
uint64_t
greedy_duration(const struct net *n, uint64_t bytes)
{
	unsigned __int128 t = (unsigned __int128)bytes * 8 * PS;

	return (uint64_t)((t + n->bandwidth_bps - 1) / n->bandwidth_bps);
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

	if ((bl = calloc(d->n + 1, sizeof(*bl))) == NULL)
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

static struct port *
port(struct state *s, uint32_t sw, uint32_t g)
{
	return &s->pt[(size_t)sw * s->n->gpus + g];
}

/* The earliest t' >= t with [t', t' + len) clear of the intervals. */
static uint64_t
fit(const struct ivs *x, uint64_t t, uint64_t len)
{
	size_t lo = 0, hi = x->n, mid;

	while (lo < hi) {	/* first interval ending after t */
		mid = lo + (hi - lo) / 2;
		if (x->v[mid].e <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x->n; lo++) {
		if (t + len <= x->v[lo].s)
			break;
		if (x->v[lo].e > t)
			t = x->v[lo].e;
	}
	return t;
}

/* Earliest start >= t clear on a's sending and b's receiving side. */
static uint64_t
fit2(const struct port *a, const struct port *b, uint64_t t, uint64_t len)
{
	uint64_t u;

	for (;;) {
		t = fit(&a->tx, t, len);
		if ((u = fit(&b->rx, t, len)) == t)
			return t;
		t = u;
	}
}

static int
iv_add(struct ivs *x, uint64_t s, uint64_t e)
{
	size_t i = x->n;

	if (mem_grow(&x->v, &x->cap, x->n + 1, sizeof(*x->v)) != 0)
		return -1;
	while (i > 0 && x->v[i - 1].s > s) {
		x->v[i] = x->v[i - 1];
		i--;
	}
	x->v[i].s = s;
	x->v[i].e = e;
	x->n++;
	return 0;
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

static size_t
epoch_of(const struct port *p, uint32_t circ)
{
	size_t i;

	for (i = 0; i < p->nep; i++)
		if (p->ep[i].circ == circ)
			break;
	return i;
}

/* Reuse: a circuit a-b on sw with room for the transfer. */
static void
try_reuse(struct state *s, uint32_t sw, uint32_t a, uint32_t b,
    uint64_t ready, uint64_t len, struct spot *best)
{
	struct port *pa = port(s, sw, a), *pb = port(s, sw, b);
	uint64_t t, lim, lb;
	size_t i, j;

	for (i = 0; i < pa->nep; i++) {
		if (pa->ep[i].partner != b)
			continue;
		j = epoch_of(pb, pa->ep[i].circ);
		lim = limit(s, pa, i);
		lb = limit(s, pb, j);
		lim = lb < lim ? lb : lim;
		t = fit2(pa, pb, ready > pa->ep[i].up ? ready : pa->ep[i].up,
		    len);
		if (t + len > lim || t >= best->t)
			continue;
		*best = (struct spot){ .t = t, .sw = sw, .ia = i, .ib = j };
	}
}

/*
 * A new circuit to q needs tau on each side but before a port's first
 * use; inside an epoch the circuit there is torn down at the gap's
 * start and set up again by its end.
 */

static uint64_t
sub_tau(uint64_t t, uint64_t tau)
{
	return t >= tau ? t - tau : 0;
}

static int
win_add(struct wins *w, const struct win *x)
{
	if (x->hi <= x->lo)
		return 0;
	if (mem_grow(&w->v, &w->cap, w->n + 1, sizeof(*w->v)) != 0)
		return -1;
	w->v[w->n++] = *x;
	return 0;
}

/* The next use of p at or after time t: its start, or UINT64_MAX. */
static size_t
first_after(const struct ivs *x, uint64_t t)
{
	size_t lo = 0, hi = x->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (x->v[mid].e <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Idle gaps of p's uses (sending or receiving) inside [from, to]. */
static int
gaps_inside(const struct state *s, const struct port *p, size_t i,
    uint64_t from, uint64_t to, struct wins *w)
{
	uint64_t tau = s->n->reconfig_ps, end = from;
	size_t a = first_after(&p->tx, from), b = first_after(&p->rx, from);
	struct win x;

	while (a < p->tx.n || b < p->rx.n) {
		const struct iv *u;

		if (b >= p->rx.n || (a < p->tx.n &&
		    p->tx.v[a].s <= p->rx.v[b].s))
			u = &p->tx.v[a++];
		else
			u = &p->rx.v[b++];
		if (u->s >= to)
			break;
		if (u->s > end + 2 * tau) {
			x = (struct win){ end + tau, sub_tau(u->s, tau), i, 1,
			    end, u->s };
			if (win_add(w, &x) != 0)
				return -1;
		}
		if (u->e > end)
			end = u->e;
	}
	return 0;
}

static int
windows(const struct state *s, const struct port *p, uint32_t q,
    uint64_t ready, struct wins *w)
{
	uint64_t tau = s->n->reconfig_ps;
	const struct circuit *c = s->g->sc.c;
	struct win x;
	size_t i;

	w->n = 0;
	for (i = 0; i <= p->nep; i++) {
		/*
		 * Between two epochs; next to one with q too, for q may
		 * have gone elsewhere meanwhile: a circuit set up anew.
		 */
		x.lo = i > 0 ? c[p->ep[i - 1].circ].to + tau : 0;
		x.hi = i < p->nep ? sub_tau(p->ep[i].up, tau) : UINT64_MAX;
		x.ep = i;
		x.inside = 0;
		if (x.hi > ready && win_add(w, &x) != 0)
			return -1;
		if (i < p->nep && p->ep[i].partner != q &&
		    c[p->ep[i].circ].to > ready &&
		    gaps_inside(s, p, i, c[p->ep[i].circ].from,
		    c[p->ep[i].circ].to, w) != 0)
			return -1;
	}
	return 0;
}

/*
 * Set-up: a new circuit a-b on sw in a window of both ports.  Each
 * port's windows are disjoint and in time order, so a merge finds the
 * earliest start that fits both.
 */
static int
try_fresh(struct state *s, uint32_t sw, uint32_t a, uint32_t b,
    uint64_t ready, uint64_t len, struct spot *best, struct wins *wa,
    struct wins *wb)
{
	uint64_t t, up, hi;
	size_t i = 0, j = 0;

	if (windows(s, port(s, sw, a), b, ready, wa) != 0 ||
	    windows(s, port(s, sw, b), a, ready, wb) != 0)
		return -1;
	while (i < wa->n && j < wb->n) {
		const struct win *x = &wa->v[i], *y = &wb->v[j];

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
		if (x->hi < y->hi)
			i++;
		else
			j++;
	}
	return 0;
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

/*
 * Split epoch i of port p (and of its partner) around an idle gap:
 * the circuit ends at gs and a copy of it comes up again by ge.
 * Returns the index where a new epoch goes, between the two halves.
 */
static int
split(struct state *s, struct port *p, size_t i, uint64_t gs, uint64_t ge,
    uint64_t up2, size_t *at)
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
	px = &s->pt[(size_t)sc->c[circ].sw * s->n->gpus + x];
	k = epoch_of(px, circ);
	if (ep_insert(p, i + 1, x, c2, up2) != 0 ||
	    ep_insert(px, k + 1, px->ep[k].partner, c2, up2) != 0)
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
		if (try_fresh(s, sw, tk->gpu, tk->dst, s->ready[t], len, &best,
		    &s->wa, &s->wb) != 0)
			return -1;
	}
	if (best.t == UINT64_MAX)
		return -2;	/* cannot happen: the last window is open */
	pa = port(s, best.sw, tk->gpu);
	pb = port(s, best.sw, tk->dst);
	if (best.fresh) {
		uint64_t up2 = best.t + len + s->n->reconfig_ps;
		size_t ia = best.wa.ep, ib = best.wb.ep;

		if ((best.wa.inside && split(s, pa, best.wa.ep, best.wa.gs,
		    best.wa.ge, up2, &ia) != 0) || (best.wb.inside &&
		    split(s, pb, best.wb.ep, best.wb.gs, best.wb.ge, up2,
		    &ib) != 0))
			return -1;
		if (sched_add_circuit(sc, best.sw, tk->gpu, tk->dst, best.t,
		    best.t + len) != 0)
			return -1;
		circ = (uint32_t)(sc->nc - 1);
		if (ep_insert(pa, ia, tk->dst, circ, best.up) != 0 ||
		    ep_insert(pb, ib, tk->gpu, circ, best.up) != 0)
			return -1;
	} else
		circ = pa->ep[best.ia].circ;
	c = &sc->c[circ];
	c->from = best.t < c->from ? best.t : c->from;
	c->to = best.t + len > c->to ? best.t + len : c->to;
	if (iv_add(&pa->tx, best.t, best.t + len) != 0 ||
	    iv_add(&pb->rx, best.t, best.t + len) != 0 ||
	    mem_grow(&sc->p, &sc->pcap, sc->np + 1, sizeof(*sc->p)) != 0)
		return -1;
	sc->p[sc->np++] = (struct plan){ t, best.sw, best.t };
	s->g->start[t] = best.t;
	s->g->end[t] = best.t + dur + s->n->latency_ps;
	return 0;
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

	prev = malloc((d->n + 1) * sizeof(*prev));
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
	    (pending = malloc((d->n + 1) * sizeof(*pending))) == NULL)
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

static int
next_transfer(void *s, uint32_t t)
{
	return place_transfer(s, t);
}

int
greedy_run(const struct dag *d, const struct net *n, struct greedy *g)
{
	struct state s = { d, n, g, NULL, NULL, NULL, { NULL, 0, 0 },
	    { NULL, 0, 0 } };
	uint64_t *bl = NULL;
	uint32_t *prev = NULL;
	size_t i, np = (size_t)n->switches * n->gpus;
	int rc = -1;

	memset(g, 0, sizeof(*g));
	sched_init(&g->sc);
	snprintf(g->sc.scheduler, sizeof(g->sc.scheduler), "greedy");
	g->start = calloc(d->n + 1, sizeof(*g->start));
	g->end = calloc(d->n + 1, sizeof(*g->end));
	s.ready = calloc(d->n + 1, sizeof(*s.ready));
	s.gpu_free = calloc(n->gpus + 1, sizeof(*s.gpu_free));
	s.pt = calloc(np + 1, sizeof(*s.pt));
	if (g->start == NULL || g->end == NULL || s.ready == NULL ||
	    s.gpu_free == NULL || s.pt == NULL)
		goto out;
	if ((bl = bottom_levels(d, n)) == NULL ||
	    (prev = gpu_order(d, n)) == NULL)
		goto out;
	for (i = 0; i < d->n; i++)	/* longest path first */
		bl[i] = ~bl[i];
	rc = greedy_list(d, prev, bl, next_transfer, &s, s.ready, s.gpu_free,
	    g);
out:
	for (i = 0; s.pt != NULL && i < np; i++) {
		free(s.pt[i].ep);
		free(s.pt[i].tx.v);
		free(s.pt[i].rx.v);
	}
	free(s.wa.v);
	free(s.wb.v);
	free(bl);
	free(prev);
	free(s.ready);
	free(s.gpu_free);
	free(s.pt);
	return rc;
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
	if ((head = calloc(d->n + 1, sizeof(*head))) == NULL) {
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
