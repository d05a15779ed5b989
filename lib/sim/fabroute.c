/*
 * fabroute: the links a transfer's flow crosses in a tiered fabric's
 * simulation (sim/fabsetup.h, fabsetup_links()).
 */
#include <stdint.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/planes.h"
#include "sim/fablink.h"
#include "sim/fabsetup.h"
#include "sim/fabsim.h"

#define NONE	UINT32_MAX

typedef unsigned __int128 u128;

static uint64_t
sat(u128 x)
{
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

static int
link(struct fs *s, struct fabflow *f, int kind, uint32_t where, uint32_t x,
    uint32_t y, uint64_t cap, uint32_t units)
{
	int64_t li = fablinks_get(&s->ls, fablink_key(kind, where, x, y), cap,
	    units);

	if (li < 0) {
		fabsim_fail(s, "out of memory (the links)");
		return -1;
	}
	f->link[f->nl++] = (uint32_t)li;
	return 0;
}

/* An eps core's capacity: ports x rate x den / num. */
static uint64_t
core(const struct plane_desc *d, uint64_t ports, uint64_t planes)
{
	return sat((u128)planes * ports * d->rate_bps * d->over_den /
	    d->over_num);
}

static int
ideal_links(struct fs *s, uint32_t g, uint32_t h, struct fabflow *f,
    uint32_t *desc)
{
	const struct fabric *fab = s->pl->fab;
	const struct plane_desc *d, *gd;
	uint64_t units, ports;
	uint32_t u, x = g, y = h, j;
	int64_t i;

	if ((i = planes_route(fab, g, h, &u)) < 0) {
		fabsim_fail(s, "no plane joins GPUs %u and %u: route the DAG "
		    "for this fabric (dagbuild --fabric)", g, h);
		return -1;
	}
	*desc = (uint32_t)i;
	d = &fab->d[i];
	fabric_shape(d, s->pl->gpus, &units, &ports);
	if (d->attach == ATTACH_UPLINK) {
		x = g / d->k;
		y = h / d->k;
	}
	if (link(s, f, FL_DSEND, *desc, x, 0, sat((u128)d->count *
	    (d->attach == ATTACH_UPLINK ? d->u : 1) * d->rate_bps), 1) ||
	    link(s, f, FL_DRECV, *desc, y, 0, sat((u128)d->count *
	    (d->attach == ATTACH_UPLINK ? d->u : 1) * d->rate_bps), 1))
		return -1;
	if (d->kind == PLANE_EPS && d->over_num > d->over_den &&
	    link(s, f, FL_DCORE, *desc, u, 0, core(d, ports, d->count), 1))
		return -1;
	if ((j = s->gdesc[i]) == NONE)
		return 0;
	gd = &fab->d[j];
	return link(s, f, FL_DSEND, j, g, 0, sat((u128)gd->count *
	    gd->rate_bps), 1) || link(s, f, FL_DRECV, j, h, 0,
	    sat((u128)gd->count * gd->rate_bps), 1) ? -1 : 0;
}

/* An uplink flow's links into its GPUs' groups, on their first planes. */
static int
group_links(struct fs *s, uint32_t di, uint32_t g, uint32_t h,
    struct fabflow *f)
{
	const struct planes *pl = s->pl;
	uint32_t j = s->gdesc[di];
	const struct plane_desc *gd;
	size_t pg, ph;

	if (j == NONE)
		return 0;
	gd = &pl->fab->d[j];
	pg = pl->base[j] + (size_t)(g / gd->k) * gd->count;
	ph = pl->base[j] + (size_t)(h / gd->k) * gd->count;
	return link(s, f, FL_SEND, (uint32_t)pg, g % gd->k, 0, gd->rate_bps,
	    1) || link(s, f, FL_RECV, (uint32_t)ph, h % gd->k, 0,
	    gd->rate_bps, 1) ? -1 : 0;
}

static int
plan_links(struct fs *s, uint32_t t, uint32_t g, uint32_t h,
    struct fabflow *f, uint32_t *desc)
{
	const struct planes *pl = s->pl;
	uint32_t p = s->ts[t].plane, x, y;
	const struct plane *pp = &pl->p[p];
	const struct plane_desc *d = &pl->fab->d[pp->desc];
	int up = d->attach == ATTACH_UPLINK;

	*desc = pp->desc;
	x = up ? g / d->k : (uint32_t)planes_port(pl, p, g);
	y = up ? h / d->k : (uint32_t)planes_port(pl, p, h);
	if (pp->kind == PLANE_OCS) {
		if (link(s, f, FL_CIRC, p, x, y, pp->rate_bps, 0))
			return -1;
	} else if (link(s, f, FL_SEND, p, x, 0, sat((u128)pp->rate_bps *
	    (up ? d->u : 1)), 1) || link(s, f, FL_RECV, p, y, 0,
	    sat((u128)pp->rate_bps * (up ? d->u : 1)), 1) ||
	    (d->over_num > d->over_den && link(s, f, FL_CORE, p, 0, 0,
	    core(d, pp->ports, 1), 1)))
		return -1;
	return up ? group_links(s, pp->desc, g, h, f) : 0;
}

/*
 * Unplanned, over planes_route()'s description (or, circuits_first,
 * over the ocs one whose circuits join g and h, if any): ocs over its
 * circuits.
 */
static int
circ_links(struct fs *s, uint32_t g, uint32_t h, struct fabflow *f,
    uint32_t *desc)
{
	const struct planes *pl = s->pl;
	const struct plane_desc *d;
	uint32_t u, x, y;
	size_t p0;
	int64_t i = -1;

	if (s->sc->circuits_first)
		i = fabsetup_circuit_joins(s, g, h, &u);
	if ((i < 0 && (i = planes_route(pl->fab, g, h, &u)) < 0) ||
	    pl->fab->d[i].kind == PLANE_EPS)
		return ideal_links(s, g, h, f, desc);
	*desc = (uint32_t)i;
	d = &pl->fab->d[i];
	p0 = pl->base[i] + (size_t)u * d->count;
	x = d->attach == ATTACH_UPLINK ? g / d->k :
	    (uint32_t)planes_port(pl, p0, g);
	y = d->attach == ATTACH_UPLINK ? h / d->k :
	    (uint32_t)planes_port(pl, p0, h);
	if (link(s, f, FL_CIRC, (uint32_t)p0, x, y, pl->p[p0].rate_bps, 0))
		return -1;
	return d->attach == ATTACH_UPLINK ? group_links(s, (uint32_t)i, g, h,
	    f) : 0;
}

int
fabsetup_links(struct fs *s, uint32_t t, struct fabflow *f, uint32_t *desc,
    uint64_t *lat)
{
	uint32_t g = s->d->t[t].gpu, h = s->d->t[t].dst;
	int rc;

	f->nl = 0;
	if (s->opt->mode == FABSIM_IDEAL)
		rc = ideal_links(s, g, h, f, desc);
	else if (s->opt->mode == FABSIM_CIRCUITS)
		rc = circ_links(s, g, h, f, desc);
	else
		rc = plan_links(s, t, g, h, f, desc);
	*lat = rc == 0 ? s->pl->fab->d[*desc].latency_ps : 0;
	return rc;
}
