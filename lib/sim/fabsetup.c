/* fabsetup: a tiered fabric's simulation state, plans and circuits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/net.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/mem.h"
#include "sim/fablink.h"
#include "sim/fabsetup.h"
#include "sim/fabsim.h"

#define NONE	UINT32_MAX

typedef unsigned __int128 u128;

/* The group description an uplink description's GPUs reach it by. */
static uint32_t
group_desc(const struct fabric *f, size_t i)
{
	size_t j;

	if (f->d[i].attach != ATTACH_UPLINK)
		return NONE;
	for (j = 0; j < f->n; j++)
		if (f->d[j].attach == ATTACH_GROUP && f->d[j].k == f->d[i].k)
			return (uint32_t)j;
	return NONE;
}

/*
 * Successor lists in place: each task's count of successors becomes its
 * list's end, and the lists are filled from the back, so that each ends
 * at its start, successors in id order; ts[n] closes the last one.
 */
static void
fill_succ(struct fs *s)
{
	const struct dag *d = s->d;
	size_t i, j, run = 0;

	for (i = 0; i < d->n; i++) {
		run += s->ts[i].succ;
		s->ts[i].succ = (uint32_t)run;
	}
	s->ts[d->n].succ = (uint32_t)run;
	for (i = d->n; i-- > 0;)
		for (j = d->t[i].ndep; j-- > 0;)
			s->succ[--s->ts[dag_deps(d, i)[j]].succ] = (uint32_t)i;
}

static int
alloc(struct fs *s)
{
	const struct dag *d = s->d;
	struct fabsim_out *o = s->out;
	uint32_t gpus = s->pl->gpus, *last, g;
	size_t i, j, ndesc = s->pl->fab->n;

	for (i = 0; i < d->n; i++)
		if (d->t[i].step + 1U > o->nsteps)
			o->nsteps = d->t[i].step + 1U;
	o->ndesc = ndesc;
	s->ts = mem_calloc(d->n + 1, sizeof(*s->ts));
	s->cur = mem_array(gpus + 1, sizeof(*s->cur));
	s->gbusy = mem_calloc(gpus + 1, sizeof(*s->gbusy));
	s->free_at = mem_calloc(gpus + 1, sizeof(*s->free_at));
	s->ready = mem_calloc(gpus + 1, sizeof(*s->ready));
	s->nic = mem_calloc(gpus + 1, sizeof(*s->nic));
	s->pk = mem_array(gpus + 1, sizeof(*s->pk));
	s->pkmark = mem_calloc(gpus + 1, sizeof(*s->pkmark));
	s->moving = mem_calloc(ndesc + 1, sizeof(*s->moving));
	s->since = mem_calloc(ndesc + 1, sizeof(*s->since));
	s->gdesc = mem_array(ndesc + 1, sizeof(*s->gdesc));
	o->step_end = mem_calloc(o->nsteps + 1, sizeof(*o->step_end));
	o->gpu = mem_calloc(gpus + 1, sizeof(*o->gpu));
	o->desc = mem_calloc(ndesc + 1, sizeof(*o->desc));
	o->start = mem_calloc(d->n + 1, sizeof(*o->start));
	o->end = mem_calloc(d->n + 1, sizeof(*o->end));
	if (s->ts == NULL || s->cur == NULL || s->gbusy == NULL ||
	    s->free_at == NULL || s->ready == NULL || s->nic == NULL ||
	    s->pk == NULL || s->pkmark == NULL ||
	    s->moving == NULL || s->since == NULL || s->gdesc == NULL ||
	    o->step_end == NULL || o->gpu == NULL || o->desc == NULL ||
	    o->start == NULL || o->end == NULL ||
	    (s->succ = mem_array(d->ndep + 1, sizeof(*s->succ))) == NULL)
		return -1;
	for (i = 0; i < ndesc; i++)
		s->gdesc[i] = group_desc(s->pl->fab, i);
	if ((last = mem_array(gpus + 1, sizeof(*last))) == NULL)
		return -1;
	for (g = 0; g < gpus; g++)
		s->cur[g] = last[g] = NONE;
	for (i = 0; i < d->n; i++) {
		s->ts[i].pending = d->t[i].ndep;
		s->ts[i].nextc = NONE;
		for (j = 0; j < d->t[i].ndep; j++)
			s->ts[dag_deps(d, i)[j]].succ++;
		if (d->t[i].kind != DAG_COMPUTE)
			continue;
		g = d->t[i].gpu;
		if (last[g] == NONE)
			s->cur[g] = (uint32_t)i;
		else
			s->ts[last[g]].nextc = (uint32_t)i;
		last[g] = (uint32_t)i;
	}
	free(last);
	fill_succ(s);
	return 0;
}

/* ---- circuits ---- */

/* The circuits of description i, on a net of its own, checked. */
static int
check_desc(struct fs *s, size_t i)
{
	const struct planes *pl = s->pl;
	const struct plane_desc *pd = &pl->fab->d[i];
	struct schedule c;
	struct net n = { 0 };
	uint32_t *last = NULL, sw = NONE;
	char err[256];
	size_t j;
	int rc = -1;

	sched_init(&c);
	c.periodic = s->sc->periodic;
	c.period = s->sc->period;
	for (j = 0; j < s->sc->nc; j++)
		c.ccap += pl->p[s->sc->c[j].sw].desc == i;
	if (c.ccap > 0 && (c.c = mem_array(c.ccap, sizeof(*c.c))) == NULL)
		goto out;
	for (j = 0; j < s->sc->nc; j++) {
		const struct circuit *x = &s->sc->c[j];

		if (pl->p[x->sw].desc != i)
			continue;
		c.c[c.nc] = *x;
		c.c[c.nc++].sw = (uint32_t)(x->sw - pl->base[i]);
	}
	n.gpus = pl->n > pl->base[i] ? pl->p[pl->base[i]].ports : 0;
	n.switches = (uint32_t)(pl->base[i + 1] - pl->base[i]);
	n.bandwidth_bps = pd->rate_bps;
	n.reconfig_ps = pd->reconfig_ps;
	n.model = pd->model;
	if (sched_check(&c, &n, err, sizeof(err)) != 0) {
		fabsim_fail(s, "the circuits of plane description %zu (plane "
		    "numbers within it): %s", i, err);
		goto out;
	}
	rc = 0;
	if (s->opt->mode != FABSIM_PLAN)	/* counted as they come up */
		goto out;
	rc = -1;
	if ((last = mem_array((size_t)n.gpus + 1, sizeof(*last))) == NULL)
		goto out;
	for (j = 0; j < c.nc; j++) {		/* by (plane, from, a) */
		if (c.c[j].sw != sw) {
			sw = c.c[j].sw;
			memset(last, 0xff, ((size_t)n.gpus + 1) * sizeof(*last));
		}
		if ((last[c.c[j].a] != NONE && last[c.c[j].a] != c.c[j].b) ||
		    (last[c.c[j].b] != NONE && last[c.c[j].b] != c.c[j].a))
			s->out->desc[i].reconfigs++;
		last[c.c[j].a] = c.c[j].b;
		last[c.c[j].b] = c.c[j].a;
	}
	rc = 0;
out:
	if (rc != 0 && !s->failed)
		fabsim_fail(s, "out of memory (the circuits)");
	free(last);
	sched_free(&c);
	return rc;
}

static int	feed_order(struct fs *);

static int
take_circuits(struct fs *s)
{
	const struct planes *pl = s->pl;
	size_t i;

	for (i = 0; i < s->sc->nc; i++) {
		const struct circuit *c = &s->sc->c[i];

		if (c->sw >= pl->n || pl->p[c->sw].kind != PLANE_OCS ||
		    c->a >= pl->p[c->sw].ports || c->b >= pl->p[c->sw].ports) {
			fabsim_fail(s, "circuit %zu: no ports %u and %u on an "
			    "ocs plane %u (the fabric has %zu planes)", i, c->a,
			    c->b, c->sw, pl->n);
			return -1;
		}
	}
	for (i = 0; i < pl->fab->n; i++)
		if (pl->fab->d[i].kind == PLANE_OCS && check_desc(s, i) != 0)
			return -1;
	return feed_order(s);
}

static const struct circuit *sort_c;	/* cmp_from's circuits */

static int
cmp_from(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_c[x].from != sort_c[y].from)
		return sort_c[x].from < sort_c[y].from ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The circuits in order of their start, fed to the event queue one at
 * a time (fabsetup_circuit()): the queue holds the circuits up, not
 * all of them.  Events of one instant may come in any order (fabsim.h),
 * so this order is only the queue's.
 */
static int
feed_order(struct fs *s)
{
	size_t i, n = s->sc->nc;
	int sorted = 1;

	if (n == 0)
		return 0;
	if ((s->corder = mem_array(n, sizeof(*s->corder))) == NULL) {
		fabsim_fail(s, "out of memory (%zu circuits)", n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		s->corder[i] = (uint32_t)i;
		if (i > 0 && s->sc->c[i].from < s->sc->c[i - 1].from)
			sorted = 0;
	}
	if (!sorted) {
		sort_c = s->sc->c;
		qsort(s->corder, n, sizeof(*s->corder), cmp_from);
	}
	s->cnext = 0;
	fabsim_push(s, s->sc->c[s->corder[0]].from, EV_CUP, 0, 0);
	return s->failed ? -1 : 0;
}

/* ---- a schedule of circuits alone ---- */

/* A circuit's place: its unit's first plane, the two ports (groups). */
static uint64_t
circ_key(const struct planes *pl, uint32_t p, uint32_t a, uint32_t b)
{
	const struct plane_desc *d = &pl->fab->d[pl->p[p].desc];
	uint64_t p0 = pl->base[pl->p[p].desc] +
	    (p - pl->base[pl->p[p].desc]) / d->count * d->count;

	if (d->attach == ATTACH_UPLINK) {
		a /= d->u;
		b /= d->u;
	}
	if (a > b) {
		uint32_t x = a;

		a = b;
		b = x;
	}
	return p0 << 40 | (uint64_t)a << 20 | b;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The key of the circuits transfer t needs, or 0 when it needs none. */
static uint64_t
need_key(const struct fs *s, uint32_t t, uint32_t *desc)
{
	const struct planes *pl = s->pl;
	uint32_t g = s->d->t[t].gpu, h = s->d->t[t].dst, u;
	const struct plane_desc *d;
	int64_t i = planes_route(pl->fab, g, h, &u);
	size_t p0;

	if (i < 0 || pl->fab->d[i].kind != PLANE_OCS)
		return 0;
	*desc = (uint32_t)i;
	d = &pl->fab->d[i];
	p0 = pl->base[i] + (size_t)u * d->count;
	return circ_key(pl, (uint32_t)p0, (uint32_t)planes_port(pl, p0, g),
	    (uint32_t)planes_port(pl, p0, h)) | 1ULL << 63;
}

/* Every transfer over an ocs plane has a circuit in the period. */
static int
covered(struct fs *s)
{
	const struct schedule *sc = s->sc;
	uint64_t *k, want;
	uint32_t desc = 0;
	size_t i;

	if ((k = mem_array(sc->nc + 1, sizeof(*k))) == NULL) {
		fabsim_fail(s, "out of memory (%zu circuits)", sc->nc);
		return -1;
	}
	for (i = 0; i < sc->nc; i++)
		k[i] = circ_key(s->pl, sc->c[i].sw, sc->c[i].a, sc->c[i].b) |
		    1ULL << 63;
	qsort(k, sc->nc, sizeof(*k), cmp_u64);
	for (i = 0; i < s->d->n; i++) {
		if (s->d->t[i].kind != DAG_TRANSFER ||
		    (want = need_key(s, (uint32_t)i, &desc)) == 0 ||
		    bsearch(&want, k, sc->nc, sizeof(*k), cmp_u64) != NULL)
			continue;
		fabsim_fail(s, "transfer %zu (%u->%u) goes over plane "
		    "description %u, where no circuit of the period joins its "
		    "GPUs: it would wait forever", i, s->d->t[i].gpu,
		    s->d->t[i].dst, desc);
		free(k);
		return -1;
	}
	free(k);
	return 0;
}

/* circuits_first: the places of the schedule's circuits, sorted. */
static int
circuit_places(struct fs *s)
{
	const struct schedule *sc = s->sc;
	size_t i;

	if ((s->ckeys = mem_array(sc->nc + 1, sizeof(*s->ckeys))) == NULL) {
		fabsim_fail(s, "out of memory (%zu circuits)", sc->nc);
		return -1;
	}
	for (i = 0; i < sc->nc; i++)
		s->ckeys[i] = circ_key(s->pl, sc->c[i].sw, sc->c[i].a,
		    sc->c[i].b);
	qsort(s->ckeys, sc->nc, sizeof(*s->ckeys), cmp_u64);
	return 0;
}

int64_t
fabsetup_circuit_joins(const struct fs *s, uint32_t g, uint32_t h,
    uint32_t *unit)
{
	const struct planes *pl = s->pl;
	const struct fabric *f = pl->fab;
	uint64_t key;
	size_t i, p0;
	int64_t u;

	for (i = 0; s->ckeys != NULL && i < f->n; i++) {
		if (f->d[i].kind != PLANE_OCS ||
		    (u = planes_unit(&f->d[i], g, h)) < 0)
			continue;
		p0 = pl->base[i] + (size_t)u * f->d[i].count;
		key = circ_key(pl, (uint32_t)p0,
		    (uint32_t)planes_port(pl, p0, g),
		    (uint32_t)planes_port(pl, p0, h));
		if (bsearch(&key, s->ckeys, s->sc->nc, sizeof(key),
		    cmp_u64) != NULL) {
			*unit = (uint32_t)u;
			return (int64_t)i;
		}
	}
	return -1;
}

static int
take_schedule(struct fs *s)
{
	const struct planes *pl = s->pl;
	size_t i, n = 0;

	if (s->sc->forwarding != SCHED_DIRECT || s->sc->np > 0) {
		fabsim_fail(s, "%s on a tiered fabric: circuits carry "
		    "transfers direct on planes so far", s->sc->np > 0 ?
		    "a schedule of plans run as circuits alone" :
		    "a two-hop schedule");
		return -1;
	}
	if ((s->poff = mem_array(pl->n + 1, sizeof(*s->poff))) == NULL)
		goto oom;
	for (i = 0; i < pl->n; i++) {
		s->poff[i] = n;
		n += pl->p[i].kind == PLANE_OCS ? pl->p[i].ports : 0;
	}
	if ((s->partner = mem_array(n + 1, sizeof(*s->partner))) == NULL)
		goto oom;
	memset(s->partner, 0xff, (n + 1) * sizeof(*s->partner));
	if (take_circuits(s) != 0 ||
	    (s->sc->circuits_first && circuit_places(s) != 0))
		return -1;
	return s->sc->periodic ? covered(s) : 0;
oom:
	fabsim_fail(s, "out of memory (the ports of %zu planes)", pl->n);
	return -1;
}

int
fabsetup(struct fs *s)
{
	if (s->d->ndep >= UINT32_MAX) {
		fabsim_fail(s, "%zu dependencies: the simulator counts at most "
		    "4294967294", s->d->ndep);
		return -1;
	}
	if (alloc(s) != 0) {
		fabsim_fail(s, "out of memory (%zu tasks on %u GPUs)", s->d->n,
		    s->pl->gpus);
		return -1;
	}
	if (s->opt->mode == FABSIM_IDEAL)
		return 0;
	if (s->sc == NULL || !s->sc->present) {
		fabsim_fail(s, "no schedule: plan the DAG (fluxsolve), or run "
		    "-f ideal");
		return -1;
	}
	if (s->opt->mode == FABSIM_CIRCUITS)
		return take_schedule(s);
	if (s->sc->periodic || s->sc->forwarding != SCHED_DIRECT) {
		fabsim_fail(s, "a %s schedule on a tiered fabric: only one-shot "
		    "direct plans (fluxsolve) run on planes so far",
		    s->sc->periodic ? "periodic" : "two-hop");
		return -1;
	}
	if (fabsetup_plans(s) != 0)
		return -1;
	return take_circuits(s);
}

/*
 * Circuit k of the feed comes up: the next one is fed (a periodic
 * schedule's first again, a period on, after its last), its end too.
 */
static uint32_t
fed_up(struct fs *s, uint32_t k)
{
	const struct schedule *sc = s->sc;
	uint32_t i = s->corder[k];
	u128 off = (u128)s->cper * sc->period, next;

	if (k + 1 < sc->nc)
		fabsim_push(s, (uint64_t)off + sc->c[s->corder[k + 1]].from,
		    EV_CUP, 0, k + 1);
	else if (sc->periodic && (next = off + sc->period +
	    sc->c[s->corder[0]].from) <= UINT64_MAX - sc->period) {
		s->cper++;
		fabsim_push(s, (uint64_t)next, EV_CUP, 0, 0);
	}
	if (sc->c[i].to != SCHED_FOREVER)
		fabsim_push(s, (uint64_t)off + sc->c[i].to, EV_CDOWN, 0, i);
	return i;
}

/* In circuits mode: does circuit c give a port another partner? */
static void
count_reconfig(struct fs *s, const struct circuit *c)
{
	uint32_t *pa = &s->partner[s->poff[c->sw]];

	if ((pa[c->a] != NONE && pa[c->a] != c->b) ||
	    (pa[c->b] != NONE && pa[c->b] != c->a))
		s->out->desc[s->pl->p[c->sw].desc].reconfigs++;
	pa[c->a] = c->b;
	pa[c->b] = c->a;
}

void
fabsetup_circuit(struct fs *s, int up, uint32_t i)
{
	const struct circuit *c;
	const struct plane *pp;
	const struct plane_desc *d;
	uint32_t a, b, k, p;
	int64_t l[2];

	if (up)
		i = fed_up(s, i);	/* up: i is its place in the feed */
	c = &s->sc->c[i];
	pp = &s->pl->p[c->sw];
	d = &s->pl->fab->d[pp->desc];
	a = c->a;
	b = c->b;
	if (d->attach == ATTACH_UPLINK) {
		a /= d->u;
		b /= d->u;
	}
	p = c->sw;
	if (s->opt->mode == FABSIM_CIRCUITS) {	/* its unit's, as one */
		p = (uint32_t)(s->pl->base[pp->desc] + (c->sw -
		    s->pl->base[pp->desc]) / d->count * d->count);
		if (up)
			count_reconfig(s, c);
	}
	l[0] = fablinks_get(&s->ls, fablink_key(FL_CIRC, p, a, b),
	    pp->rate_bps, 0);
	l[1] = fablinks_get(&s->ls, fablink_key(FL_CIRC, p, b, a),
	    pp->rate_bps, 0);
	if (l[0] < 0 || l[1] < 0) {
		fabsim_fail(s, "out of memory (the links)");
		return;
	}
	for (k = 0; k < 2; k++) {
		struct fablink *x = &s->ls.l[l[k]];

		x->units += up ? 1 : -1;
		if (x->n == 0)
			continue;
		s->dirty = 1;
		if (fablinks_touch(&s->ls, (uint32_t)l[k]) != 0)
			fabsim_fail(s, "out of memory (the links' changes)");
	}
}

void
fabsetup_peak(struct fs *s, uint32_t g)
{
	if (s->pkmark[g])
		return;
	s->pkmark[g] = 1;
	s->pk[s->npk++] = g;
}

void
fabsetup_peaks(struct fs *s)
{
	struct sim_gpustat *st;
	uint32_t g;

	while (s->npk > 0) {
		g = s->pk[--s->npk];
		s->pkmark[g] = 0;
		st = &s->out->gpu[g];
		if (s->ready[g] > st->peak_buffer)
			st->peak_buffer = s->ready[g];
		if (s->nic[g] > st->peak_nic)
			st->peak_nic = s->nic[g];
	}
}

void
fabsetup_deadlock(struct fs *s)
{
	const struct dag *d = s->d;
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->t[i].kind == DAG_TRANSFER && s->ts[i].ready &&
		    s->out->end[i] == 0 && !s->ts[i].started)
			break;
	if (i == d->n) {
		fabsim_fail(s, "deadlock at %llu ps: %zu of %zu tasks done, "
		    "none can start", (unsigned long long)s->now, s->done,
		    d->n);
		return;
	}
	if (s->opt->mode == FABSIM_CIRCUITS) {
		fabsim_fail(s, "deadlock at %llu ps: %zu of %zu tasks done; "
		    "transfer %zu (%u->%u, %llu bytes) waits for a circuit "
		    "that never comes", (unsigned long long)s->now, s->done,
		    d->n, i, d->t[i].gpu, d->t[i].dst,
		    (unsigned long long)d->t[i].amount);
		return;
	}
	fabsim_fail(s, "deadlock at %llu ps: %zu of %zu tasks done; transfer "
	    "%zu (%u->%u, %llu bytes) waits for a circuit on plane %u that "
	    "never comes, or for a transfer planned before it",
	    (unsigned long long)s->now, s->done, d->n, i, d->t[i].gpu,
	    d->t[i].dst, (unsigned long long)d->t[i].amount, s->ts[i].plane);
}

void
fabsetup_free(struct fs *s)
{
	heap_free(&s->h);
	fablinks_free(&s->ls);
	free(s->ts);
	free(s->succ);
	free(s->cur);
	free(s->gbusy);
	free(s->free_at);
	free(s->ready);
	free(s->nic);
	free(s->fl);
	free(s->ff);
	free(s->freei);
	free(s->moving);
	free(s->since);
	free(s->q);
	free(s->qe);
	free(s->gdesc);
	free(s->pk);
	free(s->pkmark);
	free(s->corder);
	free(s->poff);
	free(s->ckeys);
	free(s->partner);
}
