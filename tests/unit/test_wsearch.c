/*
 * Unit tests of lib/solve/wsearch: on random small problems (releases, tails,
 * arcs with lags, compute tasks, ports with a given state), the
 * search's optimum with every pruning rule on equals the optimum with
 * them off and the MILP's (lib/solve/fmodel with lp_solve); every schedule it
 * returns passes an independent check of the pairwise rules; a target
 * proves a bound; a node limit leaves a valid bound.
 *
 *	test_wsearch [N]
 *
 * N random problems of each of the four kinds (120 by default: 18 s
 * under ASan with lp_solve as the MILP's solver, where CBC took 16
 * minutes on the loaded 2 cores).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/fmodel.h"
#include "solve/milp.h"
#include "tap.h"
#include "solve/wsearch.h"

static unsigned long rng = 1;

static unsigned
rnd(unsigned n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng >> 33) % n);
}

/* A random problem: 2-5 GPUs, 1-3 switches, 2-8 transfers, up to 2
 * computes, arcs with odds 1 in 4. */
static void
random_problem(struct fprob *p, int ports)
{
	unsigned G = 2 + rnd(4), n = 2 + rnd(7), nc = rnd(3), i, j;
	uint64_t lat = rnd(3) * 15;

	fprob_init(p);
	p->switches = 1 + rnd(3);
	p->tau = rnd(4) * 40;
	p->lb = rnd(4) == 0 ? rnd(400) : 0;
	for (i = 0; i < n + nc; i++) {
		struct fptask t = { i, DAG_TRANSFER, rnd(G), 0, 1 + rnd(200),
		    0, rnd(3) == 0 ? rnd(150) : 0, rnd(3) == 0 ? rnd(100) : 0 };

		if (nc > 0 && rnd(n + nc) < nc) {
			nc--;
			t.kind = DAG_COMPUTE;
			t.span = t.len;
		} else {
			t.b = (t.a + 1 + rnd(G - 1)) % G;
			t.span = t.len + lat;
		}
		if (fprob_task(p, &t) != 0)
			abort();
		for (j = 0; j < i; j++)
			if (rnd(4) == 0 && fprob_arc(p, j, i, rnd(2) * rnd(60))
			    != 0)
				abort();
	}
	for (i = 0; ports && i < G; i++) {
		struct fpport x = { rnd(p->switches), i, (i + 1 + rnd(G - 1)) %
		    G, 0, 0, 0 };

		if (rnd(2) == 0)
			continue;
		x.txend = rnd(80);
		x.rxend = rnd(80);
		x.last = (x.txend > x.rxend ? x.txend : x.rxend) + rnd(20);
		if (fprob_port(p, &x) != 0)
			abort();
	}
}

static uint64_t
horizon(const struct fprob *p)
{
	uint64_t h = p->lb + 1;
	size_t i;

	for (i = 0; i < p->n; i++)
		h += p->t[i].rel + p->t[i].span + p->t[i].len + p->t[i].tail +
		    p->tau + 200;
	for (i = 0; i < p->narc; i++)
		h += p->arc[i].lag;
	return h;
}

/*
 * The MILP's optimum in ps, or UINT64_MAX when it proves none; with
 * out, its schedule too (starts rounded to ps, the makespan of them).
 */
static uint64_t
milp_sched(struct fprob *p, struct wsearch_result *out)
{
	/*
	 * no result may hang on the clock: the limit only stops a hang.
	 * lp_solve: CBC, under ASan, maps and unmaps its factorization
	 * arrays at every solve and took 14 times as long here; test_milp
	 * holds the two solvers to each other.
	 */
	struct milp_opts o = { "lpsolve", 900, NULL, NULL, 0, 1e-4 };
	struct milp_result r;
	struct fmodel f;
	uint64_t v = UINT64_MAX;
	char err[200];
	size_t i;

	p->horizon = horizon(p);
	if (fmodel_build(p, &f) != 0)
		abort();
	if (milp_solve(&f.m, &o, &r, err, sizeof(err)) == 0 &&
	    r.status == MILP_OPTIMAL)
		v = (uint64_t)(r.objective * 1000.0 + 0.5);
	if (out != NULL) {
		memset(out, 0, sizeof(*out));
		out->value = p->lb;
		out->sw = calloc(p->n + 1, sizeof(*out->sw));
		out->start = calloc(p->n + 1, sizeof(*out->start));
		if (out->sw == NULL || out->start == NULL)
			abort();
		for (i = 0; v != UINT64_MAX && i < p->n; i++) {
			const struct fptask *t = &p->t[i];
			double st = r.x[f.s[i]] * 1000.0;
			size_t s;

			out->start[i] = st > 0 ? (uint64_t)(st + 0.5) : 0;
			for (s = 0; t->kind == DAG_TRANSFER &&
			    p->switches >= 2 && s < p->switches; s++)
				if (r.x[f.x[i * p->switches + s]] > 0.5)
					out->sw[i] = (uint32_t)s;
			if (out->start[i] + t->span + t->tail > out->value)
				out->value = out->start[i] + t->span +
				    t->tail;
		}
	}
	milp_result_free(&r);
	fmodel_free(&f);
	return v;
}

static uint64_t
milp_opt(struct fprob *p)
{
	return milp_sched(p, NULL);
}

/*
 * Does fmodel_encode() make of a schedule (objective v) a point of the
 * model: every bound, integrality and row kept within 1e-6, C = v?
 */
static int
encodes(struct fprob *p, const struct wsearch_result *r, uint64_t v)
{
	struct fmodel f;
	double *x, lhs;
	size_t i, k;
	int good = 1;

	p->horizon = horizon(p);
	if (fmodel_build(p, &f) != 0 ||
	    (x = malloc((f.m.ncol + 1) * sizeof(*x))) == NULL)
		abort();
	fmodel_encode(p, &f, r->start, r->sw, v, x);
	for (i = 0; i < f.m.ncol; i++)
		if (x[i] < f.m.lo[i] - 1e-6 || x[i] > f.m.hi[i] + 1e-6 ||
		    (f.m.isint[i] && x[i] != (double)(long)x[i]))
			good = 0;
	for (i = 0; i < f.m.nrow; i++) {
		for (lhs = 0, k = f.m.roff[i]; k < f.m.roff[i + 1]; k++)
			lhs += f.m.eval[k] * x[f.m.ecol[k]];
		if ((f.m.sense[i] == MILP_LE && lhs > f.m.rhs[i] + 1e-6) ||
		    (f.m.sense[i] == MILP_GE && lhs < f.m.rhs[i] - 1e-6) ||
		    (f.m.sense[i] == MILP_EQ && (lhs > f.m.rhs[i] + 1e-6 ||
		    lhs < f.m.rhs[i] - 1e-6)))
			good = 0;
	}
	good &= x[f.c] * 1000.0 > (double)v - 0.5 &&
	    x[f.c] * 1000.0 < (double)v + 0.5;
	free(x);
	fmodel_free(&f);
	return good;
}

static const struct fpport *
given(const struct fprob *p, uint32_t s, uint32_t g)
{
	size_t i;

	for (i = 0; i < p->nport; i++)
		if (p->port[i].sw == s && p->port[i].gpu == g)
			return &p->port[i];
	return NULL;
}

/* Does transfer k respect a port's given state at its end x? */
static int
port_ok(const struct fprob *p, size_t k, uint32_t s, int src,
    uint64_t st)
{
	const struct fptask *t = &p->t[k];
	uint32_t g = src ? t->a : t->b, o = src ? t->b : t->a;
	const struct fpport *x = given(p, s, g);

	if (x == NULL)
		return 1;
	if (x->partner == o)
		return st >= (src ? x->txend : x->rxend);
	return st >= x->last + p->tau;
}

/*
 * An independent check of a schedule: releases, arcs, the pairwise
 * rules on each switch and the given port states; and its objective.
 */
static int
valid(const struct fprob *p, const struct wsearch_result *r)
{
	uint64_t ms = p->lb;
	size_t i, j;

	for (i = 0; i < p->n; i++) {
		const struct fptask *t = &p->t[i];

		if (r->start[i] < t->rel)
			return 0;
		if (r->start[i] + t->span + t->tail > ms)
			ms = r->start[i] + t->span + t->tail;
		if (t->kind == DAG_TRANSFER && (r->sw[i] >= p->switches ||
		    !port_ok(p, i, r->sw[i], 1, r->start[i]) ||
		    !port_ok(p, i, r->sw[i], 0, r->start[i])))
			return 0;
	}
	for (i = 0; i < p->narc; i++) {
		const struct fparc *a = &p->arc[i];

		if (r->start[a->j] < r->start[a->i] + p->t[a->i].span + a->lag)
			return 0;
	}
	for (i = 0; i < p->n; i++)
		for (j = 0; j < p->n; j++) {
			const struct fptask *x = &p->t[i], *y = &p->t[j];
			uint64_t gap;

			if (i == j || x->kind != DAG_TRANSFER ||
			    y->kind != DAG_TRANSFER || r->sw[i] != r->sw[j] ||
			    r->start[i] > r->start[j])
				continue;
			if (x->a == y->a && x->b == y->b)
				gap = 0;
			else if (x->a == y->b && x->b == y->a)
				continue;
			else if (x->a == y->a || x->a == y->b ||
			    x->b == y->a || x->b == y->b)
				gap = p->tau;
			else
				continue;
			if (r->start[i] == r->start[j] && i > j)
				continue;	/* checked the other way */
			if (r->start[j] < r->start[i] + x->len + gap)
				return 0;
		}
	return ms == r->value;
}

/*
 * The switch model, from its definition: on each switch, the transfers
 * in start order fall into epochs; within one, no port has two
 * partners; the first of an epoch starts tau after every earlier one
 * on the switch ended.  A switch given port states (of GPUs the
 * problem uses) is in the epoch they left: its ports keep their
 * partners there, with the given uses before, and the next epoch
 * starts tau after the last of those ends.  Tries every partition into
 * epochs (at most 10 transfers per switch here: 1024 of them).
 */
static int
conflict(const struct fptask *x, const struct fptask *y)
{
	int same = (x->a == y->a && x->b == y->b) ||
	    (x->a == y->b && x->b == y->a);

	return !same && (x->a == y->a || x->a == y->b || x->b == y->a ||
	    x->b == y->b);
}

static int
uses(const struct fprob *p, uint32_t g)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->t[i].a == g || (p->t[i].kind == DAG_TRANSFER &&
		    p->t[i].b == g))
			return 1;
	return 0;
}

/* Is transfer k at st in the given epoch of s, its ports' states kept? */
static int
in_given(const struct fprob *p, size_t k, uint32_t s, uint64_t st)
{
	const struct fptask *t = &p->t[k];
	const struct fpport *x;

	if ((x = given(p, s, t->a)) != NULL &&
	    (x->partner != t->b || st < x->txend))
		return 0;
	if ((x = given(p, s, t->b)) != NULL &&
	    (x->partner != t->a || st < x->rxend))
		return 0;
	return 1;
}

/* Is there a cut before position i?  With a given epoch, bit 0 is the
 * one before the first transfer. */
static int
cut_before(unsigned cut, int gv, size_t i)
{
	if (i == 0)
		return gv && (cut & 1);
	return cut >> (i - 1 + gv) & 1;
}

static int
epochs_ok(const struct fprob *p, const struct wsearch_result *r,
    uint32_t s, const uint32_t *ord, size_t m, unsigned cut, int gv,
    uint64_t glast)
{
	size_t i, k;
	int zero = gv;

	for (i = 0; i < m; i++) {
		uint64_t end = glast;

		if (cut_before(cut, gv, i)) {
			zero = 0;
			for (k = 0; k < i; k++)
				if (r->start[ord[k]] + p->t[ord[k]].len > end)
					end = r->start[ord[k]] +
					    p->t[ord[k]].len;
			if ((i > 0 || gv) && end + p->tau > r->start[ord[i]])
				return 0;
		}
		if (zero && !in_given(p, ord[i], s, r->start[ord[i]]))
			return 0;
		for (k = i; k-- > 0;) {
			if (cut_before(cut, gv, k + 1))
				break;
			if (conflict(&p->t[ord[i]], &p->t[ord[k]]))
				return 0;
		}
	}
	return 1;
}

static int
switch_valid(const struct fprob *p, const struct wsearch_result *r)
{
	uint32_t ord[WSEARCH_MAX];
	uint32_t s;
	size_t m, i, k;
	unsigned cut;

	for (s = 0; s < p->switches; s++) {
		uint64_t glast = 0;
		int gv = 0;

		for (i = 0; i < p->nport; i++)
			if (p->port[i].sw == s && uses(p, p->port[i].gpu)) {
				gv = 1;
				if (p->port[i].last > glast)
					glast = p->port[i].last;
			}
		for (m = 0, i = 0; i < p->n; i++)
			if (p->t[i].kind == DAG_TRANSFER && r->sw[i] == s)
				ord[m++] = (uint32_t)i;
		for (i = 1; i < m; i++)	/* by start, then index */
			for (k = i; k > 0 && (r->start[ord[k]] <
			    r->start[ord[k - 1]] || (r->start[ord[k]] ==
			    r->start[ord[k - 1]] && ord[k] < ord[k - 1])); k--) {
				uint32_t x = ord[k];

				ord[k] = ord[k - 1];
				ord[k - 1] = x;
			}
		if (m > 12)
			return 0;
		if (m == 0)
			continue;
		for (cut = 0; cut < 1U << (m - 1 + gv); cut++)
			if (epochs_ok(p, r, s, ord, m, cut, gv, glast))
				break;
		if (cut == 1U << (m - 1 + gv))
			return 0;
	}
	return 1;
}

static uint64_t
search(const struct fprob *p, unsigned flags, uint64_t target,
    uint64_t nodes, struct wsearch_result *r)
{
	struct wsearch_opts o = { target, nodes, 0, NULL, flags };
	char err[200];

	if (wsearch_run(p, &o, r, err, sizeof(err)) != 0) {
		printf("# wsearch: %s\n", err);
		return 0;
	}
	return r->value;
}

/*
 * The switch model: rules on and off agree, the MILP's optimum is the
 * search's, every schedule of either keeps the epochs, the search's
 * encodes as a point of the model, and no optimum is below the port
 * model's.
 */
static void
switch_cases(int ports, int count)
{
	int i, bad = 0, badm = 0, badv = 0, bade = 0, below = 0, badt = 0;

	for (i = 0; i < count; i++) {
		struct wsearch_result r, q, pm, t, ms;
		struct fprob p;
		uint64_t v, v0, vp, m;

		random_problem(&p, ports);
		p.model = NET_PORT;
		vp = search(&p, 0, 0, 0, &pm);
		p.model = NET_SWITCH;
		v = search(&p, 0, 0, 0, &r);
		v0 = search(&p, WSEARCH_NOSYM | WSEARCH_NOSWAP |
		    WSEARCH_NOLOAD, 0, 0, &q);
		m = milp_sched(&p, &ms);
		if (v != v0 || r.status != WSEARCH_OPTIMAL) {
			bad++;
			printf("# switch case %d: %llu, without rules %llu\n",
			    i, (unsigned long long)v, (unsigned long long)v0);
		}
		if (v != m) {
			badm++;
			printf("# switch case %d%s: search %llu, milp %llu\n",
			    i, ports ? " with ports" : "",
			    (unsigned long long)v, (unsigned long long)m);
		}
		if (!valid(&p, &r) || !switch_valid(&p, &r) ||
		    !valid(&p, &q) || !switch_valid(&p, &q) ||
		    (m != UINT64_MAX && (ms.value != m || !valid(&p, &ms) ||
		    !switch_valid(&p, &ms))))
			badv++;
		if (!encodes(&p, &r, v))
			bade++;
		below += v < vp;
		search(&p, 0, v, 0, &t);
		if (t.status != WSEARCH_ABOVE || t.bound != v)
			badt++;
		wsearch_result_free(&r);
		wsearch_result_free(&q);
		wsearch_result_free(&pm);
		wsearch_result_free(&t);
		wsearch_result_free(&ms);
		fprob_free(&p);
	}
	ok(bad == 0, "%d random problems under the switch model%s: the "
	    "rules keep the optimum (%d differ)", count,
	    ports ? " with port states" : "", bad);
	ok(badm == 0, "the MILP's optimum is the search's (%d differ)", badm);
	ok(badv == 0, "every schedule of either keeps the pairwise rules "
	    "and the epochs (%d fail)", badv);
	ok(bade == 0, "the search's schedule encodes as a point of the "
	    "model, of its makespan (%d fail)", bade);
	ok(below == 0, "no switch-model optimum below the port model's (%d)",
	    below);
	ok(badt == 0, "the optimum as target proves itself (%d fail)", badt);
}

static void
random_cases(int ports, int count)
{
	int i, bad = 0, badv = 0, badrule = 0, badcut = 0, badt = 0;
	uint64_t nodes_on = 0, nodes_off = 0;

	for (i = 0; i < count; i++) {
		struct wsearch_result r, q, c, t;
		struct fprob p;
		uint64_t v, m, v0;

		random_problem(&p, ports);
		v = search(&p, 0, 0, 0, &r);
		v0 = search(&p, WSEARCH_NOSYM | WSEARCH_NOSWAP |
		    WSEARCH_NOLOAD, 0, 0, &q);
		m = milp_opt(&p);
		nodes_on += r.nodes;
		nodes_off += q.nodes;
		if (v != m || r.status != WSEARCH_OPTIMAL) {
			bad++;
			printf("# case %d: search %llu, milp %llu\n", i,
			    (unsigned long long)v, (unsigned long long)m);
		}
		if (!valid(&p, &r) || !valid(&p, &q) || !encodes(&p, &r, v))
			badv++;
		if (v0 != v)
			badrule++;
		/* A node limit: the bound stays at or below the optimum. */
		search(&p, 0, 0, 1 + r.nodes / 3, &c);
		if (c.bound > v || (c.status == WSEARCH_OPTIMAL &&
		    c.value != v) || (c.value != UINT64_MAX && c.value < v))
			badcut++;
		/* The optimum as a target: none below it, bound = it. */
		search(&p, 0, v, 0, &t);
		if (t.status != WSEARCH_ABOVE || t.bound != v)
			badt++;
		wsearch_result_free(&r);
		wsearch_result_free(&q);
		wsearch_result_free(&c);
		wsearch_result_free(&t);
		fprob_free(&p);
	}
	ok(bad == 0, "%d random problems%s: the search's optimum is the "
	    "MILP's (%d differ)", count, ports ? " with port states" : "",
	    bad);
	ok(badv == 0, "every schedule it returns passes the pairwise check "
	    "and encodes as a point of the model (%d fail)", badv);
	ok(badrule == 0, "the pruning rules keep the optimum (%d differ; "
	    "%llu nodes with them, %llu without)", badrule,
	    (unsigned long long)nodes_on, (unsigned long long)nodes_off);
	ok(badcut == 0, "a node limit leaves a bound at or below the "
	    "optimum (%d fail)", badcut);
	ok(badt == 0, "the optimum as target proves itself as bound (%d "
	    "fail)", badt);
}

/*
 * Hand-worked, one switch, tau 50, port 0 left holding a circuit to 1,
 * its sends ending at 20 and its last use at 30: 0->1 of 100, 0->2 of
 * 10, 4->5 of 200.  Port model: 0->1 in [20,120), 0->2 tau later in
 * [170,180), 4->5 in [0,200): 200.  Switch model: the switch is in the
 * epoch the fixed part left, which 0->2 cannot join (port 0 has
 * partner 1 there), so a new epoch starts tau after every use of the
 * old one: 4->5 in the old epoch puts it at 250, 0->2 ending at 260;
 * in the new one, 4->5 ends at 280 at least: 260.  With partner 2
 * instead, 0->2 joins the old epoch in [20,30), 0->1 cannot: the new
 * epoch starts at 80 with 4->5 in it, [80,280), or at 250 after 4->5
 * in the old one, 0->1 ending at 350: 280.
 */
static void
hand_given(void)
{
	struct fptask x[3] = {
		{ 0, DAG_TRANSFER, 0, 1, 100, 100, 0, 0 },
		{ 1, DAG_TRANSFER, 0, 2, 10, 10, 0, 0 },
		{ 2, DAG_TRANSFER, 4, 5, 200, 200, 0, 0 } };
	struct fpport g = { 0, 0, 1, 20, 0, 30 };
	struct wsearch_result r;
	struct fprob p;
	uint64_t v, m;
	size_t i;

	fprob_init(&p);
	p.switches = 1;
	p.tau = 50;
	for (i = 0; i < 3; i++)
		if (fprob_task(&p, &x[i]) != 0)
			abort();
	if (fprob_port(&p, &g) != 0)
		abort();
	v = search(&p, 0, 0, 0, &r);
	m = milp_opt(&p);
	ok(v == 200 && m == 200, "a given port, port model: 200 (search "
	    "%llu, MILP %llu)", (unsigned long long)v, (unsigned long long)m);
	wsearch_result_free(&r);
	p.model = NET_SWITCH;
	v = search(&p, 0, 0, 0, &r);
	m = milp_opt(&p);
	ok(v == 260 && m == 260, "switch model: the old epoch's uses delay "
	    "the new one: 260 (search %llu, MILP %llu)",
	    (unsigned long long)v, (unsigned long long)m);
	wsearch_result_free(&r);
	p.port[0].partner = 2;
	v = search(&p, 0, 0, 0, &r);
	m = milp_opt(&p);
	ok(v == 280 && m == 280, "and with partner 2, 0->2 joins the old "
	    "epoch: 280 (search %llu, MILP %llu)", (unsigned long long)v,
	    (unsigned long long)m);
	wsearch_result_free(&r);
	fprob_free(&p);
}

/*
 * Hand-worked, one switch, tau 50: 0->1 of 100, 2->3 and 2->4 of 10.
 * Port model: GPU 2 changes partner while 0->1 runs on: 100.  Switch
 * model: the change darkens 0->1 too: it runs in the first epoch or
 * the second, and 2->4 starts 50 after the other two end: 160.
 */
static void
hand_switch(void)
{
	struct fptask x[3] = {
		{ 0, DAG_TRANSFER, 0, 1, 100, 100, 0, 0 },
		{ 1, DAG_TRANSFER, 2, 3, 10, 10, 0, 0 },
		{ 2, DAG_TRANSFER, 2, 4, 10, 10, 0, 0 } };
	struct wsearch_result r;
	struct fprob p;
	uint64_t v, m;
	size_t i;

	fprob_init(&p);
	p.switches = 1;
	p.tau = 50;
	for (i = 0; i < 3; i++)
		if (fprob_task(&p, &x[i]) != 0)
			abort();
	v = search(&p, 0, 0, 0, &r);
	ok(v == 100, "port model: a change beside a running circuit costs "
	    "nothing to it: 100 (%llu)", (unsigned long long)v);
	wsearch_result_free(&r);
	p.model = NET_SWITCH;
	v = search(&p, 0, 0, 0, &r);
	m = milp_opt(&p);
	ok(v == 160 && m == 160, "switch model: it darkens the running "
	    "circuit: 160 (search %llu, MILP %llu)", (unsigned long long)v,
	    (unsigned long long)m);
	wsearch_result_free(&r);
	p.switches = 2;
	v = search(&p, 0, 0, 0, &r);
	m = milp_opt(&p);
	ok(v == 100 && m == 100, "and on two switches the change goes to the "
	    "other: 100 (search %llu, MILP %llu)", (unsigned long long)v,
	    (unsigned long long)m);
	wsearch_result_free(&r);
	fprob_free(&p);
	hand_given();
}

/* Hand-worked: GPU 0 sends 100 to 1 and 30 to 2 on one switch. */
static void
hand(void)
{
	struct fptask a = { 0, DAG_TRANSFER, 0, 1, 100, 100, 0, 0 };
	struct fptask b = { 1, DAG_TRANSFER, 0, 2, 30, 30, 0, 0 };
	struct wsearch_result r;
	struct fprob p;
	uint64_t v;

	fprob_init(&p);
	p.switches = 1;
	p.tau = 50;
	if (fprob_task(&p, &a) != 0 || fprob_task(&p, &b) != 0)
		abort();
	ok(search(&p, 0, 0, 0, &r) == 180 && r.status == WSEARCH_OPTIMAL,
	    "a second partner on one switch costs tau: 180");
	wsearch_result_free(&r);
	p.switches = 2;
	ok(search(&p, 0, 0, 0, &r) == 100, "and nothing on two: 100");
	wsearch_result_free(&r);
	p.switches = 1;
	ok(search(&p, 0, 181, 0, &r) == 180, "a target above the optimum "
	    "finds it");
	wsearch_result_free(&r);
	v = search(&p, 0, 150, 0, &r);
	ok(v == UINT64_MAX && r.status == WSEARCH_ABOVE && r.bound == 180,
	    "a target below it: none, and the root bound is the optimum, "
	    "for GPU 0 has two partners on one port (%llu)",
	    (unsigned long long)r.bound);
	wsearch_result_free(&r);
	fprob_free(&p);
	hand_switch();
}

int
main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 120;

	hand();
	random_cases(0, count);
	random_cases(1, count);
	switch_cases(0, count);
	switch_cases(1, count);
	return tap_done();
}
