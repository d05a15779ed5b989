/*
 * Unit tests of lib/sim/fabsim, the simulator of tiered fabrics: each
 * case worked by hand to the picosecond (rates chosen so that the
 * bytes' times are whole microseconds).
 *   - a TP4 ring all-reduce of S bytes in an NVLink group:
 *     2(N-1)/N x S x 8 / B = 6 x 450,000 B at 3.6 Tbit/s = 6 us;
 *   - then a DP pair's all-reduce over their rail's OCS, planned;
 *   - a cross-rail transfer routed in two hops (NVLink, then rail);
 *   - an EPS port shared by two flows: each at half the port;
 *   - an uplink circuit shared by two GPUs of one group, limited by
 *     their own links into the group (100G), or by the circuit (400G);
 *   - an oversubscribed EPS core;
 *   - plans that cannot run: no circuit (deadlock), a plane that does
 *     not join the pair, a transfer without a plan;
 *   - circuits alone (RotorNet's, periodic): a flow paused while its
 *     circuit is down, two sharing it, a port's partners rotating and
 *     counted, what an eps plane joins carried there, refusals.
 */
#include <stdint.h>
#include <string.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/planes.h"
#include "model/route.h"
#include "model/sched.h"
#include "sim/fabsim.h"
#include "tap.h"

#define US	1000000ULL

static struct fabric f;
static struct planes pl;
static struct dag d;
static struct schedule sc;
static struct fabsim_out out;
static char err[512];

static int
setup(const char *text, uint32_t gpus)
{
	planes_free(&pl);
	dag_free(&d);
	dag_init(&d);
	sched_free(&sc);
	sched_init(&sc);
	if (fabric_parse(&f, text, strlen(text), "t", err, sizeof(err)) ||
	    fabric_check(&f, gpus, err, sizeof(err)) != 0)
		return -1;
	return planes_expand(&pl, &f, gpus);
}

static uint32_t
xfer(uint32_t g, uint32_t h, uint64_t bytes, const uint32_t *deps, size_t n)
{
	struct dag_task t = { .amount = bytes, .gpu = g, .dst = h,
	    .kind = DAG_TRANSFER };

	dag_add(&d, &t, deps, n);
	return (uint32_t)d.n - 1;
}

/* Run; the makespan, or UINT64_MAX with the message in err. */
static uint64_t
run(int mode)
{
	struct fabsim_opts o = { .mode = mode };
	uint64_t m;

	sc.present = 1;
	fabsim_out_free(&out);
	if (fabsim_run(&d, &pl, &sc, &o, &out, err, sizeof(err)) != 0)
		return UINT64_MAX;
	m = out.makespan;
	return m;
}

/* A ring all-reduce over gpus[0..n) of s bytes: 2(n-1) rounds. */
static void
ring(const uint32_t *gpus, uint32_t n, uint64_t s, uint32_t *last)
{
	uint32_t prev[16], cur[16], r, i;

	for (r = 0; r < 2 * (n - 1); r++) {
		for (i = 0; i < n; i++) {
			uint32_t from = (i + n - 1) % n;

			cur[i] = xfer(gpus[i], gpus[(i + 1) % n], s / n,
			    r > 0 ? &prev[from] : NULL, r > 0);
		}
		memcpy(prev, cur, sizeof(cur));
	}
	memcpy(last, prev, n * sizeof(*last));
}

static void
plan_all(uint32_t plane)
{
	size_t i;

	for (i = 0; i < d.n; i++)
		sched_add_plan(&sc, (uint32_t)i, plane, 0);
}

/* A periodic schedule of period ps, circuits alone (rotorsched's). */
static void
periodic(uint64_t period)
{
	sc.periodic = 1;
	sc.period = period;
}

/* FABSIM_CIRCUITS: no plans; transfers go when their circuits are up. */
static void
circuits_alone(void)
{
	const char *two = "ocs all rate=400Gbps tau=1us\n";
	uint64_t m;

	ok(setup(two, 2) == 0, "circuits: %s", err);
	xfer(0, 1, 150000, NULL, 0);
	periodic(4 * US);
	sched_add_circuit(&sc, 0, 0, 1, 1 * US, 3 * US);
	ok(run(FABSIM_CIRCUITS) == 6 * US && out.reconfigs == 0,
	    "3 us of bytes over a circuit up 1-3 us of every 4: 2 us, then "
	    "5-6 us of the next period: 6 us (%llu): %s",
	    (unsigned long long)out.makespan, err);
	xfer(0, 1, 50000, NULL, 0);
	xfer(1, 0, 50000, NULL, 0);
	m = run(FABSIM_CIRCUITS);
	ok(m == 7 * US && out.end[1] == 3 * US &&
	    out.end[2] == 2 * US, "two flows one way share the circuit "
	    "(the short one ends at 3 us, 2 us of half rate; the long one "
	    "at 7 us), the other way is free (2 us): %llu, %llu, %llu",
	    (unsigned long long)out.end[0], (unsigned long long)out.end[1],
	    (unsigned long long)out.end[2]);

	ok(setup("ocs all rate=400Gbps tau=1us\n", 3) == 0, "three: %s", err);
	xfer(0, 1, 150000, NULL, 0);
	xfer(0, 2, 50000, NULL, 0);
	periodic(6 * US);
	sched_add_circuit(&sc, 0, 0, 1, 1 * US, 3 * US);
	sched_add_circuit(&sc, 0, 0, 2, 4 * US, 6 * US);
	m = run(FABSIM_CIRCUITS);
	ok(m == 8 * US && out.end[1] == 5 * US &&
	    out.reconfigs == 2, "port 0 rotates: 0-2 at 4 us, 0-1 again at "
	    "7 us, two reconfigurations; 8 us (%llu, %llu reconfigs)",
	    (unsigned long long)out.makespan,
	    (unsigned long long)out.reconfigs);
	sc.nc = 1;
	ok(run(FABSIM_CIRCUITS) == UINT64_MAX &&
	    strstr(err, "no circuit of the period") != NULL,
	    "a pair no circuit of the period joins is refused: %s", err);
	sc.periodic = 0;
	ok(run(FABSIM_CIRCUITS) == UINT64_MAX &&
	    strstr(err, "deadlock at") != NULL,
	    "one-shot, the pair left without a circuit deadlocks: %s", err);
	sc.forwarding = SCHED_VLB;
	ok(run(FABSIM_CIRCUITS) == UINT64_MAX && strstr(err, "two-hop"),
	    "a two-hop schedule is refused: %s", err);

	ok(setup("eps group:2 rate=400Gbps\nocs all rate=400Gbps tau=1us\n",
	    4) == 0, "eps beside: %s", err);
	xfer(0, 1, 50000, NULL, 0);
	xfer(0, 2, 50000, NULL, 0);
	periodic(4 * US);
	sched_add_circuit(&sc, 2, 0, 2, 2 * US, 4 * US);
	m = run(FABSIM_CIRCUITS);
	ok(m == 3 * US && out.end[0] == 1 * US &&
	    out.desc[0].bytes == 50000 && out.desc[1].bytes == 50000,
	    "what the server's eps joins goes there (1 us), the rest over "
	    "the circuit up at 2 us (3 us): %llu, %llu",
	    (unsigned long long)out.end[0], (unsigned long long)out.end[1]);

	ok(setup("eps group:2 rate=100Gbps\nocs uplink:2:1 rate=400Gbps "
	    "tau=1us\n", 4) == 0, "uplink: %s", err);
	xfer(0, 2, 50000, NULL, 0);
	xfer(1, 3, 50000, NULL, 0);
	sched_add_circuit(&sc, 2, 0, 1, 0, SCHED_FOREVER);
	ok(run(FABSIM_CIRCUITS) == 4 * US, "an uplink circuit, two GPUs "
	    "behind 100G links: 4 us (%llu): %s",
	    (unsigned long long)out.makespan, err);
	sched_add_plan(&sc, 0, 2, 0);
	ok(run(FABSIM_CIRCUITS) == UINT64_MAX && strstr(err, "plans"),
	    "plans go with FABSIM_PLAN: %s", err);
}

int
main(void)
{
	static const uint32_t tp[] = { 0, 1, 2, 3 }, tp2[] = { 4, 5, 6, 7 };
	const char *rail = "eps group:4 rate=3600Gbps\n"
	    "ocs rail:4 rate=400Gbps tau=10us\n";
	uint32_t last[16], last2[16], a, b, bad_g, bad_h, from[64];
	struct dag routed;
	size_t i;

	fabric_init(&f);
	memset(&pl, 0, sizeof(pl));
	sched_init(&sc);
	dag_init(&d);

	/* a TP4 ring in NVLink: 6 rounds of 450,000 B at 3.6 Tbit/s */
	ok(setup(rail, 8) == 0, "a TP4 server with its rails: %s", err);
	ring(tp, 4, 1800000, last);
	ok(run(FABSIM_IDEAL) == 6 * US, "TP4 ring all-reduce in NVLink: "
	    "2(N-1)/N x S x 8 / B = 6 us (%llu ps)",
	    (unsigned long long)out.makespan);
	ok(out.desc[0].bytes == 24 * 450000 && out.desc[1].bytes == 0 &&
	    out.desc[0].busy_ps == 6 * US && out.reconfigs == 0,
	    "its bytes and busy time on the NVLink description only");
	plan_all(0);
	ok(run(FABSIM_PLAN) == 6 * US, "the same, planned on the group's "
	    "plane: 6 us");

	/*
	 * Two servers: each a TP4 ring, then DP pairs (g, g+4) all-reduce
	 * over their rail: 2 rounds of 50,000 B at 400 Gbit/s, 1 us each.
	 */
	ok(setup(rail, 8) == 0, "two TP4 servers: %s", err);
	ring(tp, 4, 1800000, last);
	ring(tp2, 4, 1800000, last2);
	for (i = 0; i < 4; i++) {
		uint32_t dep1[] = { last[i], last2[i] };

		a = xfer((uint32_t)i, (uint32_t)i + 4, 50000, dep1, 2);
		b = xfer((uint32_t)i + 4, (uint32_t)i, 50000, dep1, 2);
		xfer((uint32_t)i, (uint32_t)i + 4, 50000, &b, 1);
		xfer((uint32_t)i + 4, (uint32_t)i, 50000, &a, 1);
	}
	ok(run(FABSIM_IDEAL) == 8 * US, "TP rings then DP pairs over the "
	    "rails: 6 + 2 us (%llu ps)", (unsigned long long)out.makespan);
	ok(out.desc[1].bytes == 16 * 50000, "the DP bytes on the rails");
	for (i = 0; i < d.n; i++)
		sched_add_plan(&sc, (uint32_t)i, d.t[i].gpu / 4 ==
		    d.t[i].dst / 4 ? d.t[i].gpu / 4 : 2 + d.t[i].gpu % 4,
		    d.t[i].gpu / 4 == d.t[i].dst / 4 ? 0 : 6 * US);
	for (i = 0; i < 4; i++)
		sched_add_circuit(&sc, 2 + (uint32_t)i, 0, 1, 0,
		    SCHED_FOREVER);
	ok(run(FABSIM_PLAN) == 8 * US && out.reconfigs == 0,
	    "planned, a circuit per rail up from the start: 8 us (%llu): %s",
	    (unsigned long long)out.makespan, err);
	sched_free(&sc);
	sched_init(&sc);
	plan_all(0);
	for (i = 0; i < d.n; i++)
		sc.p[i].sw = d.t[i].gpu / 4 == d.t[i].dst / 4 ?
		    d.t[i].gpu / 4 : 2 + d.t[i].gpu % 4;
	for (i = 0; i < 4; i++)
		sched_add_circuit(&sc, 2 + (uint32_t)i, 0, 1, 7 * US,
		    SCHED_FOREVER);
	ok(run(FABSIM_PLAN) == 9 * US, "the rails' circuits up at 7 us: the "
	    "DP waits, 9 us (%llu)", (unsigned long long)out.makespan);
	sched_free(&sc);
	sched_init(&sc);
	plan_all(0);
	for (i = 0; i < d.n; i++)
		sc.p[i].sw = d.t[i].gpu / 4 == d.t[i].dst / 4 ?
		    d.t[i].gpu / 4 : 2 + d.t[i].gpu % 4;
	ok(run(FABSIM_PLAN) == UINT64_MAX && strstr(err, "deadlock") != NULL &&
	    strstr(err, "circuit on plane") != NULL, "no circuits: a deadlock "
	    "that names the plane: %s", err);
	a = sc.p[30].sw;
	sc.p[30].sw = 3;
	ok(run(FABSIM_PLAN) == UINT64_MAX && strstr(err, "does not join") !=
	    NULL, "a plane that does not join the pair: %s", err);
	sc.p[30].sw = a;
	sc.np--;
	ok(run(FABSIM_PLAN) == UINT64_MAX && strstr(err, "has no plan") !=
	    NULL, "a transfer without a plan: %s", err);

	/* a cross-rail transfer, routed: 1 us in NVLink, 9 us on the rail */
	ok(setup(rail, 8) == 0, "rails: %s", err);
	xfer(0, 5, 450000, NULL, 0);
	dag_init(&routed);
	ok(route_dag(&d, &f, &routed, from, &bad_g, &bad_h) == 1 &&
	    routed.n == 2 && routed.t[0].dst == 1 && routed.t[1].gpu == 1,
	    "0->5 routed over 1, GPU 0's on 5's rail");
	dag_free(&d);
	d = routed;
	ok(run(FABSIM_IDEAL) == 10 * US, "two hops: 1 + 9 us (%llu)",
	    (unsigned long long)out.makespan);

	/* an EPS port shared by two flows */
	ok(setup("eps all rate=400Gbps\n", 3) == 0, "one EPS: %s", err);
	xfer(0, 2, 50000, NULL, 0);
	xfer(1, 2, 50000, NULL, 0);
	ok(run(FABSIM_IDEAL) == 2 * US && out.end[0] == 2 * US &&
	    out.end[1] == 2 * US, "two flows into one port: 200G each, 2 us");
	plan_all(0);
	ok(run(FABSIM_PLAN) == 2 * US, "planned alike, shared alike");
	sc.p[1].start = 1 * US;
	ok(run(FABSIM_PLAN) == 2 * US && out.end[0] == 1 * US,
	    "the second planned at 1 us: each alone at 400G, 1 us after the "
	    "other (%llu, %llu)", (unsigned long long)out.end[0],
	    (unsigned long long)out.makespan);

	/* one queue (plane, source, destination): plans by start, then task,
	 * in whatever order the stream gives them */
	ok(setup("eps all rate=400Gbps\n", 3) == 0, "one EPS: %s", err);
	xfer(0, 2, 50000, NULL, 0);
	xfer(0, 2, 50000, NULL, 0);
	sched_add_plan(&sc, 1, 0, 0);
	sched_add_plan(&sc, 0, 0, 0);
	ok(run(FABSIM_PLAN) == 2 * US && out.end[0] == 1 * US, "a queue's "
	    "plans of one start in task order, whatever the stream's: %llu, "
	    "%llu", (unsigned long long)out.end[0],
	    (unsigned long long)out.end[1]);
	sc.p[1].start = 1 * US;
	ok(run(FABSIM_PLAN) == 2 * US && out.end[1] == 1 * US &&
	    out.end[0] == 2 * US, "by start before task: %llu, %llu",
	    (unsigned long long)out.end[1], (unsigned long long)out.end[0]);

	/* an uplink circuit shared by two GPUs of one group */
	ok(setup("eps group:2 rate=100Gbps\n"
	    "ocs uplink:2:1 rate=400Gbps tau=10us\n", 4) == 0, "uplinks: %s",
	    err);
	xfer(0, 2, 50000, NULL, 0);
	xfer(1, 3, 50000, NULL, 0);
	plan_all(2);
	sched_add_circuit(&sc, 2, 0, 1, 0, SCHED_FOREVER);
	ok(run(FABSIM_PLAN) == 4 * US && out.end[0] == 4 * US,
	    "one 400G circuit, two GPUs each behind a 100G link: 4 us each "
	    "(%llu): %s", (unsigned long long)out.makespan, err);
	ok(run(FABSIM_IDEAL) == 4 * US, "alike without a schedule");
	ok(setup("eps group:2 rate=3600Gbps\n"
	    "ocs uplink:2:1 rate=400Gbps tau=10us\n", 4) == 0, "uplinks: %s",
	    err);
	xfer(0, 2, 50000, NULL, 0);
	xfer(1, 3, 50000, NULL, 0);
	plan_all(2);
	sched_add_circuit(&sc, 2, 0, 1, 0, SCHED_FOREVER);
	ok(run(FABSIM_PLAN) == 2 * US, "behind NVLink, the circuit is shared: "
	    "200G each, 2 us (%llu)", (unsigned long long)out.makespan);

	/* an oversubscribed EPS */
	ok(setup("eps all rate=400Gbps oversub=2\n", 4) == 0, "oversub: %s",
	    err);
	xfer(0, 1, 50000, NULL, 0);
	xfer(1, 0, 50000, NULL, 0);
	xfer(2, 3, 50000, NULL, 0);
	xfer(3, 2, 50000, NULL, 0);
	ok(run(FABSIM_IDEAL) == 2 * US, "4 flows of 400G through a core of "
	    "4 x 400G / 2: 200G each, 2 us (%llu)",
	    (unsigned long long)out.makespan);
	ok(setup("eps all rate=400Gbps\n", 4) == 0, "no oversub: %s", err);
	xfer(0, 1, 50000, NULL, 0);
	xfer(1, 0, 50000, NULL, 0);
	xfer(2, 3, 50000, NULL, 0);
	xfer(3, 2, 50000, NULL, 0);
	ok(run(FABSIM_IDEAL) == 1 * US, "the same without oversubscription: "
	    "1 us");

	/* latency and reconfigurations */
	ok(setup("ocs all rate=400Gbps tau=10us latency=1us\n", 3) == 0,
	    "latency: %s", err);
	a = xfer(0, 1, 50000, NULL, 0);
	xfer(0, 2, 50000, &a, 1);
	plan_all(0);
	sc.p[1].start = 12 * US;
	sched_add_circuit(&sc, 0, 0, 1, 0, 1 * US);
	sched_add_circuit(&sc, 0, 0, 2, 11 * US, SCHED_FOREVER);
	ok(run(FABSIM_PLAN) == 14 * US && out.reconfigs == 1,
	    "a port's new partner after tau, one reconfiguration, latency "
	    "paid: 14 us (%llu): %s", (unsigned long long)out.makespan, err);
	sc.c[1].from = 10 * US;
	ok(run(FABSIM_PLAN) == UINT64_MAX, "a new partner sooner than tau "
	    "is refused: %s", err);

	circuits_alone();
	fabsim_out_free(&out);
	sched_free(&sc);
	dag_free(&d);
	planes_free(&pl);
	fabric_free(&f);
	return tap_done();
}
