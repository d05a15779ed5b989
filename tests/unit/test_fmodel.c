/*
 * Unit tests of lib/solve/fmodel, lib/solve/place and lib/solve/wbound: the exact model's
 * size and optimum on DAGs small enough to reason about by hand, under
 * the port and the switch model, the placement of decisions in integer
 * time, and relaxed windows that bound the optimum from below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/fmodel.h"
#include "solve/greedy.h"
#include "solve/milp.h"
#include "solve/place.h"
#include "tap.h"
#include "solve/wbound.h"

/* 8e12 bit/s: a transfer of b bytes takes b ps. */
static struct net
mknet(uint32_t gpus, uint32_t sw, uint64_t tau)
{
	struct net n = { gpus, sw, 8000000000000ULL, tau, 0, NET_PORT };

	return n;
}

static void
xfer(struct dag *d, uint32_t src, uint32_t dst, uint64_t bytes,
    const uint32_t *deps, size_t nd)
{
	struct dag_task t = { bytes, 0, src, dst, 0, 0, DAG_TRANSFER };

	if (dag_add(d, &t, deps, nd) != 0)
		abort();
}

static void
comp(struct dag *d, uint32_t gpu, uint64_t ps, const uint32_t *deps,
    size_t nd)
{
	struct dag_task t = { ps, 0, gpu, 0, 0, 0, DAG_COMPUTE };

	if (dag_add(d, &t, deps, nd) != 0)
		abort();
}

/* Solve the exact model of d; the placed makespan, or 0. */
static uint64_t
exact(const struct dag *d, const struct net *n, const char *backend,
    size_t *nbin)
{
	struct milp_opts o = { backend, 10, NULL, NULL, 0, 1e-4 };
	struct milp_result r;
	struct greedy g, best;
	struct fprob p;
	struct fmodel f;
	uint32_t sw[64] = { 0 };
	double key[64] = { 0 };
	uint64_t ms = 0;
	char err[200];

	if (greedy_run(d, n, &g) != 0)
		return 0;
	if (fprob_whole(d, n, g.makespan, 0, &p) != 0 ||
	    fmodel_build(&p, &f) != 0)
		abort();
	*nbin = f.nbin;
	if (milp_solve(&f.m, &o, &r, err, sizeof(err)) == 0 &&
	    r.status == MILP_OPTIMAL) {
		fmodel_decode(&p, &f, r.x, sw, key);
		if (place_run(d, n, sw, key, &best) == 0) {
			ms = best.makespan;
			greedy_free(&best);
		}
	}
	milp_result_free(&r);
	fmodel_free(&f);
	fprob_free(&p);
	greedy_free(&g);
	return ms;
}

/* GPU 0 sends to 1 and to 2: on one switch tau between, on two none. */
static void
two_partners(void)
{
	struct dag d;
	struct net n1 = mknet(3, 1, 50), n2 = mknet(3, 2, 50);
	size_t nb;
	uint64_t v;

	dag_init(&d);
	xfer(&d, 0, 1, 100, NULL, 0);
	xfer(&d, 0, 2, 30, NULL, 0);
	v = exact(&d, &n1, "lpsolve", &nb);
	ok(v == 180 && nb == 1, "one switch: 100 + tau + 30 = 180 (%llu), "
	    "one order binary (%zu)", (unsigned long long)v, nb);
	v = exact(&d, &n2, "cbc", &nb);
	ok(v == 100 && nb == 5, "two switches: 100 side by side (%llu), "
	    "4 switch binaries and 1 order binary (%zu)",
	    (unsigned long long)v, nb);
	dag_free(&d);
}

/* Compute of 300 on GPU 0 before 0->2 hides the reconfiguration. */
static void
hidden(void)
{
	struct dag d;
	struct net n = mknet(3, 1, 50);
	uint32_t dep = 1;
	size_t nb;
	uint64_t v;

	dag_init(&d);
	xfer(&d, 0, 1, 100, NULL, 0);
	comp(&d, 0, 300, NULL, 0);
	xfer(&d, 0, 2, 40, &dep, 1);
	v = exact(&d, &n, "lpsolve", &nb);
	ok(v == 340, "reconfiguration behind compute: 300 + 40 = 340 (%llu)",
	    (unsigned long long)v);
	dag_free(&d);
}

/* The greedy's worst case: the optimum puts both 0->3 back to back. */
static void
beats_greedy(void)
{
	struct dag d;
	struct net n = mknet(4, 1, 50);
	struct greedy g;
	uint32_t dep = 0;
	size_t nb;
	uint64_t v;

	n.bandwidth_bps = 3000000000000ULL;
	dag_init(&d);
	xfer(&d, 0, 3, 25, NULL, 0);
	comp(&d, 2, 90, &dep, 1);
	xfer(&d, 0, 3, 60, NULL, 0);
	if (greedy_run(&d, &n, &g) != 0)
		abort();
	v = exact(&d, &n, "lpsolve", &nb);
	ok(g.makespan == 317 && v == 227, "exact 227 below the greedy's 317 "
	    "(%llu, %llu)", (unsigned long long)v,
	    (unsigned long long)g.makespan);
	greedy_free(&g);
	dag_free(&d);
}

/* Placement: switches and order given, times follow exactly. */
static void
placement(void)
{
	struct dag d;
	struct net n = mknet(3, 1, 50);
	struct greedy g;
	uint32_t sw[3] = { 0, 0, 0 };
	double key[3] = { 1, 0, 2 };	/* 0->2 first, then 0->1, 0->1 */
	int rc;

	dag_init(&d);
	xfer(&d, 0, 1, 100, NULL, 0);
	xfer(&d, 0, 2, 30, NULL, 0);
	xfer(&d, 0, 1, 10, NULL, 0);
	rc = place_run(&d, &n, sw, key, &g);
	ok(rc == 0 && g.start[1] == 0 && g.start[0] == 80 &&
	    g.start[2] == 180 && g.makespan == 190, "in key order: 0->2 at "
	    "0, 0->1 at 30 + tau, the second 0->1 right after it (%llu %llu "
	    "%llu)", (unsigned long long)g.start[1],
	    (unsigned long long)g.start[0], (unsigned long long)g.start[2]);
	ok(g.sc.nc == 2 && g.sc.c[1].from == 80 && g.sc.c[1].to == 190,
	    "two circuits; the second carries both 0->1 (%zu)", g.sc.nc);
	greedy_free(&g);
	dag_free(&d);
}

/* A window's optimum never exceeds the whole DAG's. */
static void
windows(void)
{
	struct dag d;
	struct net n = mknet(3, 1, 50);
	struct fprob p;
	struct fmodel f;
	struct milp_result r;
	struct milp_opts o = { "lpsolve", 10, NULL, NULL, 0, 1e-4 };
	uint64_t *head, *bl;
	uint8_t set[3] = { 1, 0, 0 };
	uint32_t dep = 1;
	char err[200];
	size_t nb;
	long k;

	dag_init(&d);
	xfer(&d, 0, 1, 100, NULL, 0);
	comp(&d, 0, 120, NULL, 0);
	xfer(&d, 0, 2, 40, &dep, 1);
	if (greedy_levels(&d, &n, &head, &bl) != 0)
		abort();
	k = wbound_window(&d, &n, head, bl, set, 2, 0, 1000, 0, &p);
	ok(k == 2 && p.t[1].rel == 120, "GPU 0's window keeps both "
	    "transfers, the second released at 120 (%ld)", k);
	if (fmodel_build(&p, &f) != 0 ||
	    milp_solve(&f.m, &o, &r, err, sizeof(err)) != 0)
		abort();
	ok(r.status == MILP_OPTIMAL && (uint64_t)(r.objective * 1000 + 0.5) ==
	    190 && exact(&d, &n, "lpsolve", &nb) == 190, "its optimum is the "
	    "DAG's, 100 + tau + 40 = 190 (%g ns)", r.objective);
	milp_result_free(&r);
	fmodel_free(&f);
	fprob_free(&p);
	free(head);
	free(bl);
	dag_free(&d);
}

/*
 * The switch (all-stop) model's optimum of d, in ps (0: none proved),
 * with the model's size.  The horizon is any makespan known to be
 * reachable: every task one after the other, tau between.
 */
static uint64_t
switch_exact(const struct dag *d, struct net *n, const char *backend,
    size_t *nbin, size_t *nrow)
{
	struct milp_opts o = { backend, 10, NULL, NULL, 0, 1e-4 };
	struct milp_result r;
	struct fprob p;
	struct fmodel f;
	uint64_t h = 1, v = 0;
	char err[200];
	size_t i;

	n->model = NET_SWITCH;
	for (i = 0; i < d->n; i++)
		h += greedy_length(d, n, i) + n->reconfig_ps;
	if (fprob_whole(d, n, h, 0, &p) != 0 || fmodel_build(&p, &f) != 0)
		abort();
	*nbin = f.nbin;
	*nrow = f.m.nrow;
	if (milp_solve(&f.m, &o, &r, err, sizeof(err)) == 0 &&
	    r.status == MILP_OPTIMAL)
		v = (uint64_t)(r.objective * 1000 + 0.5);
	milp_result_free(&r);
	fmodel_free(&f);
	fprob_free(&p);
	return v;
}

/*
 * The switch model on the cases of tests/switchmodel.bats worked by
 * hand, one switch, tau 50: its optimum by both backends, and its size.
 * A pair sharing exactly one GPU has an order binary only (none when
 * the arcs order it); any other pair a binary for one epoch too.
 */
static void
switch_model(void)
{
	struct dag d;
	struct net n = mknet(5, 1, 50);
	uint32_t dep = 0;
	size_t nb, nr, nb2, nr2;
	uint64_t v, v2;

	/* order: 0->1, 0->2 of 10 and 3->4 of 200: 3->4 in one epoch,
	 * the change after the other's uses: 260, not the port's 200 */
	dag_init(&d);
	xfer(&d, 0, 1, 10, NULL, 0);
	xfer(&d, 0, 2, 10, NULL, 0);
	xfer(&d, 3, 4, 200, NULL, 0);
	v = switch_exact(&d, &n, "lpsolve", &nb, &nr);
	v2 = switch_exact(&d, &n, "cbc", &nb2, &nr2);
	ok(v == 260 && v2 == 260, "switch model, order: 260 (lp_solve %llu, "
	    "CBC %llu)", (unsigned long long)v, (unsigned long long)v2);
	ok(nb == 5 && nr == 16 && nb2 == nb && nr2 == nr, "1 + 2 + 2 "
	    "binaries (%zu); 3 makespan, 3 epoch, 2 + 4 + 4 pair rows (%zu)",
	    nb, nr);
	dag_free(&d);

	/* dark: 0->1 of 100, then 0->2 of 30, beside 3->4 of 300: 380 */
	dag_init(&d);
	xfer(&d, 0, 1, 100, NULL, 0);
	xfer(&d, 0, 2, 30, &dep, 1);
	xfer(&d, 3, 4, 300, NULL, 0);
	v = switch_exact(&d, &n, "lpsolve", &nb, &nr);
	v2 = switch_exact(&d, &n, "cbc", &nb2, &nr2);
	ok(v == 380 && v2 == 380 && nb == 4, "switch model, dark: 380 "
	    "(%llu, %llu), the ordered pair without binaries (%zu)",
	    (unsigned long long)v, (unsigned long long)v2, nb);
	/* dark2: on two switches 3->4 goes alone: 300 */
	n.switches = 2;
	v = switch_exact(&d, &n, "cbc", &nb, &nr);
	ok(v == 300 && nb == 4 + 6, "dark on two switches: 300 (%llu), and "
	    "6 switch binaries (%zu)", (unsigned long long)v, nb);
	n.switches = 1;
	dag_free(&d);

	/* again: 0-1, 0-2, 0-1 in a chain: three epochs, 250 */
	dag_init(&d);
	xfer(&d, 0, 1, 100, NULL, 0);
	xfer(&d, 0, 2, 30, &dep, 1);
	dep = 1;
	xfer(&d, 0, 1, 20, &dep, 1);
	v = switch_exact(&d, &n, "lpsolve", &nb, &nr);
	ok(v == 250 && nb == 1, "switch model, again: 250 (%llu), one "
	    "binary: the two 0->1 in one epoch or not (%zu)",
	    (unsigned long long)v, nb);
	dag_free(&d);

	/* side: 0->1 of 100 beside 2->3 and 2->4 of 30: 180 */
	dag_init(&d);
	xfer(&d, 0, 1, 100, NULL, 0);
	xfer(&d, 2, 3, 30, NULL, 0);
	xfer(&d, 2, 4, 30, NULL, 0);
	v = switch_exact(&d, &n, "lpsolve", &nb, &nr);
	v2 = switch_exact(&d, &n, "cbc", &nb2, &nr2);
	ok(v == 180 && v2 == 180, "switch model, side: 180 (%llu, %llu)",
	    (unsigned long long)v, (unsigned long long)v2);
	dag_free(&d);
}

static int
always_late(void *arg)
{
	(void)arg;
	return 1;
}

/*
 * The capped build: four transfers out of GPU 0, one switch: six pairs
 * that share it, six order binaries.  It stops past the cap (1) or when
 * late (2), and with the cap at the model's size builds it whole (0).
 */
static void
capped(void)
{
	struct net n = mknet(5, 1, 10);
	struct fprob p;
	struct fmodel f;
	struct dag d;
	uint32_t k;
	size_t whole;
	int rc;

	dag_init(&d);
	for (k = 1; k <= 4; k++)
		xfer(&d, 0, k, 100 * k, NULL, 0);
	if (fprob_whole(&d, &n, 10000, 0, &p) != 0 ||
	    fmodel_build(&p, &f) != 0)
		abort();
	whole = f.nbin;
	fmodel_free(&f);
	ok(whole == 6, "capped: the whole model has 6 binaries (%zu)", whole);
	rc = fmodel_build_capped(&p, &f, whole, NULL, NULL);
	ok(rc == 0 && f.nbin == whole, "capped: at its size, built whole "
	    "(%d, %zu)", rc, f.nbin);
	fmodel_free(&f);
	rc = fmodel_build_capped(&p, &f, 2, NULL, NULL);
	ok(rc == 1 && f.nbin > 2 && f.nbin < whole, "capped: over a cap of "
	    "2, stopped with more than 2, fewer than all (%d, %zu)", rc,
	    f.nbin);
	fmodel_free(&f);
	rc = fmodel_build_capped(&p, &f, whole, always_late, NULL);
	ok(rc == 2 && f.nbin == 0, "capped: late, stopped before the pairs "
	    "(%d, %zu)", rc, f.nbin);
	fmodel_free(&f);
	fprob_free(&p);
	dag_free(&d);
}

int
main(void)
{
	two_partners();
	hidden();
	beats_greedy();
	placement();
	windows();
	switch_model();
	capped();
	return tap_done();
}
