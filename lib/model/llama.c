/* llama: the Llama 3 8B model and a roofline cost model for its ops. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model/llama.h"

const struct llama_gpu llama_gpus[] = {
	{ "a100", 312e12, 2.0e12 },
	{ "h100", 989e12, 3.35e12 },
	{ NULL, 0, 0 }
};

const struct llama_gpu *
llama_gpu(const char *name)
{
	const struct llama_gpu *g;

	for (g = llama_gpus; g->name != NULL; g++)
		if (strcmp(g->name, name) == 0)
			return g;
	return NULL;
}

double
llama_roof(const struct llama_gpu *gpu, double eff, double flops,
    double bytes)
{
	double tc, tm;

	tc = flops / (gpu->peak_flops * eff);
	tm = bytes / (gpu->hbm_bps * eff);
	return tc > tm ? tc : tm;
}

static void
roof(struct llama_cost *c, const struct llama_shape *sh, double flops,
    double bytes)
{
	c->flops += flops;
	c->bytes += bytes;
	c->seconds += llama_roof(sh->gpu, sh->eff, flops, bytes);
}

/* bf16 GEMM m x k x n, output columns split over tp (column parallel). */
static void
gemm_col(struct llama_cost *c, const struct llama_shape *sh, double m,
    double k, double n)
{
	double t = sh->tp;

	roof(c, sh, 2 * m * k * n / t, 2 * (m * k + k * n / t + m * n / t));
}

/* bf16 GEMM m x k x n, inner dimension split over tp (row parallel). */
static void
gemm_row(struct llama_cost *c, const struct llama_shape *sh, double m,
    double k, double n)
{
	double t = sh->tp;

	roof(c, sh, 2 * m * k * n / t, 2 * (m * k / t + k * n / t + m * n));
}

/* QKV projection, causal attention core, output projection. */
struct llama_cost
llama_attn(const struct llama_shape *sh)
{
	struct llama_cost c = { 0, 0, 0 };
	double m = (double)sh->b * sh->s, h = LLAMA_HIDDEN, t = sh->tp;
	double kv = LLAMA_KV_HEADS * LLAMA_HEAD_DIM;

	gemm_col(&c, sh, m, h, h + 2 * kv);
	roof(&c, sh, 2 * m * (double)sh->s * h / t,
	    2 * m * (2 * h + 2 * kv) / t);
	gemm_row(&c, sh, m, h, h);
	return c;
}

/* SwiGLU: gate and up projections, then down projection. */
struct llama_cost
llama_mlp(const struct llama_shape *sh)
{
	struct llama_cost c = { 0, 0, 0 };
	double m = (double)sh->b * sh->s, h = LLAMA_HIDDEN, f = LLAMA_FFN;

	gemm_col(&c, sh, m, h, 2 * f);
	gemm_row(&c, sh, m, f, h);
	return c;
}

/* Vocabulary-parallel embedding lookup: memory traffic only. */
struct llama_cost
llama_embed(const struct llama_shape *sh)
{
	struct llama_cost c = { 0, 0, 0 };
	double m = (double)sh->b * sh->s, h = LLAMA_HIDDEN;

	roof(&c, sh, 0, 2 * 2 * m * h);
	return c;
}

/* LM head: vocabulary-parallel GEMM (cross-entropy fused). */
struct llama_cost
llama_head(const struct llama_shape *sh)
{
	struct llama_cost c = { 0, 0, 0 };
	double m = (double)sh->b * sh->s;

	gemm_col(&c, sh, m, LLAMA_HIDDEN, LLAMA_VOCAB);
	return c;
}

/*
 * Adam step over params parameters: about 10 FLOPs and 28 bytes each
 * (bf16 gradient read, fp32 master, m and v read and written, bf16
 * weight written).
 */
struct llama_cost
llama_optimizer(const struct llama_shape *sh, double params)
{
	struct llama_cost c = { 0, 0, 0 };

	roof(&c, sh, 10 * params, 28 * params);
	return c;
}

struct llama_cost
llama_twice(struct llama_cost c)
{
	c.flops *= 2;
	c.bytes *= 2;
	c.seconds *= 2;
	return c;
}

uint64_t
llama_ps(double seconds)
{
	return (uint64_t)llround(seconds * 1e12);
}
