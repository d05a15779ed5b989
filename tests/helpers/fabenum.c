/*
 * fabenum: test helper that finds by brute force the optimal makespan
 * of a small task DAG on a tiered fabric (BRIEF 2b; fluxocs(5),
 * FABRICS) under Flux's model of atomic transfers, so that tests can
 * hold fluxsolve's greedy and the bound on planes to it.  It shares no
 * code with lib/: it reads the net record's planes and the task
 * records with its own scanner and msgpack-c, and numbers nothing the
 * way the library does.
 *
 * usage: fabenum < stream
 *
 * It prints the optimal makespan in picoseconds.  Exit 0; 1 on bad
 * input, an attachment it does not take (a list of GPUs, an ocs uplink
 * of more than one port a group), a transfer no plane joins, or a
 * problem too big (more than 8 transfers, 64 tasks or 10^7 orders and
 * choices); 2 on misuse.
 *
 * The model.  A plane of a description joins GPUs g and h when both
 * have a port on it: all, every GPU; group:K, the K GPUs of a block
 * (port g mod K); rail:K, those of one local rank (port g / K);
 * uplink:K:U, GPUs of two different groups (the port is the group's).
 * "count" planes stand for each such unit.  A transfer goes on one
 * plane that joins its GPUs, during [start, start + dur), dur =
 * ceil(bytes x 8 x 10^12 / rate), and ends the plane's latency later;
 * rate is the plane's, an eps uplink's times U, no more than an
 * oversubscribed eps plane's core (ports x rate x den / num), and an
 * uplink's no more than its GPUs' group planes' (the group:K of the
 * same K).  While it runs it holds alone its source port's sending
 * side and its destination port's receiving side on the plane, and on
 * an uplink also its GPUs' sides on the first plane of their groups.
 * An oversubscribed eps plane runs at most floor(core / rate) flows at
 * once (1 to its ports).  An ocs plane needs a circuit between the two
 * ports, as fluxenum(1) has it on a switch: the port model keeps
 * transfers that share exactly one port tau apart (the opposite
 * direction of a circuit is free); the switch model cuts the plane's
 * time into epochs, each one matching, a new one tau after every use
 * of the plane has ended.  A compute task ends duration_ps after it
 * starts; a GPU's computes run in id order; a task starts once its
 * dependencies have ended.
 *
 * The method: for every order of the transfers (each after its
 * dependencies), every plane joining each and, under the switch model,
 * whether it opens an epoch on its plane, each transfer is placed at
 * the earliest time its dependencies and the transfers placed before
 * it allow: after the end of each that holds a side it needs, tau
 * after one whose circuit it cannot share, and once all but slots - 1
 * of those on its oversubscribed plane have ended.  Such a placement
 * is valid, and placing any valid schedule's transfers in its start
 * order this way moves none later, so the least makespan is the
 * optimum.
 */
#include <err.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "recscan.h"

#define MAX_TASKS	64
#define MAX_XFERS	8
#define MAX_DESC	16
#define MAX_CANDS	64
#define MAX_GPUS	4096
#define MAX_TIME	((uint64_t)1 << 52)
#define MAX_DECODE	((size_t)1 << 20)
#define PS		1000000000000ULL

#define BIT(i)		((uint64_t)1 << (i))

enum { ALL, GROUP, RAIL, UPLINK };

struct desc {
	int		 eps, attach, swmodel;
	uint64_t	 k, u, count, rate, lat, tau, onum, oden;
};

/* One way to carry a transfer: a plane and the sides it holds. */
struct cand {
	int		 d;
	uint64_t	 unit, c;	/* the plane: (d, unit, c) */
	uint64_t	 x, y;		/* its ports */
	uint64_t	 dur, lat, slots;	/* slots: 0 for no limit */
	int		 up;		/* an uplink: group sides too */
	uint64_t	 gd, gux, guy, gx, gy;
};

struct task {
	int		 xfer;
	uint64_t	 pred, gpu, src, dst, bytes, len;
};

static struct desc	 dd[MAX_DESC];
static int		 nd;
static uint64_t		 gpus;
static int		 netseen;

static struct task	 t[MAX_TASKS];
static int		 nt;
static int		 xf[MAX_XFERS];
static int		 nx;
static struct cand	 cs[MAX_XFERS][MAX_CANDS];
static int		 ncs[MAX_XFERS];

static uint64_t		 tstart[MAX_TASKS], tend[MAX_TASKS];
static int		 pick[MAX_XFERS], pep[MAX_XFERS];
static unsigned		 placed;
static uint64_t		 best = UINT64_MAX;

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t
keyu(const struct rec *r, const msgpack_object *m, const char *key, int need)
{
	struct rec sub = *r;
	const msgpack_object *o;

	sub.map = m;
	if ((o = get(&sub, key)) == NULL) {
		if (need)
			bad(r, key, "missing in a plane");
		return 0;
	}
	return uint_of(r, key, o);
}

static int
keyis(const struct rec *r, const msgpack_object *m, const char *key,
    const char *s)
{
	struct rec sub = *r;
	const msgpack_object *o;

	sub.map = m;
	if ((o = get(&sub, key)) == NULL)
		return 0;
	return getstr_is(r, key, o, s);
}

static void
read_plane(const struct rec *r, const msgpack_object *m)
{
	struct desc *p = &dd[nd++];

	if (m->type != MSGPACK_OBJECT_MAP)
		bad(r, "planes", "not an array of maps");
	p->eps = keyis(r, m, "kind", "eps");
	if (keyis(r, m, "attach", "all"))
		p->attach = ALL;
	else if (keyis(r, m, "attach", "group"))
		p->attach = GROUP;
	else if (keyis(r, m, "attach", "rail"))
		p->attach = RAIL;
	else if (keyis(r, m, "attach", "uplink"))
		p->attach = UPLINK;
	else
		errx(1, "a plane attached otherwise than all, group, rail or "
		    "uplink");
	p->k = p->attach == ALL ? 1 : keyu(r, m, "k", 1);
	p->u = p->attach == UPLINK ? keyu(r, m, "u", 1) : 1;
	p->count = keyu(r, m, "count", 1);
	p->rate = keyu(r, m, "rate_bps", 1);
	p->lat = keyu(r, m, "latency_ps", 0);
	p->tau = p->eps ? 0 : keyu(r, m, "reconfig_ps", 0);
	p->swmodel = !p->eps && keyis(r, m, "reconfig_model", "switch") &&
	    p->tau > 0;
	p->onum = p->eps ? keyu(r, m, "oversub_num", 0) : 1;
	p->oden = p->eps ? keyu(r, m, "oversub_den", 0) : 1;
	if (p->onum == 0 || p->oden == 0)
		p->onum = p->oden = 1;
	if (p->k == 0 || p->u == 0 || p->count == 0 || p->rate == 0 ||
	    p->lat > MAX_TIME || p->tau > MAX_TIME)
		bad(r, "planes", "a figure out of range");
	if (!p->eps && p->attach == UPLINK && p->u != 1)
		errx(1, "an ocs uplink of %" PRIu64 " ports a group", p->u);
}

static void
read_net(const struct rec *r)
{
	const msgpack_object *o = need_key(r, "planes");
	uint32_t i;

	if (netseen)
		errx(1, "byte %" PRIu64 ": second net record", r->off);
	netseen = 1;
	gpus = getu(r, "gpus");
	if (gpus < 2 || gpus > MAX_GPUS)
		bad(r, "gpus", "not 2 to 4096");
	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size == 0 ||
	    o->via.array.size > MAX_DESC)
		bad(r, "planes", "not an array of 1 to 16 planes");
	for (i = 0; i < o->via.array.size; i++)
		read_plane(r, &o->via.array.ptr[i]);
}

static uint64_t
read_deps(const struct rec *r, uint64_t id)
{
	const msgpack_object *o = need_key(r, "deps");
	uint64_t m = 0;
	uint32_t i;

	if (o->type != MSGPACK_OBJECT_ARRAY)
		bad(r, "deps", "not an array");
	for (i = 0; i < o->via.array.size; i++) {
		if (o->via.array.ptr[i].type !=
		    MSGPACK_OBJECT_POSITIVE_INTEGER ||
		    o->via.array.ptr[i].via.u64 >= id)
			bad(r, "deps", "not an array of earlier tasks");
		m |= BIT(o->via.array.ptr[i].via.u64);
	}
	return m;
}

static void
read_task(const struct rec *r)
{
	struct task *p = &t[nt];
	const msgpack_object *kind;

	if (!netseen)
		errx(1, "byte %" PRIu64 ": task before the net", r->off);
	if (nt == MAX_TASKS)
		errx(1, "too big: more than %d tasks", MAX_TASKS);
	if (getu(r, "id") != (uint64_t)nt)
		bad(r, "id", "ids must be dense from 0 in stream order");
	p->pred = read_deps(r, (uint64_t)nt);
	kind = need_key(r, "kind");
	p->xfer = -1;
	if (getstr_is(r, "kind", kind, "transfer")) {
		if (nx == MAX_XFERS)
			errx(1, "too big: more than %d transfers", MAX_XFERS);
		p->src = getu(r, "src");
		p->dst = getu(r, "dst");
		p->bytes = getu(r, "bytes");
		if (p->src >= gpus || p->dst >= gpus || p->src == p->dst ||
		    p->bytes == 0 || p->bytes > MAX_TIME / 8 / 1000)
			bad(r, "src", "not a transfer between two GPUs");
		p->xfer = nx;
		xf[nx++] = nt;
	} else {
		p->gpu = getu(r, "gpu");
		p->len = getu(r, "duration_ps");
		if (p->gpu >= gpus || p->len > MAX_TIME)
			bad(r, "gpu", "out of range");
	}
	nt++;
}

/* ---- the planes that carry a transfer ---- */

/* The unit of description d joining g and h, or -1. */
static int64_t
unit_of(const struct desc *d, uint64_t g, uint64_t h)
{
	switch (d->attach) {
	case GROUP:
		return g / d->k == h / d->k ? (int64_t)(g / d->k) : -1;
	case RAIL:
		return g % d->k == h % d->k ? (int64_t)(g % d->k) : -1;
	case UPLINK:
		return g / d->k != h / d->k ? 0 : -1;
	default:
		return 0;
	}
}

static uint64_t
port_of(const struct desc *d, uint64_t g)
{
	switch (d->attach) {
	case GROUP:
		return g % d->k;
	case RAIL:
		return g / d->k;
	case UPLINK:
		return g / d->k;
	default:
		return g;
	}
}

static uint64_t
ports_of(const struct desc *d)
{
	switch (d->attach) {
	case GROUP:
		return d->k;
	case RAIL:
		return gpus / d->k;
	case UPLINK:
		return gpus / d->k * d->u;
	default:
		return gpus;
	}
}

/* The group description an uplink's GPUs reach it through, or -1. */
static int
group_of(const struct desc *d)
{
	int j;

	for (j = 0; j < nd; j++)
		if (dd[j].attach == GROUP && dd[j].k == d->k)
			return j;
	return -1;
}

static void
add_cands(int k)
{
	const struct task *p = &t[xf[k]];
	unsigned __int128 rate, core, w, slots;
	int64_t u;
	uint64_t c;
	int d, g;

	for (d = 0; d < nd; d++) {
		const struct desc *q = &dd[d];

		if ((u = unit_of(q, p->src, p->dst)) < 0)
			continue;
		rate = (unsigned __int128)q->rate *
		    (q->eps && q->attach == UPLINK ? q->u : 1);
		core = (unsigned __int128)ports_of(q) * q->rate * q->oden /
		    q->onum;
		if (q->eps && q->onum > q->oden && core < rate)
			rate = core;
		slots = core / (rate == 0 ? 1 : rate);
		g = q->attach == UPLINK ? group_of(q) : -1;
		if (g >= 0 && dd[g].rate < rate)
			rate = dd[g].rate;
		if (rate == 0)
			rate = 1;
		for (c = 0; c < q->count; c++) {
			struct cand *x = &cs[k][ncs[k]];

			if (ncs[k] == MAX_CANDS)
				errx(1, "too big: more than %d planes join "
				    "a pair", MAX_CANDS);
			memset(x, 0, sizeof(*x));
			x->d = d;
			x->unit = (uint64_t)u;
			x->c = c;
			x->x = port_of(q, p->src);
			x->y = port_of(q, p->dst);
			w = ((unsigned __int128)p->bytes * 8 * PS + rate - 1) /
			    rate;
			if (w > MAX_TIME)
				errx(1, "transfer %d: longer than 2^52 ps",
				    xf[k]);
			x->dur = (uint64_t)w;
			x->lat = q->lat;
			if (q->eps && q->onum > q->oden)
				x->slots = slots < 1 ? 1 : slots > ports_of(q) ?
				    ports_of(q) : (uint64_t)slots;
			if (g >= 0) {
				x->up = 1;
				x->gd = (uint64_t)g;
				x->gux = p->src / dd[g].k;
				x->guy = p->dst / dd[g].k;
				x->gx = p->src % dd[g].k;
				x->gy = p->dst % dd[g].k;
			}
			ncs[k]++;
		}
	}
	if (ncs[k] == 0)
		errx(1, "transfer %d (%" PRIu64 "->%" PRIu64 "): no plane "
		    "joins its GPUs", xf[k], p->src, p->dst);
}

/* ---- the brute force ---- */

static int
same_plane(const struct cand *a, const struct cand *b)
{
	return a->d == b->d && a->unit == b->unit && a->c == b->c;
}

/* Whether a and b hold one side of one port (send, or receive). */
static int
share_side(const struct cand *a, const struct cand *b)
{
	if (same_plane(a, b) && (a->x == b->x || a->y == b->y))
		return 1;
	/* an uplink's sides on its GPUs' group planes, first planes */
	if (a->up && b->up && a->gd == b->gd &&
	    ((a->gux == b->gux && a->gx == b->gx) ||
	    (a->guy == b->guy && a->gy == b->gy)))
		return 1;
	if (a->up && !b->up && b->d == (int)a->gd && b->c == 0 &&
	    ((b->unit == a->gux && b->x == a->gx) ||
	    (b->unit == a->guy && b->y == a->gy)))
		return 1;
	if (b->up && !a->up && a->d == (int)b->gd && a->c == 0 &&
	    ((a->unit == b->gux && a->x == b->gx) ||
	    (a->unit == b->guy && a->y == b->gy)))
		return 1;
	return 0;
}

/* The earliest start of transfer k on candidate i in epoch ep. */
static uint64_t
start_at(int k, int i, int ep, uint64_t r)
{
	const struct cand *a = &cs[k][i], *b;
	const struct desc *q = &dd[a->d];
	uint64_t e, ends[MAX_XFERS], x;
	int j, n = 0, common, rev, same, m, l;

	for (j = 0; j < nx; j++) {
		if (!(placed & (1U << j)))
			continue;
		b = &cs[j][pick[j]];
		e = tstart[xf[j]] + b->dur;
		if (share_side(a, b))
			r = max64(r, e);
		if (!same_plane(a, b))
			continue;
		if (a->slots > 0)
			ends[n++] = e;
		if (q->eps)
			continue;
		same = a->x == b->x && a->y == b->y;
		rev = a->x == b->y && a->y == b->x;
		common = a->x == b->x || a->x == b->y || a->y == b->x ||
		    a->y == b->y;
		if (q->swmodel && pep[j] < ep)
			r = max64(r, e + q->tau);
		else if (same || rev || !common)
			continue;
		else if (q->swmodel)
			return UINT64_MAX;	/* not a matching */
		else
			r = max64(r, e + q->tau);
	}
	if (a->slots == 0 || (uint64_t)n < a->slots)
		return r;
	for (m = 0; m < n; m++)		/* the slots-th largest end */
		for (l = m + 1; l < n; l++)
			if (ends[l] > ends[m]) {
				x = ends[l];
				ends[l] = ends[m];
				ends[m] = x;
			}
	return max64(r, ends[a->slots - 1]);
}

static uint64_t
release(int u)
{
	uint64_t m, r = 0;

	for (m = t[u].pred; m != 0; m &= m - 1)
		r = max64(r, tend[__builtin_ctzll(m)]);
	return r;
}

static uint64_t
settle(uint64_t tm)
{
	int u;

	for (u = 0; u < nt; u++)
		if (t[u].xfer == -1 && !(tm & BIT(u)) &&
		    (t[u].pred & ~tm) == 0) {
			tstart[u] = release(u);
			tend[u] = tstart[u] + t[u].len;
			tm |= BIT(u);
		}
	return tm;
}

/* The current epoch of the plane of candidate i of k, or -1. */
static int
epoch_now(int k, int i)
{
	int j, cur = -1;

	for (j = 0; j < nx; j++)
		if ((placed & (1U << j)) && same_plane(&cs[j][pick[j]],
		    &cs[k][i]) && pep[j] > cur)
			cur = pep[j];
	return cur;
}

static void
brute(int level, uint64_t tm)
{
	uint64_t r, st, mk = 0;
	int k, i, u, ep, cur;

	tm = settle(tm);
	if (level == nx) {
		for (u = 0; u < nt; u++)
			mk = max64(mk, tend[u]);
		if (mk < best)
			best = mk;
		return;
	}
	for (k = 0; k < nx; k++) {
		u = xf[k];
		if ((placed & (1U << k)) || (t[u].pred & ~tm) != 0)
			continue;
		r = release(u);
		for (i = 0; i < ncs[k]; i++) {
			cur = epoch_now(k, i);
			for (ep = cur < 0 ? 0 : cur; ep <= cur + 1; ep++) {
				if (!dd[cs[k][i].d].swmodel && ep > 0)
					break;
				if ((st = start_at(k, i, ep, r)) == UINT64_MAX)
					continue;
				tstart[u] = st;
				tend[u] = st + cs[k][i].dur + cs[k][i].lat;
				pick[k] = i;
				pep[k] = ep;
				placed |= 1U << k;
				brute(level + 1, tm | BIT(u));
				placed &= ~(1U << k);
			}
		}
	}
}

static void
prepare(void)
{
	double n = 1;
	int i, j;

	for (i = 0; i < nt; i++)
		for (j = i - 1; t[i].xfer == -1 && j >= 0; j--)
			if (t[j].xfer == -1 && t[j].gpu == t[i].gpu) {
				t[i].pred |= BIT(j);
				break;
			}
	for (i = 0; i < nx; i++) {
		add_cands(i);
		n *= (double)(i + 1) * ncs[i] * 2;
	}
	if (n > 1e7)
		errx(1, "too big: %d transfers and their planes", nx);
}

int
main(int argc, char *argv[])
{
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: fabenum < stream\n");
		return 2;
	}
	slurp();
	scan_records(MAX_DECODE, read_net, read_task);
	if (!netseen)
		errx(1, "no net record");
	prepare();
	brute(0, 0);
	printf("%" PRIu64 "\n", best);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	free(in);
	return 0;
}
