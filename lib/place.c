/* place: a Flux schedule in exact integer time from decisions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "greedy.h"
#include "mem.h"
#include "net.h"
#include "place.h"
#include "sched.h"

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

	ord = malloc((n + 1) * sizeof(*ord));
	rk = malloc((n + 1) * sizeof(*rk));
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
	    mem_grow(&s->g->sc.p, &s->g->sc.pcap, s->g->sc.np + 1,
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

/*
 * Switch model: circuits in epochs, switch by switch in start order.
 * A use that fits the epoch's matching (its ports free in the epoch,
 * or holding its circuit) joins it; any other opens an epoch at its
 * start, which every earlier use of the switch must have left tau
 * before.  A circuit that changes a port's partner comes up with its
 * epoch; one that keeps its partners, when it is first used.
 * Returns 0, -1 when memory runs out, -2 when the times break the
 * model.
 */
static int
epoch_circuits(struct pstate *s)
{
	struct schedule *sc = &s->g->sc;
	uint64_t tau = s->n->reconfig_ps, ep = 0, last = 0;
	uint32_t *epoch = NULL, *partner = NULL, cur = 1, sw = UINT32_MAX;
	size_t i, G = s->n->gpus;
	int rc = -1;

	qsort(sc->p, sc->np, sizeof(*sc->p), by_start);
	epoch = calloc(G + 1, sizeof(*epoch));
	partner = malloc((G + 1) * sizeof(*partner));
	if (epoch == NULL || partner == NULL)
		goto out;
	for (i = 0; i < sc->np; i++) {
		const struct plan *pl = &sc->p[i];
		const struct dag_task *tk = &s->d->t[pl->task];
		uint64_t dur = greedy_duration(s->n, tk->amount);
		uint64_t end = pl->start + (dur > 0 ? dur : 1), from;
		uint32_t a = tk->gpu, b = tk->dst;
		uint32_t ca, cb;

		if (pl->sw != sw) {	/* a new switch: all ports fresh */
			sw = pl->sw;
			memset(epoch, 0, (G + 1) * sizeof(*epoch));
			memset(partner, 0xff, (G + 1) * sizeof(*partner));
			cur++;
			ep = last = 0;
		}
		if ((epoch[a] == cur && partner[a] != b) ||
		    (epoch[b] == cur && partner[b] != a)) {
			if (last + tau > pl->start) {
				rc = -2;
				goto out;
			}
			cur++;		/* a new epoch */
			ep = pl->start;
		}
		ca = pport(s, sw, a)->circ;
		cb = pport(s, sw, b)->circ;
		last = end > last ? end : last;
		if (ca != NONE && ca == cb && epoch[a] == cur) {
			sc->c[ca].to = end > sc->c[ca].to ? end : sc->c[ca].to;
			continue;
		}
		/* a port's earlier partner other than this one: a change */
		from = (partner[a] != NONE && partner[a] != b) ||
		    (partner[b] != NONE && partner[b] != a) ? ep : pl->start;
		close_circ(s, sw, a);
		close_circ(s, sw, b);
		if (sched_add_circuit(sc, sw, a, b, from, end) != 0)
			goto out;
		pport(s, sw, a)->circ = (uint32_t)(sc->nc - 1);
		pport(s, sw, b)->circ = (uint32_t)(sc->nc - 1);
		epoch[a] = epoch[b] = cur;
		partner[a] = b;
		partner[b] = a;
	}
	rc = 0;
out:
	free(epoch);
	free(partner);
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
