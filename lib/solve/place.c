/* place: a Flux schedule in exact integer time from decisions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/mem.h"
#include "solve/greedy.h"
#include "solve/place.h"

#define NONE	UINT32_MAX

/* What a port (switch, GPU) has carried with one partner. */
struct use {
	uint32_t	partner;
	uint64_t	txend, rxend;	/* latest end sent to, received from */
};

struct pport {
	struct use	*u;
	size_t		 n, cap;
	uint32_t	 circ;		/* the circuit it holds now, or NONE */
};

struct pstate {
	const struct dag	*d;
	const struct net	*n;
	const uint32_t		*sw;
	struct greedy		*g;
	struct pport		*pt;		/* [sw * gpus + gpu] */
	uint64_t		*ready, *gpu_free;
};

static const double *sort_key;

static int
by_key(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (sort_key[i] != sort_key[j])
		return sort_key[i] < sort_key[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* The rank of every task in (key, id) order. */
static uint64_t *
ranks(size_t n, const double *key)
{
	uint32_t *ord;
	uint64_t *rk;
	size_t i;

	ord = mem_array(n + 1, sizeof(*ord));
	rk = mem_array(n + 1, sizeof(*rk));
	if (ord == NULL || rk == NULL) {
		free(ord);
		free(rk);
		return NULL;
	}
	for (i = 0; i < n; i++)
		ord[i] = (uint32_t)i;
	sort_key = key;
	qsort(ord, n, sizeof(*ord), by_key);
	for (i = 0; i < n; i++)
		rk[ord[i]] = i;
	free(ord);
	return rk;
}

static struct pport *
pport(struct pstate *s, uint32_t sw, uint32_t g)
{
	return &s->pt[(size_t)sw * s->n->gpus + g];
}

/* The earliest start at port p for a use with partner q, from t. */
static uint64_t
port_free(const struct pport *p, uint32_t q, int tx, uint64_t t,
    uint64_t tau)
{
	uint64_t e;
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct use *u = &p->u[i];

		if (u->partner == q)
			e = tx ? u->txend : u->rxend;
		else {
			e = u->txend > u->rxend ? u->txend : u->rxend;
			e += tau;
		}
		t = e > t ? e : t;
	}
	return t;
}

static int
port_use(struct pport *p, uint32_t q, int tx, uint64_t end)
{
	size_t i;

	for (i = 0; i < p->n && p->u[i].partner != q; i++)
		;
	if (i == p->n) {
		if (mem_grow(&p->u, &p->cap, p->n + 1, sizeof(*p->u)) != 0)
			return -1;
		p->u[p->n++] = (struct use){ q, 0, 0 };
	}
	if (tx && end > p->u[i].txend)
		p->u[i].txend = end;
	if (!tx && end > p->u[i].rxend)
		p->u[i].rxend = end;
	return 0;
}

static int
place_transfer(struct pstate *s, uint32_t t)
{
	const struct dag_task *tk = &s->d->t[t];
	uint64_t dur = greedy_duration(s->n, tk->amount);
	uint64_t len = dur > 0 ? dur : 1, tau = s->n->reconfig_ps, st;
	struct pport *pa = pport(s, s->sw[t], tk->gpu);
	struct pport *pb = pport(s, s->sw[t], tk->dst);

	st = port_free(pa, tk->dst, 1, s->ready[t], tau);
	st = port_free(pb, tk->gpu, 0, st, tau);
	if (port_use(pa, tk->dst, 1, st + len) != 0 ||
	    port_use(pb, tk->gpu, 0, st + len) != 0 ||
	    mem_append(&s->g->sc.p, &s->g->sc.pcap, s->g->sc.np,
	    sizeof(*s->g->sc.p)) != 0)
		return -1;
	s->g->sc.p[s->g->sc.np++] = (struct plan){ t, s->sw[t], st };
	s->g->start[t] = st;
	s->g->end[t] = st + dur + s->n->latency_ps;
	return 0;
}

static int
next_transfer(void *s, uint32_t t)
{
	return place_transfer(s, t);
}

static int
by_start(const void *a, const void *b)
{
	const struct plan *x = a, *y = b;

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

static void
close_circ(struct pstate *s, uint32_t sw, uint32_t g)
{
	struct pport *p = pport(s, sw, g);
	const struct circuit *c;

	if (p->circ == NONE)
		return;
	c = &s->g->sc.c[p->circ];
	pport(s, sw, c->a)->circ = NONE;
	pport(s, sw, c->b)->circ = NONE;
}

/*
 * Circuits from the plans, switch by switch in start order: a use of
 * a pair whose ports both still hold its circuit extends it; any other
 * use closes what its ports hold and sets up a new circuit.
 */
static int
circuits(struct pstate *s)
{
	struct schedule *sc = &s->g->sc;
	size_t i;

	qsort(sc->p, sc->np, sizeof(*sc->p), by_start);
	for (i = 0; i < sc->np; i++) {
		const struct dag_task *tk = &s->d->t[sc->p[i].task];
		uint64_t dur = greedy_duration(s->n, tk->amount);
		uint64_t end = sc->p[i].start + (dur > 0 ? dur : 1);
		uint32_t sw = sc->p[i].sw, ca, cb;
		struct circuit *c;

		ca = pport(s, sw, tk->gpu)->circ;
		cb = pport(s, sw, tk->dst)->circ;
		if (ca != NONE && ca == cb) {
			c = &sc->c[ca];
			c->to = end > c->to ? end : c->to;
			continue;
		}
		close_circ(s, sw, tk->gpu);
		close_circ(s, sw, tk->dst);
		if (sched_add_circuit(sc, sw, tk->gpu, tk->dst,
		    sc->p[i].start, end) != 0)
			return -1;
		pport(s, sw, tk->gpu)->circ = (uint32_t)(sc->nc - 1);
		pport(s, sw, tk->dst)->circ = (uint32_t)(sc->nc - 1);
	}
	return 0;
}

/* The length a use holds its circuit: its duration, at least 1 ps. */
static uint64_t
hold(const struct pstate *s, const struct plan *pl)
{
	uint64_t dur = greedy_duration(s->n, s->d->t[pl->task].amount);

	return dur > 0 ? dur : 1;
}

/* Ports' partners within one epoch: valid where stamp[g] == cur. */
struct match {
	uint32_t	*stamp, *partner, cur;
};

/* Whether a-b fits the matching; if so it joins it. */
static int
match_add(struct match *m, uint32_t a, uint32_t b)
{
	if ((m->stamp[a] == m->cur && m->partner[a] != b) ||
	    (m->stamp[b] == m->cur && m->partner[b] != a))
		return 0;
	m->stamp[a] = m->stamp[b] = m->cur;
	m->partner[a] = b;
	m->partner[b] = a;
	return 1;
}

/*
 * The epoch of every use of one switch, p[0..k) by start, into ep[]
 * (0, 1, ...).  An epoch's pairs form a matching; a new one opens at
 * its first use, which every earlier use must have left tau before
 * (pmax[j]: the latest end of p[0..j)).  A use that does not fit the
 * current matching forces a new epoch at one of the uses j of the
 * current epoch, or itself, with p[j..i] a matching; the latest such
 * j that the dark time allows is taken.  That loses no feasible split:
 * a valid one has a last epoch start q <= i, q is a candidate, and
 * moving its boundary up to the latest candidate leaves every epoch a
 * matching and every dark time as it was.  Returns 0, or -2 when no
 * split fits the times.
 */
static int
epoch_split(const struct pstate *s, const struct plan *p, size_t k,
    const uint64_t *pmax, struct match *m, struct match *t, uint32_t *ep)
{
	uint64_t tau = s->n->reconfig_ps;
	size_t i, j, b = 0;

	m->cur++;
	for (i = 0; i < k; i++) {
		const struct dag_task *tk = &s->d->t[p[i].task];

		ep[i] = i > 0 ? ep[i - 1] : 0;
		if (match_add(m, tk->gpu, tk->dst))
			continue;
		t->cur++;
		for (j = i + 1; j-- > b + 1;) {
			const struct dag_task *u = &s->d->t[p[j].task];

			if (!match_add(t, u->gpu, u->dst))
				return -2;
			if (pmax[j] + tau <= p[j].start)
				break;
		}
		if (j <= b)
			return -2;
		b = j;
		m->cur++;
		for (; j <= i; j++) {
			const struct dag_task *u = &s->d->t[p[j].task];

			match_add(m, u->gpu, u->dst);
			ep[j] = ep[b - 1] + 1;
		}
	}
	return 0;
}

/*
 * Switch model: circuits in epochs (epoch_split()), switch by switch
 * in start order.  A use whose ports hold its circuit in its epoch
 * extends it; any other sets up a circuit: with its epoch when it
 * changes a port's partner, else when it is first used.  Returns 0,
 * -1 when memory runs out, -2 when the times break the model.
 */
static int
epoch_circuits(struct pstate *s)
{
	struct schedule *sc = &s->g->sc;
	struct match m = { NULL, NULL, 0 }, t = { NULL, NULL, 0 };
	uint64_t *pmax = NULL, from = 0;
	uint32_t *ep = NULL, *partner = NULL, *epoch = NULL, cur = 0;
	size_t i, j, lo, G = s->n->gpus;
	int rc = -1;

	qsort(sc->p, sc->np, sizeof(*sc->p), by_start);
	m.stamp = calloc(G + 1, sizeof(*m.stamp));
	m.partner = malloc((G + 1) * sizeof(*m.partner));
	t.stamp = calloc(G + 1, sizeof(*t.stamp));
	t.partner = malloc((G + 1) * sizeof(*t.partner));
	epoch = calloc(G + 1, sizeof(*epoch));
	partner = malloc((G + 1) * sizeof(*partner));
	pmax = malloc((sc->np + 1) * sizeof(*pmax));
	ep = malloc((sc->np + 1) * sizeof(*ep));
	if (m.stamp == NULL || m.partner == NULL || t.stamp == NULL ||
	    t.partner == NULL || epoch == NULL || partner == NULL ||
	    pmax == NULL || ep == NULL)
		goto out;
	for (lo = 0; lo < sc->np; lo = i) {
		for (i = lo; i < sc->np && sc->p[i].sw == sc->p[lo].sw; i++) {
			uint64_t e = sc->p[i].start + hold(s, &sc->p[i]);

			pmax[i + 1 - lo] = i > lo && pmax[i - lo] > e ?
			    pmax[i - lo] : e;
		}
		pmax[0] = 0;
		if ((rc = epoch_split(s, sc->p + lo, i - lo, pmax, &m, &t,
		    ep + lo)) != 0)
			goto out;
		rc = -1;
	}
	for (i = 0; i < sc->np; i++) {
		const struct plan *pl = &sc->p[i];
		const struct dag_task *tk = &s->d->t[pl->task];
		uint64_t end = pl->start + hold(s, pl);
		uint32_t a = tk->gpu, b = tk->dst, sw = pl->sw, ca, cb;

		if (i == 0 || sw != sc->p[i - 1].sw) {	/* ports fresh */
			memset(partner, 0xff, (G + 1) * sizeof(*partner));
			cur++;
			from = pl->start;
		} else if (ep[i] != ep[i - 1]) {
			cur++;
			from = pl->start;
		}
		ca = pport(s, sw, a)->circ;
		cb = pport(s, sw, b)->circ;
		if (ca != NONE && ca == cb && epoch[a] == cur) {
			sc->c[ca].to = end > sc->c[ca].to ? end : sc->c[ca].to;
			continue;
		}
		j = (partner[a] != NONE && partner[a] != b) ||
		    (partner[b] != NONE && partner[b] != a);
		close_circ(s, sw, a);
		close_circ(s, sw, b);
		if (sched_add_circuit(sc, sw, a, b, j ? from : pl->start,
		    end) != 0)
			goto out;
		pport(s, sw, a)->circ = (uint32_t)(sc->nc - 1);
		pport(s, sw, b)->circ = (uint32_t)(sc->nc - 1);
		epoch[a] = epoch[b] = cur;
		partner[a] = b;
		partner[b] = a;
	}
	rc = 0;
out:
	free(m.stamp);
	free(m.partner);
	free(t.stamp);
	free(t.partner);
	free(epoch);
	free(partner);
	free(pmax);
	free(ep);
	return rc;
}

int
place_fixed(const struct dag *d, const struct net *n, const uint32_t *sw,
    const uint64_t *start, struct greedy *g)
{
	struct pstate s = { d, n, sw, g, NULL, NULL, NULL };
	size_t i, np = (size_t)n->switches * n->gpus;
	int rc = -1;

	memset(g, 0, sizeof(*g));
	sched_init(&g->sc);
	g->start = calloc(d->n + 1, sizeof(*g->start));
	g->end = calloc(d->n + 1, sizeof(*g->end));
	s.pt = calloc(np + 1, sizeof(*s.pt));
	if (g->start == NULL || g->end == NULL || s.pt == NULL)
		goto out;
	for (i = 0; i < np; i++)
		s.pt[i].circ = NONE;
	for (i = 0; i < d->n; i++) {
		g->start[i] = start[i];
		g->end[i] = start[i] + greedy_length(d, n, i);
		g->makespan = g->end[i] > g->makespan ? g->end[i] :
		    g->makespan;
		if (d->t[i].kind != DAG_TRANSFER)
			continue;
		if (mem_grow(&g->sc.p, &g->sc.pcap, g->sc.np + 1,
		    sizeof(*g->sc.p)) != 0)
			goto out;
		g->sc.p[g->sc.np++] = (struct plan){ (uint32_t)i, sw[i],
		    start[i] };
	}
	rc = n->model == NET_SWITCH ? epoch_circuits(&s) : circuits(&s);
out:
	free(s.pt);
	if (rc != 0)
		greedy_free(g);
	return rc;
}

int
place_run(const struct dag *d, const struct net *n, const uint32_t *sw,
    const double *key, struct greedy *g)
{
	struct pstate s = { d, n, sw, g, NULL, NULL, NULL };
	size_t i, np = (size_t)n->switches * n->gpus;
	uint64_t *rk = NULL;
	int rc = -1;

	memset(g, 0, sizeof(*g));
	sched_init(&g->sc);
	g->start = calloc(d->n + 1, sizeof(*g->start));
	g->end = calloc(d->n + 1, sizeof(*g->end));
	s.ready = calloc(d->n + 1, sizeof(*s.ready));
	s.gpu_free = calloc(n->gpus + 1, sizeof(*s.gpu_free));
	s.pt = calloc(np + 1, sizeof(*s.pt));
	if (g->start == NULL || g->end == NULL || s.ready == NULL ||
	    s.gpu_free == NULL || s.pt == NULL ||
	    (rk = ranks(d->n, key)) == NULL)
		goto out;
	for (i = 0; i < np; i++)
		s.pt[i].circ = NONE;
	if (greedy_list(d, NULL, rk, next_transfer, &s, s.ready, s.gpu_free,
	    s.g) != 0 || circuits(&s) != 0)
		goto out;
	rc = 0;
out:
	for (i = 0; s.pt != NULL && i < np; i++)
		free(s.pt[i].u);
	free(rk);
	free(s.ready);
	free(s.gpu_free);
	free(s.pt);
	return rc;
}
