/* planes: a fabric's descriptions expanded into numbered planes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/fabric.h"
#include "model/planes.h"

int
planes_expand(struct planes *pl, const struct fabric *f, uint32_t gpus)
{
	uint64_t total = fabric_planes(f, gpus), units, ports;
	uint32_t u, c;
	size_t i, k = 0;

	memset(pl, 0, sizeof(*pl));
	pl->fab = f;
	pl->gpus = gpus;
	if ((pl->p = calloc(total + 1, sizeof(*pl->p))) == NULL ||
	    (pl->base = calloc(f->n + 1, sizeof(*pl->base))) == NULL) {
		planes_free(pl);
		return -1;
	}
	for (i = 0; i < f->n; i++) {
		const struct plane_desc *d = &f->d[i];

		pl->base[i] = k;
		fabric_shape(d, gpus, &units, &ports);
		for (u = 0; u < units; u++)
			for (c = 0; c < d->count; c++, k++) {
				struct plane *p = &pl->p[k];

				p->kind = d->kind;
				p->desc = (uint32_t)i;
				p->unit = u;
				p->ports = (uint32_t)ports;
				p->rate_bps = d->rate_bps;
				p->latency_ps = d->latency_ps;
				p->reconfig_ps = d->reconfig_ps;
				p->model = d->model;
				p->over_num = d->over_num;
				p->over_den = d->over_den;
			}
	}
	pl->base[f->n] = k;
	pl->n = k;
	return 0;
}

void
planes_free(struct planes *pl)
{
	free(pl->p);
	free(pl->base);
	pl->p = NULL;
	pl->base = NULL;
	pl->n = 0;
}

/* g's place in a list of GPUs, or -1. */
static int64_t
list_place(const struct plane_desc *d, uint32_t g)
{
	int64_t at = 0;
	size_t i;

	for (i = 0; i < d->ngpus; i++) {
		if (g >= d->gpus[i].lo && g <= d->gpus[i].hi)
			return at + (g - d->gpus[i].lo);
		at += d->gpus[i].hi - d->gpus[i].lo + 1;
	}
	return -1;
}

int64_t
planes_unit(const struct plane_desc *d, uint32_t g, uint32_t h)
{
	switch (d->attach) {
	case ATTACH_UPLINK:
		return g / d->k != h / d->k ? 0 : -1;
	case ATTACH_GROUP:
		return g / d->k == h / d->k ? (int64_t)(g / d->k) : -1;
	case ATTACH_RAIL:
		return g % d->k == h % d->k ? (int64_t)(g % d->k) : -1;
	case ATTACH_GPUS:
		return list_place(d, g) >= 0 && list_place(d, h) >= 0 ? 0 : -1;
	default:
		return 0;
	}
}

int64_t
planes_route(const struct fabric *f, uint32_t g, uint32_t h, uint32_t *unit)
{
	int kind;
	size_t i;
	int64_t u;

	for (kind = PLANE_EPS; kind >= PLANE_OCS; kind--)
		for (i = 0; i < f->n; i++)
			if (f->d[i].kind == kind &&
			    (u = planes_unit(&f->d[i], g, h)) >= 0) {
				*unit = (uint32_t)u;
				return (int64_t)i;
			}
	return -1;
}

size_t
planes_joining(const struct planes *pl, uint32_t g, uint32_t h,
    uint32_t *out, size_t max)
{
	const struct fabric *f = pl->fab;
	size_t i, n = 0;
	int64_t u;
	uint32_t c;

	for (i = 0; i < f->n; i++) {
		if ((u = planes_unit(&f->d[i], g, h)) < 0)
			continue;
		for (c = 0; c < f->d[i].count; c++, n++)
			if (n < max)
				out[n] = (uint32_t)(pl->base[i] +
				    (size_t)u * f->d[i].count + c);
	}
	return n;
}

int64_t
planes_port(const struct planes *pl, size_t p, uint32_t g)
{
	const struct plane_desc *d = &pl->fab->d[pl->p[p].desc];
	uint32_t u = pl->p[p].unit;

	switch (d->attach) {
	case ATTACH_GROUP:
		return g / d->k == u ? (int64_t)(g % d->k) : -1;
	case ATTACH_RAIL:
		return g % d->k == u ? (int64_t)(g / d->k) : -1;
	case ATTACH_UPLINK:
		return (int64_t)(g / d->k) * d->u;
	case ATTACH_GPUS:
		return list_place(d, g);
	default:
		return g;
	}
}

/* Ports of d a GPU sends by, each at d's rate (an uplink's: U of them). */
static uint64_t
ports_of(const struct plane_desc *d)
{
	return (uint64_t)d->count * (d->attach == ATTACH_UPLINK ? d->u : 1);
}

static uint64_t
sat_add(uint64_t a, unsigned __int128 b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + (uint64_t)b;
}

uint64_t
planes_pair_bps(const struct planes *pl, uint32_t g, uint32_t h,
    uint64_t *lat)
{
	const struct fabric *f = pl->fab;
	uint64_t r = 0;
	size_t i;

	*lat = UINT64_MAX;
	for (i = 0; i < f->n; i++) {
		if (planes_unit(&f->d[i], g, h) < 0)
			continue;
		r = sat_add(r, (unsigned __int128)ports_of(&f->d[i]) *
		    f->d[i].rate_bps);
		if (f->d[i].latency_ps < *lat)
			*lat = f->d[i].latency_ps;
	}
	if (*lat == UINT64_MAX)
		*lat = 0;
	return r;
}

uint64_t
planes_gpu_bps(const struct planes *pl, uint32_t g)
{
	const struct fabric *f = pl->fab;
	uint64_t r = 0;
	size_t i;

	for (i = 0; i < f->n; i++) {
		const struct plane_desc *d = &f->d[i];

		if (d->attach == ATTACH_GPUS && list_place(d, g) < 0)
			continue;
		r = sat_add(r, (unsigned __int128)ports_of(d) * d->rate_bps);
	}
	return r;
}
