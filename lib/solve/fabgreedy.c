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
#include "solve/fabcand.h"
#include "solve/fabepoch.h"
#include "solve/fabgreedy.h"

#define NONE		UINT32_MAX
#define FG_DEFER	4	/* a transfer put back at most so often */

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
	const struct fabguide	*gd;		/* or NULL: the greedy */
	struct schedule		*sc;
	char			*err;
	size_t			 errlen;
	struct fabcand_ctx	 cx;
	struct fabepochs	 ep;		/* switch-model planes */
	uint64_t		*sendf, *recvf;	/* per port: free from */
	uint64_t		*slot;		/* oversubscribed eps: flows */
	struct portst		*ps;
	uint64_t		*end;		/* per task */
	uint8_t			*defer;		/* per task: times put back */
	uint32_t		*cand;
	size_t			 ncand;
};

/* A candidate: where a transfer would go, when. */
struct cand {
	struct fabcand	 c;
	uint64_t	 start, end, up;	/* up: a new circuit's */
	int		 newc;
	int		 how;		/* switch model: fabepoch.h */
	uint32_t	 slot;
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

static int
guided(const struct fg *f)
{
	return f->gd != NULL && f->gd->key != NULL;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int
alloc(struct fg *f)
{
	const struct planes *pl = f->pl;
	size_t n, i;

	if (fabcand_init(&f->cx, pl, f->err, f->errlen) != 0)
		return -1;
	n = f->cx.off[pl->n];
	if (fabepoch_init(&f->ep, pl, f->cx.off, n) != 0)
		return fail(f, "out of memory (%zu ports)", n);
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
	const struct portst *a = &f->ps[f->cx.off[p] + x];
	const struct portst *b = &f->ps[f->cx.off[p] + y];
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

/* Where and when transfer t would run on plane p. */
static void
try_plane(struct fg *f, uint32_t t, uint64_t ready, size_t p,
    struct cand *c)
{
	const struct dag_task *k = &f->d->t[t];
	const size_t *off = f->cx.off;
	const struct fabcand *w = &c->c;
	uint64_t s = ready;
	uint32_t i;

	memset(c, 0, sizeof(*c));
	fabcand_on(&f->cx, p, k->gpu, k->dst, k->amount, &c->c);
	s = max2(s, f->sendf[off[p] + w->x]);
	s = max2(s, f->recvf[off[p] + w->y]);
	if (w->gp != FABCAND_NONE) {
		s = max2(s, f->sendf[off[w->gp] + w->gx]);
		s = max2(s, f->recvf[off[w->gq] + w->gy]);
	}
	if (f->pl->p[p].kind == PLANE_OCS) {
		if (f->pl->p[p].model == NET_SWITCH)
			c->up = fabepoch_at(&f->ep, p, w->x, w->y, &c->how);
		else
			c->up = circuit_at(f, p, w->x, w->y, &c->newc);
		s = max2(s, c->up);
	}
	for (i = 0, c->slot = NONE; i < f->cx.nslot[p]; i++)
		if (c->slot == NONE || f->slot[off[p] + i] <
		    f->slot[off[p] + c->slot])
			c->slot = i;
	if (c->slot != NONE)
		s = max2(s, f->slot[off[p] + c->slot]);
	c->start = s;
	c->end = sat_add(s, w->dur);
}

/* Take port x's circuit down after its last transfer. */
static void
take_down(struct fg *f, size_t p, uint32_t x)
{
	struct portst *a = &f->ps[f->cx.off[p] + x], *b;
	struct circuit *c;

	if (!a->up)
		return;
	c = &f->sc->c[a->circ];
	c->to = max2(a->last, c->from + 1);
	b = &f->ps[f->cx.off[p] + a->partner];
	a->up = b->up = 0;
	a->last = b->last = c->to;
}

static int
commit(struct fg *f, uint32_t t, const struct cand *c)
{
	const struct fabcand *w = &c->c;
	size_t p = w->plane, o = f->cx.off[p];
	struct portst *a = &f->ps[o + w->x], *b = &f->ps[o + w->y];

	f->sendf[o + w->x] = f->recvf[o + w->y] = c->end;
	if (w->gp != FABCAND_NONE) {
		f->sendf[f->cx.off[w->gp] + w->gx] = c->end;
		f->recvf[f->cx.off[w->gq] + w->gy] = c->end;
	}
	if (c->slot != NONE)
		f->slot[o + c->slot] = c->end;
	if (f->pl->p[p].kind == PLANE_OCS && f->pl->p[p].model == NET_SWITCH) {
		if (fabepoch_commit(&f->ep, f->sc, p, w->x, w->y, c->how,
		    c->up, c->end) != 0)
			return fail(f, "out of memory (the circuits)");
	} else if (f->pl->p[p].kind == PLANE_OCS) {
		if (c->newc) {
			take_down(f, p, w->x);
			take_down(f, p, w->y);
			if (sched_add_circuit(f->sc, (uint32_t)p, w->x < w->y ?
			    w->x : w->y, w->x < w->y ? w->y : w->x, c->up,
			    SCHED_FOREVER) != 0)
				return fail(f, "out of memory (the circuits)");
			a->partner = w->y;
			b->partner = w->x;
			a->circ = b->circ = (uint32_t)f->sc->nc - 1;
			a->up = b->up = 1;
			a->last = b->last = c->end;
		}
		a->last = b->last = max2(a->last, c->end);
	}
	if (sched_add_plan(f->sc, t, (uint32_t)p, c->start) != 0)
		return fail(f, "out of memory (the plans)");
	if (f->gd != NULL && f->gd->start != NULL)
		f->gd->start[t] = c->start;
	return 0;
}

/* The planes transfer t may take: those joining its GPUs, or the one
 * the guide gives. */
static size_t
planes_of(struct fg *f, uint32_t t)
{
	const struct dag_task *k = &f->d->t[t];
	size_t n, i;

	n = planes_joining(f->pl, k->gpu, k->dst, f->cand, f->pl->n);
	if (!guided(f) || f->gd->plane == NULL)
		return n;
	for (i = 0; i < n; i++)
		if (f->cand[i] == f->gd->plane[t]) {
			f->cand[0] = f->cand[i];
			return 1;
		}
	return 0;
}

/*
 * Transfer t, ready at ready, taken from the queue at key: placed where
 * it ends first if it can start by key; else *later is its start, and
 * it goes back to the queue for that time.  A guided one is placed.
 */
static int
transfer(struct fg *f, uint32_t t, uint64_t ready, uint64_t key,
    uint64_t *later)
{
	const struct dag_task *k = &f->d->t[t];
	struct cand best, c;
	size_t n, i;

	if ((n = planes_of(f, t)) == 0)
		return fail(f, "transfer %u: no plane %sjoins GPUs %u and %u: "
		    "route the DAG for this fabric (dagbuild --fabric)", t,
		    guided(f) && f->gd->plane != NULL ? "given " : "",
		    k->gpu, k->dst);
	for (i = 0; i < n; i++) {
		try_plane(f, t, ready, f->cand[i], &c);
		if (i == 0 || c.end < best.end)
			best = c;
	}
	*later = 0;
	if (!guided(f) && best.start > key && f->defer[t] < FG_DEFER) {
		f->defer[t]++;
		*later = best.start;
		return 0;
	}
	if (commit(f, t, &best) != 0)
		return -1;
	f->end[t] = sat_add(best.end, best.c.lat);
	return 0;
}

/* A task taken from the queue at key, ready at ready. */
static int
take(struct fg *f, uint32_t t, uint64_t ready, uint64_t key,
    uint64_t *later)
{
	const struct dag_task *k = &f->d->t[t];

	*later = 0;
	if (k->kind != DAG_COMPUTE)
		return transfer(f, t, ready, key, later);
	f->end[t] = sat_add(ready, k->amount);
	if (f->gd != NULL && f->gd->start != NULL)
		f->gd->start[t] = ready;
	return 0;
}

/* Where task i enters the queue once ready at ready. */
static uint64_t
qkey(const struct fg *f, size_t i, uint64_t ready)
{
	return guided(f) ? f->gd->key[i] : ready;
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
		if (pend[i] == 0 && heap_push(&h, qkey(f, i, 0), i, i) != 0)
			goto oom;
	*makespan = 0;
	while (heap_pop(&h, &it)) {
		uint32_t t = (uint32_t)it.val;
		uint64_t later = 0;

		if (take(f, t, ready[t], it.key, &later) != 0)
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
			if (--pend[s] == 0 && heap_push(&h, qkey(f, s,
			    ready[s]), s, s) != 0)
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
fabgreedy_place(const struct dag *d, const struct planes *pl,
    const struct fabguide *gd, struct schedule *sc, uint64_t *makespan,
    char *err, size_t errlen)
{
	struct fg f = { .d = d, .pl = pl, .gd = gd, .sc = sc, .err = err,
	    .errlen = errlen };
	int rc = -1;

	*makespan = 0;
	sc->present = 1;
	sc->periodic = 0;
	sc->forwarding = SCHED_DIRECT;
	if (alloc(&f) == 0)
		rc = run(&f, makespan);
	fabcand_free(&f.cx);
	fabepoch_free(&f.ep);
	free(f.sendf);
	free(f.recvf);
	free(f.slot);
	free(f.ps);
	free(f.end);
	free(f.defer);
	free(f.cand);
	return rc;
}

int
fabgreedy_run(const struct dag *d, const struct planes *pl,
    struct schedule *sc, uint64_t *makespan, char *err, size_t errlen)
{
	return fabgreedy_place(d, pl, NULL, sc, makespan, err, errlen);
}
