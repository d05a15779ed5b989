/* fabgreedy: Flux's greedy list scheduler on a tiered fabric's planes. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/net.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/heap.h"
#include "records/mem.h"
#include "solve/fabgreedy.h"

#define NONE		UINT32_MAX
#define PS_BITS		1000000000000ULL	/* ps x bit/s a bit */
#define PORTS_MAX	(1ULL << 28)
#define FG_DEFER	4	/* a transfer put back at most so often */

typedef unsigned __int128 u128;

struct portst {				/* a port of an ocs plane */
	uint32_t	 partner;	/* its last partner, or NONE */
	uint32_t	 circ;		/* that circuit in the schedule */
	uint8_t		 up;
	uint64_t	 last;		/* up: its last transfer's end;
					   down: when it went down */
};

struct fg {
	const struct dag	*d;
	const struct planes	*pl;
	struct schedule		*sc;
	char			*err;
	size_t			 errlen;
	size_t			*off;		/* per plane: its ports' first */
	uint64_t		*sendf, *recvf;	/* per port: free from */
	uint64_t		*slot;		/* oversubscribed eps: flows */
	uint32_t		*nslot;		/* per plane: 0, or slots */
	struct portst		*ps;
	uint32_t		*gdesc;		/* uplink: its group's */
	uint64_t		*end;		/* per task */
	uint8_t			*defer;		/* per task: times put back */
	uint32_t		*cand;
	size_t			 ncand;
};

/* A candidate: where a transfer would go, when, how fast. */
struct cand {
	uint32_t	 plane, x, y;	/* ports (an uplink's: groups) */
	uint64_t	 start, end, up;	/* up: a new circuit's */
	int		 newc;
	uint32_t	 slot;
	uint32_t	 gp, gq, gx, gy;	/* uplink: group planes, ports */
};

static int
fail(struct fg *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->err, f->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t
max2(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint32_t
group_desc(const struct fabric *f, size_t i)
{
	size_t j;

	for (j = 0; j < f->n; j++)
		if (f->d[j].attach == ATTACH_GROUP && f->d[j].k == f->d[i].k)
			return (uint32_t)j;
	return NONE;
}

static int
check(struct fg *f)
{
	const struct planes *pl = f->pl;
	const struct fabric *fab = pl->fab;
	size_t i;

	for (i = 0; i < fab->n; i++) {
		const struct plane_desc *d = &fab->d[i];

		if (d->kind == PLANE_OCS && d->model != NET_PORT)
			return fail(f, "plane description %zu: the switch model "
			    "on a tiered fabric is not planned yet (the port "
			    "model is)", i);
		if (d->kind == PLANE_OCS && d->attach == ATTACH_UPLINK &&
		    d->u != 1)
			return fail(f, "plane description %zu: an ocs uplink "
			    "plane with %u ports a group is not planned yet "
			    "(one is)", i, d->u);
	}
	return 0;
}

/* An eps plane's core: ports x rate x den / num. */
static u128
core_bps(const struct plane *q)
{
	return (u128)q->ports * q->rate_bps * q->over_den / q->over_num;
}

/* The most one flow has on plane p: its port side (an eps uplink's, U
 * ports), no more than the core of an oversubscribed eps plane. */
static uint64_t
flow_bps(const struct fg *f, size_t p)
{
	const struct plane *q = &f->pl->p[p];
	const struct plane_desc *d = &f->pl->fab->d[q->desc];
	u128 r = q->rate_bps;

	if (q->kind == PLANE_EPS && d->attach == ATTACH_UPLINK)
		r *= d->u;
	if (q->kind == PLANE_EPS && q->over_num > q->over_den &&
	    core_bps(q) < r)
		r = core_bps(q);
	if (r == 0)
		r = 1;
	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

static int
alloc(struct fg *f)
{
	const struct planes *pl = f->pl;
	size_t p, n = 0, i;

	if ((f->off = mem_array(pl->n + 1, sizeof(*f->off))) == NULL ||
	    (f->nslot = mem_calloc(pl->n + 1, sizeof(*f->nslot))) == NULL ||
	    (f->gdesc = mem_array(pl->fab->n + 1, sizeof(*f->gdesc))) == NULL)
		return fail(f, "out of memory (the planes)");
	for (p = 0; p < pl->n; p++) {
		const struct plane *q = &pl->p[p];

		f->off[p] = n;
		n += q->ports;
		if (q->kind == PLANE_EPS && q->over_num > q->over_den) {
			u128 s = core_bps(q) / flow_bps(f, p);

			f->nslot[p] = s < 1 ? 1 : s > q->ports ? q->ports :
			    (uint32_t)s;
		}
	}
	f->off[pl->n] = n;
	if (n > PORTS_MAX)
		return fail(f, "the fabric has %zu ports on its %zu planes: "
		    "more than the %llu the planner keeps", n, pl->n,
		    (unsigned long long)PORTS_MAX);
	for (i = 0; i < pl->fab->n; i++)
		f->gdesc[i] = pl->fab->d[i].attach == ATTACH_UPLINK ?
		    group_desc(pl->fab, i) : NONE;
	f->sendf = mem_calloc(n + 1, sizeof(*f->sendf));
	f->recvf = mem_calloc(n + 1, sizeof(*f->recvf));
	f->slot = mem_calloc(n + 1, sizeof(*f->slot));
	f->ps = mem_array(n + 1, sizeof(*f->ps));
	f->end = mem_calloc(f->d->n + 1, sizeof(*f->end));
	f->defer = mem_calloc(f->d->n + 1, sizeof(*f->defer));
	f->cand = mem_array(pl->n + 1, sizeof(*f->cand));
	if (f->sendf == NULL || f->recvf == NULL || f->slot == NULL ||
	    f->ps == NULL || f->end == NULL || f->defer == NULL ||
	    f->cand == NULL)
		return fail(f, "out of memory (%zu ports)", n);
	for (i = 0; i < n; i++)
		f->ps[i] = (struct portst){ NONE, NONE, 0, 0 };
	return 0;
}

/* When the circuit {x, y} of plane p can carry a transfer. */
static uint64_t
circuit_at(struct fg *f, size_t p, uint32_t x, uint32_t y, int *newc)
{
	const struct portst *a = &f->ps[f->off[p] + x];
	const struct portst *b = &f->ps[f->off[p] + y];
	uint64_t ta, tb;
	int change;

	*newc = 0;
	if (a->up && a->partner == y)
		return f->sc->c[a->circ].from;
	*newc = 1;
	if (a->partner == NONE && b->partner == NONE)
		return 0;			/* there from time 0 */
	ta = a->partner == NONE ? 0 : a->last;
	tb = b->partner == NONE ? 0 : b->last;
	change = (a->partner != NONE && a->partner != y) ||
	    (b->partner != NONE && b->partner != x);
	return sat_add(max2(ta, tb), change ? f->pl->p[p].reconfig_ps : 0);
}

/* The rate of transfer g->h on plane p: an uplink's, its GPUs' links. */
static uint64_t
rate_on(struct fg *f, size_t p, struct cand *c, uint32_t g, uint32_t h)
{
	const struct plane *q = &f->pl->p[p];
	const struct plane_desc *d = &f->pl->fab->d[q->desc];
	const struct plane_desc *gd;
	uint64_t r = flow_bps(f, p);
	uint32_t j;

	if (d->attach != ATTACH_UPLINK)
		return r;
	if ((j = f->gdesc[q->desc]) == NONE) {
		c->gp = NONE;
		return r;
	}
	gd = &f->pl->fab->d[j];
	c->gp = (uint32_t)(f->pl->base[j] + (size_t)(g / gd->k) * gd->count);
	c->gq = (uint32_t)(f->pl->base[j] + (size_t)(h / gd->k) * gd->count);
	c->gx = g % gd->k;
	c->gy = h % gd->k;
	return gd->rate_bps < r ? gd->rate_bps : r;
}

static uint64_t
duration(uint64_t bytes, uint64_t rate)
{
	u128 w = (u128)bytes * 8 * PS_BITS, d = (w + rate - 1) / rate;

	return d > UINT64_MAX ? UINT64_MAX : (uint64_t)d;
}

/* Where and when transfer t would run on plane p. */
static void
try_plane(struct fg *f, uint32_t t, uint64_t ready, size_t p,
    struct cand *c)
{
	const struct dag_task *k = &f->d->t[t];
	const struct plane *q = &f->pl->p[p];
	const struct plane_desc *d = &f->pl->fab->d[q->desc];
	int up = d->attach == ATTACH_UPLINK;
	uint64_t s = ready, rate;
	uint32_t i;

	memset(c, 0, sizeof(*c));
	c->plane = (uint32_t)p;
	c->x = up ? k->gpu / d->k * d->u : (uint32_t)planes_port(f->pl, p,
	    k->gpu);
	c->y = up ? k->dst / d->k * d->u : (uint32_t)planes_port(f->pl, p,
	    k->dst);
	rate = rate_on(f, p, c, k->gpu, k->dst);
	s = max2(s, f->sendf[f->off[p] + c->x]);
	s = max2(s, f->recvf[f->off[p] + c->y]);
	if (up && c->gp != NONE) {
		s = max2(s, f->sendf[f->off[c->gp] + c->gx]);
		s = max2(s, f->recvf[f->off[c->gq] + c->gy]);
	}
	if (q->kind == PLANE_OCS) {
		c->up = circuit_at(f, p, c->x, c->y, &c->newc);
		s = max2(s, c->up);
	}
	for (i = 0, c->slot = NONE; i < f->nslot[p]; i++)
		if (c->slot == NONE || f->slot[f->off[p] + i] <
		    f->slot[f->off[p] + c->slot])
			c->slot = i;
	if (c->slot != NONE)
		s = max2(s, f->slot[f->off[p] + c->slot]);
	c->start = s;
	c->end = sat_add(s, duration(k->amount, rate));
}

/* Take port x's circuit down after its last transfer. */
static void
take_down(struct fg *f, size_t p, uint32_t x)
{
	struct portst *a = &f->ps[f->off[p] + x], *b;
	struct circuit *c;

	if (!a->up)
		return;
	c = &f->sc->c[a->circ];
	c->to = max2(a->last, c->from + 1);
	b = &f->ps[f->off[p] + a->partner];
	a->up = b->up = 0;
	a->last = b->last = c->to;
}

static int
commit(struct fg *f, uint32_t t, const struct cand *c)
{
	size_t p = c->plane, o = f->off[p];
	struct portst *a = &f->ps[o + c->x], *b = &f->ps[o + c->y];

	f->sendf[o + c->x] = f->recvf[o + c->y] = c->end;
	if (c->gp != NONE && f->pl->fab->d[f->pl->p[p].desc].attach ==
	    ATTACH_UPLINK) {
		f->sendf[f->off[c->gp] + c->gx] = c->end;
		f->recvf[f->off[c->gq] + c->gy] = c->end;
	}
	if (c->slot != NONE)
		f->slot[o + c->slot] = c->end;
	if (f->pl->p[p].kind == PLANE_OCS) {
		if (c->newc) {
			take_down(f, p, c->x);
			take_down(f, p, c->y);
			if (sched_add_circuit(f->sc, (uint32_t)p, c->x < c->y ?
			    c->x : c->y, c->x < c->y ? c->y : c->x, c->up,
			    SCHED_FOREVER) != 0)
				return fail(f, "out of memory (the circuits)");
			a->partner = c->y;
			b->partner = c->x;
			a->circ = b->circ = (uint32_t)f->sc->nc - 1;
			a->up = b->up = 1;
			a->last = b->last = c->end;
		}
		a->last = b->last = max2(a->last, c->end);
	}
	if (sched_add_plan(f->sc, t, (uint32_t)p, c->start) != 0)
		return fail(f, "out of memory (the plans)");
	return 0;
}

/*
 * Transfer t, ready at ready, taken from the queue at key: placed where
 * it ends first if it can start by key; else *later is its start, and
 * it goes back to the queue for that time.
 */
static int
transfer(struct fg *f, uint32_t t, uint64_t ready, uint64_t key,
    uint64_t *later)
{
	const struct dag_task *k = &f->d->t[t];
	struct cand best, c;
	size_t n, i;

	n = planes_joining(f->pl, k->gpu, k->dst, f->cand, f->pl->n);
	if (n == 0)
		return fail(f, "transfer %u: no plane joins GPUs %u and %u: "
		    "route the DAG for this fabric (dagbuild --fabric)", t,
		    k->gpu, k->dst);
	for (i = 0; i < n; i++) {
		try_plane(f, t, ready, f->cand[i], &c);
		if (i == 0 || c.end < best.end)
			best = c;
	}
	*later = 0;
	if (best.start > key && f->defer[t] < FG_DEFER) {
		f->defer[t]++;
		*later = best.start;
		return 0;
	}
	if (commit(f, t, &best) != 0)
		return -1;
	f->end[t] = sat_add(best.end, f->pl->p[best.plane].latency_ps);
	return 0;
}

static int
run(struct fg *f, uint64_t *makespan)
{
	const struct dag *d = f->d;
	uint32_t *prev, *last, *pend, *succ;
	size_t *soff, i, j;
	struct heap h;
	struct heap_item it;
	uint64_t *ready;
	int rc = -1;

	heap_init(&h);
	prev = mem_array(d->n + 1, sizeof(*prev));
	pend = mem_calloc(d->n + 1, sizeof(*pend));
	ready = mem_calloc(d->n + 1, sizeof(*ready));
	last = mem_array((size_t)f->pl->gpus + 1, sizeof(*last));
	soff = NULL;
	succ = NULL;
	if (prev == NULL || pend == NULL || ready == NULL || last == NULL) {
		fail(f, "out of memory (%zu tasks)", d->n);
		goto out;
	}
	memset(last, 0xff, ((size_t)f->pl->gpus + 1) * sizeof(*last));
	for (i = 0; i < d->n; i++) {
		prev[i] = NONE;
		pend[i] = d->t[i].ndep;
		if (d->t[i].kind != DAG_COMPUTE)
			continue;
		if ((prev[i] = last[d->t[i].gpu]) != NONE)
			pend[i]++;
		last[d->t[i].gpu] = (uint32_t)i;
	}
	if (dag_successors(d, prev, &soff, &succ) != 0) {
		fail(f, "out of memory (%zu tasks)", d->n);
		goto out;
	}
	for (i = 0; i < d->n; i++)
		if (pend[i] == 0 && heap_push(&h, 0, i, i) != 0)
			goto oom;
	*makespan = 0;
	while (heap_pop(&h, &it)) {
		uint32_t t = (uint32_t)it.val;
		uint64_t later = 0;

		if (d->t[t].kind == DAG_COMPUTE)
			f->end[t] = sat_add(it.key, d->t[t].amount);
		else if (transfer(f, t, ready[t], it.key, &later) != 0)
			goto out;
		if (later != 0) {	/* not yet: at its start, again */
			if (heap_push(&h, later, t, t) != 0)
				goto oom;
			continue;
		}
		*makespan = max2(*makespan, f->end[t]);
		for (j = soff[t]; j < soff[t + 1]; j++) {
			uint32_t s = succ[j];

			ready[s] = max2(ready[s], f->end[t]);
			if (--pend[s] == 0 && heap_push(&h, ready[s], s, s) != 0)
				goto oom;
		}
	}
	rc = 0;
	goto out;
oom:
	fail(f, "out of memory (the ready tasks)");
out:
	heap_free(&h);
	free(prev);
	free(pend);
	free(ready);
	free(last);
	free(soff);
	free(succ);
	return rc;
}

int
fabgreedy_run(const struct dag *d, const struct planes *pl,
    struct schedule *sc, uint64_t *makespan, char *err, size_t errlen)
{
	struct fg f = { .d = d, .pl = pl, .sc = sc, .err = err,
	    .errlen = errlen };
	int rc = -1;

	*makespan = 0;
	sc->present = 1;
	sc->periodic = 0;
	sc->forwarding = SCHED_DIRECT;
	if (check(&f) == 0 && alloc(&f) == 0)
		rc = run(&f, makespan);
	free(f.off);
	free(f.nslot);
	free(f.gdesc);
	free(f.sendf);
	free(f.recvf);
	free(f.slot);
	free(f.ps);
	free(f.end);
	free(f.defer);
	free(f.cand);
	return rc;
}
