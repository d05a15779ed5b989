/*
 * Unit tests of lib/model/moe: the generator, skews, routing, capacity and
 * the Gini coefficient.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model/moe.h"
#include "tap.h"

#define E	8
#define S	4

static uint64_t
rowsum(const uint64_t *c, uint32_t s)
{
	uint64_t t = 0;
	uint32_t e;

	for (e = 0; e < E; e++)
		t += c[s * E + e];
	return t;
}

static void
gini(void)
{
	uint64_t a[] = { 1, 1, 1, 1 }, b[] = { 0, 0, 0, 1 }, z[] = { 0, 0 };
	uint64_t c[] = { 1, 2, 3, 4 };
	double d[] = { 0, 0, 0, 1 };

	ok(moe_gini(a, 4) == 0, "gini [1,1,1,1] = 0");
	ok(moe_gini(b, 4) == 0.75, "gini [0,0,0,1] = 0.75");
	ok(moe_gini_d(d, 4) == 0.75, "gini_d [0,0,0,1] = 0.75");
	/* sum |xi-xj| over ordered pairs 20, / (2 x 4 x 10) */
	ok(moe_gini(c, 4) == 0.25, "gini [1,2,3,4] = 0.25: %g",
	    moe_gini(c, 4));
	ok(moe_gini(z, 2) == 0, "gini of zeros = 0");
}

static void
parse(void)
{
	struct moe_skew k;
	uint64_t m;

	ok(moe_parse_skew("uniform", &k) == NULL && k.kind == MOE_UNIFORM,
	    "uniform parses");
	ok(moe_parse_skew("dirichlet:0.5", &k) == NULL &&
	    k.kind == MOE_DIRICHLET && k.param == 0.5, "dirichlet parses");
	ok(moe_parse_skew("zipf:1.2", &k) == NULL && k.kind == MOE_ZIPF,
	    "zipf parses");
	ok(moe_parse_skew("gini:0.3", &k) == NULL && k.kind == MOE_GINI,
	    "gini parses");
	ok(moe_parse_skew("dirichlet:0", &k) != NULL, "dirichlet:0 refused");
	ok(moe_parse_skew("gini:1", &k) != NULL, "gini:1 refused");
	ok(moe_parse_skew("zipf:", &k) != NULL, "zipf: refused");
	ok(moe_parse_skew("pareto:1", &k) != NULL, "unknown refused");
	ok(moe_parse_capacity("1.25", &m) == NULL && m == 1250000,
	    "capacity 1.25 = 1250000 millionths");
	ok(moe_parse_capacity("0", &m) == NULL && m == 0, "capacity 0");
	ok(moe_parse_capacity("2.0000001", &m) != NULL,
	    "capacity with 7 decimals refused");
	ok(moe_parse_capacity("-1", &m) != NULL, "negative refused");
	ok(moe_parse_capacity("1001", &m) != NULL, "above 1000 refused");
}

static void
popularity(void)
{
	struct moe_skew k;
	double p[E], p2[E], g;
	uint64_t w[E], w2[E], sum;
	int i, same, ok1 = 1;
	const char *specs[] = { "dirichlet:0.3", "zipf:1", "gini:0.3" };

	moe_parse_skew("uniform", &k);
	moe_popularity(&k, E, 1, 0, p, w);
	for (i = 0; i < E; i++)
		ok1 &= w[i] == MOE_WSUM / E && p[i] == 1.0 / E;
	ok(ok1, "uniform: every weight 2^32/8");
	for (i = 0; i < 3; i++) {
		moe_parse_skew(specs[i], &k);
		moe_popularity(&k, E, 7, 3, p, w);
		moe_popularity(&k, E, 7, 3, p2, w2);
		same = memcmp(w, w2, sizeof(w)) == 0;
		moe_popularity(&k, E, 8, 3, p2, w2);
		ok(same && memcmp(w, w2, sizeof(w)) != 0,
		    "%s: same seed same weights, other seed others",
		    specs[i]);
		sum = 0;
		for (int j = 0; j < E; j++)
			sum += w[j];
		ok(sum == MOE_WSUM, "%s: weights sum to 2^32", specs[i]);
	}
	for (g = 0.1; g < 0.85; g += 0.15) {
		char spec[32];

		snprintf(spec, sizeof(spec), "gini:%.2f", g);
		const char *err;

		moe_parse_skew(spec, &k);
		err = moe_popularity(&k, E, 3, 0, p, w);
		ok(err == NULL && fabs(moe_gini_d(p, E) - k.param) <= 1e-9,
		    "%s: popularity gini within 1e-9: %.12f", spec,
		    moe_gini_d(p, E));
	}
	moe_parse_skew("gini:0.875", &k);
	ok(moe_popularity(&k, E, 3, 0, p, w) != NULL,
	    "gini 0.875 (= 7/8, the maximum) refused for 8 experts");
	moe_parse_skew("zipf:0", &k);
	moe_popularity(&k, E, 3, 0, p, w);
	ok(moe_gini_d(p, E) < 1e-15, "zipf:0 is uniform");
}

static void
routing(void)
{
	struct moe_skew k;
	struct moe_rng r;
	double p[E];
	uint64_t w[E], tok[S] = { 4096, 4096, 100, 7 }, c[S * E], c2[S * E];
	uint64_t drop[S * E], cap, col, kept, dropped;
	uint32_t s, e;
	int good;

	moe_parse_skew("uniform", &k);
	moe_popularity(&k, E, 1, 0, p, w);
	moe_route(w, E, tok, 2, 2, 1, &r, c);
	good = 1;
	for (e = 0; e < 2 * E; e++)
		good &= c[e] == 4096 * 2 / E;
	ok(good, "uniform: every count tokens x k / experts = 1024");
	moe_route(w, E, tok + 2, 1, 2, 1, &r, c);
	/* 200 = 8 x 25 */
	good = 1;
	for (e = 0; e < E; e++)
		good &= c[e] == 25;
	ok(good, "uniform: 100 tokens x 2 over 8 is 25 each");
	moe_route(w, E, tok + 3, 1, 2, 1, &r, c);
	ok(rowsum(c, 0) == 14 && c[0] == 2 && c[5] == 2 && c[6] == 1,
	    "uniform: 14 over 8, remainders to the first 6");

	moe_parse_skew("zipf:1.2", &k);
	moe_popularity(&k, E, 5, 2, p, w);
	moe_rng_init(&r, 5, 2, 0, 0);
	moe_route(w, E, tok, S, 2, 1, &r, c);
	good = 1;
	for (s = 0; s < S; s++)
		good &= rowsum(c, s) == tok[s] * 2;
	ok(good, "sampled: each row sums to tokens x k");
	moe_rng_init(&r, 5, 2, 0, 0);
	moe_route(w, E, tok, S, 2, 1, &r, c2);
	ok(memcmp(c, c2, sizeof(c)) == 0, "sampled: same seed same counts");
	moe_rng_init(&r, 6, 2, 0, 0);
	moe_route(w, E, tok, S, 2, 1, &r, c2);
	ok(memcmp(c, c2, sizeof(c)) != 0, "sampled: other seed differs");
	moe_route(w, E, tok, S, 2, 0, &r, c2);
	good = 1;
	for (s = 0; s < S; s++)
		good &= rowsum(c2, s) == tok[s] * 2;
	ok(good, "nominal: each row sums to tokens x k");
	/* nominal within 1 of tokens x k x w / 2^32 */
	good = 1;
	for (e = 0; e < E; e++)
		good &= fabs((double)c2[e] - 8192.0 * (double)w[e] /
		    4294967296.0) < 1;
	ok(good, "nominal: within one of the expectation");

	/* capacity 1.0 on the sampled counts */
	memcpy(c2, c, sizeof(c));
	moe_capacity(c2, S, E, 1000000, drop, &cap);
	/* T x k = 2 x (4096 + 4096 + 100 + 7) = 16598; / 8 = 2074.75 */
	ok(cap == 2074, "capacity 1.0: cap = floor(16598 / 8) = 2074");
	good = 1;
	dropped = 0;
	for (e = 0; e < E; e++) {
		col = kept = 0;
		for (s = 0; s < S; s++) {
			col += c2[s * E + e];
			kept += c[s * E + e];
			good &= c2[s * E + e] + drop[s * E + e] ==
			    c[s * E + e];
			dropped += drop[s * E + e];
		}
		good &= col <= cap && (kept <= cap || col == cap);
	}
	ok(good, "capacity: kept + dropped = routed, each expert at most "
	    "cap, full when it dropped");
	ok(dropped > 0, "zipf:1.2 at capacity 1 drops: %llu",
	    (unsigned long long)dropped);
	memcpy(c2, c, sizeof(c));
	moe_capacity(c2, S, E, 0, drop, &cap);
	ok(cap == UINT64_MAX && memcmp(c, c2, sizeof(c)) == 0,
	    "capacity 0: no cap, nothing dropped");
}

/* A column of 3 sources 5, 3, 2 capped at 5: floors 2.5, 1.5, 1. */
static void
capacity_rule(void)
{
	uint64_t c[3 * 2] = { 5, 0, 3, 10, 2, 0 }, drop[6], cap;

	/* all = 20, cap at C = 0.5: floor(0.5 x 20 / 2) = 5 */
	moe_capacity(c, 3, 2, 500000, drop, &cap);
	ok(cap == 5 && c[0] == 3 && c[2] == 1 && c[4] == 1 && c[1] == 0 &&
	    c[3] == 5 && drop[0] == 2 && drop[2] == 2 && drop[4] == 1 &&
	    drop[3] == 5,
	    "capacity: 5,3,2 capped at 5 keeps 3,1,1 (tie of remainders "
	    "to the lower source); 10 keeps 5: %llu %llu %llu",
	    (unsigned long long)c[0], (unsigned long long)c[2],
	    (unsigned long long)c[4]);
}

static void
gini_sampled(void)
{
	struct moe_skew k;
	struct moe_rng r;
	double p[E];
	uint64_t w[E], tok = 1000000, c[E];

	moe_parse_skew("gini:0.3", &k);
	moe_popularity(&k, E, 11, 0, p, w);
	moe_rng_init(&r, 11, 2, 0, 0);
	moe_route(w, E, &tok, 1, 2, 1, &r, c);
	ok(fabs(moe_gini(c, E) - 0.3) < 0.003,
	    "gini:0.3 over 2e6 assignments: %.5f", moe_gini(c, E));
}

static void
generator(void)
{
	struct moe_rng r = { { 1, 2, 3, 4 } };
	uint64_t a, b, c, d;

	/* xoshiro256** from state 1, 2, 3, 4: the reference outputs. */
	a = moe_rng_next(&r);
	b = moe_rng_next(&r);
	c = moe_rng_next(&r);
	d = moe_rng_next(&r);
	ok(a == 11520 && b == 0 && c == 1509978240 &&
	    d == 1215971899390074240ULL,
	    "xoshiro256** from {1,2,3,4}: %llu %llu %llu %llu",
	    (unsigned long long)a, (unsigned long long)b,
	    (unsigned long long)c, (unsigned long long)d);
	/* Pinned: a change of the seeding changes every trace. */
	moe_rng_init(&r, 0, 0, 0, 0);
	a = moe_rng_next(&r);
	ok(a == 0x8a21cd34a214a917ULL, "seed 0 first output: %016llx",
	    (unsigned long long)a);
}

int
main(void)
{
	gini();
	parse();
	popularity();
	routing();
	capacity_rule();
	gini_sampled();
	generator();
	return tap_done();
}
