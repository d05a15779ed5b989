/*
 * Unit tests of lib/model/coll: transfer counts, sizes, bytes conserved and
 * dependencies for every collective and algorithm.
 */
#include <stdint.h>
#include <string.h>

#include "model/coll.h"
#include "tap.h"

static uint64_t
total(const struct coll_plan *p)
{
	uint64_t b = 0;
	size_t i;

	for (i = 0; i < p->n; i++)
		b += p->x[i].bytes;
	return b;
}

static int
all_bytes(const struct coll_plan *p, uint64_t want)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->x[i].bytes != want)
			return 0;
	return 1;
}

/* Every dependency is an earlier transfer that arrives at our source. */
static int
deps_ok(const struct coll_plan *p)
{
	size_t i, j;

	for (i = 0; i < p->n; i++)
		for (j = 0; j < p->x[i].ndep; j++) {
			uint32_t d = p->dep[p->x[i].dep_off + j];

			if (d >= i || p->x[d].dst != p->x[i].src)
				return 0;
		}
	return 1;
}

static size_t
finals(const struct coll_plan *p, uint32_t rank)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		n += p->x[i].final && p->x[i].dst == rank;
	return n;
}

static void
ring_allreduce(void)
{
	struct coll_plan p;
	const uint64_t S = 33554432ULL;

	coll_init(&p);
	ok(coll_expand(&p, COLL_ALLREDUCE, COLL_RING, 4, S, 0) == 0,
	    "ring all-reduce over 4 expands");
	ok(p.n == 24, "ring all-reduce over 4 ranks is 24 transfers (%zu)",
	    p.n);
	ok(all_bytes(&p, S / 4), "each carries S/4");
	ok(p.x[p.n - 1].step == 5, "in 2(N-1) = 6 steps");
	ok(deps_ok(&p), "each step waits for a receive at its source");
	ok(p.x[0].ndep == 0 && p.x[4].ndep == 1 && p.dep[p.x[4].dep_off] ==
	    3, "rank 0's step 1 waits for rank 3's step 0 send");
	ok(finals(&p, 2) == 1, "one final receive per rank");
	coll_free(&p);

	ok(coll_expand(&p, COLL_ALLREDUCE, COLL_RING, 2, 1000, 0) == 0 &&
	    p.n == 4 && all_bytes(&p, 500), "N=2: two steps of S/2 each way");
	coll_free(&p);
	ok(coll_expand(&p, COLL_ALLREDUCE, COLL_RING, 3, 10, 0) == 0 &&
	    total(&p) == 2 * 2 * 10, "uneven chunks: 2(N-1) x S bytes in "
	    "all (%llu)", (unsigned long long)total(&p));
	coll_free(&p);
	ok(coll_expand(&p, COLL_ALLREDUCE, COLL_RING, 1, 10, 0) == 0 && p.n == 0,
	    "a group of one moves nothing");
	coll_free(&p);
}

static void
other_kinds(void)
{
	struct coll_plan p;

	coll_init(&p);
	ok(coll_expand(&p, COLL_ALLGATHER, COLL_RING, 4, 4000, 0) == 0 &&
	    p.n == 12 && all_bytes(&p, 1000) && deps_ok(&p),
	    "ring all-gather: N(N-1) transfers of S/N");
	coll_free(&p);
	ok(coll_expand(&p, COLL_REDUCESCATTER, COLL_RING, 4, 4000, 0) == 0 &&
	    p.n == 12 && all_bytes(&p, 1000), "ring reduce-scatter: N(N-1) "
	    "transfers of S/N");
	coll_free(&p);
	ok(coll_expand(&p, COLL_ALLTOALL, COLL_RING, 4, 4000, 0) == 0 &&
	    p.n == 12 && all_bytes(&p, 1000) && finals(&p, 1) == 3,
	    "all-to-all is direct whatever the algorithm");
	coll_free(&p);
}

/*
 * Whether every position ends with every other position's data (n <=
 * 64), as an all-reduce must: a transfer carries its source's own data
 * and what its source received up to the last transfer it waits for
 * (a rank's receives are in the plan's order); a rank ends with what
 * its final receives carry.
 */
static int
reaches_all(const struct coll_plan *p, uint32_t n)
{
	uint64_t knows[1024], all = n == 64 ? UINT64_MAX : (1ULL << n) - 1;
	size_t i, j, last;
	uint32_t r;

	if (p->n > 1024)
		return 0;
	for (i = 0; i < p->n; i++) {
		knows[i] = 1ULL << p->x[i].src;
		if (p->x[i].ndep == 0)
			continue;
		last = 0;
		for (j = 0; j < p->x[i].ndep; j++)
			if (p->dep[p->x[i].dep_off + j] > last)
				last = p->dep[p->x[i].dep_off + j];
		for (j = 0; j <= last; j++)
			if (p->x[j].dst == p->x[i].src)
				knows[i] |= knows[j];
	}
	for (r = 0; r < n; r++) {
		uint64_t k = 1ULL << r;

		for (i = 0; i < p->n; i++)
			if (p->x[i].final && p->x[i].dst == r)
				k |= knows[i];
		if (k != all)
			return 0;
	}
	return 1;
}

/* An all-reduce off a power of two, worked by hand on 6; others refused. */
static void
hd_remainder(void)
{
	struct coll_plan p;
	uint32_t n;
	int reach = 1, conserve = 1, single = 1;

	coll_init(&p);
	ok(coll_expand(&p, COLL_ALLREDUCE, COLL_HD, 6, 600, 0) == 0 &&
	    p.n == 20 && total(&p) == 6000, "hd all-reduce on 6 = 4 + 2: "
	    "2 x 600 in, 4 ranks x (300 + 150 + 150 + 300), 2 x 600 out");
	ok(p.x[0].src == 1 && p.x[0].dst == 0 && p.x[1].src == 3 &&
	    p.x[1].dst == 2 && p.x[0].bytes == 600 && p.x[0].step == 0,
	    "first 1 -> 0 and 3 -> 2, whole buffers, step 0");
	ok(p.x[2].src == 0 && p.x[2].dst == 2 && p.x[2].bytes == 300 &&
	    p.x[2].ndep == 1 && p.dep[p.x[2].dep_off] == 0 &&
	    p.x[4].src == 4 && p.x[4].dst == 5 && p.x[4].ndep == 0,
	    "then the virtual ranks 0 2 4 5: 0 <-> 2 after 1 -> 0, 4 <-> 5 "
	    "at once");
	ok(p.x[18].src == 0 && p.x[18].dst == 1 && p.x[18].bytes == 600 &&
	    p.x[18].step == 5 && p.x[19].src == 2 && p.x[19].dst == 3 &&
	    p.x[18].ndep == 1 && p.x[p.dep[p.x[18].dep_off]].src == 2,
	    "last 0 -> 1 and 2 -> 3 at step 5, 0's after what 2 sent it");
	ok(deps_ok(&p) && reaches_all(&p, 6), "each waits for a receive at "
	    "its source; every rank's result has every rank's data");
	coll_free(&p);
	for (n = 2; n <= 40; n++) {
		uint32_t m = 1, r, i;

		while (2 * m <= n)
			m *= 2;
		r = n - m;
		if (coll_expand(&p, COLL_ALLREDUCE, COLL_HD, n, 1000003, 0) != 0)
			reach = 0;
		reach &= deps_ok(&p) && reaches_all(&p, n);
		/* 2r whole buffers, and each virtual rank 2(m-1)/m of it */
		conserve &= total(&p) == 2ULL * r * 1000003 +
		    2ULL * (m - 1) * 1000003;
		for (i = 0; i < n; i++)
			single &= finals(&p, i) == 1;
		coll_free(&p);
	}
	ok(reach && single, "2 to 40 ranks: valid waits, every result whole, "
	    "one final receive a rank");
	ok(conserve, "and the bytes: 2r S in and out, 2(m-1)/m S a virtual "
	    "rank");
	ok(coll_expand(&p, COLL_ALLGATHER, COLL_HD, 6, 600, 0) == -2 &&
	    coll_expand(&p, COLL_REDUCESCATTER, COLL_HD, 6, 600, 0) == -2 &&
	    p.n == 0, "all-gather and reduce-scatter still refuse 6 ranks");
	coll_free(&p);
}

static void
halving_doubling(void)
{
	struct coll_plan p;
	size_t i;
	int sizes = 1, partners = 1;
	const uint64_t want[] = { 4000, 2000, 1000, 1000, 2000, 4000 };

	coll_init(&p);
	ok(coll_expand(&p, COLL_ALLREDUCE, COLL_HD, 8, 8000, 0) == 0,
	    "halving-doubling over 8 expands");
	ok(p.n == 6 * 8, "2 log2 N = 6 steps of N transfers (%zu)", p.n);
	for (i = 0; i < p.n; i++) {
		uint32_t step = p.x[i].step, bit;

		bit = step < 3 ? step : 5 - step;
		sizes &= p.x[i].bytes == want[step];
		partners &= p.x[i].dst == (p.x[i].src ^ (1U << bit));
	}
	ok(sizes, "messages S/2, S/4, S/8, then back up");
	ok(partners, "partners r^1, r^2, r^4, then r^4, r^2, r^1");
	ok(deps_ok(&p), "each step waits for the previous receive");
	coll_free(&p);
	hd_remainder();
	ok(coll_expand(&p, COLL_ALLGATHER, COLL_HD, 4, 400, 0) == 0 &&
	    p.n == 8 && total(&p) == 4 * 300, "hd all-gather: each rank "
	    "receives S - S/N");
	coll_free(&p);
}

static void
direct(void)
{
	struct coll_plan p;

	coll_init(&p);
	ok(coll_expand(&p, COLL_ALLREDUCE, COLL_DIRECT, 4, 4000, 0) == 0 &&
	    p.n == 24 && all_bytes(&p, 1000), "direct all-reduce: 2 N(N-1) "
	    "transfers of S/N");
	ok(deps_ok(&p) && p.x[12].ndep == 3, "the all-gather half waits for "
	    "all N-1 receives");
	ok(finals(&p, 0) == 3, "N-1 final receives per rank");
	coll_free(&p);
}

/*
 * A broadcast plan: every dependency an earlier transfer that arrives
 * at our source or leaves it; every rank but the root receives all
 * size bytes; the root's final sends and each receiver's final
 * receives number as given.
 */
static int
bcast_ok(const struct coll_plan *p, uint32_t n, uint64_t size,
    uint32_t root, size_t rootfin)
{
	uint64_t got;
	size_t i, j, fin;
	uint32_t q;

	for (i = 0; i < p->n; i++)
		for (j = 0; j < p->x[i].ndep; j++) {
			uint32_t d = p->dep[p->x[i].dep_off + j];

			if (d >= i || (p->x[d].dst != p->x[i].src &&
			    p->x[d].src != p->x[i].src))
				return 0;
		}
	for (q = 0; q < n; q++) {
		got = 0;
		fin = 0;
		for (i = 0; i < p->n; i++) {
			if (p->x[i].dst == q)
				got += p->x[i].bytes;
			if (p->x[i].final & (q == root ? COLL_FINAL_SRC :
			    COLL_FINAL_DST) && (q == root ? p->x[i].src :
			    p->x[i].dst) == q)
				fin++;
		}
		if (got != (q == root ? 0 : size) ||
		    fin != (q == root ? rootfin : 1))
			return 0;
	}
	return 1;
}

static void
broadcast(void)
{
	struct coll_plan p;

	coll_init(&p);
	ok(coll_expand(&p, COLL_BROADCAST, COLL_RING, 5, 12, 2) == 0 &&
	    p.n == 20 && total(&p) == 48 && bcast_ok(&p, 5, 12, 2, 1) &&
	    p.x[p.n - 1].step == 7, "ring broadcast on 5 from 2: 5 chunks "
	    "over 4 hops in 8 steps, one final each");
	coll_free(&p);
	ok(coll_expand(&p, COLL_BROADCAST, COLL_HD, 8, 100, 6) == 0 &&
	    p.n == 7 && all_bytes(&p, 100) && bcast_ok(&p, 8, 100, 6, 1) &&
	    p.x[p.n - 1].step == 2, "binomial broadcast on 8 from 6: 7 "
	    "transfers of S in 3 steps");
	coll_free(&p);
	ok(coll_expand(&p, COLL_BROADCAST, COLL_DIRECT, 4, 9, 3) == 0 &&
	    p.n == 3 && bcast_ok(&p, 4, 9, 3, 3), "direct broadcast: the "
	    "root sends S to the N-1 others, all final");
	coll_free(&p);
	ok(coll_expand(&p, COLL_BROADCAST, COLL_HD, 6, 10, 0) == -2 &&
	    coll_expand(&p, COLL_BROADCAST, COLL_RING, 4, 10, 4) == -3 &&
	    p.n == 0, "a broadcast refuses hd on 6 and a root past the "
	    "group");
	coll_free(&p);
}

/* Field by field: the structs' padding is not written. */
static int
same_plan(const struct coll_plan *p, const struct coll_plan *q)
{
	size_t i;

	if (p->n != q->n || p->ndep != q->ndep)
		return 0;
	for (i = 0; i < p->n; i++)
		if (p->x[i].src != q->x[i].src || p->x[i].dst != q->x[i].dst ||
		    p->x[i].bytes != q->x[i].bytes ||
		    p->x[i].step != q->x[i].step ||
		    p->x[i].final != q->x[i].final ||
		    p->x[i].ndep != q->x[i].ndep)
			return 0;
	return 1;
}

/*
 * An all-to-all of unequal sizes over 4: position 3 receives nothing,
 * so its sends are final; position 2 sends nothing.
 */
static void
alltoallv(void)
{
	static const uint64_t r0[] = { 9, 5, 0, 0 }, r1[] = { 7, 0, 3, 0 },
	    r2[] = { 0, 0, 4, 0 }, r3[] = { 1, 0, 2, 0 }, u[] = { 5, 5, 5 };
	const uint64_t *rows[] = { r0, r1, r2, r3 }, *urows[] = { u, u, u };
	static const uint32_t want[][4] = {
		{ 0, 1, 5, COLL_FINAL_DST }, { 1, 0, 7, COLL_FINAL_DST },
		{ 1, 2, 3, COLL_FINAL_DST },
		{ 3, 0, 1, COLL_FINAL_DST | COLL_FINAL_SRC },
		{ 3, 2, 2, COLL_FINAL_DST | COLL_FINAL_SRC } };
	struct coll_plan p, q;
	size_t i;
	int rc, same = 1;

	coll_init(&p);
	coll_init(&q);
	rc = coll_alltoallv(&p, 4, rows);
	ok(rc == 0 && p.n == 5, "alltoallv over 4: 5 nonzero pairs, 5 "
	    "transfers (%zu)", p.n);
	for (i = 0; i < p.n && i < 5; i++)
		same &= p.x[i].src == want[i][0] && p.x[i].dst == want[i][1] &&
		    p.x[i].bytes == want[i][2] && p.x[i].final ==
		    (int)want[i][3] && p.x[i].step == 0 && p.x[i].ndep == 0;
	ok(same, "each pair's bytes, in row order, the sends of the rank "
	    "that receives nothing final");
	coll_free(&p);
	ok(coll_alltoallv(&p, 3, urows) == 0 && coll_expand(&q,
	    COLL_ALLTOALL, COLL_RING, 3, 15, 0) == 0 && p.n == q.n &&
	    p.n == 6 && same_plan(&p, &q),
	    "rows of size/n give the plain all-to-all's plan");
	coll_free(&p);
	coll_free(&q);
	ok(coll_alltoallv(&p, 1, rows) == 0 && p.n == 0,
	    "alltoallv over 1 moves nothing");
	coll_free(&p);
}

int
main(void)
{
	ring_allreduce();
	other_kinds();
	halving_doubling();
	direct();
	alltoallv();
	broadcast();
	ok(coll_chunk(10, 3, 0) == 4 && coll_chunk(10, 3, 2) == 3,
	    "chunks of 10 over 3: 4, 3, 3");
	return tap_done();
}
