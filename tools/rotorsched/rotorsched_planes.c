/*
 * rotorsched on a tiered fabric: each unit of ocs planes (a rail's, an
 * uplink's) that carries transfers gets a schedule of its own, made by
 * the mode's maker on a net of its ports (its count planes as the
 * switches) and, for the traffic-matrix modes, the transfers that go
 * over it, renamed to its ports.  The units' periods are made one: a
 * unit whose period is shorter idles to the end of the longest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/fabric.h"
#include "model/net.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/die.h"
#include "rotorsched.h"

/* The description and unit that carry each transfer, as ocssim sends. */
static void
route_all(const struct dagin *in, uint32_t *desc, uint32_t *unit)
{
	const struct dag *d = &in->dag;
	int64_t i;
	size_t t;

	for (t = 0; t < d->n; t++) {
		desc[t] = UINT32_MAX;
		if (d->t[t].kind != DAG_TRANSFER)
			continue;
		if ((i = planes_route(&in->fab, d->t[t].gpu, d->t[t].dst,
		    &unit[t])) < 0)
			die("transfer %zu (%u->%u): no plane joins its GPUs: "
			    "route the DAG for this fabric (dagbuild --fabric)",
			    t, d->t[t].gpu, d->t[t].dst);
		desc[t] = (uint32_t)i;
	}
}

/*
 * The unit's own problem: a net of its ports and, for the traffic
 * modes, its transfers on them; 0 when it carries none.
 */
static size_t
unit_input(struct dagin *sub, const struct dagin *in,
    const struct planes *pl, size_t p0, const uint32_t *desc,
    const uint32_t *unit)
{
	const struct plane *p = &pl->p[p0];
	const struct plane_desc *d = &pl->fab->d[p->desc];
	uint32_t u = (uint32_t)((p0 - pl->base[p->desc]) / d->count);
	size_t t, n = 0;

	sub->net.gpus = p->ports;
	sub->net.switches = d->count;
	sub->net.bandwidth_bps = p->rate_bps;
	sub->net.reconfig_ps = p->reconfig_ps;
	sub->net.model = p->model;
	sub->net.latency_ps = p->latency_ps;
	for (t = 0; t < in->dag.n; t++) {
		struct dag_task k;

		if (desc[t] != p->desc || unit[t] != u)
			continue;
		k = in->dag.t[t];
		k.gpu = (uint32_t)planes_port(pl, p0, k.gpu);
		k.dst = (uint32_t)planes_port(pl, p0, k.dst);
		k.ndep = 0;
		n++;
		if (k.gpu != k.dst && dag_add(&sub->dag, &k, NULL, 0) != 0)
			die("out of memory (the transfers of plane %zu)", p0);
	}
	return n;
}

static void
make_unit(struct schedule *one, const struct dagin *sub,
    const struct args *a)
{
	switch (a->mode) {
	case MODE_ROTOR:
		rotor(one, &sub->net, a, NULL);
		break;
	case MODE_BVN:
		bvn(one, sub, a->deadline);
		break;
	case MODE_SOLSTICE:
		solstice(one, sub, a->deadline);
		break;
	default:
		eclipse(one, sub, a->deadline);
	}
}

/* Plane p0's unit: its schedule, its circuits moved onto its planes. */
static void
unit_schedule(struct schedule *sc, const struct dagin *in,
    const struct planes *pl, size_t p0, const uint32_t *desc,
    const uint32_t *unit, const struct args *a)
{
	struct schedule one;
	struct dagin sub;
	size_t i, n;

	dagin_init(&sub);
	n = unit_input(&sub, in, pl, p0, desc, unit);
	if (n == 0 || pl->p[p0].ports < 2 || (a->mode != MODE_ROTOR &&
	    sub.dag.n == 0)) {
		dagin_free(&sub);
		return;
	}
	sched_init(&one);
	make_unit(&one, &sub, a);
	if (one.periodic && one.period > sc->period)
		sc->period = one.period;
	sc->periodic |= one.periodic;
	for (i = 0; i < one.nc; i++)
		if (sched_add_circuit(sc, (uint32_t)(p0 + one.c[i].sw),
		    one.c[i].a, one.c[i].b, one.c[i].from, one.c[i].to) != 0)
			die("out of memory (the circuits)");
	sched_free(&one);
	dagin_free(&sub);
}

void
planes_schedule(struct schedule *sc, const struct dagin *in,
    const struct args *a)
{
	struct planes pl;
	uint32_t *desc, *unit;
	size_t p;

	if (a->fwd != SCHED_DIRECT || a->place.kind != PLACE_IDENTITY)
		die("the net is a tiered fabric (%s), where rotorsched "
		    "forwards direct (-f direct) with its ranks in order, so "
		    "far", in->fab.name);
	if (planes_expand(&pl, &in->fab, in->net.gpus) != 0)
		die("out of memory (the planes of %s on %u GPUs)",
		    in->fab.name, in->net.gpus);
	desc = xmalloc((in->dag.n + 1) * sizeof(*desc));
	unit = xmalloc((in->dag.n + 1) * sizeof(*unit));
	route_all(in, desc, unit);
	sc->periodic = 0;
	sc->period = 0;
	for (p = 0; p < pl.n; p++) {
		const struct plane_desc *d = &in->fab.d[pl.p[p].desc];

		if (d->kind == PLANE_OCS && (p - pl.base[pl.p[p].desc]) %
		    d->count == 0)
			unit_schedule(sc, in, &pl, p, desc, unit, a);
	}
	free(desc);
	free(unit);
	planes_free(&pl);
}
