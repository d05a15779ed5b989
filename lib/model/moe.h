/*
 * moe: seeded routing of mixture-of-experts tokens, and its skew.
 *
 * A model-layer module: no I/O, no exits; every function that can fail
 * returns NULL on success or a static message (lower case, no period).
 * The caller owns every array; nothing is allocated here.
 *
 * Randomness comes from the module's own generator, xoshiro256**
 * seeded through splitmix64, so that a seed gives the same stream on
 * every machine.  moe_rng_init() derives an independent stream from
 * a seed and three labels (for example layer, micro-batch, group), so
 * that a draw does not depend on the order in which draws are made.
 *
 * Popularity: moe_popularity() turns a skew (moe_parse_skew()) into a
 * probability per expert, p[], and the same as integer weights w[]
 * that sum to exactly MOE_WSUM (largest remainder, ties to the lower
 * expert).  Only p[] uses libm (pow, log, exp, sqrt); routing uses w[]
 * and integer arithmetic alone, so the counts of a given w[] are exact
 * everywhere.
 *   uniform	  every weight MOE_WSUM / experts (experts must divide
 *		  MOE_WSUM, that is be a power of two; else the remainder
 *		  goes to the lowest experts), no sampling at all.
 *   dirichlet:A  p drawn from Dirichlet(A, ..., A), A > 0.
 *   zipf:S	  p proportional to 1 / rank^S, S >= 0, ranks given to
 *		  the experts by a seeded permutation.
 *   gini:G	  zipf with the S, found by bisection, whose p[] has Gini
 *		  coefficient G within 1e-9; 0 <= G < (experts-1)/experts.
 *
 * moe_popularity(skew, experts, seed, layer, p, w): the popularity of
 * one layer, from its own stream (seed, layer).
 *
 * Routing: moe_route(w, experts, tokens, nsrc, k, sample, rng, counts)
 * gives counts[s * experts + e], the assignments
 * of source s to expert e.  Each source's tokens x k assignments are a
 * multinomial sample over w[], one categorical draw per assignment
 * (this approximates top-k without replacement: a token may pick the
 * same expert twice).  With sample 0 (and always for uniform) the
 * counts are the expected ones, tokens x k x w / MOE_WSUM, rounded by
 * largest remainder so that each row sums to exactly tokens x k; ties
 * go to the experts (s + i) mod experts for i = 0, 1, ..., so that the
 * remainders of a uniform split rotate over the sources.
 *
 * Capacity: moe_capacity(counts, nsrc, experts, micro, drop, &cap)
 * caps each expert at cap = floor(C x T x k / experts) assignments,
 * T x k the sum of all counts (every source's tokens x k), C given in
 * millionths (micro, from moe_parse_capacity(); 0 = no cap, and cap
 * comes back as UINT64_MAX); at most 256 sources.  counts[] becomes
 * what is kept, drop[] (same shape) what is dropped.  An expert over its
 * cap keeps from source s floor(cap x n_s / n) assignments, and the
 * assignments left over go one each to the sources of the largest
 * remainders (ties to the lower source).  Drops are returned per cell.
 *
 * moe_gini(): the Gini coefficient sum_i sum_j |x_i - x_j| /
 * (2 n sum_i x_i), 0 for equal values, (n-1)/n when one value holds
 * everything; 0 for an all-zero vector.
 */
#ifndef MOE_H
#define MOE_H

#include <stddef.h>
#include <stdint.h>

#define MOE_MAX_EXPERTS	256
#define MOE_WSUM	(1ULL << 32)

enum { MOE_UNIFORM, MOE_DIRICHLET, MOE_ZIPF, MOE_GINI };

struct moe_rng {
	uint64_t	s[4];
};

struct moe_skew {
	int	kind;
	double	param;
};

void		 moe_rng_init(struct moe_rng *, uint64_t, uint64_t, uint64_t,
		    uint64_t);
uint64_t	 moe_rng_next(struct moe_rng *);
double		 moe_rng_unit(struct moe_rng *);

const char	*moe_parse_skew(const char *, struct moe_skew *);
const char	*moe_parse_capacity(const char *, uint64_t *);
const char	*moe_popularity(const struct moe_skew *, uint32_t, uint64_t,
		    uint32_t, double *, uint64_t *);
const char	*moe_route(const uint64_t *, uint32_t, const uint64_t *,
		    uint32_t, uint32_t, int, struct moe_rng *, uint64_t *);
const char	*moe_capacity(uint64_t *, uint32_t, uint32_t, uint64_t,
		    uint64_t *, uint64_t *);
double		 moe_gini(const uint64_t *, size_t);
double		 moe_gini_d(const double *, size_t);

#endif
