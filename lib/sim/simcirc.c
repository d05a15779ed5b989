/* simcirc: a schedule's circuits in a run, up and down (simcirc.h). */
#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"
#include "sim/sim.h"
#include "sim/simcirc.h"
#include "sim/simctl.h"
#include "sim/simpair.h"
#include "sim/simslot.h"
#include "sim/simstate.h"

/*
 * The circuit counts as up from at (its pairs found or made first), to
 * go down at until; pis gets its pairs a->b and b->a.
 */
static void
circuit_set(struct sim *s, uint32_t ci, uint64_t at, uint64_t until,
    uint32_t pis[2])
{
	const struct circuit *c = &s->sc->c[ci];
	size_t base = (size_t)c->sw * s->net->gpus;
	uint32_t la = s->lastp[base + c->a], lb = s->lastp[base + c->b];
	uint32_t ends[2][2] = { { c->a, c->b }, { c->b, c->a } };
	int j;

	/* slot by slot, simslot_stats() counts them in closed form */
	if (s->slot == NULL &&
	    ((la != NONE && la != c->b) || (lb != NONE && lb != c->a)))
		s->out->sw[c->sw].reconfigs++;
	for (j = 0; j < 2; j++)
		pis[j] = sim_pair_find(s, ends[j][0], ends[j][1], s->vlb);
	s->lastp[base + c->a] = c->b;
	s->lastp[base + c->b] = c->a;
	s->partner[base + c->a] = c->b;
	s->partner[base + c->b] = c->a;
	s->up_at[ci] = at;
	if (s->slot == NULL && s->out->cup != NULL &&
	    s->out->cup[ci] == UINT64_MAX)
		s->out->cup[ci] = at;
	sim_log(s, "circuit-up %u %u-%u", c->sw, c->a, c->b);
	for (j = 0; j < 2; j++) {
		if (pis[j] == NONE)
			continue;
		s->pr[pis[j]].up++;
		s->pr[pis[j]].until = until;
	}
}

void
sim_circuit_up(struct sim *s, uint32_t ci, uint64_t until)
{
	uint32_t pis[2];
	int j;

	circuit_set(s, ci, s->now, until, pis);
	for (j = 0; j < 2; j++) {
		if (pis[j] == NONE)
			continue;
		if (s->pr[pis[j]].pq != NONE)
			sim_plan_try(s, pis[j], s->sc->c[ci].sw);
		sim_pair_update(s, pis[j]);
	}
}

/*
 * Slot by slot: a circuit up since at, that no traffic waited for until
 * now, counts as up; nothing is served until the caller says.
 */
void
sim_circuit_on(struct sim *s, uint32_t ci, uint64_t at, uint64_t until)
{
	uint32_t pis[2];

	circuit_set(s, ci, at, until, pis);
}

static void
circuit_down(struct sim *s, uint32_t ci)
{
	const struct circuit *c = &s->sc->c[ci];
	size_t base = (size_t)c->sw * s->net->gpus;
	uint32_t ends[2][2] = { { c->a, c->b }, { c->b, c->a } }, pi;
	int j;

	sim_log(s, "circuit-down %u %u-%u", c->sw, c->a, c->b);
	if (s->slot == NULL && s->out->cdown != NULL)
		s->out->cdown[ci] = s->now;
	if (s->slot == NULL)
		sim_add_u64(s, &s->out->sw[c->sw].up_ps, s->now - s->up_at[ci],
		    "the circuit-up time of a switch (ps)");
	s->up_at[ci] = UINT64_MAX;
	for (j = 0; j < 2; j++) {
		struct pair *p;

		if ((pi = sim_pair_find(s, ends[j][0], ends[j][1], 0)) == NONE)
			continue;
		p = &s->pr[pi];
		if (p->pq != NONE && s->pq[p->pq + c->sw].flow != NONE &&
		    s->fl[s->pq[p->pq + c->sw].flow].rate > 0) {
			sim_flow_rate(s, s->pq[p->pq + c->sw].flow, 0);
			p->pbusy--;
		}
		p->up--;
		sim_pair_update(s, pi);
	}
	/* a circuit set up at this same instant may own the port now */
	if (s->partner[base + c->a] == c->b)
		s->partner[base + c->a] = NONE;
	if (s->partner[base + c->b] == c->a)
		s->partner[base + c->b] = NONE;
}

/* An event past 2^64-1 ps never comes: sim.c's deadlock() says why. */
static void
circuit_push(struct sim *s, u128 t, int kind, uint32_t ci)
{
	if (t > UINT64_MAX)
		s->clipped = 1;
	else
		sim_push(s, (uint64_t)t, kind, ci);
}

/* Replay: circuits come and go as the controller says (simctl.h). */
static void
ctl_event(struct sim *s, int kind, uint32_t ci)
{
	uint32_t succ[2];
	uint64_t at[2];
	int j, m;

	if (kind == EV_UP) {
		m = simctl_up(s->ctl, ci, s->now, at);
		sim_circuit_up(s, ci, UINT64_MAX);
		if (m)
			sim_push(s, at[0], EV_DOWN, ci);
		return;
	}
	circuit_down(s, ci);
	m = simctl_down(s->ctl, ci, s->now, succ, at);
	for (j = 0; j < m; j++)
		sim_push(s, at[j], EV_UP, succ[j]);
}

static void
circuit_event(struct sim *s, int kind, uint32_t ci)
{
	const struct circuit *c = &s->sc->c[ci];
	u128 base = s->sc->periodic ? (u128)s->cperiod[ci] * s->sc->period :
	    0, t;

	if (kind == EV_UP) {
		t = c->to == SCHED_FOREVER ? UINT64_MAX : base + c->to;
		sim_circuit_up(s, ci, t > UINT64_MAX ? UINT64_MAX :
		    (uint64_t)t);
		if (c->to != SCHED_FOREVER)
			circuit_push(s, t, EV_DOWN, ci);
		return;
	}
	circuit_down(s, ci);
	if (s->sc->periodic) {
		s->cperiod[ci]++;
		circuit_push(s, base + s->sc->period + c->from, EV_UP, ci);
	}
}

void
simcirc_event(struct sim *s, int kind, uint32_t ci)
{
	if (s->slot != NULL && kind == EV_UP)
		simslot_fire(s, ci);
	else if (s->slot != NULL)
		circuit_down(s, ci);
	else if (s->ctl != NULL)
		ctl_event(s, kind, ci);
	else
		circuit_event(s, kind, ci);
}
