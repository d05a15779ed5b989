/*
 * fluxenum: test helper that finds by exhaustive search the optimal
 * makespan of a small task DAG under Flux's model (fluxocs(5), port or
 * switch reconfiguration, atomic transfers), so that tests can hold
 * the schedulers of fluxsolve(1) to it.  It is an independent checker:
 * it shares no code with lib/, frames records with its own scanner
 * and decodes them with msgpack-c.
 *
 * usage: fluxenum [-bv] [-s file] < stream
 *
 * It reads the net record and the task records, ignores every other
 * record and every unknown key, and prints the optimal makespan in
 * picoseconds.  -v prints an optimal schedule on stderr.  -s writes
 * one to file as fluxocs records in JSON lines (a schedule record, its
 * circuits and a plan per transfer), which jsonpack packs after the
 * DAG for ocssim(1) to check and replay.  -b finds the optimum by the
 * brute force below instead of the search.  Exit 0; 1 on bad input or
 * a problem too big (more than 12 transfers or 64 tasks; for -b, more
 * than 10^7 orders and choices); 2 on misuse.
 *
 * The model.  A transfer occupies one switch, chosen by the schedule,
 * during [start, start + dur), dur = ceil(bytes * 8 * 10^12 / rate),
 * and ends latency_ps later.  A compute task ends duration_ps after it
 * starts; the compute tasks of a GPU run one at a time in id order.  A
 * task starts once its dependencies have ended.  On one switch, two
 * transfers of the same directed pair do not overlap; opposite
 * directions of one pair, and transfers with no GPU in common, are
 * free.  The first circuits cost nothing.  Under the port model two
 * transfers that share exactly one GPU are apart by at least
 * reconfig_ps (tau) between the end of the first's occupancy and the
 * start of the second.  Under the switch model a switch's time is a
 * sequence of epochs, each one matching: every transfer of an epoch
 * starts at or after the epoch's start, uses a circuit of its matching
 * (so two that share exactly one GPU are in different epochs), and ends
 * its occupancy tau or more before the next epoch starts; the first
 * epoch starts at 0.  That is what sched_check() of lib/model/sched.c asks of
 * circuits: a circuit that gives a port another partner starts only
 * when every circuit of the switch started before it has been down for
 * tau, so cut at those starts a switch's time falls into epochs, each
 * one matching; and such epochs give circuits it accepts.  With tau 0
 * the two models are the same.
 *
 * The search.  Every schedule can be rebuilt, no later anywhere, by
 * placing its transfers in the order of their starts (ties by id),
 * each at the earliest time its dependencies and the transfers placed
 * before it on its switch allow; repeating that until nothing moves
 * gives an optimal schedule that the same rule regenerates in its own
 * start order.  So a depth-first search over the next transfer and its
 * switch, keeping only placements whose start is not before the
 * previous one's (ties by increasing id), meets an optimum.  Under the
 * switch model the epochs of a switch are runs of that order, so the
 * search also chooses for each transfer whether it joins the current
 * epoch of its switch, if the epoch's matching has or can take its
 * circuit (starting no earlier than the epoch), or opens a new one,
 * tau after every use of the switch has ended (at once on a switch
 * not used yet); both are tried, and the same left shift, epochs kept,
 * holds.  Compute tasks get their times as soon as their predecessors
 * have them.  Switches are alike and start free, so a transfer goes on
 * a switch unused so far only if it is the lowest such.  Branches are
 * cut by a lower bound: the longest path of the remaining work on free
 * circuits, each transfer no earlier than it could start on any switch
 * now if all are used, and for every GPU the transfers it still sends
 * (receives), which run one at a time on each switch.
 *
 * The brute force (-b), a second method that shares with the search
 * only the tasks read: for every order of the transfers, every switch
 * of each and, under the switch model, whether each opens an epoch on
 * its switch, place each transfer at the earliest time that the
 * dependencies and the transfers before it in the order allow (on its
 * switch: after its directed pair; under the switch model tau after
 * those of earlier epochs, and none in its own epoch that shares one
 * GPU with it; under the port model tau after those that share one
 * GPU with it).  Such a placement is always valid,
 * and placing any valid schedule's transfers in its start order this
 * way moves none later, so the least makespan is the optimum.  No
 * bound, no symmetry, no start order.
 */
#include <err.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <msgpack.h>

#include "recscan.h"

#define MAX_TASKS	64
#define MAX_XFERS	12
#define MAX_TIME	((uint64_t)1 << 52)	/* sums stay below 2^64 */
#define MAX_GPUS	1048576
#define MAX_SWITCHES	1024
#define MAX_DECODE	((size_t)1 << 20)	/* a net or task record */
#define PS		1000000000000ULL

#define BIT(i)		((uint64_t)1 << (i))

struct task {
	int		 xfer;		/* index among transfers, or -1 */
	uint64_t	 pred;		/* tasks that end before it starts */
	uint64_t	 gpu, src, dst;
	uint64_t	 bytes;
	uint64_t	 len;		/* compute time, or occupancy */
	uint64_t	 lat;		/* latency: transfers only */
	uint64_t	 tail;		/* longest path after occupancy */
};

struct cand {
	uint64_t	 start;
	int		 k;		/* transfer index */
	int		 sw;
	int		 open;		/* opens an epoch */
};

static int		 vflag;

static int		 netseen;
static uint64_t		 gpus, nswitch, rate, tau, latency;
static int		 allstop;	/* the switch model, tau > 0 */

static struct task	 t[MAX_TASKS];
static int		 nt;
static int		 xf[MAX_XFERS];	/* task of each transfer */
static int		 nx;
static uint16_t		 conf[MAX_XFERS];	/* transfers in conflict */
static uint16_t		 one[MAX_XFERS];	/* one GPU in common */
static uint64_t		 gapv[MAX_XFERS][MAX_XFERS];
static int		 nsw;		/* switches worth trying */

/* Search state. */
static uint64_t		 done;		/* tasks with times */
static uint64_t		 tstart[MAX_TASKS], tend[MAX_TASKS];
static int		 xsw[MAX_XFERS];
static int		 xep[MAX_XFERS];	/* epoch on its switch */
static uint16_t		 placed;
/* Per switch, under the switch model. */
static uint64_t		 epstart[MAX_XFERS];	/* current epoch's start */
static uint16_t		 epmask[MAX_XFERS];	/* current epoch's transfers */
static uint64_t		 swend[MAX_XFERS];	/* its last use's end */
static int		 nep[MAX_XFERS];	/* its epochs */
static int		 nused;
static uint64_t		 last;		/* start of the last placed */
static int		 lastid;
static uint64_t		 best = UINT64_MAX;
static uint64_t		 bstart[MAX_TASKS];
static int		 bsw[MAX_XFERS];
static int		 bep[MAX_XFERS];
static uint64_t		 nodes;

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: fluxenum [-bv] [-s file]\n");
	exit(2);
}

static uint64_t
getu_max(const struct rec *r, const char *key, uint64_t max)
{
	uint64_t v = getu(r, key);

	if (v > max)
		bad(r, key, "too large");
	return v;
}

static void
read_net(const struct rec *r)
{
	const msgpack_object *o;

	if (netseen)
		errx(1, "byte %" PRIu64 ": second net record", r->off);
	netseen = 1;
	gpus = getu_max(r, "gpus", MAX_GPUS);
	nswitch = getu_max(r, "switches", MAX_SWITCHES);
	rate = getu(r, "bandwidth_bps");
	tau = getu_max(r, "reconfig_ps", MAX_TIME);
	if ((o = get(r, "latency_ps")) != NULL)
		latency = uint_of(r, "latency_ps", o);
	if (latency > MAX_TIME)
		bad(r, "latency_ps", "too large");
	if ((o = get(r, "reconfig_model")) != NULL &&
	    getstr_is(r, "reconfig_model", o, "switch"))
		allstop = 1;
	else if (o != NULL && !getstr_is(r, "reconfig_model", o, "port"))
		bad(r, "reconfig_model", "neither \"port\" nor \"switch\"");
	if (gpus == 0)
		bad(r, "gpus", "must be at least 1");
	if (nswitch == 0)
		bad(r, "switches", "must be at least 1");
	if (rate == 0)
		bad(r, "bandwidth_bps", "must be positive");
	/* With no delay the models are the same: a port in one circuit. */
	if (tau == 0)
		allstop = 0;
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
		if (o->via.array.ptr[i].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
			bad(r, "deps", "not an array of unsigned integers");
		if (o->via.array.ptr[i].via.u64 >= id)
			bad(r, "deps", "not an earlier task");
		m |= BIT(o->via.array.ptr[i].via.u64);
	}
	return m;
}

/* Occupancy of a transfer, rounded up to a picosecond. */
static void
read_transfer(const struct rec *r, struct task *p)
{
	unsigned __int128 d;

	if (nx == MAX_XFERS)
		errx(1, "too big: more than %d transfers", MAX_XFERS);
	p->src = getu(r, "src");
	p->dst = getu(r, "dst");
	p->bytes = getu(r, "bytes");
	if (p->src >= gpus)
		bad(r, "src", "not below the net's gpus");
	if (p->dst >= gpus)
		bad(r, "dst", "not below the net's gpus");
	if (p->src == p->dst)
		bad(r, "dst", "same as src");
	if (p->bytes == 0)
		bad(r, "bytes", "a transfer of 0 bytes");
	d = ((unsigned __int128)p->bytes * 8 * PS + rate - 1) / rate;
	if (d > MAX_TIME)
		bad(r, "bytes", "transfer longer than 2^52 ps");
	p->len = (uint64_t)d;
	p->lat = latency;
	p->xfer = nx;
	xf[nx++] = nt;
}

static void
read_task(const struct rec *r)
{
	struct task *p = &t[nt];
	const msgpack_object *kind;
	uint64_t id;

	if (!netseen)
		errx(1, "byte %" PRIu64 ": task record before the net record",
		    r->off);
	if (nt == MAX_TASKS)
		errx(1, "too big: more than %d tasks", MAX_TASKS);
	if ((id = getu(r, "id")) != (uint64_t)nt)
		bad(r, "id", "ids must be dense from 0 in stream order");
	p->pred = read_deps(r, id);
	kind = need_key(r, "kind");
	p->xfer = -1;
	if (getstr_is(r, "kind", kind, "transfer"))
		read_transfer(r, p);
	else if (getstr_is(r, "kind", kind, "compute")) {
		p->gpu = getu(r, "gpu");
		if (p->gpu >= gpus)
			bad(r, "gpu", "not below the net's gpus");
		p->len = getu_max(r, "duration_ps", MAX_TIME);
	} else
		bad(r, "kind", "neither \"compute\" nor \"transfer\"");
	nt++;
}

static void
parse(void)
{
	scan_records(MAX_DECODE, read_net, read_task);
	if (!netseen)
		errx(1, "no net record");
}

/*
 * Chain the compute tasks of each GPU, note which transfers conflict,
 * and the longest path from every task's occupancy end to the end.
 */
static void
prepare(void)
{
	const struct task *a, *b;
	uint64_t bl[MAX_TASKS], v;
	int i, j, u;

	for (i = 0; i < nt; i++)
		for (j = i - 1; t[i].xfer == -1 && j >= 0; j--)
			if (t[j].xfer == -1 && t[j].gpu == t[i].gpu) {
				t[i].pred |= BIT(j);
				break;
			}
	for (i = nt - 1; i >= 0; i--) {
		v = 0;
		for (u = i + 1; u < nt; u++)
			if ((t[u].pred & BIT(i)) && bl[u] > v)
				v = bl[u];
		t[i].tail = t[i].lat + v;
		bl[i] = t[i].len + t[i].tail;
	}
	for (i = 0; i < nx; i++)
		for (j = 0; j < nx; j++) {
			a = &t[xf[i]];
			b = &t[xf[j]];
			/* The opposite direction shares the duplex circuit. */
			if (i == j || (a->src == b->dst && a->dst == b->src) ||
			    (a->src != b->src && a->src != b->dst &&
			    a->dst != b->src && a->dst != b->dst))
				continue;
			conf[i] |= 1U << j;
			gapv[i][j] = a->src == b->src && a->dst == b->dst ?
			    0 : tau;
			if (a->src != b->src || a->dst != b->dst)
				one[i] |= 1U << j;
		}
	nsw = nswitch < (uint64_t)nx ? (int)nswitch : nx;
}

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* When every predecessor of u has ended, given the ends in e. */
static uint64_t
release(int u, const uint64_t *e)
{
	uint64_t m, r = 0;

	for (m = t[u].pred; m != 0; m &= m - 1)
		r = max64(r, e[__builtin_ctzll(m)]);
	return r;
}

/* Earliest start of transfer k on switch s, after the placed ones. */
static uint64_t
earliest(int k, int s, uint64_t r)
{
	unsigned m;
	int j;

	for (m = conf[k] & placed; m != 0; m &= m - 1) {
		j = __builtin_ctz(m);
		if (xsw[j] == s)
			r = max64(r, tstart[xf[j]] + t[xf[j]].len + gapv[k][j]);
	}
	return r;
}

/*
 * Switch model: the start of transfer k in the current epoch of s, if
 * the epoch's matching can take its circuit (else UINT64_MAX): no
 * earlier than the epoch's first use, and after its directed pair.
 * The uses of the epochs before end tau before that first use, so
 * earliest() adds nothing for them.
 */
static uint64_t
join_at(int k, int s, uint64_t r)
{
	if ((one[k] & epmask[s]) != 0)
		return UINT64_MAX;
	return earliest(k, s, max64(r, epstart[s]));
}

/* Switch model: a new epoch on s, tau after every use of s has ended. */
static uint64_t
open_at(int s, uint64_t r)
{
	return s < nused ? max64(r, swend[s] + tau) : r;
}

/*
 * The earliest start of k on s as things stand.  Placing more only
 * moves it later: a matching only grows, and a later epoch starts tau
 * after the last use of s.
 */
static uint64_t
reach(int k, int s, uint64_t r)
{
	uint64_t j;

	if (!allstop)
		return earliest(k, s, r);
	j = join_at(k, s, r);
	r = open_at(s, r);
	return j < r ? j : r;
}

/* Give times to the compute tasks whose predecessors all have them. */
static void
propagate(void)
{
	int u;

	for (u = 0; u < nt; u++) {
		if ((done & BIT(u)) || t[u].xfer != -1 ||
		    (t[u].pred & ~done) != 0)
			continue;
		tstart[u] = release(u, tend);
		tend[u] = tstart[u] + t[u].len;
		done |= BIT(u);
	}
}

/*
 * Least completion of work w on switches free from the times in a
 * (sorted here), when it may spread over the n earliest: a schedule
 * of whole transfers ends no earlier.
 */
static uint64_t
waterfill(uint64_t *a, int na, int n, uint64_t w)
{
	uint64_t sum = 0, l, x;
	int i, j;

	for (i = 1; i < na; i++)
		for (j = i; j > 0 && a[j - 1] > a[j]; j--) {
			x = a[j];
			a[j] = a[j - 1];
			a[j - 1] = x;
		}
	if (n > na)
		n = na;
	for (i = 0; i < n; i++) {
		sum += a[i];
		l = (sum + w + i) / (i + 1);
		if (i + 1 == n || l <= a[i + 1])
			return l;
	}
	return 0;
}

/*
 * The transfers that GPU g still sends (out) or receives run one at a
 * time on each switch, after those of the same direction placed there.
 */
static uint64_t
port_bound(uint64_t g, int out, const uint64_t *est)
{
	uint64_t a[MAX_XFERS], w = 0, r = UINT64_MAX, tl = UINT64_MAX;
	int k, s, u, n = 0;

	for (k = 0; k < nx; k++) {
		u = xf[k];
		if ((placed & (1U << k)) || (out ? t[u].src : t[u].dst) != g)
			continue;
		n++;
		w += t[u].len;
		r = est[u] < r ? est[u] : r;
		tl = t[u].tail < tl ? t[u].tail : tl;
	}
	if (n == 0)
		return 0;
	r = max64(r, last);
	for (s = 0; s < nsw; s++)
		a[s] = r;
	for (k = 0; k < nx; k++) {
		u = xf[k];
		if ((placed & (1U << k)) && (out ? t[u].src : t[u].dst) == g)
			a[xsw[k]] = max64(a[xsw[k]], tstart[u] + t[u].len);
	}
	return waterfill(a, nsw, n, w) + tl;
}

/* A lower bound on the makespan of every completion of the search. */
static uint64_t
bound(void)
{
	uint64_t e[MAX_TASKS], est[MAX_TASKS], lb = 0, r, m, x;
	int u, k, s;

	for (u = 0; u < nt; u++) {
		if (done & BIT(u)) {
			e[u] = tend[u];
			lb = max64(lb, e[u]);
			continue;
		}
		r = release(u, e);
		if ((k = t[u].xfer) != -1) {
			r = max64(r, last);
			if (nused == nsw) {
				/* No free switch left: the best used one. */
				m = UINT64_MAX;
				for (s = 0; s < nsw && m > r; s++)
					if ((x = reach(k, s, r)) < m)
						m = x;
				r = m;
			}
		}
		est[u] = r;
		e[u] = r + t[u].len + t[u].lat;
		lb = max64(lb, e[u]);
	}
	for (k = 0; k < nx; k++) {
		u = xf[k];
		if (placed & (1U << k))
			continue;
		lb = max64(lb, port_bound(t[u].src, 1, est));
		lb = max64(lb, port_bound(t[u].dst, 0, est));
	}
	return lb;
}

static int
cmp_cand(const void *va, const void *vb)
{
	const struct cand *a = va, *b = vb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->k != b->k)
		return a->k - b->k;
	if (a->sw != b->sw)
		return a->sw - b->sw;
	return a->open - b->open;
}

static void
found(void)
{
	uint64_t mk = 0;
	int u;

	for (u = 0; u < nt; u++)
		mk = max64(mk, tend[u]);
	if (mk >= best)
		return;
	best = mk;
	memcpy(bstart, tstart, sizeof(bstart));
	memcpy(bsw, xsw, sizeof(bsw));
	memcpy(bep, xep, sizeof(bep));
}

/* Keep a placement in start order (ties by id) that may beat the best. */
static int
keep(struct cand *c, int n, int k, int s, int open, uint64_t st)
{
	int u = xf[k];

	if (st == UINT64_MAX || st < last || (st == last && u < lastid) ||
	    st + t[u].len + t[u].tail >= best)
		return n;
	c[n] = (struct cand){ st, k, s, open };
	return n + 1;
}

/*
 * The placements allowed next: start order, then the lowest new
 * switch; under the switch model, into the current epoch of a switch
 * or a new one.
 */
static int
candidates(struct cand *c)
{
	uint64_t r;
	int k, s, u, n = 0;

	for (k = 0; k < nx; k++) {
		u = xf[k];
		if ((placed & (1U << k)) || (t[u].pred & ~done) != 0)
			continue;
		r = release(u, tend);
		for (s = 0; s < nsw && s <= nused; s++) {
			if (!allstop) {
				n = keep(c, n, k, s, 0, earliest(k, s, r));
				continue;
			}
			if (s < nused)
				n = keep(c, n, k, s, 0, join_at(k, s, r));
			n = keep(c, n, k, s, 1, open_at(s, r));
		}
	}
	qsort(c, n, sizeof(*c), cmp_cand);
	return n;
}

/* Place candidate c; the state of its switch, to restore, in sv. */
static void
place(const struct cand *c, uint64_t sv[3], int iv[2])
{
	int u = xf[c->k], s = c->sw;

	sv[0] = epstart[s];
	sv[1] = swend[s];
	sv[2] = epmask[s];
	iv[0] = nep[s];
	iv[1] = nused;
	tstart[u] = c->start;
	tend[u] = c->start + t[u].len + t[u].lat;
	xsw[c->k] = s;
	if (s == nused)
		nused++;
	if (c->open) {
		epstart[s] = c->start;
		epmask[s] = 0;
		nep[s]++;
	}
	epmask[s] |= 1U << c->k;
	xep[c->k] = nep[s] - 1;
	swend[s] = max64(swend[s], c->start + t[u].len);
	placed |= 1U << c->k;
	done |= BIT(u);
	last = c->start;
	lastid = u;
	propagate();
}

static void
dfs(void)
{
	struct cand c[MAX_XFERS * MAX_XFERS * 2];
	uint64_t sdone, slast, sv[3];
	int i, n, slastid, iv[2];

	nodes++;
	if (placed == (1U << nx) - 1) {
		found();
		return;
	}
	if (bound() >= best)
		return;
	n = candidates(c);
	for (i = 0; i < n; i++) {
		sdone = done;
		slast = last;
		slastid = lastid;
		place(&c[i], sv, iv);
		dfs();
		placed &= ~(1U << c[i].k);
		done = sdone;
		last = slast;
		lastid = slastid;
		epstart[c[i].sw] = sv[0];
		swend[c[i].sw] = sv[1];
		epmask[c[i].sw] = (uint16_t)sv[2];
		nep[c[i].sw] = iv[0];
		nused = iv[1];
	}
}

/*
 * The brute force of -b: every order of the transfers, every switch
 * for each and, under the switch model, whether it opens an epoch on
 * its switch; each at the earliest time the transfers before it in the
 * order allow.  It shares only the tasks with the search.
 */
static uint64_t
brute_start(int k, int s, int ep, uint64_t r)
{
	const struct task *a = &t[xf[k]], *b;
	uint64_t e;
	int j, same, rev, common;

	for (j = 0; j < nx; j++) {
		if (!(placed & (1U << j)) || xsw[j] != s)
			continue;
		b = &t[xf[j]];
		e = tstart[xf[j]] + b->len;
		same = a->src == b->src && a->dst == b->dst;
		rev = a->src == b->dst && a->dst == b->src;
		common = a->src == b->src || a->src == b->dst ||
		    a->dst == b->src || a->dst == b->dst;
		if (allstop && xep[j] < ep)
			r = max64(r, e + tau);	/* the whole switch */
		else if (same)
			r = max64(r, e);
		else if (common && !rev && allstop)
			return UINT64_MAX;	/* not a matching */
		else if (common && !rev)
			r = max64(r, e + tau);
	}
	return r;
}

/* Times for the compute tasks whose predecessors are timed (in tm). */
static uint64_t
brute_settle(uint64_t tm)
{
	int u;

	for (u = 0; u < nt; u++)
		if (t[u].xfer == -1 && (t[u].pred & ~tm) == 0) {
			tstart[u] = release(u, tend);
			tend[u] = tstart[u] + t[u].len;
			tm |= BIT(u);
		}
	return tm;
}

static void
brute(int level, uint64_t tm)
{
	uint64_t r, st;
	int k, s, j, ep, cur, u;

	nodes++;
	tm = brute_settle(tm);
	if (level == nx) {
		found();
		return;
	}
	for (k = 0; k < nx; k++) {
		u = xf[k];
		if ((placed & (1U << k)) || (t[u].pred & ~tm) != 0)
			continue;
		r = release(u, tend);
		for (s = 0; s < nsw; s++) {
			for (cur = -1, j = 0; j < nx; j++)
				if ((placed & (1U << j)) && xsw[j] == s &&
				    xep[j] > cur)
					cur = xep[j];
			for (ep = cur < 0 ? 0 : cur; ep <= cur + 1; ep++) {
				if (!allstop && ep > 0)
					break;
				if ((st = brute_start(k, s, ep, r)) ==
				    UINT64_MAX)
					continue;
				tstart[u] = st;
				tend[u] = st + t[u].len + t[u].lat;
				xsw[k] = s;
				xep[k] = ep;
				placed |= 1U << k;
				brute(level + 1, tm | BIT(u));
				placed &= ~(1U << k);
			}
		}
	}
}

/* Refuse a brute force of more than 10^7 orders and choices. */
static void
brute_size(void)
{
	double n = 1;
	int i;

	for (i = 1; i <= nx; i++)
		n *= (double)i * nsw * (allstop ? 2 : 1);
	if (n > 1e7)
		errx(1, "too big for -b: %d transfers on %d switches", nx,
		    nsw);
}

static void
show(void)
{
	int u;

	fprintf(stderr, "fluxenum: optimal makespan %" PRIu64 " ps, "
	    "%" PRIu64 " nodes\n", best, nodes);
	for (u = 0; u < nt; u++) {
		if (t[u].xfer == -1)
			fprintf(stderr, "task %d: compute gpu %" PRIu64
			    " start %" PRIu64 " end %" PRIu64 "\n", u,
			    t[u].gpu, bstart[u], bstart[u] + t[u].len);
		else {
			fprintf(stderr, "task %d: transfer %" PRIu64 "->%"
			    PRIu64 " switch %d", u, t[u].src, t[u].dst,
			    bsw[t[u].xfer]);
			if (allstop)
				fprintf(stderr, " epoch %d", bep[t[u].xfer]);
			fprintf(stderr, " start %" PRIu64 " end %" PRIu64 "\n",
			    bstart[u], bstart[u] + t[u].len + t[u].lat);
		}
	}
}

/* The GPUs of transfer k as a circuit: a < b. */
static void
ends(int k, uint64_t *a, uint64_t *b)
{
	const struct task *p = &t[xf[k]];

	*a = p->src < p->dst ? p->src : p->dst;
	*b = p->src < p->dst ? p->dst : p->src;
}

static int
same_circuit(int j, int k)
{
	uint64_t a, b, c, d;

	ends(j, &a, &b);
	ends(k, &c, &d);
	return bsw[j] == bsw[k] && a == c && b == d;
}

/*
 * The circuits of the best schedule, a circuit per switch, epoch and
 * pair under the switch model: from the epoch's first use (whose start
 * is tau after every use before it ends) to the pair's last use there.
 */
static void
epoch_circuits(FILE *fp)
{
	uint64_t a, b, from, to;
	int j, k;

	for (k = 0; k < nx; k++) {
		for (j = 0; j < k && !(same_circuit(j, k) &&
		    bep[j] == bep[k]); j++)
			;
		if (j < k)
			continue;	/* written with j */
		from = to = UINT64_MAX;
		for (j = 0; j < nx; j++) {
			if (bsw[j] != bsw[k] || bep[j] != bep[k])
				continue;
			if (from == UINT64_MAX || bstart[xf[j]] < from)
				from = bstart[xf[j]];
			if (same_circuit(j, k) && (to == UINT64_MAX ||
			    bstart[xf[j]] + t[xf[j]].len > to))
				to = bstart[xf[j]] + t[xf[j]].len;
		}
		ends(k, &a, &b);
		fprintf(fp, "{\"type\":\"circuit\",\"switch\":%d,\"a\":%"
		    PRIu64 ",\"b\":%" PRIu64 ",\"from_ps\":%" PRIu64
		    ",\"to_ps\":%" PRIu64 "}\n", bsw[k], a, b, from, to);
	}
}

/*
 * The circuits under the port model: the uses of one pair on a switch
 * that overlap or touch make one circuit.  Those of two pairs with a
 * port in common are tau apart.
 */
static void
pair_circuits(FILE *fp)
{
	uint64_t a, b, s[MAX_XFERS], e[MAX_XFERS], x;
	int i, j, k, n;

	for (k = 0; k < nx; k++) {
		for (j = 0; j < k && !same_circuit(j, k); j++)
			;
		if (j < k)
			continue;
		for (n = 0, j = 0; j < nx; j++) {
			if (!same_circuit(j, k))
				continue;
			s[n] = bstart[xf[j]];
			e[n++] = bstart[xf[j]] + t[xf[j]].len;
			for (i = n - 1; i > 0 && s[i - 1] > s[i]; i--) {
				x = s[i], s[i] = s[i - 1], s[i - 1] = x;
				x = e[i], e[i] = e[i - 1], e[i - 1] = x;
			}
		}
		ends(k, &a, &b);
		for (i = 0; i < n; i = j) {
			for (x = e[i], j = i + 1; j < n && s[j] <= x; j++)
				x = max64(x, e[j]);
			fprintf(fp, "{\"type\":\"circuit\",\"switch\":%d,"
			    "\"a\":%" PRIu64 ",\"b\":%" PRIu64
			    ",\"from_ps\":%" PRIu64 ",\"to_ps\":%" PRIu64
			    "}\n", bsw[k], a, b, s[i], x);
		}
	}
}

/* -s: the best schedule as fluxocs records, JSON lines for jsonpack. */
static void
write_schedule(const char *path)
{
	FILE *fp;
	int k;

	if ((fp = fopen(path, "w")) == NULL)
		err(1, "%s", path);
	fprintf(fp, "{\"type\":\"schedule\",\"scheduler\":\"fluxenum\"}\n");
	if (allstop)
		epoch_circuits(fp);
	else
		pair_circuits(fp);
	for (k = 0; k < nx; k++)
		fprintf(fp, "{\"type\":\"plan\",\"task\":%d,\"switch\":%d,"
		    "\"start_ps\":%" PRIu64 "}\n", xf[k], bsw[k],
		    bstart[xf[k]]);
	if (fclose(fp) == EOF)
		err(1, "%s", path);
}

int
main(int argc, char *argv[])
{
	const char *sfile = NULL;
	int ch, bflag = 0;

	while ((ch = getopt(argc, argv, "bs:v")) != -1)
		switch (ch) {
		case 'b':
			bflag = 1;
			break;
		case 's':
			sfile = optarg;
			break;
		case 'v':
			vflag = 1;
			break;
		default:
			usage();
		}
	if (argc != optind)
		usage();
	slurp();
	parse();
	prepare();
	lastid = -1;
	if (bflag) {
		brute_size();
		brute(0, 0);
	} else {
		propagate();
		dfs();
	}
	if (vflag)
		show();
	if (sfile != NULL)
		write_schedule(sfile);
	printf("%" PRIu64 "\n", best);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	free(in);
	return 0;
}
