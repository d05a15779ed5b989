/*
 * rotorsched on a tiered fabric: RotorNet on the ocs planes that carry
 * transfers, each unit of planes (a rail's, an uplink's) a rotor of its
 * own over its ports, its count planes as the rotor's switches.
 */
#include <stdint.h>
#include <stdlib.h>

#include "model/dagin.h"
#include "model/fabric.h"
#include "model/net.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/die.h"
#include "rotorsched.h"

/* Which descriptions carry a transfer, as ocssim routes them. */
static uint8_t *
carried(const struct dagin *in)
{
	const struct dag *d = &in->dag;
	uint8_t *on = xcalloc(in->fab.n + 1, 1);
	uint32_t u;
	int64_t i;
	size_t t;

	for (t = 0; t < d->n; t++) {
		if (d->t[t].kind != DAG_TRANSFER)
			continue;
		if ((i = planes_route(&in->fab, d->t[t].gpu, d->t[t].dst,
		    &u)) < 0)
			die("transfer %zu (%u->%u): no plane joins its GPUs: "
			    "route the DAG for this fabric (dagbuild --fabric)",
			    t, d->t[t].gpu, d->t[t].dst);
		on[i] = 1;
	}
	return on;
}

/* The rotor of one unit's planes, from plane p0 on, into sc. */
static void
unit_rotor(struct schedule *sc, const struct planes *pl, size_t p0,
    const struct args *a)
{
	const struct plane *p = &pl->p[p0];
	const struct plane_desc *d = &pl->fab->d[p->desc];
	struct net n = { 0 };
	struct schedule one;
	size_t i;

	n.gpus = p->ports;
	n.switches = d->count;
	n.bandwidth_bps = p->rate_bps;
	n.reconfig_ps = p->reconfig_ps;
	n.model = p->model;
	sched_init(&one);
	rotor(&one, &n, a, NULL);
	if (sc->periodic && one.period != sc->period)
		die("plane %zu: a rotor period of %llu ps beside one of %llu "
		    "ps: a schedule has one period (give the slot, -s, or "
		    "one tau to every ocs plane)", p0,
		    (unsigned long long)one.period,
		    (unsigned long long)sc->period);
	sc->periodic = 1;
	sc->period = one.period;
	for (i = 0; i < one.nc; i++)
		if (sched_add_circuit(sc, (uint32_t)(p0 + one.c[i].sw),
		    one.c[i].a, one.c[i].b, one.c[i].from, one.c[i].to) != 0)
			die("out of memory (the circuits)");
	sched_free(&one);
}

void
planes_rotor(struct schedule *sc, const struct dagin *in,
    const struct args *a)
{
	struct planes pl;
	uint8_t *on;
	size_t i, p;

	if (a->mode != MODE_ROTOR || a->fwd != SCHED_DIRECT ||
	    a->place.kind != PLACE_IDENTITY)
		die("the net is a tiered fabric (%s), where rotorsched runs "
		    "RotorNet direct (-m rotor -f direct) with its ranks in "
		    "order, so far", in->fab.name);
	if (planes_expand(&pl, &in->fab, in->net.gpus) != 0)
		die("out of memory (the planes of %s on %u GPUs)",
		    in->fab.name, in->net.gpus);
	on = carried(in);
	for (p = 0; p < pl.n; p++) {
		const struct plane_desc *d = &in->fab.d[pl.p[p].desc];

		i = pl.p[p].desc;
		if (!on[i] || d->kind != PLANE_OCS || pl.p[p].ports < 2 ||
		    (p - pl.base[i]) % d->count != 0)
			continue;
		unit_rotor(sc, &pl, p, a);
	}
	free(on);
	planes_free(&pl);
}
