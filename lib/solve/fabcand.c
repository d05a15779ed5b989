/* fabcand: a transfer on one plane of a tiered fabric, for planners. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fabric.h"
#include "model/net.h"
#include "model/planes.h"
#include "records/mem.h"
#include "solve/fabcand.h"

#define PS_BITS		1000000000000ULL	/* ps x bit/s a bit */
#define PORTS_MAX	(1ULL << 28)

typedef unsigned __int128 u128;

static int
fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -1;
}

static uint32_t
group_desc(const struct fabric *f, size_t i)
{
	size_t j;

	for (j = 0; j < f->n; j++)
		if (f->d[j].attach == ATTACH_GROUP && f->d[j].k == f->d[i].k)
			return (uint32_t)j;
	return FABCAND_NONE;
}

static int
check(const struct fabric *fab, char *err, size_t n)
{
	size_t i;

	for (i = 0; i < fab->n; i++) {
		const struct plane_desc *d = &fab->d[i];

		if (d->kind == PLANE_OCS && d->attach == ATTACH_UPLINK &&
		    d->u != 1)
			return fail(err, n, "plane description %zu: an ocs "
			    "uplink plane with %u ports a group is not planned "
			    "yet (one is)", i, d->u);
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
flow_bps(const struct planes *pl, size_t p)
{
	const struct plane *q = &pl->p[p];
	const struct plane_desc *d = &pl->fab->d[q->desc];
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

int
fabcand_init(struct fabcand_ctx *c, const struct planes *pl, char *err,
    size_t errlen)
{
	size_t p, n = 0, i;

	memset(c, 0, sizeof(*c));
	c->pl = pl;
	if (check(pl->fab, err, errlen) != 0)
		return -1;
	if ((c->off = mem_array(pl->n + 1, sizeof(*c->off))) == NULL ||
	    (c->nslot = mem_calloc(pl->n + 1, sizeof(*c->nslot))) == NULL ||
	    (c->gdesc = mem_array(pl->fab->n + 1, sizeof(*c->gdesc))) == NULL)
		return fail(err, errlen, "out of memory (the planes)");
	for (p = 0; p < pl->n; p++) {
		const struct plane *q = &pl->p[p];

		c->off[p] = n;
		n += q->ports;
		if (q->kind == PLANE_EPS && q->over_num > q->over_den) {
			u128 s = core_bps(q) / flow_bps(pl, p);

			c->nslot[p] = s < 1 ? 1 : s > q->ports ? q->ports :
			    (uint32_t)s;
		}
	}
	c->off[pl->n] = n;
	if (n > PORTS_MAX)
		return fail(err, errlen, "the fabric has %zu ports on its %zu "
		    "planes: more than the %llu the planner keeps", n, pl->n,
		    (unsigned long long)PORTS_MAX);
	for (i = 0; i < pl->fab->n; i++)
		c->gdesc[i] = pl->fab->d[i].attach == ATTACH_UPLINK ?
		    group_desc(pl->fab, i) : FABCAND_NONE;
	return 0;
}

void
fabcand_free(struct fabcand_ctx *c)
{
	free(c->off);
	free(c->nslot);
	free(c->gdesc);
	memset(c, 0, sizeof(*c));
}

static uint64_t
duration(uint64_t bytes, uint64_t rate)
{
	u128 w = (u128)bytes * 8 * PS_BITS, d = (w + rate - 1) / rate;

	return d > UINT64_MAX ? UINT64_MAX : (uint64_t)d;
}

void
fabcand_on(const struct fabcand_ctx *x, size_t p, uint32_t g, uint32_t h,
    uint64_t bytes, struct fabcand *c)
{
	const struct planes *pl = x->pl;
	const struct plane *q = &pl->p[p];
	const struct plane_desc *d = &pl->fab->d[q->desc];
	const struct plane_desc *gd;
	uint64_t rate = flow_bps(pl, p);
	uint32_t j;

	memset(c, 0, sizeof(*c));
	c->plane = (uint32_t)p;
	c->gp = FABCAND_NONE;
	c->lat = q->latency_ps;
	if (d->attach != ATTACH_UPLINK) {
		c->x = (uint32_t)planes_port(pl, p, g);
		c->y = (uint32_t)planes_port(pl, p, h);
		c->dur = duration(bytes, rate);
		return;
	}
	c->x = g / d->k * d->u;
	c->y = h / d->k * d->u;
	if ((j = x->gdesc[q->desc]) != FABCAND_NONE) {
		gd = &pl->fab->d[j];
		c->gp = (uint32_t)(pl->base[j] + (size_t)(g / gd->k) *
		    gd->count);
		c->gq = (uint32_t)(pl->base[j] + (size_t)(h / gd->k) *
		    gd->count);
		c->gx = g % gd->k;
		c->gy = h % gd->k;
		if (gd->rate_bps < rate)
			rate = gd->rate_bps;
	}
	c->dur = duration(bytes, rate);
}
