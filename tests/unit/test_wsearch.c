/*
 * Unit tests of lib/wsearch: on random small problems (releases, tails,
 * arcs with lags, compute tasks, ports with a given state), the
 * search's optimum with every pruning rule on equals the optimum with
 * them off and the MILP's (lib/fmodel with CBC); every schedule it
 * returns passes an independent check of the pairwise rules; a target
 * proves a bound; a node limit leaves a valid bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "fmodel.h"
#include "milp.h"
#include "net.h"
#include "tap.h"
#include "wsearch.h"

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

/* The MILP's optimum in ps, or UINT64_MAX when it proves none. */
static uint64_t
milp_opt(struct fprob *p)
{
	struct milp_opts o = { "cbc", 60, NULL, NULL, 0, 1e-4 };
	struct milp_result r;
	struct fmodel f;
	uint64_t v = UINT64_MAX;
	char err[200];

	p->horizon = horizon(p);
	if (fmodel_build(p, &f) != 0)
		abort();
	if (milp_solve(&f.m, &o, &r, err, sizeof(err)) == 0 &&
	    r.status == MILP_OPTIMAL)
		v = (uint64_t)(r.objective * 1000.0 + 0.5);
	milp_result_free(&r);
	fmodel_free(&f);
	return v;
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
 * on the switch ended.  Tries every partition into epochs (at most 8
 * transfers per switch here: 128 of them).
 */
static int
conflict(const struct fptask *x, const struct fptask *y)
{
	int same = (x->a == y->a && x->b == y->b) ||
	    (x->a == y->b && x->b == y->a);

	return !same && (x->a == y->a || x->a == y->b || x->b == y->a ||
	    x->b == y->b);
}

/* No two transfers of one epoch (no cut between them) conflict. */
static int
epochs_ok(const struct fprob *p, const uint32_t *ord, size_t m,
    unsigned cut)
{
	size_t i, k;

	for (i = 0; i < m; i++)
		for (k = i; k-- > 0;) {
			if (cut >> k & 1)
				break;	/* an epoch ends after k */
			if (conflict(&p->t[ord[i]], &p->t[ord[k]]))
				return 0;
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
		if (m > 9)
			return 0;
		for (cut = 0; cut < (1U << (m > 0 ? m - 1 : 0)); cut++) {
			int good = epochs_ok(p, ord, m, cut);

			for (i = 1; good && i < m; i++) {
				uint64_t end = 0;

				if (!(cut >> (i - 1) & 1))
					continue;
				for (k = 0; k < i; k++)
					if (r->start[ord[k]] +
					    p->t[ord[k]].len > end)
						end = r->start[ord[k]] +
						    p->t[ord[k]].len;
				if (end + p->tau > r->start[ord[i]])
					good = 0;
			}
			if (good)
				break;
		}
		if (m > 0 && cut == (1U << (m - 1)))
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
 * The switch model: rules on and off agree, every schedule keeps the
 * epochs, and no optimum is below the port model's.
 */
static void
switch_cases(int count)
{
	int i, bad = 0, badv = 0, below = 0, badt = 0;

	for (i = 0; i < count; i++) {
		struct wsearch_result r, q, pm, t;
		struct fprob p;
		uint64_t v, v0, vp;

		random_problem(&p, 0);
		p.model = NET_PORT;
		vp = search(&p, 0, 0, 0, &pm);
		p.model = NET_SWITCH;
		v = search(&p, 0, 0, 0, &r);
		v0 = search(&p, WSEARCH_NOSYM | WSEARCH_NOSWAP |
		    WSEARCH_NOLOAD, 0, 0, &q);
		if (v != v0 || r.status != WSEARCH_OPTIMAL) {
			bad++;
			printf("# switch case %d: %llu, without rules %llu\n",
			    i, (unsigned long long)v, (unsigned long long)v0);
		}
		if (!valid(&p, &r) || !switch_valid(&p, &r) ||
		    !valid(&p, &q) || !switch_valid(&p, &q))
			badv++;
		below += v < vp;
		search(&p, 0, v, 0, &t);
		if (t.status != WSEARCH_ABOVE || t.bound != v)
			badt++;
		wsearch_result_free(&r);
		wsearch_result_free(&q);
		wsearch_result_free(&pm);
		wsearch_result_free(&t);
		fprob_free(&p);
	}
	ok(bad == 0, "%d random problems under the switch model: the rules "
	    "keep the optimum (%d differ)", count, bad);
	ok(badv == 0, "every schedule keeps the pairwise rules and the "
	    "epochs (%d fail)", badv);
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
		if (!valid(&p, &r) || !valid(&p, &q))
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
	    "(%d fail)", badv);
	ok(badrule == 0, "the pruning rules keep the optimum (%d differ; "
	    "%llu nodes with them, %llu without)", badrule,
	    (unsigned long long)nodes_on, (unsigned long long)nodes_off);
	ok(badcut == 0, "a node limit leaves a bound at or below the "
	    "optimum (%d fail)", badcut);
	ok(badt == 0, "the optimum as target proves itself as bound (%d "
	    "fail)", badt);
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
	uint64_t v;
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
	ok(v == 160, "switch model: it darkens the running circuit: 160 "
	    "(%llu)", (unsigned long long)v);
	wsearch_result_free(&r);
	p.switches = 2;
	v = search(&p, 0, 0, 0, &r);
	ok(v == 100, "and on two switches the change goes to the other: 100 "
	    "(%llu)", (unsigned long long)v);
	wsearch_result_free(&r);
	fprob_free(&p);
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
	int count = argc > 1 ? atoi(argv[1]) : 300;

	hand();
	random_cases(0, count);
	random_cases(1, count);
	switch_cases(count);
	return tap_done();
}
