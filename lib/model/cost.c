/* cost: a fabric's scale-out in money and watts, and EPS at equal cost. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cost.h"
#include "model/fabric.h"

/*
 * Assumed, each settable (dagbuild(1), Cost): a transceiver of 400
 * Gbit/s at 8 W (NVIDIA's 400G OSFP, typical) and $400; a 51.2 Tbit/s
 * EPS of $30,000 drawing 500 W without its optics; an OCS port of $600
 * drawing 0.1 W (a MEMS mirror's drive).
 */
const struct cost_figures cost_defaults = {
	.xcvr_usd = 1.0, .xcvr_w = 0.02,
	.eps_usd = 0.6, .eps_w = 0.01,
	.ocs_usd = 600, .ocs_w = 0.1,
	.eps_tbps = 51.2,
};

const char *const cost_keys[] = { "xcvr_usd", "xcvr_w", "eps_usd", "eps_w",
	"ocs_usd", "ocs_w", "eps_tbps", NULL };

static double *
field(struct cost_figures *f, size_t i)
{
	double *v[] = { &f->xcvr_usd, &f->xcvr_w, &f->eps_usd, &f->eps_w,
	    &f->ocs_usd, &f->ocs_w, &f->eps_tbps };

	return v[i];
}

/* One "key=value"; s ends at n. */
static int
one(struct cost_figures *f, const char *s, size_t n, char *err, size_t en)
{
	const char *eq = memchr(s, '=', n);
	char num[64], *end;
	size_t i, k;
	double v;

	k = eq != NULL ? (size_t)(eq - s) : n;
	for (i = 0; cost_keys[i] != NULL; i++)
		if (strlen(cost_keys[i]) == k &&
		    memcmp(cost_keys[i], s, k) == 0)
			break;
	if (eq == NULL || cost_keys[i] == NULL) {
		snprintf(err, en, "\"%.*s\": a figure is KEY=VALUE, the keys "
		    "xcvr_usd, xcvr_w, eps_usd, eps_w, ocs_usd, ocs_w and "
		    "eps_tbps", (int)(n > 40 ? 40 : n), s);
		return -1;
	}
	if (n - k - 1 == 0 || n - k - 1 >= sizeof(num)) {
		snprintf(err, en, "%s: a number", cost_keys[i]);
		return -1;
	}
	memcpy(num, eq + 1, n - k - 1);
	num[n - k - 1] = '\0';
	v = strtod(num, &end);
	if (*end != '\0' || !isfinite(v) || v < 0 ||
	    (i == 6 && !(v > 0))) {
		snprintf(err, en, "%s=%s: a number, at least 0 (eps_tbps "
		    "more than 0)", cost_keys[i], num);
		return -1;
	}
	*field(f, i) = v;
	return 0;
}

int
cost_parse(struct cost_figures *f, const char *s, char *err, size_t en)
{
	const char *c;

	for (; *s != '\0'; s = *c == ',' ? c + 1 : c) {
		c = strchr(s, ',');
		if (c == NULL)
			c = s + strlen(s);
		if (one(f, s, (size_t)(c - s), err, en) != 0)
			return -1;
	}
	return 0;
}

/* What description d's planes cost: the spine part apart, at o = 1. */
static void
desc_cost(const struct plane_desc *d, uint32_t gpus,
    const struct cost_figures *f, double over, struct cost_sum *base,
    struct cost_sum *spine)
{
	uint64_t units, ports;
	double p, gbps = (double)d->rate_bps / 1e9, x, e;

	fabric_shape(d, gpus, &units, &ports);
	p = (double)units * d->count * (double)ports;
	x = f->xcvr_usd * gbps;
	if (d->kind == PLANE_OCS) {
		base->usd += p * (f->ocs_usd + x);
		base->w += p * (f->ocs_w + f->xcvr_w * gbps);
		base->ports += p;
		base->xcvrs += p;
		return;
	}
	e = f->eps_usd * gbps;
	base->usd += p * (e + 2 * x);
	base->w += p * (f->eps_w + 2 * f->xcvr_w) * gbps;
	base->ports += p;
	base->xcvrs += 2 * p;
	if ((double)ports * gbps <= f->eps_tbps * 1000)
		return;		/* one switch */
	spine->usd += p * 2 * (e + x) / over;
	spine->w += p * 2 * (f->eps_w + f->xcvr_w) * gbps / over;
	spine->ports += p * 2 / over;
	spine->xcvrs += p * 2 / over;
}

static int
scale_out(const struct plane_desc *d)
{
	return !(d->kind == PLANE_EPS && d->attach == ATTACH_GROUP);
}

static void
add(struct cost_sum *s, const struct cost_sum *t)
{
	s->usd += t->usd;
	s->w += t->w;
	s->ports += t->ports;
	s->xcvrs += t->xcvrs;
}

void
cost_fabric(const struct fabric *fb, uint32_t gpus,
    const struct cost_figures *f, struct cost_sum *s)
{
	struct cost_sum spine = { 0 };
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < fb->n; i++)
		if (scale_out(&fb->d[i]))
			desc_cost(&fb->d[i], gpus, f, (double)fb->d[i].over_num /
			    fb->d[i].over_den, s, &spine);
	add(s, &spine);
}

/* out: in with its ocs descriptions eps ones (no oversubscription). */
static int
copy_eps(const struct fabric *in, struct fabric *out, char *err, size_t en)
{
	size_t i, n = 0;

	*out = *in;
	for (i = 0; i < in->n; i++) {
		struct plane_desc *d = &out->d[i];

		d->gpus = NULL;
		if (in->d[i].ngpus > 0) {
			if ((d->gpus = calloc(in->d[i].ngpus,
			    sizeof(*d->gpus))) == NULL) {
				snprintf(err, en, "out of memory");
				return -1;
			}
			memcpy(d->gpus, in->d[i].gpus,
			    in->d[i].ngpus * sizeof(*d->gpus));
		}
		if (d->kind != PLANE_OCS)
			continue;
		n++;
		d->kind = PLANE_EPS;
		d->reconfig_ps = 0;
		d->radix = 0;
		d->over_num = d->over_den = 1;
	}
	if (n == 0) {
		snprintf(err, en, "%s has no ocs plane to replace", in->name);
		return -1;
	}
	return 0;
}

int
cost_eps_equal(const struct fabric *in, uint32_t gpus,
    const struct cost_figures *f, struct fabric *out, struct cost_sum *ocs,
    struct cost_sum *eps, char *err, size_t en)
{
	struct cost_sum b = { 0 }, t = { 0 };
	double o = 1, scale = 1;
	size_t i;

	cost_fabric(in, gpus, f, ocs);
	if (copy_eps(in, out, err, en) != 0)
		return -1;
	for (i = 0; i < out->n; i++)
		if (scale_out(&out->d[i]))
			desc_cost(&out->d[i], gpus, f, 1, &b, &t);
	if (b.usd + t.usd > ocs->usd) {
		if (t.usd > 0 && ocs->usd > b.usd)
			o = t.usd / (ocs->usd - b.usd);
		else
			scale = ocs->usd / (b.usd + t.usd);
	}
	for (i = 0; i < in->n; i++) {
		struct plane_desc *d = &out->d[i];
		uint64_t num = (uint64_t)ceil(o * 1000), den = 1000, g, h, r;

		if (in->d[i].kind != PLANE_OCS)
			continue;
		d->rate_bps = (uint64_t)floor((double)d->rate_bps * scale);
		if (d->rate_bps == 0 || num > UINT32_MAX) {
			snprintf(err, en, "the EPS that the money of %s buys "
			    "has no rate left", in->name);
			return -1;
		}
		for (g = num, h = den; h != 0; r = g % h, g = h, h = r)
			;
		d->over_num = (uint32_t)(num / g);
		d->over_den = (uint32_t)(den / g);
	}
	cost_fabric(out, gpus, f, eps);
	return 0;
}
