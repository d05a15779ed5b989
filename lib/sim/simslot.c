/* simslot: a periodic schedule simulated slot by slot. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched.h"
#include "records/mem.h"
#include "sim/simcirc.h"
#include "sim/simslot.h"
#include "sim/simstate.h"

/* A pair of GPUs, or (two-hop) one GPU, waiting for circuits. */
struct want {
	uint32_t	off, n;		/* its circuits, by (from, index) */
	uint32_t	id;		/* its pair, or its GPU */
	uint32_t	j;		/* next instance: circuit j of the
					   list ... */
	uint64_t	k;		/* ... in period k */
	uint8_t		gpu;
	uint8_t		pending;	/* that instance's up is queued */
};

/* A circuit in the list of the pair of GPUs it joins. */
struct pent {
	uint64_t	key;		/* a * gpus + b, a < b */
	uint64_t	from;
	uint32_t	ci;
};

struct simslot {
	uint64_t	*pkey;		/* circuits by (pair, from, index) */
	uint32_t	*plist;
	uint32_t	*glist;		/* two-hop: by (GPU, from, index) */
	uint32_t	 nc;
	uint64_t	 maxlen;	/* the longest circuit, ps */
	struct want	*w;		/* GPUs' wants first (two-hop) */
	size_t		 nw, wcap;
};

static int
cmp_pent(const void *x, const void *y)
{
	const struct pent *p = x, *q = y;

	if (p->key != q->key)
		return p->key < q->key ? -1 : 1;
	if (p->from != q->from)
		return p->from < q->from ? -1 : 1;
	return p->ci < q->ci ? -1 : p->ci > q->ci;
}

static int
pair_lists(struct sim *s, struct simslot *k)
{
	const struct schedule *sc = s->sc;
	struct pent *e;
	size_t i;

	if ((e = calloc(sc->nc ? sc->nc : 1, sizeof(*e))) == NULL)
		return -1;
	for (i = 0; i < sc->nc; i++) {
		const struct circuit *c = &sc->c[i];

		e[i] = (struct pent){ (uint64_t)c->a * s->net->gpus + c->b,
		    c->from, (uint32_t)i };
		if (c->to - c->from > k->maxlen)
			k->maxlen = c->to - c->from;
	}
	qsort(e, sc->nc, sizeof(*e), cmp_pent);
	for (i = 0; i < sc->nc; i++) {
		k->pkey[i] = e[i].key;
		k->plist[i] = e[i].ci;
	}
	free(e);
	return 0;
}

/*
 * Two-hop: each GPU's circuits by (from, index), counted out of the
 * pair lists sorted again by (from, index).
 */
static int
gpu_lists(struct sim *s, struct simslot *k)
{
	const struct schedule *sc = s->sc;
	uint32_t gpus = s->net->gpus, *off;
	struct pent *e;
	size_t i;

	e = calloc(sc->nc ? sc->nc : 1, sizeof(*e));
	off = calloc((size_t)gpus + 1, sizeof(*off));
	if (e == NULL || off == NULL) {
		free(e);
		free(off);
		return -1;
	}
	for (i = 0; i < sc->nc; i++)
		e[i] = (struct pent){ 0, sc->c[i].from, (uint32_t)i };
	qsort(e, sc->nc, sizeof(*e), cmp_pent);
	for (i = 0; i < sc->nc; i++) {
		off[sc->c[i].a + 1]++;
		off[sc->c[i].b + 1]++;
	}
	for (i = 0; i < gpus; i++) {
		k->w[i] = (struct want){ .off = off[i], .n = off[i + 1],
		    .id = (uint32_t)i, .gpu = 1 };
		off[i + 1] += off[i];
	}
	for (i = 0; i < sc->nc; i++) {
		const struct circuit *c = &sc->c[e[i].ci];

		k->glist[off[c->a]++] = e[i].ci;
		k->glist[off[c->b]++] = e[i].ci;
	}
	free(e);
	free(off);
	return 0;
}

int
simslot_init(struct sim *s)
{
	struct simslot *k;
	size_t nc = s->sc->nc ? s->sc->nc : 1;

	if ((k = calloc(1, sizeof(*k))) == NULL) {
		sim_fail(s, "out of memory");
		return -1;
	}
	s->slot = k;
	k->nc = (uint32_t)s->sc->nc;
	k->pkey = calloc(nc, sizeof(*k->pkey));
	k->plist = calloc(nc, sizeof(*k->plist));
	if (k->pkey == NULL || k->plist == NULL || pair_lists(s, k) != 0) {
		sim_fail(s, "out of memory");
		return -1;
	}
	if (!s->vlb)
		return 0;
	k->nw = k->wcap = s->net->gpus;
	k->w = calloc(k->wcap ? k->wcap : 1, sizeof(*k->w));
	k->glist = calloc(2 * nc, sizeof(*k->glist));
	if (k->w == NULL || k->glist == NULL || gpu_lists(s, k) != 0) {
		sim_fail(s, "out of memory");
		return -1;
	}
	return 0;
}

static const uint32_t *
list(const struct simslot *k, const struct want *w)
{
	return (w->gpu ? k->glist : k->plist) + w->off;
}

/* Does the pair, or the GPU, still wait for circuits? */
static int
wanting(const struct sim *s, const struct want *w)
{
	const struct pair *p;
	uint32_t sw;

	if (w->gpu)
		return s->g[w->id].queued > 0;
	p = &s->pr[w->id];
	if (p->qhead != NONE || p->rhead != NONE || p->flow != NONE)
		return 1;
	for (sw = 0; p->pq != NONE && sw < s->net->switches; sw++) {
		const struct pqueue *q = &s->pq[p->pq + sw];

		if (q->flow != NONE || (q->head < q->n &&
		    s->ts[s->pe[q->off + q->head].task].ready))
			return 1;
	}
	return 0;
}

/* Queue the up of the want's next instance (j, k). */
static void
queue_next(struct sim *s, uint32_t wi)
{
	struct want *w = &s->slot->w[wi];
	uint32_t ci = list(s->slot, w)[w->j];
	u128 t = (u128)w->k * s->sc->period + s->sc->c[ci].from;

	if (t > UINT64_MAX) {
		s->clipped = 1;	/* never comes: deadlock() says so */
		return;
	}
	w->pending = 1;
	sim_push_seq(s, (uint64_t)t, EV_UP, wi, SEQ_UP(ci));
}

/*
 * Circuit ci's instance of period k comes up (now, or, quiet, as if it
 * had been up since its start); its down is queued.
 */
static void
bring_up(struct sim *s, uint32_t ci, uint64_t k, int quiet)
{
	const struct circuit *c = &s->sc->c[ci];
	u128 down = (u128)k * s->sc->period + c->to;
	uint64_t until = down > UINT64_MAX ? UINT64_MAX : (uint64_t)down;

	s->cperiod[ci] = k;
	if (quiet)
		sim_circuit_on(s, ci, k * s->sc->period + c->from, until);
	else
		sim_circuit_up(s, ci, until);
	if (down > UINT64_MAX)
		s->clipped = 1;
	else
		sim_push_seq(s, until, EV_DOWN, ci, SEQ_DOWN(ci));
}

/*
 * The first circuit of the list that comes up after r in a period, or
 * at r too when past is 0.
 */
static uint32_t
after(const struct sim *s, const uint32_t *l, uint32_t n, uint64_t r,
    int past)
{
	uint32_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->sc->c[l[mid]].from < r + (past != 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The want starts at s->now: its circuits up at this instant count as
 * up, as if they had been all along (no traffic waited for them, so
 * their coming up changed nothing else); its cursor moves to the first
 * instance after it.  Before the first event (the tasks without
 * dependencies made ready at 0), the circuits of instant 0 are still to
 * come: circuit events come first only among events.
 */
static void
start(struct sim *s, uint32_t wi)
{
	struct want *w = &s->slot->w[wi];
	const uint32_t *l = list(s->slot, w);
	uint64_t P = s->sc->period, q = s->now / P, r = s->now % P;
	uint32_t x = after(s, l, w->n, r, s->running), j;

	w->j = x;
	w->k = q;
	if (x == w->n) {
		w->j = 0;
		w->k = q + 1;
	}
	queue_next(s, wi);
	/* circuits of a port do not overlap: look back one circuit long */
	for (j = x; j-- > 0 && !s->failed;) {
		const struct circuit *c = &s->sc->c[l[j]];

		if (c->from + s->slot->maxlen <= r)
			break;
		if (c->to > r && s->up_at[l[j]] == UINT64_MAX)
			bring_up(s, l[j], q, 1);
	}
}

static uint32_t
pair_want(struct sim *s, uint32_t pi)
{
	struct simslot *k = s->slot;
	const struct pair *p = &s->pr[pi];
	uint32_t a = p->src < p->dst ? p->src : p->dst;
	uint32_t b = p->src < p->dst ? p->dst : p->src;
	uint64_t key = (uint64_t)a * s->net->gpus + b;
	size_t lo = 0, hi = k->nc, mid, first;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k->pkey[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	for (hi = k->nc; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		if (k->pkey[mid] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (sim_grow(s, &k->w, &k->wcap, k->nw + 1, sizeof(*k->w)) != 0)
		return NONE;
	k->w[k->nw] = (struct want){ .off = (uint32_t)first,
	    .n = (uint32_t)(lo - first), .id = pi };
	s->pr[pi].want = (uint32_t)k->nw;
	return (uint32_t)k->nw++;
}

static void
want_on(struct sim *s, uint32_t wi)
{
	const struct want *w = &s->slot->w[wi];

	if (w->pending || w->n == 0 || !wanting(s, w))
		return;
	start(s, wi);
}

void
simslot_pair(struct sim *s, uint32_t pi)
{
	uint32_t wi;

	if (s->slot == NULL || pi == NONE)
		return;
	if ((wi = s->pr[pi].want) == NONE && (wi = pair_want(s, pi)) == NONE)
		return;
	want_on(s, wi);
}

void
simslot_gpu(struct sim *s, uint32_t g)
{
	if (s->slot != NULL && s->vlb)
		want_on(s, g);
}

void
simslot_fire(struct sim *s, uint32_t wi)
{
	struct want *w = &s->slot->w[wi];
	uint32_t ci = list(s->slot, w)[w->j];
	uint64_t k = w->k;

	w->pending = 0;
	if (!wanting(s, w))
		return;
	if (++w->j == w->n) {
		w->j = 0;
		w->k++;
	}
	queue_next(s, wi);
	if (s->up_at[ci] == UINT64_MAX)
		bring_up(s, ci, k, 0);
}

void
simslot_shift(struct sim *s, uint64_t n)
{
	size_t i;

	for (i = 0; s->slot != NULL && i < s->slot->nw; i++)
		if (s->slot->w[i].pending)
			s->slot->w[i].k += n;
}

/* Instances of a circuit that begin at or before t, and period P. */
static uint64_t
instances(uint64_t t, uint64_t at, uint64_t P)
{
	return t < at ? 0 : (t - at) / P + 1;
}

/*
 * Does circuit i, coming up after circuit p on one of its ports, change
 * that port's partner?  p is NONE when nothing came before.
 */
static int
changes(const struct schedule *sc, const uint32_t *prev, uint32_t gpus,
    uint32_t i)
{
	const struct circuit *c = &sc->c[i];
	uint32_t pa = prev[(size_t)c->sw * gpus + c->a];
	uint32_t pb = prev[(size_t)c->sw * gpus + c->b];

	if (pa != NONE && (sc->c[pa].a ^ sc->c[pa].b ^ c->a) != c->b)
		return 1;
	return pb != NONE && (sc->c[pb].a ^ sc->c[pb].b ^ c->b) != c->a;
}

/*
 * Reconfigurations of each circuit: r0, on its first instance (after
 * the circuits before it in period 0), and r, on every later one (after
 * the circuits before it cyclically).  The circuits are sorted by
 * (switch, from, a), so each port meets its circuits in time order.
 */
static int
reconfig_flags(struct sim *s, uint8_t *r0, uint8_t *r)
{
	const struct schedule *sc = s->sc;
	uint32_t gpus = s->net->gpus, *prev;
	size_t n = (size_t)s->net->switches * gpus, i;
	int pass;

	if ((prev = malloc((n ? n : 1) * sizeof(*prev))) == NULL)
		return -1;
	memset(prev, 0xff, n * sizeof(*prev));
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < sc->nc; i++) {
			const struct circuit *c = &sc->c[i];

			if (pass == 0)
				r0[i] = (uint8_t)changes(sc, prev, gpus,
				    (uint32_t)i);
			else
				r[i] = (uint8_t)changes(sc, prev, gpus,
				    (uint32_t)i);
			prev[(size_t)c->sw * gpus + c->a] = (uint32_t)i;
			prev[(size_t)c->sw * gpus + c->b] = (uint32_t)i;
		}
	free(prev);
	return 0;
}

/* One circuit's instances up to the makespan M, into its switch's sums. */
static void
count(struct sim *s, uint32_t i, uint64_t M, const uint8_t *r0,
    const uint8_t *r, u128 *rec, u128 *up)
{
	const struct circuit *c = &s->sc->c[i];
	uint64_t P = s->sc->period, n = instances(M, c->from, P);
	uint64_t f = instances(M, c->to, P);

	if (n == 0)
		return;
	rec[c->sw] += r0[i] + (u128)(n - 1) * r[i];
	up[c->sw] += (u128)f * (c->to - c->from);
	if (n > f)
		up[c->sw] += M - ((u128)(n - 1) * P + c->from);
	if (s->out->cup == NULL)
		return;
	s->out->cup[i] = c->from;
	s->out->cdown[i] = f == 0 ? UINT64_MAX : (uint64_t)((u128)(f - 1) * P +
	    c->to);
}

void
simslot_stats(struct sim *s)
{
	uint32_t ns = s->net->switches, sw;
	size_t nc = s->sc->nc, i;
	uint8_t *r0, *r;
	u128 *rec, *up;

	r0 = calloc(nc ? nc : 1, 1);
	r = calloc(nc ? nc : 1, 1);
	rec = calloc(ns, sizeof(*rec));
	up = calloc(ns, sizeof(*up));
	if (r0 == NULL || r == NULL || rec == NULL || up == NULL ||
	    reconfig_flags(s, r0, r) != 0)
		sim_fail(s, "out of memory");
	/* nothing was simulated without a task: no circuit came up */
	for (i = 0; !s->failed && s->d->n > 0 && i < nc; i++)
		count(s, (uint32_t)i, s->out->makespan, r0, r, rec, up);
	for (sw = 0; !s->failed && sw < ns; sw++) {
		if (rec[sw] > UINT64_MAX || up[sw] > UINT64_MAX) {
			sim_fail(s, "switch %u: %s passes "
			    "18446744073709551615", sw, rec[sw] > UINT64_MAX ?
			    "the reconfigurations" :
			    "the circuit-up time of a switch (ps)");
			break;
		}
		s->out->sw[sw].reconfigs = (uint64_t)rec[sw];
		s->out->sw[sw].up_ps = (uint64_t)up[sw];
	}
	free(r0);
	free(r);
	free(rec);
	free(up);
}

void
simslot_free(struct sim *s)
{
	struct simslot *k = s->slot;

	if (k == NULL)
		return;
	free(k->pkey);
	free(k->plist);
	free(k->glist);
	free(k->w);
	free(k);
	s->slot = NULL;
}
