/*
 * mixtral: the Mixtral 8x7B model's shapes and the costs of its
 * mixture-of-experts block, on llama's roofline.
 *
 * Mixtral 8x7B (arXiv 2401.04088 and its HF config.json): Llama 3 8B's
 * attention (hidden 4096, 32 heads, 8 KV heads, head dim 128), a
 * vocabulary of 32000, untied embeddings, and in every layer 8 SwiGLU
 * experts of FFN width 14336 (Llama 3 8B's MLP shape) behind a router
 * of 4096 x 8; each token goes to its top 2 experts.
 * Costs are per rank, unsplit by tensor parallelism except where the
 * shape's tp says (the LM head), in llama_cost units.  Pure functions.
 *   mixtral_router(sh, tokens): the router GEMM tokens x 4096 x 8.
 *   mixtral_experts(sh, n, count): count experts, expert i running the
 *     Llama MLP on n[i] tokens; an expert with no token costs nothing.
 *   mixtral_head(sh): the LM head over 32000 columns.
 */
#ifndef MIXTRAL_H
#define MIXTRAL_H

#include <stdint.h>

#include "model/llama.h"

#define MIXTRAL_EXPERTS		8
#define MIXTRAL_TOPK		2
#define MIXTRAL_VOCAB		32000
/* attention 41943040 + norms 8192 + router 32768 */
#define MIXTRAL_DENSE_PARAMS	41984000ULL
#define MIXTRAL_EXPERT_PARAMS	176160768ULL	/* 3 x 4096 x 14336 */
#define MIXTRAL_EMBED_PARAMS	131072000ULL	/* 32000 x 4096; LM head too */

struct llama_cost mixtral_router(const struct llama_shape *, uint64_t);
struct llama_cost mixtral_experts(const struct llama_shape *,
		    const uint64_t *, uint32_t);
struct llama_cost mixtral_head(const struct llama_shape *);

#endif
