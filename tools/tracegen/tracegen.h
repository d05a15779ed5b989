/*
 * tracegen's private parts.  tracegen.c reads the options, lays out
 * the ranks and groups, generates every rank's program of Llama 3 8B
 * (or of Mixtral 8x7B's dense part) and writes the stream;
 * tracegen_moe.c generates Mixtral's mixture-of-experts blocks: the
 * router, the dispatch and combine all-to-alls over the expert-parallel
 * group, the experts and their gradients, from lib/model/moe's seeded
 * routing.  Both die (die()) on what they cannot generate.
 */
#ifndef TRACEGEN_H
#define TRACEGEN_H

#include <stdint.h>

#include <msgpack.h>

#include "model/llama.h"
#include "model/moe.h"

enum { MODEL_LLAMA, MODEL_MIXTRAL };

enum { OP_COMPUTE, OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER,
	OP_ALLTOALL, OP_SEND, OP_RECV };

#define NONE	UINT32_MAX
/* Enough for a step's gradient all-reduces: 2 per layer, 2 more. */
#define MAXDEP	72

struct gop {
	int		 kind;
	char		*name;
	uint32_t	 dep[MAXDEP];
	uint32_t	 ndep;
	uint32_t	 step;
	struct llama_cost cost;
	uint32_t	 group;		/* collectives */
	uint64_t	 coll;
	uint64_t	 size;		/* collectives, send, recv */
	uint64_t	*sizes;		/* alltoall: bytes to each member */
	uint32_t	 peer;		/* send, recv */
	uint64_t	 tag;
};

struct prog {
	struct gop	*op;
	size_t		 n, cap;
	uint32_t	 gate[MAXDEP];	/* deps of the next compute op */
	uint32_t	 ngate;
};

struct group {
	uint32_t	*rank;
	uint32_t	 n;
	uint64_t	*coll;		/* k-th collective -> instance id */
	size_t		 ncoll, ccap;
	size_t		*seq;		/* per member: collectives issued */
};

struct cfg {
	uint32_t	layers, tp, dp, pp, mbs, steps;
	uint64_t	seq, mb;
	const struct llama_gpu *gpu;
	double		eff;
	uint32_t	gradbytes;	/* per parameter */
	int		embed, optimizer;
	int		model;
	/* mixtral-8x7b */
	uint32_t	ep, topk, experts;
	struct moe_skew	skew;
	const char	*skewspec;
	uint64_t	seed;
	uint64_t	capacity;	/* millionths; 0: no cap */
	int		nominal;
};

struct gen {
	struct cfg	 c;
	struct llama_shape sh;
	struct prog	*prog;
	uint32_t	 ranks;
	struct group	*grp;
	uint32_t	 ngrp;
	uint64_t	 ncoll;
	/* position while generating one rank's program */
	uint32_t	 r, p, d, t, step;
	char		 prefix[32];
	/* mixtral-8x7b */
	uint64_t	*pop;		/* layers x experts weights */
	uint32_t	 epbase;	/* first expert-parallel group */
	uint64_t	 dropped;	/* token assignments, whole trace */
	/* the routings of one group in the order its members ask them */
	uint64_t	*rcache;
	size_t		 rn, rcap, rpos;
	uint32_t	 rgroup, rrank;
};

uint32_t	compute(struct gen *, const char *, struct llama_cost,
		    uint32_t);
uint32_t	collective(struct gen *, const char *, uint32_t, uint64_t,
		    uint32_t);
uint32_t	alltoall(struct gen *, const char *, uint32_t, uint64_t *,
		    uint32_t);
void		grad_ar_on(struct gen *, const char *, uint32_t, uint64_t,
		    uint32_t, uint32_t *, uint32_t *);

void		tgmoe_groups(struct gen *);
void		tgmoe_setup(struct gen *);
uint32_t	tgmoe_forward(struct gen *, uint32_t, uint32_t, uint32_t);
uint32_t	tgmoe_backward(struct gen *, uint32_t, uint32_t, uint32_t,
		    int, uint32_t *, uint32_t *);
uint64_t	tgmoe_stage_params(const struct gen *);
void		tgmoe_workload(msgpack_packer *, const struct gen *);

#endif


