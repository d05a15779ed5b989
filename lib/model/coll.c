/* coll: collectives as point-to-point transfers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/coll.h"
#include "records/mem.h"

const char *const coll_algos[] = { "ring", "hd", "direct", NULL };

void
coll_init(struct coll_plan *p)
{
	memset(p, 0, sizeof(*p));
}

void
coll_free(struct coll_plan *p)
{
	free(p->x);
	free(p->dep);
	coll_init(p);
}

/* Bytes of chunk c when size is cut into n chunks. */
uint64_t
coll_chunk(uint64_t size, uint32_t n, uint32_t c)
{
	return size / n + (c < size % n ? 1 : 0);
}

/* Append a transfer; returns its index or -1. */
static long
add(struct coll_plan *p, uint32_t src, uint32_t dst, uint64_t bytes,
    uint32_t step, const uint32_t *deps, uint32_t ndep)
{
	struct coll_xfer *x;

	if (mem_grow(&p->x, &p->cap, p->n + 1, sizeof(*p->x)) != 0 ||
	    mem_grow(&p->dep, &p->depcap, p->ndep + ndep,
	    sizeof(*p->dep)) != 0)
		return -1;
	x = &p->x[p->n];
	x->src = src;
	x->dst = dst;
	x->bytes = bytes;
	x->step = step;
	x->final = 0;
	x->dep_off = p->ndep;
	x->ndep = ndep;
	if (ndep > 0)
		memcpy(p->dep + p->ndep, deps, ndep * sizeof(*deps));
	p->ndep += ndep;
	return (long)p->n++;
}

/*
 * Ring: steps [0, nsteps); at step k rank r sends chunk
 * (r + first - k) mod n to r+1 and waits for what r-1 sent it at k-1.
 */
static int
ring(struct coll_plan *p, uint32_t n, uint64_t size, uint32_t rs,
    uint32_t ag)
{
	uint32_t k, r, c, dep, nsteps = rs + ag;
	long base = (long)p->n;

	for (k = 0; k < nsteps; k++)
		for (r = 0; r < n; r++) {
			if (k < rs)
				c = (r + n - k % n) % n;
			else
				c = (r + (rs ? 1 : 0) + n - (k - rs) % n) % n;
			dep = (uint32_t)(base + (long)(k - 1) * n +
			    (r + n - 1) % n);
			if (add(p, r, (r + 1) % n, coll_chunk(size, n, c), k,
			    &dep, k > 0) < 0)
				return -1;
		}
	for (r = 0; r < n && nsteps > 0; r++)
		p->x[p->n - n + r].final = COLL_FINAL_DST;
	return 0;
}

/* Bytes of the chunks q with q mod 2^m == x mod 2^m. */
static uint64_t
class_bytes(uint64_t size, uint32_t n, uint32_t x, unsigned m)
{
	uint32_t mask = (1U << m) - 1, q;
	uint64_t b = 0;

	for (q = x & mask; q < n; q += mask + 1)
		b += coll_chunk(size, n, q);
	return b;
}

/*
 * Halving-doubling over m = 2^L virtual ranks, r of them folded (below):
 * v is group position 2v for v < r, v + r from there.  Reduce-scatter
 * step k: partner v^(1<<k), send the chunks of the partner's class mod
 * 2^(k+1).  All-gather step j (bit b = L-1-j): partner v^(1<<b), send
 * our class mod 2^(b+1).  Each step waits for the previous step's
 * receive, which in the previous block of m transfers is the one sent
 * by the previous partner; the first step of a folded v waits for the
 * fold, transfer fold + v, and its steps are numbered from 1.
 */
static uint32_t
vpos(uint32_t v, uint32_t r)
{
	return v < r ? 2 * v : v + r;
}

static int
hd_core(struct coll_plan *p, unsigned L, uint32_t r, size_t fold,
    uint64_t size, int rs, int ag)
{
	uint32_t m = 1U << L, v, step0 = r > 0, step = step0, dep, peer;
	unsigned k, bit, pbit = 0;
	size_t pbase = 0;

	for (k = 0; k < (rs ? L : 0) + (ag ? L : 0); k++, step++) {
		int red = rs && k < L, wait;

		bit = red ? k : L - 1 - (rs ? k - L : k);
		for (v = 0; v < m; v++) {
			peer = v ^ (1U << bit);
			wait = step > step0 || v < r;
			dep = (uint32_t)(step > step0 ?
			    pbase + (v ^ (1U << pbit)) : fold + v);
			if (add(p, vpos(v, r), vpos(peer, r), class_bytes(size,
			    m, red ? peer : v, bit + 1), step, &dep, wait) < 0)
				return -1;
		}
		pbase = p->n - m;
		pbit = bit;
	}
	return 0;
}

/*
 * Halving-doubling on n positions.  A power of two: every position a
 * virtual rank.  Otherwise, for an all-reduce only (rs and ag), n =
 * 2^L + r: first each odd position 2i+1 below 2r sends its whole
 * buffer to 2i (step 0, the fold); the 2^L virtual ranks all-reduce by
 * halving-doubling; then 2i sends the result back to 2i+1 (the last
 * step), after its last receive, from its last partner 2i^1.
 * Returns -2 for any other kind off a power of two.
 */
static int
hd(struct coll_plan *p, uint32_t n, uint64_t size, int rs, int ag)
{
	unsigned L = 0;
	uint32_t r, v, dep;
	size_t fold = p->n, last;

	while (L < 31 && (2U << L) <= n)
		L++;
	r = n - (1U << L);
	if (r > 0 && !(rs && ag))
		return -2;
	for (v = 0; v < r; v++)
		if (add(p, 2 * v + 1, 2 * v, size, 0, NULL, 0) < 0)
			return -1;
	if (hd_core(p, L, r, fold, size, rs, ag) != 0)
		return -1;
	last = p->n - (1U << L);
	for (v = 0; v < r; v++) {
		dep = (uint32_t)(last + (v ^ 1U));
		if (add(p, 2 * v, 2 * v + 1, size, 2 * L + 1, &dep, 1) < 0)
			return -1;
	}
	return 0;
}

static int
direct(struct coll_plan *p, uint32_t n, uint64_t size, int kind)
{
	uint32_t r, q, *deps = NULL, nd = 0;
	size_t phase0 = p->n;
	int two = kind == COLL_ALLREDUCE;

	for (r = 0; r < n; r++)
		for (q = 0; q < n; q++) {
			if (q == r)
				continue;
			if (add(p, r, q, coll_chunk(size, n,
			    kind == COLL_ALLGATHER ? r : q), 0, NULL, 0) < 0)
				return -1;
		}
	if (!two) {
		for (r = (uint32_t)phase0; r < p->n; r++)
			p->x[r].final = COLL_FINAL_DST;
		return 0;
	}
	if (n > 1 && (deps = calloc(n - 1, sizeof(*deps))) == NULL)
		return -1;
	for (r = 0; r < n; r++) {
		nd = 0;
		for (q = 0; q < n; q++)
			if (q != r)
				deps[nd++] = (uint32_t)(phase0 + (size_t)q *
				    (n - 1) + (r < q ? r : r - 1));
		for (q = 0; q < n; q++) {
			long idx;

			if (q == r)
				continue;
			if ((idx = add(p, r, q, coll_chunk(size, n, r), 1,
			    deps, nd)) < 0) {
				free(deps);
				return -1;
			}
			p->x[idx].final = COLL_FINAL_DST;
		}
	}
	free(deps);
	return 0;
}

/*
 * Broadcast as a pipeline: chunk c goes from position root+d to
 * root+d+1 (mod n) at step c+d, after its receive (chunk c, hop d-1)
 * and after the sender's previous send (chunk c-1, hop d), both in the
 * previous step's block: a rank sends one chunk a step, in order, as
 * in the other rings.  The last chunk's receive thus follows all the
 * receiver's others, and the root's last send all its sends: those are
 * the final ones.
 */
static int
bcast_ring(struct coll_plan *p, uint32_t n, uint64_t size, uint32_t root)
{
	uint32_t k, d, lo, hi, plo = 0, dep[2], nd;
	size_t pbase = 0, base;
	long idx;

	for (k = 0; k + 2 < 2 * n; k++) {
		lo = k >= n ? k - n + 1 : 0;
		hi = k < n - 2 ? k : n - 2;
		base = p->n;
		for (d = lo; d <= hi; d++) {
			nd = 0;
			if (d > 0)
				dep[nd++] = (uint32_t)(pbase + (d - 1 - plo));
			if (k > d)
				dep[nd++] = (uint32_t)(pbase + (d - plo));
			if ((idx = add(p, (root + d) % n, (root + d + 1) % n,
			    coll_chunk(size, n, k - d), k, dep, nd)) < 0)
				return -1;
			if (k - d == n - 1)
				p->x[idx].final = COLL_FINAL_DST |
				    (d == 0 ? COLL_FINAL_SRC : 0);
		}
		pbase = base;
		plo = lo;
	}
	return 0;
}

/*
 * Broadcast as a binomial tree (n a power of two): at step k relative
 * position v = p^root, v < 2^k, sends all of it to v + 2^k, after its
 * previous transfer: its receive at step k-1 (v >= 2^(k-1)) or its own
 * send then.  Step k's block starts at 2^k - 1 and lists its senders
 * by v, so both are number 2^(k-1) - 1 + v mod 2^(k-1).  Every
 * receive is final, and so is the root's last send.
 */
static int
bcast_tree(struct coll_plan *p, uint32_t n, uint64_t size, uint32_t root)
{
	uint32_t k, v, h, dep;
	size_t base = p->n;
	long idx;

	if ((n & (n - 1)) != 0)
		return -2;
	for (k = 0; (1U << k) < n; k++)
		for (v = 0; v < (1U << k); v++) {
			h = k > 0 ? 1U << (k - 1) : 0;
			dep = k > 0 ? (uint32_t)(base + h - 1 + v % h) : 0;
			if ((idx = add(p, v ^ root, (v | 1U << k) ^ root, size,
			    k, &dep, k > 0)) < 0)
				return -1;
			p->x[idx].final = COLL_FINAL_DST |
			    (v == 0 && 2U << k == n ? COLL_FINAL_SRC : 0);
		}
	return 0;
}

/* Broadcast, direct: the root sends all of it to every other rank. */
static int
bcast_direct(struct coll_plan *p, uint32_t n, uint64_t size, uint32_t root)
{
	uint32_t q;
	long idx;

	for (q = 0; q < n; q++) {
		if (q == root)
			continue;
		if ((idx = add(p, root, q, size, 0, NULL, 0)) < 0)
			return -1;
		p->x[idx].final = COLL_FINAL_DST | COLL_FINAL_SRC;
	}
	return 0;
}

/*
 * An all-to-all of unequal sizes, as coll_expand()'s direct one but
 * without its empty pairs.  A position receives something when some
 * other row has a nonzero entry in its column; if none, its sends are
 * what the work after the collective on its rank waits for.
 */
int
coll_alltoallv(struct coll_plan *p, uint32_t n,
    const uint64_t *const *rows)
{
	uint32_t r, q;
	size_t i, first = p->n;
	unsigned char *recv;
	long idx;

	if (n < 2)
		return 0;
	if ((recv = calloc(n, 1)) == NULL)
		return -1;
	for (r = 0; r < n; r++)
		for (q = 0; q < n; q++) {
			if (q == r || rows[r][q] == 0)
				continue;
			if ((idx = add(p, r, q, rows[r][q], 0, NULL, 0)) < 0) {
				free(recv);
				return -1;
			}
			p->x[idx].final = COLL_FINAL_DST;
			recv[q] = 1;
		}
	for (i = first; i < p->n; i++)
		if (!recv[p->x[i].src])
			p->x[i].final |= COLL_FINAL_SRC;
	free(recv);
	return 0;
}

int
coll_expand(struct coll_plan *p, int kind, int algo, uint32_t n,
    uint64_t size, uint32_t root)
{
	size_t i;
	int rc;

	if (n < 2)
		return 0;
	if (kind == COLL_BROADCAST && root >= n)
		return -3;
	if (kind == COLL_BROADCAST)
		return algo == COLL_RING ? bcast_ring(p, n, size, root) :
		    algo == COLL_HD ? bcast_tree(p, n, size, root) :
		    bcast_direct(p, n, size, root);
	if (kind == COLL_ALLTOALL)
		algo = COLL_DIRECT;
	switch (algo) {
	case COLL_RING:
		if (kind == COLL_ALLREDUCE)
			return ring(p, n, size, n - 1, n - 1);
		if (kind == COLL_REDUCESCATTER)
			return ring(p, n, size, n - 1, 0);
		return ring(p, n, size, 0, n - 1);
	case COLL_HD:
		rc = hd(p, n, size, kind != COLL_ALLGATHER,
		    kind != COLL_REDUCESCATTER);
		if (rc != 0)
			return rc;
		for (i = p->n - n; i < p->n; i++)
			p->x[i].final = COLL_FINAL_DST;
		return 0;
	default:
		return direct(p, n, size, kind);
	}
}
