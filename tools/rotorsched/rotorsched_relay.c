/*
 * rotorsched -m static on a net or a fabric: its units, each unit's
 * configuration as circuits up from 0 for ever, and the DAG with the
 * relays of the transfers left without a circuit.  On the paper's net
 * the unit is the switches, its owners the GPUs.  On a tiered fabric
 * each unit (fabric.h) of an ocs description that carries transfers
 * makes one, whose owners hold its planes' ports: the GPUs of a rail
 * (by group), the groups of an uplink (u ports each on a plane), the
 * GPUs of a group or of a list; but where groups of K have a fabric of
 * their own (an eps group:K, NVLink), the rails of rail:K, or the ocs
 * planes of "all", are one unit whose owners are the groups, with a
 * matching per rail (per local rank) and plane: a GPU that has one
 * port reaches its group's other ports through its group, as NCCL's
 * PXN does, and so a group has K circuits on a static topology where a
 * GPU has one.  A relay then crosses the group from the port it came
 * in by to the one it goes out by, a hop over the group's fabric, and
 * the transfer starts and ends on its own GPUs.  Transfers that an
 * eps plane carries go whole, as ocssim sends them (planes_route()).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/fabric.h"
#include "model/net.h"
#include "model/planes.h"
#include "model/relay.h"
#include "model/sched.h"
#include "records/die.h"
#include "rotorsched.h"
#include "rotorsched_static.h"

#define NONE	UINT32_MAX

struct unit {
	struct st_unit		 st;
	const struct plane_desc	*d;	/* NULL: the paper's net */
	size_t			 p0;	/* its first plane */
	uint32_t		 id;	/* its unit of d */
	uint32_t		 per;	/* ports an owner has on a plane */
	uint32_t		 k;	/* joint: the group's GPUs, else 0 */
};

struct st_plan {
	const struct dagin	*in;
	const uint32_t		*phase;	/* a transfer's, or NULL */
	uint32_t		 cur;	/* the phase being planned */
	struct planes		 pl;
	struct unit		*u;
	size_t			 nu;
	uint32_t		*tu;	/* a transfer's unit, NONE: whole */
	uint8_t			*eps;	/* else over an eps plane */
	int			 anyeps;
	uint32_t		*off, *cnt;	/* its relays in via */
	uint32_t		*via;
	size_t			 nvia, viacap, maxhops;
};

static uint32_t
owner_of(const struct st_plan *r, const struct unit *u, uint32_t g)
{
	if (u->d == NULL)
		return g;
	if (u->k > 0)
		return g / u->k;
	return (uint32_t)(planes_port(&r->pl, u->p0, g) / u->per);
}

/* The GPU of a list at place o. */
static uint32_t
list_gpu(const struct plane_desc *d, uint32_t o)
{
	size_t i;

	for (i = 0; i < d->ngpus; i++) {
		if (o <= d->gpus[i].hi - d->gpus[i].lo)
			return d->gpus[i].lo + o;
		o -= d->gpus[i].hi - d->gpus[i].lo + 1;
	}
	return NONE;
}

/* The GPU that relays at owner o for a transfer from src. */
static uint32_t
gpu_of(const struct unit *u, uint32_t o, uint32_t src)
{
	if (u->d == NULL)
		return o;
	switch (u->d->attach) {
	case ATTACH_GROUP:
		return u->id * u->d->k + o;
	case ATTACH_RAIL:
		return o * u->d->k + u->id;
	case ATTACH_UPLINK:
		return o * u->d->k + src % u->d->k;
	case ATTACH_GPUS:
		return list_gpu(u->d, o);
	default:
		return o;
	}
}

/* ---- the units ---- */

static void
flat_unit(struct st_plan *r)
{
	const struct dag *d = &r->in->dag;
	size_t t;

	r->u = xcalloc(1, sizeof(*r->u));
	r->nu = 1;
	r->u[0].st.owners = r->in->net.gpus;
	r->u[0].st.nv = r->in->net.switches;
	r->u[0].per = 1;
	for (t = 0; t < d->n; t++)
		r->tu[t] = d->t[t].kind == DAG_TRANSFER ? 0 : NONE;
}

/*
 * The K of the groups whose own fabric (an eps group:K) lets the rails
 * of d (rail:K) or its ports (all) be one unit; 0 when there is none.
 */
static uint32_t
joint_k(const struct fabric *f, const struct plane_desc *d)
{
	size_t i;

	if (d->attach != ATTACH_RAIL && d->attach != ATTACH_ALL)
		return 0;
	for (i = 0; i < f->n; i++)
		if (f->d[i].kind == PLANE_EPS &&
		    f->d[i].attach == ATTACH_GROUP && f->d[i].k > 1 &&
		    (d->attach == ATTACH_ALL || f->d[i].k == d->k))
			return f->d[i].k;
	return 0;
}

/* The unit of plane p0, made on first use. */
static uint32_t
unit_at(struct st_plan *r, size_t p0)
{
	const struct plane_desc *d = &r->pl.fab->d[r->pl.p[p0].desc];
	struct unit *u;
	size_t i;

	for (i = 0; i < r->nu; i++)
		if (r->u[i].p0 == p0)
			return (uint32_t)i;
	r->u = xreallocarray(r->u, r->nu + 1, sizeof(*r->u));
	u = &r->u[r->nu];
	memset(u, 0, sizeof(*u));
	u->d = d;
	u->p0 = p0;
	u->id = r->pl.p[p0].unit;
	u->per = d->attach == ATTACH_UPLINK ? d->u : 1;
	u->st.owners = r->pl.p[p0].ports / u->per;
	u->st.nv = d->count * u->per;
	if ((u->k = joint_k(r->pl.fab, d)) > 0) {
		u->id = 0;
		u->st.owners = r->in->net.gpus / u->k;
		u->st.nv = d->count * u->k;
	}
	return (uint32_t)r->nu++;
}

/* The first ocs description joining g and h, its unit; -1 when none. */
static int64_t
ocs_joining(const struct fabric *f, uint32_t g, uint32_t h, uint32_t *unit)
{
	size_t i;
	int64_t u;

	for (i = 0; i < f->n; i++)
		if (f->d[i].kind == PLANE_OCS &&
		    (u = planes_unit(&f->d[i], g, h)) >= 0) {
			*unit = (uint32_t)u;
			return (int64_t)i;
		}
	return -1;
}

static void
tiered_units(struct st_plan *r)
{
	const struct dagin *in = r->in;
	const struct dag *d = &in->dag;
	uint32_t unit, jk[FABRIC_MAX_DESC];
	int64_t i;
	size_t t;

	if (planes_expand(&r->pl, &in->fab, in->net.gpus) != 0)
		die("out of memory (the planes of %s on %u GPUs)",
		    in->fab.name, in->net.gpus);
	for (t = 0; t < in->fab.n; t++)
		jk[t] = joint_k(&in->fab, &in->fab.d[t]);
	for (t = 0; t < d->n; t++) {
		r->tu[t] = NONE;
		if (d->t[t].kind != DAG_TRANSFER)
			continue;
		if ((i = planes_route(&in->fab, d->t[t].gpu, d->t[t].dst,
		    &unit)) < 0)
			die("transfer %zu (%u->%u): no plane joins its GPUs: "
			    "route the DAG for this fabric (dagbuild --fabric)",
			    t, d->t[t].gpu, d->t[t].dst);
		if (in->fab.d[i].kind == PLANE_EPS) {
			/*
			 * static, beside a scale-out eps: a circuit if it
			 * gets one, else the eps; a group's stays there
			 */
			if (r->phase != NULL ||
			    in->fab.d[i].attach == ATTACH_GROUP ||
			    (i = ocs_joining(&in->fab, d->t[t].gpu,
			    d->t[t].dst, &unit)) < 0)
				continue;
			r->eps[t] = 1;
			r->anyeps = 1;
		}
		r->tu[t] = unit_at(r, r->pl.base[i] + (jk[i] > 0 ? 0 :
		    (size_t)unit * in->fab.d[i].count));
	}
	for (t = 0; t < r->nu; t++)
		r->u[t].st.nopath = 1;
	for (t = 0; t < d->n; t++)
		if (r->tu[t] != NONE && !r->eps[t])
			r->u[r->tu[t]].st.nopath = 0;
}

/* ---- each unit's configuration ---- */

/* Does transfer t cross a unit in the phase being planned? */
static int
planned(const struct st_plan *r, size_t t)
{
	return r->tu[t] != NONE && (r->phase == NULL ||
	    r->phase[t] == r->cur);
}

static void
choose(struct st_plan *r, struct unit *u, uint32_t k)
{
	const struct dag *d = &r->in->dag;
	uint64_t bps = u->d != NULL ? u->d->rate_bps :
	    r->in->net.bandwidth_bps;
	struct tm_edge *e;
	struct dag sub;
	size_t t, ne;

	dag_init(&sub);
	for (t = 0; t < d->n; t++) {
		struct dag_task x;

		if (r->tu[t] != k || !planned(r, t))
			continue;
		x = d->t[t];
		x.gpu = owner_of(r, u, x.gpu);
		x.dst = owner_of(r, u, x.dst);
		x.ndep = 0;
		if (x.gpu != x.dst && dag_add(&sub, &x, NULL, 0) != 0)
			die("out of memory (the transfers of a unit)");
	}
	if (sub.n == 0) {	/* only a group's own: no circuit needed */
		u->st.mate = NULL;
		dag_free(&sub);
		return;
	}
	ne = tm_edges(&sub, bps, &e);
	st_choose(&u->st, e, ne);
	free(e);
	dag_free(&sub);
}

/*
 * Matching v's circuit between owners o and m: on a joint unit, that
 * of rail (local rank) v / count between its GPUs of the two groups,
 * on the plane v % count of the rail's (or of all's); else on plane
 * v / per of the unit, port v % per of each owner.
 */
static void
circuit(struct schedule *sc, const struct unit *u, uint32_t v, uint32_t o,
    uint32_t m)
{
	size_t p = u->p0 + v / u->per;
	uint32_t a = o * u->per + v % u->per, b = m * u->per + v % u->per;
	uint32_t rail;

	if (u->k > 0) {
		rail = v / u->d->count;
		p = u->p0 + v % u->d->count;
		if (u->d->attach == ATTACH_RAIL)
			p += (size_t)rail * u->d->count;
		else {
			a = o * u->k + rail;
			b = m * u->k + rail;
		}
	}
	if (sched_add_circuit(sc, (uint32_t)p, a, b, 0, SCHED_FOREVER) != 0)
		die("out of memory (the circuits)");
}

static void
circuits(struct schedule *sc, const struct unit *u)
{
	const struct st_unit *s = &u->st;
	uint32_t v, o, m;

	for (v = 0; s->mate != NULL && v < s->nv; v++)
		for (o = 0; o < s->owners; o++)
			if ((m = s->mate[(size_t)v * s->owners + o]) != NONE &&
			    m > o)
				circuit(sc, u, v, o, m);
}

/* ---- the relays ---- */

struct need {
	uint32_t	unit, src, v0;	/* src: its owner */
	size_t		t;
};

static int
cmp_need(const void *x, const void *y)
{
	const struct need *p = x, *q = y;

	if (p->unit != q->unit)
		return p->unit < q->unit ? -1 : 1;
	if (p->src != q->src)
		return p->src < q->src ? -1 : 1;
	if (p->v0 != q->v0)
		return p->v0 < q->v0 ? -1 : 1;
	return p->t < q->t ? -1 : p->t > q->t;
}

struct tree {
	uint32_t	*parent, *pv, *queue;
	uint32_t	*own, *mv;	/* a path's owners and matchings */
};

static void
add_via(struct st_plan *r, uint32_t g)
{
	xgrow(&r->via, &r->viacap, r->nvia + 1, sizeof(*r->via));
	r->via[r->nvia++] = g;
}

/*
 * A joint unit's relays for a path of m circuits: into each group on
 * the way by the rail of the circuit that reaches it, across the group
 * to the rail of the next, and at the end across to the destination.
 */
static void
joint_vias(struct st_plan *r, const struct unit *u, const struct tree *tr,
    uint32_t m, const struct dag_task *t)
{
	uint32_t i, rail, g, rank = t->gpu % u->k;

	for (i = 0; i < m; i++) {
		rail = tr->mv[i] / u->d->count;
		if (rail != rank)
			add_via(r, tr->own[i] * u->k + rail);
		g = tr->own[i + 1] * u->k + rail;
		if (g != t->dst)
			add_via(r, g);
		rank = rail;
	}
}

/* Transfer n->t's relays, from the tree of its source's owner. */
static void
path(struct st_plan *r, const struct need *n, const struct tree *tr)
{
	const struct dag_task *t = &r->in->dag.t[n->t];
	const struct unit *u = &r->u[n->unit];
	uint32_t o = owner_of(r, u, t->dst), m = 0, i;
	size_t at;

	if (tr->parent[o] == NONE)
		die("no path over the circuits chosen joins GPUs %u and %u "
		    "(transfer %zu): with one port %s on %s, a configuration "
		    "is a matching; use another mode, more planes, or a "
		    "fabric with an EPS", t->gpu, t->dst, n->t,
		    u->d != NULL && u->d->attach == ATTACH_UPLINK ?
		    "a group" : "a GPU", u->d != NULL ? "the plane" :
		    "the net");
	for (i = o; i != n->src; i = tr->parent[i])
		m++;
	at = m;
	tr->own[at] = o;
	for (i = o; i != n->src; i = tr->parent[i]) {
		tr->mv[--at] = tr->pv[i];
		tr->own[at] = tr->parent[i];
	}
	r->off[n->t] = (uint32_t)r->nvia;
	if (u->k > 0)
		joint_vias(r, u, tr, m, t);
	else
		for (i = 1; i < m; i++)
			add_via(r, gpu_of(u, tr->own[i], t->gpu));
	r->cnt[n->t] = (uint32_t)(r->nvia - r->off[n->t]);
	if (r->cnt[n->t] > r->maxhops)
		r->maxhops = r->cnt[n->t];
}

/*
 * Does transfer t need relays?  On a joint unit, unless its GPUs have
 * the same local rank and a circuit of that rail joins their groups;
 * the search then starts at the source's rail.
 */
static int
needs(const struct st_plan *r, size_t t, struct need *n)
{
	const struct dag_task *x = &r->in->dag.t[t];
	const struct unit *u = &r->u[r->tu[t]];
	uint32_t b = owner_of(r, u, x->dst), c;

	*n = (struct need){ r->tu[t], owner_of(r, u, x->gpu), 0, t };
	if (n->src == b)
		return 0;
	if (u->k == 0)
		return !st_direct(&u->st, n->src, b);
	n->v0 = x->gpu % u->k * u->d->count;
	for (c = 0; x->gpu % u->k == x->dst % u->k && c < u->d->count; c++)
		if (u->st.mate[(size_t)(n->v0 + c) * u->st.owners +
		    n->src] == b)
			return 0;
	return 1;
}

static size_t
find_paths(struct st_plan *r)
{
	const struct dag *d = &r->in->dag;
	struct need *nd = xcalloc(d->n + 1, sizeof(*nd));
	struct tree tr;
	size_t t, i, nn = 0, owners = 0;

	for (t = 0; t < d->n; t++)
		if (planned(r, t) && needs(r, t, &nd[nn]) && !r->eps[t])
			nn++;		/* else the eps carries it whole */
	qsort(nd, nn, sizeof(*nd), cmp_need);
	for (i = 0; i < r->nu; i++)
		if (r->u[i].st.owners > owners)
			owners = r->u[i].st.owners;
	tr.parent = xcalloc(owners + 1, sizeof(*tr.parent));
	tr.pv = xcalloc(owners + 1, sizeof(*tr.pv));
	tr.queue = xcalloc(owners + 1, sizeof(*tr.queue));
	tr.own = xcalloc(owners + 1, sizeof(*tr.own));
	tr.mv = xcalloc(owners + 1, sizeof(*tr.mv));
	for (i = 0; i < nn; i++) {
		if (i == 0 || nd[i].unit != nd[i - 1].unit ||
		    nd[i].src != nd[i - 1].src || nd[i].v0 != nd[i - 1].v0)
			st_tree(&r->u[nd[i].unit].st, nd[i].src, nd[i].v0,
			    tr.parent, tr.pv, tr.queue);
		path(r, &nd[i], &tr);
	}
	free(tr.parent);
	free(tr.pv);
	free(tr.queue);
	free(tr.own);
	free(tr.mv);
	free(nd);
	return nn;
}

static size_t
relay_path(void *arg, size_t t, uint32_t *via, size_t max)
{
	const struct st_plan *r = arg;

	if (r->cnt[t] > max)
		return max + 1;
	memcpy(via, r->via + r->off[t], r->cnt[t] * sizeof(*via));
	return r->cnt[t];
}

struct st_plan *
st_plan(const struct dagin *in, const uint32_t *phase)
{
	struct st_plan *r = xcalloc(1, sizeof(*r));

	r->in = in;
	r->phase = phase;
	r->tu = xcalloc(in->dag.n + 1, sizeof(*r->tu));
	r->off = xcalloc(in->dag.n + 1, sizeof(*r->off));
	r->cnt = xcalloc(in->dag.n + 1, sizeof(*r->cnt));
	r->eps = xcalloc(in->dag.n + 1, 1);
	if (in->tiered)
		tiered_units(r);
	else
		flat_unit(r);
	return r;
}

int
st_uses_ocs(const struct st_plan *r, size_t t)
{
	return r->tu[t] != NONE;
}

size_t
st_config(struct st_plan *r, uint32_t k, struct schedule *sc)
{
	size_t i;

	r->cur = k;
	for (i = 0; i < r->nu; i++) {
		st_free(&r->u[i].st);
		choose(r, &r->u[i], (uint32_t)i);
		circuits(sc, &r->u[i]);
	}
	return find_paths(r);
}

int64_t
st_relay(struct st_plan *r, struct dag *out, uint32_t **from)
{
	int64_t n;

	if (r->nvia == 0)
		return 0;
	if ((n = relay_dag(&r->in->dag, r->in->net.gpus, relay_path, r,
	    r->maxhops, out, from)) < 0)
		die("out of memory (the DAG with its relays)");
	return n;
}

void
st_plan_free(struct st_plan *r)
{
	size_t i;

	for (i = 0; i < r->nu; i++)
		st_free(&r->u[i].st);
	free(r->u);
	free(r->tu);
	free(r->off);
	free(r->cnt);
	free(r->eps);
	free(r->via);
	if (r->in->tiered)
		planes_free(&r->pl);
	free(r);
}

int64_t
static_schedule(struct schedule *sc, const struct dagin *in,
    struct dag *out, uint32_t **from)
{
	struct st_plan *r = st_plan(in, NULL);
	int64_t n;

	(void)st_config(r, 0, sc);
	sc->periodic = 0;
	sc->period = 0;
	sc->circuits_first = r->anyeps;
	n = st_relay(r, out, from);
	st_plan_free(r);
	return n;
}
