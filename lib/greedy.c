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

/* Per switch and GPU port. */
struct port {
	uint32_t	partner;	/* NONE: no circuit */
	uint32_t	circ;		/* its open circuit */
	uint64_t	txf, rxf;	/* sending, receiving busy until */
	uint64_t	up;		/* its circuit is usable from */
	uint8_t		had;		/* has had a circuit */
};

struct state {
	const struct dag	*d;
	const struct net	*n;
	struct greedy		*g;
	struct port		*pt;		/* [sw * gpus + gpu] */
	uint64_t		*gpu_free;
	uint64_t		*ready;		/* data ready, per task */
};

/* Time to send bytes at the port rate, rounded up to a picosecond. */
uint64_t
greedy_duration(const struct net *n, uint64_t bytes)
{
	unsigned __int128 t = (unsigned __int128)bytes * 8 * PS;

	return (uint64_t)((t + n->bandwidth_bps - 1) / n->bandwidth_bps);
}

static uint64_t
length(const struct dag *d, const struct net *n, size_t i)
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

		bl[i] += length(d, n, i);
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

/* When a transfer a->b would start on switch sw, and whether it must
 * set up a new circuit there. */
static uint64_t
try_switch(struct state *s, uint32_t sw, uint32_t a, uint32_t b,
    uint64_t ready, int *fresh, uint64_t *up)
{
	struct port *pa = port(s, sw, a), *pb = port(s, sw, b);
	uint64_t ta, tb, t;

	if (pa->partner == b) {
		*fresh = 0;
		t = pa->txf > pb->rxf ? pa->txf : pb->rxf;
		t = t > pa->up ? t : pa->up;
		return t > ready ? t : ready;
	}
	*fresh = 1;
	ta = pa->txf > pa->rxf ? pa->txf : pa->rxf;
	tb = pb->txf > pb->rxf ? pb->txf : pb->rxf;
	t = ta > tb ? ta : tb;
	if (pa->had || pb->had)
		t += s->n->reconfig_ps;
	*up = t;
	return t > ready ? t : ready;
}

/* Tear down the circuits of a and b on sw and set up {a, b}. */
static int
set_up(struct state *s, uint32_t sw, uint32_t a, uint32_t b, uint64_t up,
    uint64_t from)
{
	struct port *pa = port(s, sw, a), *pb = port(s, sw, b);
	struct schedule *sc = &s->g->sc;

	if (pa->partner != NONE)
		port(s, sw, pa->partner)->partner = NONE;
	if (pb->partner != NONE)
		port(s, sw, pb->partner)->partner = NONE;
	if (sched_add_circuit(sc, sw, a, b, from, from) != 0)
		return -1;
	pa->partner = b;
	pb->partner = a;
	pa->up = pb->up = up;
	pa->had = pb->had = 1;
	pa->circ = pb->circ = (uint32_t)(sc->nc - 1);
	return 0;
}

static int
place_transfer(struct state *s, uint32_t t)
{
	const struct dag_task *tk = &s->d->t[t];
	uint64_t dur = greedy_duration(s->n, tk->amount), best = UINT64_MAX;
	uint64_t st, bst = 0, up, bup = 0, busy;
	uint32_t sw, bsw = 0;
	int fresh, bfresh = 0;
	struct schedule *sc = &s->g->sc;
	struct port *pa, *pb;

	for (sw = 0; sw < s->n->switches; sw++) {
		st = try_switch(s, sw, tk->gpu, tk->dst, s->ready[t], &fresh,
		    &up);
		if (st + dur < best) {
			best = st + dur;
			bst = st;
			bup = up;
			bsw = sw;
			bfresh = fresh;
		}
	}
	if (bfresh && set_up(s, bsw, tk->gpu, tk->dst, bup, bst) != 0)
		return -1;
	pa = port(s, bsw, tk->gpu);
	pb = port(s, bsw, tk->dst);
	/* an empty transfer still holds its circuit for a picosecond */
	busy = bst + (dur > 0 ? dur : 1);
	pa->txf = pb->rxf = busy;
	if (sc->c[pa->circ].to < busy)
		sc->c[pa->circ].to = busy;
	if (sc->c[pa->circ].from > bst)
		sc->c[pa->circ].from = bst;
	if (mem_grow(&sc->p, &sc->pcap, sc->np + 1, sizeof(*sc->p)) != 0)
		return -1;
	sc->p[sc->np++] = (struct plan){ t, bsw, bst };
	s->g->start[t] = bst;
	s->g->end[t] = bst + dur + s->n->latency_ps;
	return 0;
}

static void
place_compute(struct state *s, uint32_t t)
{
	const struct dag_task *tk = &s->d->t[t];
	uint64_t st = s->ready[t];

	if (s->gpu_free[tk->gpu] > st)
		st = s->gpu_free[tk->gpu];
	s->g->start[t] = st;
	s->g->end[t] = st + tk->amount;
	s->gpu_free[tk->gpu] = st + tk->amount;
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

static int
schedule(struct state *s, const uint64_t *bl, const uint32_t *prev)
{
	const struct dag *d = s->d;
	uint32_t *pending, *nexts;
	size_t *off, i, j;
	struct heap h;
	struct heap_item it;
	int rc = -1;

	pending = calloc(d->n + 1, sizeof(*pending));
	off = calloc(d->n + 2, sizeof(*off));
	nexts = malloc((d->ndep + d->n + 1) * sizeof(*nexts));
	heap_init(&h);
	if (pending == NULL || off == NULL || nexts == NULL)
		goto out;
	for (i = 0; i < d->n; i++) {
		const uint32_t *dep = dag_deps(d, i);

		for (j = 0; j < d->t[i].ndep; j++)
			off[dep[j] + 2]++;
		if (prev[i] != NONE)
			off[prev[i] + 2]++;
		pending[i] = d->t[i].ndep + (prev[i] != NONE);
	}
	for (i = 0; i < d->n; i++)
		off[i + 2] += off[i + 1];
	for (i = 0; i < d->n; i++) {
		const uint32_t *dep = dag_deps(d, i);

		for (j = 0; j < d->t[i].ndep; j++)
			nexts[off[dep[j] + 1]++] = (uint32_t)i;
		if (prev[i] != NONE)
			nexts[off[prev[i] + 1]++] = (uint32_t)i;
	}
	/* max-heap on bottom level: key = ~bl, ties by id */
	for (i = 0; i < d->n; i++)
		if (pending[i] == 0 && heap_push(&h, ~bl[i], i, i) != 0)
			goto out;
	while (heap_pop(&h, &it)) {
		uint32_t t = (uint32_t)it.val;

		if (d->t[t].kind == DAG_COMPUTE)
			place_compute(s, t);
		else if (place_transfer(s, t) != 0)
			goto out;
		if (s->g->end[t] > s->g->makespan)
			s->g->makespan = s->g->end[t];
		for (j = off[t]; j < off[t + 1]; j++) {
			uint32_t v = nexts[j];

			if (d->t[v].kind == DAG_COMPUTE && prev[v] == t)
				;	/* order only: no data */
			else if (s->g->end[t] > s->ready[v])
				s->ready[v] = s->g->end[t];
			if (--pending[v] == 0 &&
			    heap_push(&h, ~bl[v], v, v) != 0)
				goto out;
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

int
greedy_run(const struct dag *d, const struct net *n, struct greedy *g)
{
	struct state s = { d, n, g, NULL, NULL, NULL };
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
	for (i = 0; i < np; i++)
		s.pt[i].partner = NONE;
	if ((bl = bottom_levels(d, n)) == NULL ||
	    (prev = gpu_order(d, n)) == NULL)
		goto out;
	rc = schedule(&s, bl, prev);
out:
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

uint64_t
greedy_bound(const struct dag *d, const struct net *n)
{
	uint64_t *bl, *head, cp = 0, pb;
	size_t i, j;

	if ((bl = bottom_levels(d, n)) == NULL)
		return 0;
	if ((head = calloc(d->n + 1, sizeof(*head))) == NULL) {
		free(bl);
		return 0;
	}
	for (i = 0; i < d->n; i++) {
		const uint32_t *dep = dag_deps(d, i);

		for (j = 0; j < d->t[i].ndep; j++) {
			uint64_t e = head[dep[j]] + length(d, n, dep[j]);

			if (e > head[i])
				head[i] = e;
		}
		if (bl[i] > cp)
			cp = bl[i];
	}
	pb = port_bound(d, n, head, bl, 0);
	cp = pb > cp ? pb : cp;
	pb = port_bound(d, n, head, bl, 1);
	cp = pb > cp ? pb : cp;
	free(bl);
	free(head);
	return cp;
}
