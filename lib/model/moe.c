/* moe: seeded routing of mixture-of-experts tokens, and its skew. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/moe.h"
#include "records/splitmix.h"

void
moe_rng_init(struct moe_rng *r, uint64_t seed, uint64_t a, uint64_t b,
    uint64_t c)
{
	uint64_t x = seed;
	int i;

	/* Each label goes through the mixer, so nearby labels part. */
	x = splitmix_next(&x) ^ a;
	x = splitmix_next(&x) ^ b;
	x = splitmix_next(&x) ^ c;
	for (i = 0; i < 4; i++)
		r->s[i] = splitmix_next(&x);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna). */
uint64_t
moe_rng_next(struct moe_rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* Uniform in (0, 1): 53 bits, never 0. */
double
moe_rng_unit(struct moe_rng *r)
{
	return ((moe_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static const char *
parse_num(const char *s, double *v)
{
	char *end;

	if (*s == '\0')
		return "missing number";
	*v = strtod(s, &end);
	if (*end != '\0' || !isfinite(*v))
		return "not a number";
	return NULL;
}

const char *
moe_parse_skew(const char *spec, struct moe_skew *k)
{
	const char *e;

	if (strcmp(spec, "uniform") == 0) {
		*k = (struct moe_skew){ MOE_UNIFORM, 0 };
		return NULL;
	}
	if (strncmp(spec, "dirichlet:", 10) == 0) {
		k->kind = MOE_DIRICHLET;
		if ((e = parse_num(spec + 10, &k->param)) != NULL)
			return e;
		return k->param > 0 ? NULL : "dirichlet alpha must be > 0";
	}
	if (strncmp(spec, "zipf:", 5) == 0) {
		k->kind = MOE_ZIPF;
		if ((e = parse_num(spec + 5, &k->param)) != NULL)
			return e;
		return k->param >= 0 && k->param <= 1000 ? NULL :
		    "zipf exponent must be 0 to 1000";
	}
	if (strncmp(spec, "gini:", 5) == 0) {
		k->kind = MOE_GINI;
		if ((e = parse_num(spec + 5, &k->param)) != NULL)
			return e;
		return k->param >= 0 && k->param < 1 ? NULL :
		    "gini must be at least 0 and below 1";
	}
	return "unknown skew (uniform, dirichlet:A, zipf:S, gini:G)";
}

/* A decimal C with at most 6 decimals, in millionths, up to 1000. */
const char *
moe_parse_capacity(const char *s, uint64_t *micro)
{
	uint64_t v = 0, f = 0;
	int nd = 0;

	if (*s < '0' || *s > '9')
		return "not a decimal number";
	for (; *s >= '0' && *s <= '9'; s++)
		if ((v = v * 10 + (uint64_t)(*s - '0')) > 1000)
			return "capacity factor above 1000";
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++) {
			if (nd++ < 6)
				f = f * 10 + (uint64_t)(*s - '0');
			else if (*s != '0')
				return "more than 6 decimals";
		}
	}
	if (*s != '\0')
		return "not a decimal number";
	for (; nd < 6; nd++)
		f *= 10;
	*micro = v * 1000000 + f;
	if (*micro > 1000000000ULL)
		return "capacity factor above 1000";
	return NULL;
}

double
moe_gini_d(const double *x, size_t n)
{
	double num = 0, sum = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		sum += x[i];
		for (j = 0; j < n; j++)
			num += fabs(x[i] - x[j]);
	}
	if (n == 0 || sum <= 0)
		return 0;
	return num / (2.0 * (double)n * sum);
}

double
moe_gini(const uint64_t *x, size_t n)
{
	unsigned __int128 num = 0, sum = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		sum += x[i];
		for (j = i + 1; j < n; j++)
			num += x[i] > x[j] ? x[i] - x[j] : x[j] - x[i];
	}
	if (n == 0 || sum == 0)
		return 0;
	/* Each unordered pair counted once: sum |.| / (n sum). */
	return (double)num / ((double)n * (double)sum);
}

/* Fisher-Yates: perm[i] is the Zipf rank (from 0) of expert i. */
static void
permute(struct moe_rng *r, uint32_t *perm, uint32_t n)
{
	uint32_t i, j, t;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n; i > 1; i--) {
		j = (uint32_t)(moe_rng_next(r) % i);
		t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

static void
zipf(double s, const uint32_t *perm, uint32_t n, double *p)
{
	double sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		sum += p[i] = pow((double)perm[i] + 1, -s);
	for (i = 0; i < n; i++)
		p[i] /= sum;
}

static const char *
gini_zipf(double g, const uint32_t *perm, uint32_t n, double *p)
{
	double lo = 0, hi = 1, mid;
	int i;

	if (g >= (double)(n - 1) / n)
		return "gini must be below (experts - 1) / experts";
	for (zipf(hi, perm, n, p); moe_gini_d(p, n) < g;
	    zipf(hi, perm, n, p))
		if ((hi *= 2) > 1e4)
			return "gini too close to its maximum";
	for (i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
		mid = (lo + hi) / 2;
		zipf(mid, perm, n, p);
		if (moe_gini_d(p, n) < g)
			lo = mid;
		else
			hi = mid;
	}
	zipf((lo + hi) / 2, perm, n, p);
	if (fabs(moe_gini_d(p, n) - g) > 1e-9)
		return "gini not reached within 1e-9";
	return NULL;
}

static double
normal(struct moe_rng *r)
{
	double u, v, s;

	do {
		u = 2 * moe_rng_unit(r) - 1;
		v = 2 * moe_rng_unit(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	return u * sqrt(-2 * log(s) / s);
}

/* log of a Gamma(a, 1) draw: Marsaglia and Tsang, boosted below 1. */
static double
log_gamma_draw(struct moe_rng *r, double a)
{
	double boost = 0, d, c, x, v, u;

	if (a < 1) {
		boost = log(moe_rng_unit(r)) / a;
		a += 1;
	}
	d = a - 1.0 / 3;
	c = 1 / sqrt(9 * d);
	for (;;) {
		do {
			x = normal(r);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		u = moe_rng_unit(r);
		if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
			return log(d * v) + boost;
	}
}

static void
dirichlet(struct moe_rng *r, double a, uint32_t n, double *p)
{
	double mx = -HUGE_VAL, sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		if ((p[i] = log_gamma_draw(r, a)) > mx)
			mx = p[i];
	for (i = 0; i < n; i++)
		sum += p[i] = exp(p[i] - mx);
	for (i = 0; i < n; i++)
		p[i] /= sum;
}

/*
 * Largest remainder: q[i] = floor(total x num[i] / den) plus one for
 * the `total - sum' largest remainders, ties to the one that comes
 * first in order[].  den > 0 and the num[] sum to den.
 */
static void
apportion(uint64_t total, const uint64_t *num, uint64_t den, uint32_t n,
    const uint32_t *order, uint64_t *q)
{
	unsigned __int128 prod;
	uint64_t rem[MOE_MAX_EXPERTS], given = 0, best;
	uint32_t i, j, bi;

	for (i = 0; i < n; i++) {
		prod = (unsigned __int128)total * num[i];
		q[i] = (uint64_t)(prod / den);
		rem[i] = (uint64_t)(prod % den);
		given += q[i];
	}
	/* The fractions sum to total - given: enough remainders are > 0. */
	for (; given < total; given++) {
		best = 0;
		bi = order[0];
		for (j = 0; j < n; j++)
			if (rem[order[j]] > best)
				best = rem[bi = order[j]];
		q[bi]++;
		rem[bi] = 0;
	}
}

const char *
moe_popularity(const struct moe_skew *k, uint32_t experts, uint64_t seed,
    uint32_t layer, double *p, uint64_t *w)
{
	uint64_t num[MOE_MAX_EXPERTS];
	uint32_t perm[MOE_MAX_EXPERTS], order[MOE_MAX_EXPERTS], i;
	struct moe_rng r;
	const char *e = NULL;

	if (experts < 1 || experts > MOE_MAX_EXPERTS)
		return "experts must be 1 to 256";
	moe_rng_init(&r, seed, 1, layer, 0);
	for (i = 0; i < experts; i++) {
		p[i] = 1.0 / experts;
		order[i] = i;
	}
	switch (k->kind) {
	case MOE_DIRICHLET:
		dirichlet(&r, k->param, experts, p);
		break;
	case MOE_ZIPF:
		permute(&r, perm, experts);
		zipf(k->param, perm, experts, p);
		break;
	case MOE_GINI:
		permute(&r, perm, experts);
		if (experts < 2)
			e = k->param == 0 ? NULL : "gini needs 2 experts";
		else
			e = gini_zipf(k->param, perm, experts, p);
		break;
	}
	if (e != NULL)
		return e;
	/* Weights from p in units of 2^-53, then apportioned to 2^32. */
	for (i = 0; i < experts; i++)
		num[i] = k->kind == MOE_UNIFORM ? 1 :
		    (uint64_t)llround(ldexp(p[i], 53));
	{
		uint64_t den = 0;

		for (i = 0; i < experts; i++)
			den += num[i];
		apportion(MOE_WSUM, num, den, experts, order, w);
	}
	return NULL;
}

/* The expert of a draw u in [0, MOE_WSUM): the first cumulative > u. */
static uint32_t
pick(const uint64_t *cum, uint32_t n, uint64_t u)
{
	uint32_t lo = 0, hi = n - 1, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (cum[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

const char *
moe_route(const uint64_t *w, uint32_t experts, const uint64_t *tokens,
    uint32_t nsrc, uint32_t k, int sample, struct moe_rng *r,
    uint64_t *counts)
{
	uint64_t cum[MOE_MAX_EXPERTS], n, a, sum = 0, *row;
	uint32_t order[MOE_MAX_EXPERTS], s, e;
	int uniform = 1;

	if (experts < 1 || experts > MOE_MAX_EXPERTS)
		return "experts must be 1 to 256";
	if (k < 1 || k > experts)
		return "top-k must be 1 to the number of experts";
	for (e = 0; e < experts; e++) {
		cum[e] = sum += w[e];
		uniform &= w[e] == w[0];
	}
	if (sum != MOE_WSUM)
		return "weights do not sum to 2^32";
	for (s = 0; s < nsrc; s++) {
		if (tokens[s] > UINT64_MAX / k)
			return "tokens x k overflows";
		n = tokens[s] * k;
		row = counts + (size_t)s * experts;
		if (!sample || uniform) {
			for (e = 0; e < experts; e++)
				order[e] = (s + e) % experts;
			apportion(n, w, MOE_WSUM, experts, order, row);
			continue;
		}
		memset(row, 0, experts * sizeof(*row));
		for (a = 0; a < n; a++)
			row[pick(cum, experts, moe_rng_next(r) >> 32)]++;
	}
	return NULL;
}

/*
 * Cap one expert's column (stride apart) at cap < its total: floors
 * first, then one more to each of the largest remainders.
 */
static void
cap_column(uint64_t *col, uint64_t *drop, size_t stride, uint32_t nsrc,
    uint64_t cap, uint64_t total)
{
	uint64_t kept = 0, q, best, rem, chosen[MOE_MAX_EXPERTS / 64] = { 0 };
	uint32_t s, bs;

	for (s = 0; s < nsrc; s++) {
		q = (uint64_t)((unsigned __int128)cap * col[s * stride] /
		    total);
		drop[s * stride] = col[s * stride] - q;
		col[s * stride] = q;
		kept += q;
	}
	for (; kept < cap; kept++) {
		best = 0;
		bs = 0;
		for (s = 0; s < nsrc; s++) {
			if (chosen[s / 64] >> (s % 64) & 1)
				continue;
			rem = (uint64_t)((unsigned __int128)cap *
			    (col[s * stride] + drop[s * stride]) % total);
			if (rem > best) {
				best = rem;
				bs = s;
			}
		}
		chosen[bs / 64] |= 1ULL << (bs % 64);
		col[bs * stride]++;
		drop[bs * stride]--;
	}
}

const char *
moe_capacity(uint64_t *counts, uint32_t nsrc, uint32_t experts,
    uint64_t micro, uint64_t *drop, uint64_t *capp)
{
	unsigned __int128 all = 0, cap;
	uint64_t col;
	uint32_t s, e;
	size_t i;

	if (experts < 1 || experts > MOE_MAX_EXPERTS)
		return "experts must be 1 to 256";
	if (nsrc > MOE_MAX_EXPERTS)
		return "more than 256 sources";
	memset(drop, 0, (size_t)nsrc * experts * sizeof(*drop));
	for (i = 0; i < (size_t)nsrc * experts; i++)
		all += counts[i];
	if (all > UINT64_MAX)
		return "assignments overflow 64 bits";
	cap = all * micro / ((unsigned __int128)experts * 1000000);
	if (micro == 0 || cap > UINT64_MAX)
		cap = UINT64_MAX;
	*capp = (uint64_t)cap;
	if (micro == 0)
		return NULL;
	for (e = 0; e < experts; e++) {
		col = 0;
		for (s = 0; s < nsrc; s++)
			col += counts[(size_t)s * experts + e];
		if (col > cap)
			cap_column(counts + e, drop + e, experts, nsrc,
			    (uint64_t)cap, col);
	}
	return NULL;
}
