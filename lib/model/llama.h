/*
 * llama: the Llama 3 8B model and a roofline cost model for its ops.
 *
 * Shapes come from Meta-Llama-3-8B's config (see tracegen(1)).  A cost
 * is the FLOPs and HBM bytes of one op on one tensor-parallel rank,
 * and its roofline time: the sum over its GEMMs (and the attention
 * core) of max(FLOPs / (peak * eff), bytes / (HBM * eff)).  Elementwise
 * work (norms, activation, residuals) is taken as fused into the GEMMs
 * and covered by the efficiency factor, as measured MFU counts it.
 * Backward costs are twice the forward ones.  Pure functions.
 * llama_roof() is that roofline for any op: the seconds that flops
 * FLOPs and bytes of HBM traffic take on gpu at efficiency eff.
 */
#ifndef LLAMA_H
#define LLAMA_H

#include <stdint.h>

#define LLAMA_LAYERS		32
#define LLAMA_HIDDEN		4096
#define LLAMA_FFN		14336
#define LLAMA_HEADS		32
#define LLAMA_KV_HEADS		8
#define LLAMA_HEAD_DIM		128
#define LLAMA_VOCAB		128256
#define LLAMA_CONTEXT		8192
#define LLAMA_LAYER_PARAMS	218112000ULL
#define LLAMA_EMBED_PARAMS	525336576ULL	/* also the LM head */

struct llama_gpu {
	const char	*name;
	double		 peak_flops;	/* dense bf16, FLOP/s */
	double		 hbm_bps;	/* bytes per second */
};

struct llama_cost {
	double	flops;
	double	bytes;
	double	seconds;
};

struct llama_shape {
	uint64_t	b, s;		/* micro-batch, sequence */
	uint32_t	tp;
	const struct llama_gpu *gpu;
	double		eff;
};

extern const struct llama_gpu llama_gpus[];

const struct llama_gpu *llama_gpu(const char *);
double	 llama_roof(const struct llama_gpu *, double, double, double);
struct llama_cost llama_attn(const struct llama_shape *);
struct llama_cost llama_mlp(const struct llama_shape *);
struct llama_cost llama_embed(const struct llama_shape *);
struct llama_cost llama_head(const struct llama_shape *);
struct llama_cost llama_optimizer(const struct llama_shape *, double);
struct llama_cost llama_twice(struct llama_cost);
uint64_t llama_ps(double);

#endif
