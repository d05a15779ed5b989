/* mixtral: the Mixtral 8x7B model's mixture-of-experts costs. */
#include <stdint.h>

#include "model/llama.h"
#include "model/mixtral.h"

static void
add(struct llama_cost *c, struct llama_cost d)
{
	c->flops += d.flops;
	c->bytes += d.bytes;
	c->seconds += d.seconds;
}

/* bf16 GEMM m x k x n, its output columns split over tp. */
static struct llama_cost
gemm(const struct llama_shape *sh, double m, double k, double n)
{
	struct llama_cost c;
	double t = sh->tp;

	c.flops = 2 * m * k * n / t;
	c.bytes = 2 * (m * k + k * n / t + m * n / t);
	c.seconds = llama_roof(sh->gpu, sh->eff, c.flops, c.bytes);
	return c;
}

struct llama_cost
mixtral_router(const struct llama_shape *sh, uint64_t tokens)
{
	struct llama_shape one = *sh;

	one.tp = 1;
	return gemm(&one, (double)tokens, LLAMA_HIDDEN, MIXTRAL_EXPERTS);
}

struct llama_cost
mixtral_experts(const struct llama_shape *sh, const uint64_t *n,
    uint32_t count)
{
	struct llama_cost c = { 0, 0, 0 };
	struct llama_shape one = *sh;
	uint32_t i;

	one.b = 1;
	one.tp = 1;
	for (i = 0; i < count; i++) {
		if (n[i] == 0)
			continue;
		one.s = n[i];
		add(&c, llama_mlp(&one));
	}
	return c;
}

struct llama_cost
mixtral_head(const struct llama_shape *sh)
{
	return gemm(sh, (double)sh->b * sh->s, LLAMA_HIDDEN, MIXTRAL_VOCAB);
}
