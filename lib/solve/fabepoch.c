/* fabepoch: ocs planes under the switch model for the greedy on planes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/planes.h"
#include "model/sched.h"
#include "records/mem.h"
#include "solve/fabepoch.h"

#define NONE	UINT32_MAX

static uint64_t
max2(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

int
fabepoch_init(struct fabepochs *e, const struct planes *pl,
    const size_t *off, size_t nports)
{
	size_t i;

	memset(e, 0, sizeof(*e));
	e->pl = pl;
	e->off = off;
	e->p = mem_calloc(pl->n + 1, sizeof(*e->p));
	e->partner = mem_array(nports + 1, sizeof(*e->partner));
	e->pep = mem_calloc(nports + 1, sizeof(*e->pep));
	e->circ = mem_array(nports + 1, sizeof(*e->circ));
	if (e->p == NULL || e->partner == NULL || e->pep == NULL ||
	    e->circ == NULL)
		return -1;
	for (i = 0; i < pl->n; i++)
		e->p[i].ep = 1;		/* a port's epoch 0: none */
	return 0;
}

void
fabepoch_free(struct fabepochs *e)
{
	size_t i;

	for (i = 0; e->p != NULL && i < e->pl->n; i++) {
		free(e->p[i].open);
		free(e->p[i].lend);
	}
	free(e->p);
	free(e->partner);
	free(e->pep);
	free(e->circ);
	memset(e, 0, sizeof(*e));
}

/* Is port o (numbered off[p] + x) in a circuit of plane p's epoch? */
static int
in_epoch(const struct fabepochs *e, size_t p, size_t o)
{
	return e->pep[o] == e->p[p].ep;
}

uint64_t
fabepoch_at(const struct fabepochs *e, size_t p, uint32_t x, uint32_t y,
    int *how)
{
	const struct fabepoch_plane *q = &e->p[p];
	size_t ox = e->off[p] + x, oy = e->off[p] + y;
	uint64_t tau = e->pl->p[p].reconfig_ps;

	if (in_epoch(e, p, ox) && e->partner[ox] == y) {
		*how = FABEPOCH_UP;
		return q->start;
	}
	if (!in_epoch(e, p, ox) && !in_epoch(e, p, oy)) {
		*how = FABEPOCH_ADD;
		return q->start;
	}
	*how = FABEPOCH_NEW;
	return q->last > UINT64_MAX - tau ? UINT64_MAX : q->last + tau;
}

/* The epoch's circuits end after their last transfers; the next is up
 * from up. */
static void
next_epoch(struct fabepochs *e, struct schedule *sc, size_t p, uint64_t up)
{
	struct fabepoch_plane *q = &e->p[p];
	size_t i;

	for (i = 0; i < q->nopen; i++) {
		struct circuit *c = &sc->c[q->open[i]];

		c->to = max2(q->lend[i], c->from + 1);
	}
	q->ep++;
	q->start = up;
	q->last = 0;
	q->nopen = 0;
}

static int
add(struct fabepochs *e, struct schedule *sc, size_t p, uint32_t x,
    uint32_t y, uint64_t end)
{
	struct fabepoch_plane *q = &e->p[p];
	size_t ox = e->off[p] + x, oy = e->off[p] + y, c = q->cap;

	if (sched_add_circuit(sc, (uint32_t)p, x < y ? x : y, x < y ? y : x,
	    q->start, SCHED_FOREVER) != 0 ||
	    mem_grow(&q->open, &c, q->nopen + 1, sizeof(*q->open)) != 0)
		return -1;
	c = q->cap;
	if (mem_grow(&q->lend, &c, q->nopen + 1, sizeof(*q->lend)) != 0)
		return -1;
	q->cap = c;
	q->open[q->nopen] = (uint32_t)sc->nc - 1;
	q->lend[q->nopen] = end;
	e->partner[ox] = y;
	e->partner[oy] = x;
	e->pep[ox] = e->pep[oy] = q->ep;
	e->circ[ox] = e->circ[oy] = (uint32_t)q->nopen++;
	return 0;
}

int
fabepoch_commit(struct fabepochs *e, struct schedule *sc, size_t p,
    uint32_t x, uint32_t y, int how, uint64_t up, uint64_t end)
{
	struct fabepoch_plane *q = &e->p[p];
	size_t ox = e->off[p] + x;

	if (how == FABEPOCH_NEW)
		next_epoch(e, sc, p, up);
	if (how != FABEPOCH_UP) {
		if (add(e, sc, p, x, y, end) != 0)
			return -1;
	} else
		q->lend[e->circ[ox]] = max2(q->lend[e->circ[ox]], end);
	q->last = max2(q->last, max2(end, q->start + 1));
	return 0;
}
