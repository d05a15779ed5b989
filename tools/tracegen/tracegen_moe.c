/*
 * tracegen_moe: Mixtral 8x7B's mixture-of-experts blocks.
 *
 * Expert parallelism takes its ranks from the data-parallel ones, as
 * DeepSpeed and Megatron do: data-parallel position d is in the
 * expert-parallel group of positions d - d % ep ... d - d % ep + ep - 1,
 * at position d % ep, and holds experts [(d % ep) x E / ep, (d % ep + 1)
 * x E / ep).  The ranks of the same d % ep hold the same experts and
 * reduce their gradients.  The routing of a (step, micro-batch, layer,
 * expert-parallel group) is drawn from its own stream of the seed, so
 * every member of the group finds the same counts on its own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/mixtral.h"
#include "model/moe.h"
#include "records/die.h"
#include "records/stream.h"
#include "tracegen.h"

#define TOKEN_BYTES	(2 * LLAMA_HIDDEN)	/* one hidden vector, bf16 */
#define MAX_DRAWS	(1ULL << 33)		/* about a minute */

static uint32_t
rank_at(const struct cfg *c, uint32_t p, uint32_t d, uint32_t t)
{
	return (p * c->dp + d) * c->tp + t;
}

void
tgmoe_groups(struct gen *g)
{
	const struct cfg *c = &g->c;
	uint32_t nj = c->dp / c->ep, p, t, j, i, base = g->epbase;
	struct group *gr;

	for (p = 0; p < c->pp; p++)
		for (t = 0; t < c->tp; t++)
			for (j = 0; j < nj; j++) {
				gr = &g->grp[base + (p * c->tp + t) * nj + j];
				gr->n = c->ep;
				gr->rank = xcalloc(c->ep, sizeof(*gr->rank));
				for (i = 0; i < c->ep; i++)
					gr->rank[i] = rank_at(c, p,
					    j * c->ep + i, t);
			}
	base += c->pp * c->tp * nj;
	for (p = 0; p < c->pp; p++)
		for (t = 0; t < c->tp; t++)
			for (i = 0; i < c->ep; i++) {
				gr = &g->grp[base + (p * c->tp + t) * c->ep +
				    i];
				gr->n = nj;
				gr->rank = xcalloc(nj, sizeof(*gr->rank));
				for (j = 0; j < nj; j++)
					gr->rank[j] = rank_at(c, p,
					    j * c->ep + i, t);
			}
}

/* The current rank's expert-parallel group, counted from 0. */
static uint32_t
ep_index(const struct gen *g)
{
	return (g->p * g->c.tp + g->t) * (g->c.dp / g->c.ep) +
	    g->d / g->c.ep;
}

static uint32_t
edp_group(const struct gen *g)
{
	const struct cfg *c = &g->c;

	return g->epbase + c->pp * c->tp * (c->dp / c->ep) +
	    (g->p * c->tp + g->t) * c->ep + g->d % c->ep;
}

void
tgmoe_setup(struct gen *g)
{
	const struct cfg *c = &g->c;
	double p[MOE_MAX_EXPERTS];
	const char *e;
	uint32_t l;

	unsigned __int128 draws;

	if (c->mb * c->seq > UINT64_MAX / c->topk / TOKEN_BYTES)
		die("tokens x top-k x %u bytes overflow", TOKEN_BYTES);
	/*
	 * Each group's routing is drawn in the forward and again in the
	 * backward, each source's tokens x k: refuse what takes minutes.
	 */
	draws = (unsigned __int128)g->ranks * 2 * c->mb * c->seq *
	    c->topk * (c->layers / c->pp) * c->mbs * c->steps;
	if (!c->nominal && c->skew.kind != MOE_UNIFORM &&
	    draws > MAX_DRAWS)
		die("routing would draw %.3g assignments, more than %.3g: "
		    "fewer tokens, steps or micro-batches, or --nominal",
		    (double)draws, (double)MAX_DRAWS);
	g->pop = xcalloc((size_t)c->layers * c->experts, sizeof(*g->pop));
	for (l = 0; l < c->layers; l++)
		if ((e = moe_popularity(&c->skew, c->experts, c->seed, l, p,
		    g->pop + (size_t)l * c->experts)) != NULL)
			die("--skew %s: %s", c->skewspec, e);
}

/*
 * The counts kept[s x E + e] and drops of the current rank's group at
 * layer l, micro-batch m of the current step (ep x E each, caller's).
 */
static void
draw(const struct gen *g, uint32_t l, uint32_t m, uint64_t *kept,
    uint64_t *drop)
{
	const struct cfg *c = &g->c;
	uint64_t *tok, cap;
	struct moe_rng r;
	const char *e;
	uint32_t s;

	tok = xcalloc(c->ep, sizeof(*tok));
	for (s = 0; s < c->ep; s++)
		tok[s] = c->mb * c->seq;
	moe_rng_init(&r, c->seed, 2 | (uint64_t)l << 8,
	    (uint64_t)g->step * c->mbs + m, ep_index(g));
	if ((e = moe_route(g->pop + (size_t)l * c->experts, c->experts, tok,
	    c->ep, c->topk, !c->nominal, &r, kept)) != NULL ||
	    (e = moe_capacity(kept, c->ep, c->experts, c->capacity, drop,
	    &cap)) != NULL)
		die("routing layer %u: %s", l, e);
	free(tok);
}

/*
 * draw(), once per group: the members of a group are generated one
 * after the other and ask for the same routings in the same order, so
 * the first one draws them and keeps them for the others.
 */
static void
route(struct gen *g, uint32_t l, uint32_t m, uint64_t *kept,
    uint64_t *drop)
{
	size_t cell = (size_t)g->c.ep * g->c.experts, rec = 3 + 2 * cell;
	uint64_t *e;

	if (g->rcache == NULL || g->rgroup != ep_index(g)) {
		g->rgroup = ep_index(g);
		g->rn = 0;
		g->rrank = g->r;
		g->rpos = 0;
	} else if (g->rrank != g->r) {
		g->rrank = g->r;
		g->rpos = 0;
	}
	if (g->rpos == g->rn) {
		xgrow(&g->rcache, &g->rcap, (g->rn + 1) * rec,
		    sizeof(*g->rcache));
		e = g->rcache + g->rn++ * rec;
		e[0] = l;
		e[1] = m;
		e[2] = g->step;
		draw(g, l, m, e + 3, e + 3 + cell);
	}
	e = g->rcache + g->rpos++ * rec;
	if (e[0] != l || e[1] != m || e[2] != g->step)
		die("internal error: routing asked out of order");
	memcpy(kept, e + 3, cell * sizeof(*kept));
	memcpy(drop, e + 3 + cell, cell * sizeof(*drop));
}

/* Bytes from source s to each member q: its tokens for q's experts. */
static uint64_t *
dispatch_sizes(const struct cfg *c, const uint64_t *kept, uint32_t s)
{
	uint64_t *sz = xcalloc(c->ep, sizeof(*sz));
	uint32_t per = c->experts / c->ep, q, e;

	for (q = 0; q < c->ep; q++)
		for (e = q * per; e < (q + 1) * per; e++)
			sz[q] += kept[(size_t)s * c->experts + e] * TOKEN_BYTES;
	return sz;
}

/* Bytes from member q back to each source s: the transpose. */
static uint64_t *
combine_sizes(const struct cfg *c, const uint64_t *kept, uint32_t q)
{
	uint64_t *sz = xcalloc(c->ep, sizeof(*sz));
	uint32_t per = c->experts / c->ep, s, e;

	for (s = 0; s < c->ep; s++)
		for (e = q * per; e < (q + 1) * per; e++)
			sz[s] += kept[(size_t)s * c->experts + e] * TOKEN_BYTES;
	return sz;
}

static struct llama_cost
experts_cost(const struct gen *g, const uint64_t *kept)
{
	const struct cfg *c = &g->c;
	uint32_t per = c->experts / c->ep, pos = g->d % c->ep, i, s;
	uint64_t n[MOE_MAX_EXPERTS] = { 0 };

	for (i = 0; i < per; i++)
		for (s = 0; s < c->ep; s++)
			n[i] += kept[(size_t)s * c->experts + pos * per + i];
	return mixtral_experts(&g->sh, n, per);
}

uint32_t
tgmoe_forward(struct gen *g, uint32_t l, uint32_t m, uint32_t chain)
{
	const struct cfg *c = &g->c;
	uint32_t pos = g->d % c->ep, gi = g->epbase + ep_index(g), e;
	uint64_t *kept, *drop, tokens = c->mb * c->seq;
	char nm[48];

	kept = xcalloc((size_t)c->ep * c->experts, sizeof(*kept));
	drop = xcalloc((size_t)c->ep * c->experts, sizeof(*drop));
	route(g, l, m, kept, drop);
	for (e = 0; e < c->experts; e++)
		g->dropped += drop[(size_t)pos * c->experts + e];
	snprintf(nm, sizeof(nm), "l%u.fwd.router", l);
	chain = compute(g, nm, mixtral_router(&g->sh, tokens), chain);
	snprintf(nm, sizeof(nm), "l%u.fwd.dispatch", l);
	chain = alltoall(g, nm, gi, dispatch_sizes(c, kept, pos), chain);
	snprintf(nm, sizeof(nm), "l%u.fwd.experts", l);
	chain = compute(g, nm, experts_cost(g, kept), chain);
	snprintf(nm, sizeof(nm), "l%u.fwd.combine", l);
	chain = alltoall(g, nm, gi, combine_sizes(c, kept, pos), chain);
	free(kept);
	free(drop);
	return chain;
}

/*
 * The backward of the block: the combine's gradients go back along the
 * dispatch's sizes, the dispatch's along the combine's.  In the last
 * micro-batch the experts' gradients are reduced over the ranks that
 * hold the same experts, as soon as the experts' backward ends.
 */
uint32_t
tgmoe_backward(struct gen *g, uint32_t l, uint32_t m, uint32_t chain,
    int last, uint32_t *ends, uint32_t *nends)
{
	const struct cfg *c = &g->c;
	uint32_t pos = g->d % c->ep, gi = g->epbase + ep_index(g), w;
	uint64_t *kept, *drop, tokens = c->mb * c->seq;
	char nm[48];

	kept = xcalloc((size_t)c->ep * c->experts, sizeof(*kept));
	drop = xcalloc((size_t)c->ep * c->experts, sizeof(*drop));
	route(g, l, m, kept, drop);
	snprintf(nm, sizeof(nm), "l%u.bwd.combine", l);
	chain = alltoall(g, nm, gi, dispatch_sizes(c, kept, pos), chain);
	snprintf(nm, sizeof(nm), "l%u.bwd.experts", l);
	chain = w = compute(g, nm, llama_twice(experts_cost(g, kept)), chain);
	if (last) {
		snprintf(nm, sizeof(nm), "l%u.experts.grad.ar", l);
		grad_ar_on(g, nm, edp_group(g), (uint64_t)(c->experts /
		    c->ep) * MIXTRAL_EXPERT_PARAMS, w, ends, nends);
	}
	snprintf(nm, sizeof(nm), "l%u.bwd.dispatch", l);
	chain = alltoall(g, nm, gi, combine_sizes(c, kept, pos), chain);
	snprintf(nm, sizeof(nm), "l%u.bwd.router", l);
	chain = compute(g, nm, llama_twice(mixtral_router(&g->sh, tokens)),
	    chain);
	free(kept);
	free(drop);
	return chain;
}

uint64_t
tgmoe_stage_params(const struct gen *g)
{
	const struct cfg *c = &g->c;
	uint64_t p;

	p = (MIXTRAL_DENSE_PARAMS + (uint64_t)(c->experts / c->ep) *
	    MIXTRAL_EXPERT_PARAMS) * (c->layers / c->pp);
	if (c->embed && g->p == 0)
		p += MIXTRAL_EMBED_PARAMS;
	if (c->embed && g->p == c->pp - 1)
		p += MIXTRAL_EMBED_PARAMS;
	return p;
}

/* The eight keys of the workload record after Llama's eighteen. */
void
tgmoe_workload(msgpack_packer *pk, const struct gen *g)
{
	const struct cfg *c = &g->c;

	stream_pack_ku64(pk, "ep", c->ep);
	stream_pack_ku64(pk, "experts", c->experts);
	stream_pack_ku64(pk, "topk", c->topk);
	stream_pack_kstr(pk, "skew", c->skewspec);
	stream_pack_ku64(pk, "seed", c->seed);
	stream_pack_kdbl(pk, "capacity", (double)c->capacity / 1e6);
	stream_pack_kbool(pk, "nominal", c->nominal);
	stream_pack_ku64(pk, "tokens_dropped", g->dropped);
}
