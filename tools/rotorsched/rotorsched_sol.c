/*
 * rotorsched, Solstice and Eclipse: two schedulers of one traffic
 * matrix from the literature, on duplex circuits.  A configuration is a
 * matching of GPUs in the general graph of the pairs with traffic, not
 * a bipartite one, and lasts a whole number of picoseconds; the
 * configurations are dealt to the switches as BvN's are (tm_deal).
 * Bytes and times are exact integers.  rotorsched(1), Solstice mode and
 * Eclipse mode, give the rules and where they leave the papers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/die.h"

#include "rotorsched.h"

/* A pair of GPUs a < b, and ia, ib their dense numbers. */
struct pr {
	uint64_t	st;		/* bytes left, stuffing included */
	uint64_t	rd;		/* real bytes left */
	uint32_t	a, b;
	uint32_t	ia, ib;
	int		pick;
};

/* A GPU short of the stuffing's row sum, by d bytes. */
struct short_gpu {
	uint64_t	d;
	uint32_t	v;
};

static int
cmp_u32(const void *x, const void *y)
{
	uint32_t p = *(const uint32_t *)x, q = *(const uint32_t *)y;

	return p < q ? -1 : p > q;
}

static int
cmp_ids(const struct pr *p, const struct pr *q)
{
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* Most stuffed bytes first, ties by GPU ids. */
static int
cmp_st(const void *x, const void *y)
{
	const struct pr *p = x, *q = y;

	if (p->st != q->st)
		return p->st > q->st ? -1 : 1;
	return cmp_ids(p, q);
}

static int
cmp_short(const void *x, const void *y)
{
	const struct short_gpu *p = x, *q = y;

	if (p->d != q->d)
		return p->d > q->d ? -1 : 1;
	return p->v < q->v ? -1 : p->v > q->v;
}

/* What a circuit carries in ps at bps, in whole bytes, at most 2^64 - 1. */
static uint64_t
bytes_in(uint64_t ps, uint64_t bps)
{
	unsigned __int128 c = (unsigned __int128)ps * bps / (8 * RS_PS);

	return c > UINT64_MAX ? UINT64_MAX : (uint64_t)c;
}

static uint32_t
dense(const uint32_t *ids, size_t nv, uint32_t gpu)
{
	const uint32_t *p = bsearch(&gpu, ids, nv, sizeof(*ids), cmp_u32);

	return (uint32_t)(p - ids);
}

/*
 * The pairs with bytes, in the order of their GPUs, and the GPUs they
 * join numbered densely in ascending order in *ids (*nv of them): the
 * arrays follow the pairs, not the net's GPUs.  The pairs of no byte
 * go to *zero (*nz of them) for tm_empty_pairs().
 */
static size_t
gather(const struct dag *d, uint64_t bps, struct pr **out, uint32_t **ids,
    size_t *nv, struct tm_edge **zero, size_t *nz)
{
	struct tm_edge *e;
	struct pr *p;
	uint32_t *v;
	size_t ne, np, n, i;

	ne = tm_edges(d, bps, &e);
	p = xreallocarray(NULL, ne, sizeof(*p));
	v = xreallocarray(NULL, ne, 2 * sizeof(*v));
	for (i = np = *nz = 0; i < ne; i++) {
		if (e[i].w == 0) {
			e[(*nz)++] = e[i];
			continue;
		}
		p[np] = (struct pr){ e[i].w, e[i].w, e[i].a, e[i].b, 0, 0, 0 };
		v[2 * np] = e[i].a;
		v[2 * np++ + 1] = e[i].b;
	}
	qsort(v, 2 * np, sizeof(*v), cmp_u32);
	for (i = n = 0; i < 2 * np; i++)
		if (n == 0 || v[i] != v[n - 1])
			v[n++] = v[i];
	for (i = 0; i < np; i++) {
		p[i].ia = dense(v, n, p[i].a);
		p[i].ib = dense(v, n, p[i].b);
	}
	*zero = e;
	*ids = v;
	*nv = n;
	*out = p;
	return np;
}

/*
 * Pick a maximal matching greedily over p[0..m) in that order.  used[]
 * is all 0 on entry and on return.
 */
static void
match(struct pr *p, size_t m, uint8_t *used)
{
	size_t i;

	for (i = 0; i < m; i++) {
		p[i].pick = !used[p[i].ia] && !used[p[i].ib];
		if (p[i].pick)
			used[p[i].ia] = used[p[i].ib] = 1;
	}
	for (i = 0; i < m; i++)
		used[p[i].ia] = used[p[i].ib] = 0;
}

/*
 * Move the unpicked pairs of p[0..m) to its front, in their order, the
 * picked ones after them; returns how many were not picked.
 */
static size_t
unpicked_first(struct pr *p, size_t m, struct pr *tmp)
{
	size_t i, k, t;

	for (i = k = t = 0; i < m; i++) {
		if (p[i].pick)
			tmp[t++] = p[i];
		else
			p[k++] = p[i];
	}
	for (i = 0; i < t; i++)
		p[k + i] = tmp[i];
	return k;
}

/* ---- Solstice ---- */

/*
 * The GPUs short of T pair up in new pairs of no real byte: lay their
 * shortfalls end to end, largest first, and join the byte at place x
 * to the one at x + H, H half the sum, so that no GPU meets itself.  A
 * largest shortfall above the others' sum, and one odd byte, cannot be
 * stuffed and stay.  Appends the pairs to p; returns their count.
 */
static size_t
fold(struct short_gpu *q, size_t m, const uint32_t *ids, struct pr *p)
{
	unsigned __int128 sum = 0, h, x, acc;
	size_t i, j, np = 0;
	uint64_t oi = 0, oj, amt, ri;
	uint32_t lo, hi;

	for (i = 0; i < m; i++)
		sum += q[i].d;
	if (m < 2)
		return 0;
	if (q[0].d > sum - q[0].d) {
		q[0].d = (uint64_t)(sum - q[0].d);
		sum = 2 * (unsigned __int128)q[0].d;
	}
	if (sum & 1) {
		q[m - 1].d--;
		sum--;
	}
	h = sum / 2;
	for (j = 0, acc = 0; acc + q[j].d <= h; j++)
		acc += q[j].d;
	oj = (uint64_t)(h - acc);
	for (i = 0, x = 0; x < h; ) {
		ri = q[i].d - oi;
		if (ri > h - x)
			ri = (uint64_t)(h - x);
		amt = ri < q[j].d - oj ? ri : q[j].d - oj;
		lo = q[i].v < q[j].v ? q[i].v : q[j].v;
		hi = q[i].v < q[j].v ? q[j].v : q[i].v;
		p[np++] = (struct pr){ amt, 0, ids[lo], ids[hi], lo, hi, 0 };
		x += amt;
		if ((oi += amt) == q[i].d) {
			i++;
			oi = 0;
		}
		if ((oj += amt) == q[j].d) {
			j++;
			oj = 0;
		}
	}
	return np;
}

/*
 * Stuff the pairs so that every GPU with traffic has the same sum T,
 * the largest: first the pairs with traffic, most bytes first, each
 * raised by the smaller shortfall of its two GPUs, then new pairs
 * (fold).  Returns the pairs' new count.
 */
static size_t
stuff(struct pr *p, size_t np, const uint32_t *ids, size_t nv)
{
	unsigned __int128 *sum = xcalloc(nv, sizeof(*sum));
	struct short_gpu *q;
	uint64_t *d, t = 0, x;
	size_t i, m;

	for (i = 0; i < np; i++) {
		sum[p[i].ia] += p[i].st;
		sum[p[i].ib] += p[i].st;
	}
	for (i = 0; i < nv; i++) {
		if (sum[i] > UINT64_MAX)
			die("stdin: the pairs of GPU %u carry more than "
			    "2^64 - 1 bytes", ids[i]);
		if (sum[i] > t)
			t = (uint64_t)sum[i];
	}
	d = xcalloc(nv, sizeof(*d));
	for (i = 0; i < nv; i++)
		d[i] = t - (uint64_t)sum[i];
	free(sum);
	qsort(p, np, sizeof(*p), cmp_st);
	for (i = 0; i < np; i++) {
		x = d[p[i].ia] < d[p[i].ib] ? d[p[i].ia] : d[p[i].ib];
		p[i].st += x;
		d[p[i].ia] -= x;
		d[p[i].ib] -= x;
	}
	q = xcalloc(nv, sizeof(*q));
	for (i = m = 0; i < nv; i++)
		if (d[i] > 0)
			q[m++] = (struct short_gpu){ d[i], (uint32_t)i };
	qsort(q, m, sizeof(*q), cmp_short);
	np += fold(q, m, ids, p + np);
	free(q);
	free(d);
	return np;
}

/*
 * Slice at thresholds r halving from the largest power of two not above
 * the largest entry: while pairs of r bytes or more remain, a maximal
 * matching of them, most bytes first, lasts the time r bytes take and
 * takes r off each; the pairs' real bytes go first.  Once r bytes take
 * less than tau, stop.  Returns 1 if the deadline cut it short.
 */
static int
slice(struct pr *p, size_t np, const struct net *n, uint8_t *used,
    struct pr *tmp, struct tm_plan *pl, double deadline)
{
	uint64_t r, top = 0, dur, x;
	size_t i, m;

	for (i = 0; i < np; i++)
		if (p[i].st > top)
			top = p[i].st;
	for (r = (uint64_t)1 << (63 - __builtin_clzll(top)); r > 0; r >>= 1) {
		if ((dur = tm_ps_for(r, n->bandwidth_bps)) < n->reconfig_ps)
			return 0;
		qsort(p, np, sizeof(*p), cmp_st);
		for (m = 0; m < np && p[m].st >= r; m++)
			;
		while (m > 0) {
			if (tm_late(deadline))
				return 1;
			match(p, m, used);
			tm_config(pl, dur);
			for (i = 0; i < m; i++) {
				if (!p[i].pick)
					continue;
				if (p[i].rd > 0)
					tm_circuit(pl, p[i].a, p[i].b);
				x = p[i].rd < r ? p[i].rd : r;
				p[i].rd -= x;
				p[i].st -= r;
			}
			m = unpicked_first(p, m, tmp);
		}
	}
	return 0;
}

/*
 * The real bytes left, as tm_rest() serves them: maximal matchings,
 * heaviest first, each lasting as long as its heaviest pair needs.
 */
static void
rest(const struct pr *p, size_t np, const struct net *n, struct tm_plan *pl)
{
	struct tm_edge *e = xreallocarray(NULL, np ? np : 1, sizeof(*e));
	size_t i, m;

	for (i = m = 0; i < np; i++)
		if (p[i].rd > 0)
			e[m++] = (struct tm_edge){ p[i].rd, p[i].a, p[i].b, 0 };
	tm_rest(e, m, n, pl);
	free(e);
}

void
solstice(struct schedule *sc, const struct dagin *in, double deadline)
{
	struct tm_plan pl = { 0 };
	struct tm_edge *zero;
	struct pr *p, *tmp;
	uint32_t *ids;
	uint8_t *used;
	size_t np, nv, nz;

	np = gather(&in->dag, in->net.bandwidth_bps, &p, &ids, &nv, &zero,
	    &nz);
	if (np > 0) {
		/* fold() adds fewer than two pairs per GPU with traffic */
		p = xreallocarray(p, np + 2 * nv, sizeof(*p));
		np = stuff(p, np, ids, nv);
		used = xcalloc(nv, 1);
		tmp = xcalloc(np, sizeof(*tmp));
		if (slice(p, np, &in->net, used, tmp, &pl, deadline))
			warnmsg("-T: the time limit cut Solstice's slicing "
			    "after %zu configurations; the bytes left go in "
			    "maximal matchings, heaviest first", pl.ncf);
		rest(p, np, &in->net, &pl);
		free(tmp);
		free(used);
	}
	tm_empty_pairs(&pl, zero, nz, in->net.gpus);
	free(zero);
	free(ids);
	free(p);
	tm_deal(sc, &in->net, &pl);
}

/* ---- Eclipse ---- */

/*
 * The configuration times a step tries, at most: the times of all the
 * distinct entries left when there are no more, else those of this many
 * of them spread evenly by rank, the least and the largest included.
 */
#define ECL_TRIES	64

/*
 * Eclipse's state.  p holds the pairs left in the order of their GPUs
 * (which is the order of their indexes), byw their indexes by real
 * bytes, most first, ties by GPU ids, and bg their GPUs' dense numbers
 * in that order (two each, for a scan in order); row[v] is where GPU
 * v's pairs as the lower GPU start in p (nv + 1 of them); live counts
 * the GPUs with a pair left.  pk holds a configuration's picks (npk); tmp, map, rds,
 * bits (a bit a pair, all 0 between uses) and used are scratch.
 */
struct ecl {
	struct pr	*p;
	size_t		 np, nv, live, npk;
	uint32_t	*byw, *bg, *row, *pk, *tmp, *map;
	uint64_t	*rds, *bits;
	uint8_t		*used;
};

/* x * y in 256 bits: *hi, *lo. */
static void
mul256(unsigned __int128 x, unsigned __int128 y, unsigned __int128 *hi,
    unsigned __int128 *lo)
{
	uint64_t x0 = (uint64_t)x, x1 = (uint64_t)(x >> 64);
	uint64_t y0 = (uint64_t)y, y1 = (uint64_t)(y >> 64);
	unsigned __int128 p00 = (unsigned __int128)x0 * y0;
	unsigned __int128 p01 = (unsigned __int128)x0 * y1;
	unsigned __int128 p10 = (unsigned __int128)x1 * y0;
	unsigned __int128 p11 = (unsigned __int128)x1 * y1;
	unsigned __int128 mid;

	mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;
	*lo = (uint64_t)p00 | mid << 64;
	*hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
}

/* x * y against u * v, exactly: -1, 0 or 1. */
static int
cmp_products(unsigned __int128 x, unsigned __int128 y, unsigned __int128 u,
    unsigned __int128 v)
{
	unsigned __int128 h1, l1, h2, l2;

	mul256(x, y, &h1, &l1);
	mul256(u, v, &h2, &l2);
	if (h1 != h2)
		return h1 < h2 ? -1 : 1;
	return l1 < l2 ? -1 : l1 > l2;
}

/* Pair k before pair l in byw: more real bytes, then lower GPUs. */
static int
ecl_before(const struct ecl *e, uint32_t k, uint32_t l)
{
	if (e->p[k].rd != e->p[l].rd)
		return e->p[k].rd > e->p[l].rd;
	return k < l;
}

static void
ecl_pick(struct ecl *e, uint32_t k)
{
	e->used[e->p[k].ia] = e->used[e->p[k].ib] = 1;
	e->pk[e->npk++] = k;
}

/* The pairs of c bytes or more in GPU order, by rows: each GPU's first. */
static void
serve_rows(struct ecl *e, uint64_t c, size_t full)
{
	uint32_t v, k;

	for (v = 0; v < e->nv && e->npk < full; v++) {
		if (e->used[v])
			continue;
		for (k = e->row[v]; k < e->row[v + 1]; k++)
			if (e->p[k].rd >= c && !e->used[e->p[k].ib]) {
				ecl_pick(e, k);
				break;
			}
	}
}

/*
 * The same when they are few: byw's first j, marked in a bitmap of the
 * pairs and taken from it in GPU order.
 */
static void
serve_few(struct ecl *e, size_t j, size_t full)
{
	size_t i, w, nw = (e->np + 63) / 64;
	uint64_t m;
	uint32_t k;

	for (i = 0; i < j; i++)
		e->bits[e->byw[i] / 64] |= (uint64_t)1 << (e->byw[i] % 64);
	for (w = 0; w < nw && e->npk < full; w++)
		for (m = e->bits[w]; m != 0 && e->npk < full; m &= m - 1) {
			k = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(m));
			if (!e->used[e->p[k].ia] && !e->used[e->p[k].ib])
				ecl_pick(e, k);
		}
	for (i = 0; i < j; i++)
		e->bits[e->byw[i] / 64] = 0;
}

/*
 * The greedy matching for a configuration that carries c bytes a pair:
 * by the bytes it would serve, min(c, rd), most first, ties by GPU ids.
 * Those of c bytes or more come first, in GPU order, then the others by
 * byw.  A matching of live / 2 pairs can take no more.  Returns the
 * bytes served; the picks are in pk.
 */
static unsigned __int128
serve(struct ecl *e, uint64_t c)
{
	unsigned __int128 sum;
	size_t full = e->live / 2, lo = 0, hi = e->np, mid, i;
	uint32_t k;

	while (lo < hi) {	/* byw's first lo pairs hold c bytes or more */
		mid = lo + (hi - lo) / 2;
		if (e->p[e->byw[mid]].rd >= c)
			lo = mid + 1;
		else
			hi = mid;
	}
	e->npk = 0;
	if (lo > 0 && lo < e->np / 64)
		serve_few(e, lo, full);
	else if (lo > 0)
		serve_rows(e, c, full);
	sum = (unsigned __int128)c * e->npk;
	for (i = lo; i < e->np && e->npk < full; i++) {
		if (e->used[e->bg[2 * i]] || e->used[e->bg[2 * i + 1]])
			continue;
		k = e->byw[i];
		ecl_pick(e, k);
		sum += e->p[k].rd;
	}
	for (i = 0; i < e->npk; i++)
		e->used[e->p[e->pk[i]].ia] = e->used[e->p[e->pk[i]].ib] = 0;
	return sum;
}

/*
 * The configuration time a that serves the most bytes per a + tau, over
 * the times of the distinct entries left (ECL_TRIES of them at most);
 * on a tie the longer.
 */
static uint64_t
best_time(struct ecl *e, const struct net *n)
{
	unsigned __int128 s, bs = 0, tau = n->reconfig_ps;
	uint64_t a, ba = 0, rd;
	size_t nd = 0, tries, i, k;

	for (k = e->np; k-- > 0; ) {	/* fewest bytes first */
		rd = e->p[e->byw[k]].rd;
		if (nd == 0 || rd != e->rds[nd - 1])
			e->rds[nd++] = rd;
	}
	tries = nd < ECL_TRIES ? nd : ECL_TRIES;
	for (i = 0; i < tries; i++) {
		rd = tries == nd ? e->rds[i] :
		    e->rds[i * (nd - 1) / (tries - 1)];
		if ((a = tm_ps_for(rd, n->bandwidth_bps)) == ba)
			continue;
		s = serve(e, bytes_in(a, n->bandwidth_bps));
		if (ba == 0 || cmp_products(s, ba + tau, bs, a + tau) >= 0) {
			bs = s;
			ba = a;
		}
	}
	return ba;
}

/* byw's GPUs, in bg. */
static void
ecl_order(struct ecl *e)
{
	size_t i;

	for (i = 0; i < e->np; i++) {
		e->bg[2 * i] = e->p[e->byw[i]].ia;
		e->bg[2 * i + 1] = e->p[e->byw[i]].ib;
	}
}

/* Where each GPU's row starts, and the GPUs with a pair left. */
static void
ecl_rows(struct ecl *e)
{
	size_t k, v;

	memset(e->row, 0, (e->nv + 1) * sizeof(*e->row));
	for (k = 0; k < e->np; k++) {
		e->row[e->p[k].ia + 1]++;
		e->used[e->p[k].ia] = e->used[e->p[k].ib] = 1;
	}
	for (v = e->live = 0; v < e->nv; v++) {
		e->row[v + 1] += e->row[v];
		e->live += e->used[v];
		e->used[v] = 0;
	}
}

/*
 * Drop the pairs done.  The picked pairs left all lost the same bytes,
 * so they keep their order among themselves, and the others theirs:
 * byw is the merge of the two.
 */
static void
ecl_shrink(struct ecl *e)
{
	size_t i, k, na = 0, nb = 0, ia = 0, ib = 0;
	uint32_t *a = e->tmp, *b = e->pk, *map = e->map;

	for (i = 0; i < e->np; i++) {
		k = e->byw[i];
		if (e->p[k].rd == 0)
			continue;
		if (e->p[k].pick)
			b[nb++] = (uint32_t)k;
		else
			a[na++] = (uint32_t)k;
	}
	for (i = k = 0; i < e->np; i++) {
		map[i] = (uint32_t)k;
		if (e->p[i].rd > 0) {
			e->p[k] = e->p[i];
			e->p[k++].pick = 0;
		}
	}
	e->np = k;
	for (i = 0; i < na; i++)
		a[i] = map[a[i]];
	for (i = 0; i < nb; i++)
		b[i] = map[b[i]];
	for (i = 0; ia < na || ib < nb; i++)
		e->byw[i] = ib == nb || (ia < na &&
		    ecl_before(e, a[ia], b[ib])) ? a[ia++] : b[ib++];
	ecl_order(e);
	ecl_rows(e);
}

/*
 * One step: the best configuration, stretched to finish at least one of
 * its pairs if it would finish none (so that there are at most as many
 * steps as pairs), then served, its circuits in GPU order.
 */
static void
ecl_step(struct ecl *e, const struct net *n, struct tm_plan *pl)
{
	uint64_t a, c, least = UINT64_MAX, t;
	size_t i;
	int done = 0;

	a = best_time(e, n);
	c = bytes_in(a, n->bandwidth_bps);
	serve(e, c);
	for (i = 0; i < e->npk; i++) {
		if (e->p[e->pk[i]].rd <= c)
			done = 1;
		else if ((t = tm_ps_for(e->p[e->pk[i]].rd,
		    n->bandwidth_bps)) < least)
			least = t;
	}
	if (!done) {
		a = least;
		c = bytes_in(a, n->bandwidth_bps);
	}
	tm_config(pl, a);
	qsort(e->pk, e->npk, sizeof(*e->pk), cmp_u32);
	for (i = 0; i < e->npk; i++) {
		struct pr *q = &e->p[e->pk[i]];

		tm_circuit(pl, q->a, q->b);
		q->rd -= q->rd < c ? q->rd : c;
		q->pick = 1;
	}
	ecl_shrink(e);
}

struct byrd {
	uint64_t	rd;
	uint32_t	k;
};

static int
cmp_byrd(const void *x, const void *y)
{
	const struct byrd *p = x, *q = y;

	if (p->rd != q->rd)
		return p->rd > q->rd ? -1 : 1;
	return p->k < q->k ? -1 : p->k > q->k;
}

static void
ecl_init(struct ecl *e, struct pr *p, size_t np, size_t nv)
{
	struct byrd *o;
	size_t i;

	if (np > UINT32_MAX - 1)
		die("stdin: %zu pairs of GPUs with traffic; Eclipse takes "
		    "at most 2^32 - 2", np);
	*e = (struct ecl){ .p = p, .np = np, .nv = nv };
	e->byw = xreallocarray(NULL, np ? np : 1, sizeof(*e->byw));
	e->bg = xreallocarray(NULL, np ? np : 1, 2 * sizeof(*e->bg));
	e->tmp = xreallocarray(NULL, np ? np : 1, sizeof(*e->tmp));
	e->pk = xreallocarray(NULL, np ? np : 1, sizeof(*e->pk));
	e->map = xreallocarray(NULL, np ? np : 1, sizeof(*e->map));
	e->rds = xreallocarray(NULL, np ? np : 1, sizeof(*e->rds));
	e->bits = xcalloc(np / 64 + 1, sizeof(*e->bits));
	e->row = xreallocarray(NULL, nv + 1, sizeof(*e->row));
	e->used = xcalloc(nv ? nv : 1, 1);
	o = xreallocarray(NULL, np ? np : 1, sizeof(*o));
	for (i = 0; i < np; i++)
		o[i] = (struct byrd){ p[i].rd, (uint32_t)i };
	qsort(o, np, sizeof(*o), cmp_byrd);
	for (i = 0; i < np; i++)
		e->byw[i] = o[i].k;
	free(o);
	ecl_order(e);
	ecl_rows(e);
}

static void
ecl_free(struct ecl *e)
{
	free(e->byw);
	free(e->bg);
	free(e->tmp);
	free(e->pk);
	free(e->map);
	free(e->rds);
	free(e->bits);
	free(e->row);
	free(e->used);
}

void
eclipse(struct schedule *sc, const struct dagin *in, double deadline)
{
	struct tm_plan pl = { 0 };
	struct tm_edge *zero;
	struct ecl e;
	struct pr *p;
	uint32_t *ids;
	size_t np, nv, nz;

	np = gather(&in->dag, in->net.bandwidth_bps, &p, &ids, &nv, &zero,
	    &nz);
	ecl_init(&e, p, np, nv);
	while (e.np > 0 && !tm_late(deadline))
		ecl_step(&e, &in->net, &pl);
	if (e.np > 0) {
		warnmsg("-T: the time limit cut Eclipse after %zu "
		    "configurations; the %zu pairs left go in maximal "
		    "matchings, heaviest first", pl.ncf, e.np);
		rest(e.p, e.np, &in->net, &pl);
	}
	ecl_free(&e);
	tm_empty_pairs(&pl, zero, nz, in->net.gpus);
	free(zero);
	free(ids);
	free(p);
	tm_deal(sc, &in->net, &pl);
}
