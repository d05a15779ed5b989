/*
 * Unit tests of lib/solve/fabmodel, the exact model of Flux on planes:
 *   - hand-worked optima, to the picosecond, of two 1000-byte
 *     transfers (1 us each at 8 Gbit/s) and their variants: from one
 *     GPU to two over one OCS (1 us, tau 1 us, 1 us: 3 us), over two
 *     OCS (1 us), over an EPS (one port's side: 2 us); opposite
 *     directions of one circuit (1 us); an EPS core that runs one flow
 *     (2 us) or two of three (2 us); two GPUs of a group on one uplink
 *     circuit (its group side: 2 us); what the solver proves, placed
 *     by fabgreedy_place(), is that number;
 *   - the greedy's plan, written as a start (fabmodel_encode()), meets
 *     every row, bound and integrality of the model, on random DAGs
 *     over fabrics of every attachment (its slots, its cuts);
 *   - refusals: too many binaries, the switch model.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/planes.h"
#include "model/sched.h"
#include "solve/fabbound.h"
#include "solve/fabgreedy.h"
#include "solve/fabmodel.h"
#include "solve/milp.h"
#include "tap.h"

#define US	1000000ULL

static struct fabric f;
static struct planes pl;
static struct dag d;
static char err[512];

static int
setup(const char *text, uint32_t gpus)
{
	planes_free(&pl);
	dag_free(&d);
	dag_init(&d);
	if (fabric_parse(&f, text, strlen(text), "t", err, sizeof(err)) ||
	    fabric_check(&f, gpus, err, sizeof(err)) != 0)
		return -1;
	return planes_expand(&pl, &f, gpus);
}

static void
xfer(uint32_t g, uint32_t h, uint64_t bytes, const uint32_t *deps,
    size_t n)
{
	struct dag_task t = { .amount = bytes, .gpu = g, .dst = h,
	    .kind = DAG_TRANSFER };

	dag_add(&d, &t, deps, n);
}

static void
comp(uint32_t g, uint64_t ps, const uint32_t *deps, size_t n)
{
	struct dag_task t = { .amount = ps, .gpu = g, .kind = DAG_COMPUTE };

	dag_add(&d, &t, deps, n);
}

/* The greedy's plan: its makespan, starts and planes. */
static int
greedy(uint64_t *ms, uint64_t *start, uint32_t *plane)
{
	struct fabguide g = { NULL, NULL, start };
	struct schedule sc;
	size_t i;

	sched_init(&sc);
	if (fabgreedy_place(&d, &pl, &g, &sc, ms, err, sizeof(err)) != 0)
		return -1;
	for (i = 0; i < sc.np; i++)
		plane[sc.p[i].task] = sc.p[i].sw;
	sched_free(&sc);
	return 0;
}

/* The model solved, its solution placed: the makespan, or 0. */
static uint64_t
optimum(void)
{
	uint64_t ms, gms, lb, key[64], start[64];
	uint32_t plane[64];
	struct fabguide g = { key, plane, NULL };
	struct milp_result r;
	struct fabmodel m;
	struct schedule sc;

	if (d.n > 64 || greedy(&gms, start, plane) != 0 ||
	    fabbound_planes(&d, &pl, &lb) != 0 ||
	    fabmodel_build(&d, &pl, NULL, gms, lb, 1000, &m, err,
	    sizeof(err)) != 0)
		return 0;
	memset(&r, 0, sizeof(r));
	if (milp_solve(&m.m, NULL, &r, err, sizeof(err)) != 0 ||
	    r.status != MILP_OPTIMAL) {
		fabmodel_free(&m);
		milp_result_free(&r);
		return 0;
	}
	fabmodel_decode(&m, r.x, plane, key);
	sched_init(&sc);
	if (fabgreedy_place(&d, &pl, &g, &sc, &ms, err, sizeof(err)) != 0)
		ms = 0;
	sched_free(&sc);
	fabmodel_free(&m);
	milp_result_free(&r);
	return ms;
}

static void
two(const char *fab, uint32_t gpus, uint32_t a, uint32_t b, uint32_t c,
    uint32_t e, uint64_t want, const char *what)
{
	uint64_t got = 0;

	if (setup(fab, gpus) == 0) {
		xfer(a, b, 1000, NULL, 0);
		xfer(c, e, 1000, NULL, 0);
		got = optimum();
	}
	ok(got == want, "%s: %llu ps (want %llu) %s", what,
	    (unsigned long long)got, (unsigned long long)want, err);
}

static void
hand(void)
{
	uint64_t got = 0;

	two("ocs all rate=8Gbps tau=1us\n", 3, 0, 1, 0, 2, 3 * US,
	    "one OCS, one GPU to two: 1 us, tau, 1 us");
	two("ocs all count=2 rate=8Gbps tau=1us\n", 3, 0, 1, 0, 2, 1 * US,
	    "two OCS, one GPU to two: one on each");
	two("eps all rate=8Gbps\n", 3, 0, 1, 0, 2, 2 * US,
	    "an EPS, one GPU to two: its port's side, one at a time");
	two("ocs all rate=8Gbps tau=1us\n", 2, 0, 1, 1, 0, 1 * US,
	    "one circuit, both directions at once");
	two("eps all rate=8Gbps oversub=4\n", 4, 0, 1, 2, 3, 2 * US,
	    "an EPS core of one flow (4 x 8 / 4 Gbit/s): one at a time");
	two("eps group:2 rate=8Gbps\nocs uplink:2:1 rate=8Gbps tau=1us\n", 4,
	    0, 2, 1, 3, 2 * US,
	    "one uplink circuit, two GPUs of one group: its side, in turn");
	two("eps group:2 rate=8Gbps\nocs uplink:2:1 rate=8Gbps tau=1us\n", 4,
	    0, 2, 3, 1, 1 * US,
	    "one uplink circuit, opposite directions at once");
	if (setup("eps all rate=8Gbps oversub=3\n", 6) == 0) {
		xfer(0, 1, 1000, NULL, 0);
		xfer(2, 3, 1000, NULL, 0);
		xfer(4, 5, 1000, NULL, 0);
		got = optimum();
	}
	ok(got == 2 * US, "an EPS core of two flows (6 x 8 / 3 Gbit/s), "
	    "three transfers: %llu ps (want 2 us) %s",
	    (unsigned long long)got, err);
}

/* Every row, bound and integer of m met by x, within 1e-6. */
static int
meets(const struct milp *m, const double *x)
{
	size_t r, e, c;
	double v;

	for (c = 0; c < m->ncol; c++) {
		if (x[c] < m->lo[c] - 1e-6 || x[c] > m->hi[c] + 1e-6)
			return 0;
		if (m->isint[c] && fabs(x[c] - floor(x[c] + 0.5)) > 1e-6)
			return 0;
	}
	for (r = 0; r < m->nrow; r++) {
		for (v = 0, e = m->roff[r]; e < m->roff[r + 1]; e++)
			v += m->eval[e] * x[m->ecol[e]];
		if ((m->sense[r] == MILP_GE && v < m->rhs[r] - 1e-6) ||
		    (m->sense[r] == MILP_LE && v > m->rhs[r] + 1e-6) ||
		    (m->sense[r] == MILP_EQ && fabs(v - m->rhs[r]) > 1e-6))
			return 0;
	}
	return 1;
}

static void
random_dag(uint32_t gpus, int nx, int nc)
{
	uint32_t deps[64];
	size_t n, i;

	while (nx + nc > 0) {
		for (n = 0, i = 0; i < d.n; i++)
			if (rand() % 4 == 0)
				deps[n++] = (uint32_t)i;
		if (nc > 0 && rand() % (nx + nc) < nc) {
			nc--;
			comp(rand() % gpus, 1 + rand() % 300000, deps, n);
			continue;
		}
		nx--;
		uint32_t g = rand() % gpus, h = rand() % (gpus - 1);

		xfer(g, h >= g ? h + 1 : h, 1 + rand() % 100000, deps, n);
	}
}

/* The tasks that start in [from, to) of a plan as a window: its model
 * met by the plan. */
static int
window_meets(uint64_t ms, const uint64_t *start, const uint32_t *plane,
    int i)
{
	uint8_t fr[64];
	uint64_t from = ms / 4 + (uint64_t)i, to = ms / 2;
	struct fabwin w = { fr, start, plane, 0 };
	struct fabmodel m;
	double *x;
	size_t t;
	int good;

	for (t = 0; t < d.n; t++) {
		fr[t] = start[t] >= from && start[t] < to;
		if (fr[t] && (w.from == 0 || start[t] < w.from))
			w.from = start[t];
	}
	if (fabmodel_build(&d, &pl, &w, ms, 0, 100000, &m, err,
	    sizeof(err)) != 0)
		return 0;
	x = calloc(m.m.ncol + 1, sizeof(*x));
	good = x != NULL && fabmodel_encode(&m, start, plane, ms, x) == 0 &&
	    meets(&m.m, x);
	if (!good)
		ok(0, "DAG %d: the plan breaks its window's model", i);
	free(x);
	fabmodel_free(&m);
	return good;
}

static void
starts(void)
{
	static const char *fabs_[] = {
		"eps group:2 rate=100Gbps\nocs uplink:2:1 count=2 rate=40Gbps "
		    "tau=3ns\n",
		"eps group:4 rate=90Gbps\nocs uplink:4:1 rate=70Gbps tau=2ns\n"
		    "eps uplink:4:2 rate=10Gbps oversub=3\n",
		"ocs all count=2 rate=50Gbps tau=5ns radix=8\neps all "
		    "rate=20Gbps oversub=2\n",
		"eps group:4 rate=100Gbps latency=1ns\nocs rail:4 count=2 "
		    "rate=30Gbps tau=4ns\neps all rate=60Gbps oversub=1.5\n",
		"ocs rail:2 rate=40Gbps tau=1ns\nocs all rate=10Gbps tau=7ns "
		    "latency=2ps\neps gpus:0-3 rate=30Gbps\n",
	};
	uint64_t ms, lb, start[64];
	uint32_t plane[64];
	struct fabmodel m;
	double *x;
	int i, good = 0, wgood = 0, n = 40;

	srand(35);
	for (i = 0; i < n; i++) {
		if (setup(fabs_[i % 5], 8) != 0)
			break;
		random_dag(8, 12, 6);
		if (greedy(&ms, start, plane) != 0 ||
		    fabbound_planes(&d, &pl, &lb) != 0 ||
		    fabmodel_build(&d, &pl, NULL, ms, lb, 100000, &m, err,
		    sizeof(err)) != 0)
			break;
		x = calloc(m.m.ncol + 1, sizeof(*x));
		if (x != NULL && fabmodel_encode(&m, start, plane, ms,
		    x) == 0 && meets(&m.m, x))
			good++;
		else
			ok(0, "fabric %d, DAG %d: the greedy's start breaks "
			    "the model", i % 5, i);
		free(x);
		fabmodel_free(&m);
		wgood += window_meets(ms, start, plane, i);
	}
	ok(good == n, "the greedy's plan meets the model: %d of %d random "
	    "DAGs %s", good, n, err);
	ok(wgood == n, "and the model of a window of it, the rest fixed: %d "
	    "of %d %s", wgood, n, err);
}

static void
refusals(void)
{
	struct fabmodel m;
	int rc = 0;

	if (setup("ocs all count=2 rate=8Gbps tau=1us\n", 4) == 0) {
		xfer(0, 1, 1000, NULL, 0);
		xfer(0, 2, 1000, NULL, 0);
		xfer(0, 3, 1000, NULL, 0);
		rc = fabmodel_build(&d, &pl, NULL, 10 * US, 0, 3, &m, err,
		    sizeof(err));
	}
	ok(rc == -1 && strstr(err, "more than 3 binaries") != NULL,
	    "more binaries than allowed: refused (%s)", err);
	rc = 0;
	if (setup("ocs all rate=8Gbps tau=1us model=switch\n", 4) == 0) {
		xfer(0, 1, 1000, NULL, 0);
		rc = fabmodel_build(&d, &pl, NULL, 10 * US, 0, 100, &m, err,
		    sizeof(err));
	}
	ok(rc == -1 && strstr(err, "switch model") != NULL,
	    "the switch model: refused (%s)", err);
}

int
main(void)
{
	hand();
	starts();
	refusals();
	planes_free(&pl);
	dag_free(&d);
	return tap_done();
}
