/*
 * Unit tests of lib/solve/lbound: the ports' bound on hand-worked DAGs, and
 * never above the optimum (the search of lib/solve/wsearch on the whole DAG,
 * itself held to the MILP in test_wsearch) on random small DAGs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/fmodel.h"
#include "solve/greedy.h"
#include "solve/lbound.h"
#include "tap.h"
#include "solve/wsearch.h"

/* 8e12 bit/s: a transfer of b bytes takes b ps. */
static struct net
mknet(uint32_t gpus, uint32_t sw, uint64_t tau)
{
	struct net n = { gpus, sw, 8000000000000ULL, tau, 0, NET_PORT };

	return n;
}

static void
task(struct dag *d, int kind, uint32_t a, uint32_t b, uint64_t amount,
    const uint32_t *deps, size_t nd)
{
	struct dag_task t = { amount, 0, a, b, 0, 0, (uint8_t)kind };

	if (dag_add(d, &t, deps, nd) != 0)
		abort();
}

static uint64_t
bound(const struct dag *d, const struct net *n)
{
	uint64_t *head, *bl, b = 0;

	if (greedy_levels(d, n, &head, &bl) != 0 ||
	    lbound_ports(d, n, head, bl, &b) != 0)
		abort();
	free(head);
	free(bl);
	return b;
}

static void
hand(void)
{
	struct dag d;
	struct net n = mknet(4, 2, 50);
	uint32_t c = 0;

	/* three partners on two ports: one change, (300 + 50) / 2 */
	dag_init(&d);
	task(&d, DAG_TRANSFER, 0, 1, 100, NULL, 0);
	task(&d, DAG_TRANSFER, 0, 2, 100, NULL, 0);
	task(&d, DAG_TRANSFER, 0, 3, 100, NULL, 0);
	ok(bound(&d, &n) == 175, "three partners of GPU 0 on two ports: "
	    "175 (%llu)", (unsigned long long)bound(&d, &n));
	dag_free(&d);
	/* both ways to one partner: a duplex circuit, the larger way */
	dag_init(&d);
	task(&d, DAG_TRANSFER, 0, 1, 100, NULL, 0);
	task(&d, DAG_TRANSFER, 1, 0, 60, NULL, 0);
	task(&d, DAG_TRANSFER, 0, 1, 80, NULL, 0);
	n = mknet(2, 1, 50);
	ok(bound(&d, &n) == 180, "sends of 180 and receives of 60 over one "
	    "circuit: 180 (%llu)", (unsigned long long)bound(&d, &n));
	dag_free(&d);
	/* a tail after T: the compute releases the later transfers */
	dag_init(&d);
	task(&d, DAG_COMPUTE, 0, 0, 1000, NULL, 0);
	task(&d, DAG_TRANSFER, 0, 1, 100, &c, 1);
	task(&d, DAG_TRANSFER, 0, 2, 100, &c, 1);
	n = mknet(3, 1, 50);
	ok(bound(&d, &n) == 1250, "after a compute of 1000, two partners on "
	    "one port: 1000 + 200 + 50 (%llu)",
	    (unsigned long long)bound(&d, &n));
	dag_free(&d);
}

static unsigned long rng = 7;

static unsigned
rnd(unsigned k)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng >> 33) % k);
}

static void
randoms(int count)
{
	int i, bad = 0, tight = 0;

	for (i = 0; i < count; i++) {
		struct wsearch_opts o = { 0, 0, 0, NULL, 0 };
		struct wsearch_result r;
		struct dag d;
		struct fprob p;
		struct net n = mknet(2 + rnd(3), 1 + rnd(2), rnd(4) * 40);
		uint32_t deps[8];
		unsigned t, nt = 3 + rnd(6), k, nd;
		uint64_t b;
		char err[200];

		dag_init(&d);
		for (t = 0; t < nt; t++) {
			unsigned a = rnd(n.gpus);

			for (k = nd = 0; k < t && nd < 8; k++)
				if (rnd(4) == 0)
					deps[nd++] = k;
			if (rnd(4) == 0)
				task(&d, DAG_COMPUTE, a, 0, 1 + rnd(300),
				    deps, nd);
			else
				task(&d, DAG_TRANSFER, a, (a + 1 +
				    rnd(n.gpus - 1)) % n.gpus, 1 + rnd(200),
				    deps, nd);
		}
		b = bound(&d, &n);
		if (fprob_whole(&d, &n, UINT64_MAX / 4, 0, &p) != 0 ||
		    wsearch_run(&p, &o, &r, err, sizeof(err)) != 0)
			abort();
		if (b > r.value)
			bad++;
		tight += b == r.value;
		wsearch_result_free(&r);
		fprob_free(&p);
		dag_free(&d);
	}
	ok(bad == 0, "%d random DAGs: the bound never above the optimum "
	    "(%d above; %d equal to it)", count, bad, tight);
}

int
main(void)
{
	hand();
	randoms(2000);
	return tap_done();
}
