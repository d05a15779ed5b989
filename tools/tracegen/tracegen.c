/*
 * tracegen: write the ops of Llama 3 8B training steps as a stream.
 *
 * Every rank gets a program: its compute ops in order, and its part
 * of every collective and point-to-point transfer, with dependencies
 * that follow the data.  Megatron tensor parallelism (two all-reduces
 * per layer each way), data parallelism (one gradient all-reduce per
 * layer, issued when the layer's last backward ends) and pipeline
 * parallelism with a 1F1B schedule.  See tracegen(1).
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/llama.h"
#include "model/mixtral.h"
#include "model/net.h"
#include "records/cli.h"
#include "records/die.h"
#include "records/header.h"
#include "records/stream.h"
#include "tracegen.h"
#include "records/units.h"

static const char *const op_kinds[] = { "compute", "allreduce",
	"allgather", "reducescatter", "alltoall", "send", "recv" };

static const char USAGE[] =
    "usage: tracegen [-EO] [-b micro-batch] [-d dp] [-e efficiency]"
    " [-g gpu]\n"
    "                [-G grad-dtype] [-l layers] [-M model]"
    " [-m micro-batches]\n"
    "                [-n steps] [-p pp] [-s seq] [-t tp] [-x ep]"
    " [--capacity C]\n"
    "                [--nominal] [--seed N] [--skew spec] [--topk K]\n";

static const char OPTIONS[] =
    "Write the ops of training steps of Llama 3 8B or Mixtral 8x7B (a"
    " stream).\n"
    "  -b, --micro-batch=N     sequences per micro-batch, 1 to 1024 (1)\n"
    "  -d, --dp=N              data-parallel degree, 1 to 65536 (2)\n"
    "  -E, --embed             model the embedding and the LM head with its"
    " loss\n"
    "  -e, --efficiency=F      fraction of the GPU's peak reached, in (0, 1]"
    " (0.4)\n"
    "  -G, --grad-dtype=TYPE   gradients of the DP all-reduces: bf16 or fp32"
    " (bf16)\n"
    "  -g, --gpu=GPU           a100 or h100 (a100)\n"
    "  -l, --layers=N          transformer layers, 1 to 32 (8)\n"
    "  -M, --model=MODEL       llama3-8b or mixtral-8x7b (llama3-8b)\n"
    "  -m, --micro-batches=N   micro-batches per step, 1 to 4096 (1)\n"
    "  -n, --steps=N           training steps, 1 to 1000 (1)\n"
    "  -O, --optimizer         end every step with an optimizer op on every"
    " rank\n"
    "  -p, --pp=N              pipeline stages, 1 to 32, dividing the layers"
    " (1)\n"
    "  -s, --seq=N             sequence length in tokens, 1 to 8192 (4096)\n"
    "  -t, --tp=N              tensor-parallel degree: 1, 2, 4 or 8 (4;"
    " Mixtral 1)\n"
    "  -x, --ep=N              expert-parallel degree, dividing dp and 8 (1)\n"
    "      --capacity=C        expert capacity factor, 0 for none (0)\n"
    "      --nominal           the expected expert routing, not a sampled one\n"
    "      --seed=N            seed of the expert routing (0)\n"
    "      --skew=SPEC         uniform, dirichlet:A, zipf:S or gini:G"
    " (uniform)\n"
    "      --topk=K            experts per token, 1 to 8 (2)\n"
    "  -h, --help              this help\n"
    "      --version           the version and the commit of the build\n";

static void
usage(void)
{
	fputs(USAGE, stderr);
	exit(2);
}

static uint32_t
rank_of(const struct cfg *c, uint32_t p, uint32_t d, uint32_t t)
{
	return (p * c->dp + d) * c->tp + t;
}

static uint32_t
tp_group(const struct gen *g)
{
	return g->p * g->c.dp + g->d;
}

static uint32_t
dp_group(const struct gen *g)
{
	return g->c.pp * g->c.dp + g->p * g->c.tp + g->t;
}

static void
make_groups(struct gen *g)
{
	const struct cfg *c = &g->c;
	uint32_t p, d, t, i;
	struct group *gr;

	g->ngrp = c->pp * c->dp + c->pp * c->tp;
	g->epbase = g->ngrp;
	if (c->model == MODEL_MIXTRAL)
		g->ngrp += c->pp * c->tp * (c->dp / c->ep + c->ep);
	g->grp = xcalloc(g->ngrp, sizeof(*g->grp));
	for (p = 0; p < c->pp; p++)
		for (d = 0; d < c->dp; d++) {
			gr = &g->grp[p * c->dp + d];
			gr->n = c->tp;
			gr->rank = xcalloc(c->tp, sizeof(*gr->rank));
			for (t = 0; t < c->tp; t++)
				gr->rank[t] = rank_of(c, p, d, t);
		}
	for (p = 0; p < c->pp; p++)
		for (t = 0; t < c->tp; t++) {
			gr = &g->grp[c->pp * c->dp + p * c->tp + t];
			gr->n = c->dp;
			gr->rank = xcalloc(c->dp, sizeof(*gr->rank));
			for (d = 0; d < c->dp; d++)
				gr->rank[d] = rank_of(c, p, d, t);
		}
	if (c->model == MODEL_MIXTRAL)
		tgmoe_groups(g);
	for (i = 0; i < g->ngrp; i++)
		g->grp[i].seq = xcalloc(g->grp[i].n, sizeof(size_t));
}

/* Append an op to the current rank's program; deps end with NONE. */
static uint32_t
emit(struct gen *g, struct gop *o, const char *name, uint32_t d0,
    uint32_t d1)
{
	struct prog *pr = &g->prog[g->r];
	char buf[96];
	uint32_t i;

	snprintf(buf, sizeof(buf), "%s%s", g->prefix, name);
	o->name = xstrdup(buf);
	o->step = g->step;
	if (d0 != NONE)
		o->dep[o->ndep++] = d0;
	if (d1 != NONE)
		o->dep[o->ndep++] = d1;
	if (o->kind == OP_COMPUTE) {
		for (i = 0; i < pr->ngate && o->ndep < MAXDEP; i++)
			o->dep[o->ndep++] = pr->gate[i];
		pr->ngate = 0;
	}
	xgrow(&pr->op, &pr->cap, pr->n + 1, sizeof(*pr->op));
	pr->op[pr->n] = *o;
	return (uint32_t)pr->n++;
}

uint32_t
compute(struct gen *g, const char *name, struct llama_cost cost,
    uint32_t dep)
{
	struct gop o = { .kind = OP_COMPUTE, .cost = cost };

	return emit(g, &o, name, dep, NONE);
}

/* This rank's next collective on group gi; the instance id is shared. */
static uint32_t
issue(struct gen *g, struct gop *o, const char *name, uint32_t dep)
{
	struct group *gr = &g->grp[o->group];
	uint32_t pos;
	size_t k;

	for (pos = 0; gr->rank[pos] != g->r; pos++)
		;
	k = gr->seq[pos]++;
	if (k == gr->ncoll) {
		xgrow(&gr->coll, &gr->ccap, gr->ncoll + 1, sizeof(*gr->coll));
		gr->coll[gr->ncoll++] = g->ncoll++;
	}
	o->coll = gr->coll[k];
	return emit(g, o, name, dep, NONE);
}

uint32_t
collective(struct gen *g, const char *name, uint32_t gi, uint64_t size,
    uint32_t dep)
{
	struct gop o = { .kind = OP_ALLREDUCE, .group = gi, .size = size };

	if (g->grp[gi].n < 2)
		return dep;
	return issue(g, &o, name, dep);
}

/*
 * An all-to-all on group gi: sizes[] (the op takes it) holds the bytes
 * to each member in group order, size their sum.
 */
uint32_t
alltoall(struct gen *g, const char *name, uint32_t gi, uint64_t *sizes,
    uint32_t dep)
{
	struct gop o = { .kind = OP_ALLTOALL, .group = gi, .sizes = sizes };
	uint32_t j;

	if (g->grp[gi].n < 2) {
		free(sizes);
		return dep;
	}
	for (j = 0; j < g->grp[gi].n; j++) {
		if (o.size + sizes[j] < o.size)
			die("all-to-all %s: size overflows 64 bits", name);
		o.size += sizes[j];
	}
	return issue(g, &o, name, dep);
}

static uint64_t
act_bytes(const struct gen *g)
{
	return 2 * g->c.mb * g->c.seq * LLAMA_HIDDEN;
}

static uint32_t
p2p(struct gen *g, int kind, const char *name, uint32_t peer,
    uint64_t tag, uint32_t dep)
{
	struct gop o = { .kind = kind, .peer = peer, .tag = tag };

	o.size = act_bytes(g);
	return emit(g, &o, name, dep, NONE);
}

static uint64_t
grad_bytes(const struct gen *g, uint64_t params)
{
	return (params * g->c.gradbytes + g->c.tp - 1) / g->c.tp;
}

static uint64_t
tag_of(const struct gen *g, uint32_t m, int bwd)
{
	return ((uint64_t)g->step * g->c.mbs + m) * 2 + (bwd ? 1 : 0);
}

static void
set_prefix(struct gen *g, uint32_t m)
{
	if (g->c.mbs > 1 || g->c.steps > 1)
		snprintf(g->prefix, sizeof(g->prefix), "s%u.m%u.", g->step, m);
}

static uint32_t
forward(struct gen *g, uint32_t m)
{
	const struct cfg *c = &g->c;
	uint32_t chain = NONE, l, per = c->layers / c->pp;
	char nm[48];

	set_prefix(g, m);
	if (g->p > 0)
		chain = p2p(g, OP_RECV, "act.recv",
		    rank_of(c, g->p - 1, g->d, g->t), tag_of(g, m, 0), NONE);
	if (g->p == 0 && c->embed) {
		chain = compute(g, "embed.fwd", llama_embed(&g->sh), chain);
		chain = collective(g, "embed.fwd.ar", tp_group(g),
		    act_bytes(g), chain);
	}
	for (l = g->p * per; l < (g->p + 1) * per; l++) {
		snprintf(nm, sizeof(nm), "l%u.fwd.attn", l);
		chain = compute(g, nm, llama_attn(&g->sh), chain);
		snprintf(nm, sizeof(nm), "l%u.fwd.attn.ar", l);
		chain = collective(g, nm, tp_group(g), act_bytes(g), chain);
		if (c->model == MODEL_MIXTRAL) {
			chain = tgmoe_forward(g, l, m, chain);
			continue;
		}
		snprintf(nm, sizeof(nm), "l%u.fwd.mlp", l);
		chain = compute(g, nm, llama_mlp(&g->sh), chain);
		snprintf(nm, sizeof(nm), "l%u.fwd.mlp.ar", l);
		chain = collective(g, nm, tp_group(g), act_bytes(g), chain);
	}
	if (g->p == c->pp - 1 && c->embed) {
		chain = compute(g, "head.fwd", c->model == MODEL_MIXTRAL ?
		    mixtral_head(&g->sh) : llama_head(&g->sh), chain);
		chain = collective(g, "loss.ar", tp_group(g),
		    12 * c->mb * c->seq, chain);
	}
	if (g->p < c->pp - 1)
		p2p(g, OP_SEND, "act.send", rank_of(c, g->p + 1, g->d, g->t),
		    tag_of(g, m, 0), chain);
	return chain;
}

/* A block's gradient all-reduce on group gi, after its last backward. */
void
grad_ar_on(struct gen *g, const char *name, uint32_t gi, uint64_t params,
    uint32_t dep, uint32_t *ends, uint32_t *nends)
{
	uint32_t id;

	id = collective(g, name, gi, grad_bytes(g, params), dep);
	if (id != dep && *nends < MAXDEP)
		ends[(*nends)++] = id;
}

static void
grad_ar(struct gen *g, const char *name, uint64_t params, uint32_t dep,
    uint32_t *ends, uint32_t *nends)
{
	grad_ar_on(g, name, dp_group(g), params, dep, ends, nends);
}

/*
 * The backward of micro-batch m.  On the last stage it starts from the
 * end of that micro-batch's forward (the loss); elsewhere from the
 * gradient received from the next stage.
 */
static void
backward(struct gen *g, uint32_t m, uint32_t fwd_end, uint32_t *ends,
    uint32_t *nends)
{
	const struct cfg *c = &g->c;
	uint32_t chain = fwd_end, l, per = c->layers / c->pp, w;
	int last = m == c->mbs - 1, moe = c->model == MODEL_MIXTRAL;
	uint64_t embp = moe ? MIXTRAL_EMBED_PARAMS : LLAMA_EMBED_PARAMS;
	char nm[48];

	set_prefix(g, m);
	if (g->p < c->pp - 1)
		chain = p2p(g, OP_RECV, "grad.recv",
		    rank_of(c, g->p + 1, g->d, g->t), tag_of(g, m, 1), NONE);
	if (g->p == c->pp - 1 && c->embed) {
		chain = w = compute(g, "head.bwd", llama_twice(moe ?
		    mixtral_head(&g->sh) : llama_head(&g->sh)), chain);
		chain = collective(g, "head.bwd.ar", tp_group(g),
		    act_bytes(g), chain);
		if (last)
			grad_ar(g, "head.grad.ar", embp, w,
			    ends, nends);
	}
	for (l = (g->p + 1) * per; l-- > g->p * per;) {
		if (moe)
			chain = tgmoe_backward(g, l, m, chain, last, ends,
			    nends);
		else {
			snprintf(nm, sizeof(nm), "l%u.bwd.mlp", l);
			chain = compute(g, nm, llama_twice(llama_mlp(&g->sh)),
			    chain);
			snprintf(nm, sizeof(nm), "l%u.bwd.mlp.ar", l);
			chain = collective(g, nm, tp_group(g), act_bytes(g),
			    chain);
		}
		snprintf(nm, sizeof(nm), "l%u.bwd.attn", l);
		chain = w = compute(g, nm, llama_twice(llama_attn(&g->sh)),
		    chain);
		snprintf(nm, sizeof(nm), "l%u.bwd.attn.ar", l);
		chain = collective(g, nm, tp_group(g), act_bytes(g), chain);
		if (last) {
			snprintf(nm, sizeof(nm), "l%u.grad.ar", l);
			grad_ar(g, nm, moe ? MIXTRAL_DENSE_PARAMS :
			    LLAMA_LAYER_PARAMS, w, ends, nends);
		}
	}
	if (g->p == 0 && c->embed) {
		chain = w = compute(g, "embed.bwd",
		    llama_twice(llama_embed(&g->sh)), chain);
		if (last)
			grad_ar(g, "embed.grad.ar", embp, w,
			    ends, nends);
	}
	if (g->p > 0)
		p2p(g, OP_SEND, "grad.send", rank_of(c, g->p - 1, g->d, g->t),
		    tag_of(g, m, 1), chain);
}

static double
stage_params(const struct gen *g)
{
	double p = (double)LLAMA_LAYER_PARAMS * (g->c.layers / g->c.pp);

	if (g->c.model == MODEL_MIXTRAL)
		return (double)tgmoe_stage_params(g);

	if (g->c.embed && g->p == 0)
		p += LLAMA_EMBED_PARAMS;
	if (g->c.embed && g->p == g->c.pp - 1)
		p += LLAMA_EMBED_PARAMS;
	return p / g->c.tp;
}

/* One training step of the current rank: 1F1B, then the optimizer. */
static void
one_step(struct gen *g)
{
	const struct cfg *c = &g->c;
	struct prog *pr = &g->prog[g->r];
	uint32_t warm, m, ends[MAXDEP], nends = 0, opt, *fwd_end;
	struct gop o = { .kind = OP_COMPUTE };
	int last = g->p == c->pp - 1;

	warm = c->pp - g->p - 1;
	if (warm > c->mbs)
		warm = c->mbs;
	fwd_end = xcalloc(c->mbs, sizeof(*fwd_end));
	for (m = 0; m < c->mbs; m++) {
		fwd_end[m] = forward(g, m);
		if (m >= warm)
			backward(g, m - warm, last ? fwd_end[m - warm] : NONE,
			    ends, &nends);
	}
	for (m = c->mbs - warm; m < c->mbs; m++)
		backward(g, m, last ? fwd_end[m] : NONE, ends, &nends);
	free(fwd_end);
	g->prefix[0] = '\0';
	if (c->steps > 1)
		snprintf(g->prefix, sizeof(g->prefix), "s%u.", g->step);
	if (c->optimizer) {
		o.cost = llama_optimizer(&g->sh, stage_params(g));
		memcpy(o.dep, ends, nends * sizeof(*ends));
		o.ndep = nends;
		opt = emit(g, &o, "optimizer", NONE, NONE);
		pr->gate[0] = opt;
		pr->ngate = 1;
	} else {
		memcpy(pr->gate, ends, nends * sizeof(*ends));
		pr->ngate = nends;
	}
}

static void
generate(struct gen *g)
{
	const struct cfg *c = &g->c;

	g->ranks = c->tp * c->dp * c->pp;
	g->prog = xcalloc(g->ranks, sizeof(*g->prog));
	make_groups(g);
	if (c->model == MODEL_MIXTRAL)
		tgmoe_setup(g);
	for (g->r = 0; g->r < g->ranks; g->r++) {
		g->t = g->r % c->tp;
		g->d = g->r / c->tp % c->dp;
		g->p = g->r / (c->tp * c->dp);
		for (g->step = 0; g->step < c->steps; g->step++)
			one_step(g);
	}
}

/* Global op ids: round-robin over the ranks' program positions. */
static uint32_t **
number_ops(const struct gen *g, size_t *total)
{
	uint32_t **id, r;
	size_t i, next = 0, maxn = 0;

	id = xcalloc(g->ranks, sizeof(*id));
	for (r = 0; r < g->ranks; r++) {
		id[r] = xcalloc(g->prog[r].n, sizeof(**id));
		if (g->prog[r].n > maxn)
			maxn = g->prog[r].n;
	}
	for (i = 0; i < maxn; i++)
		for (r = 0; r < g->ranks; r++)
			if (i < g->prog[r].n) {
				if (next >= UINT32_MAX)
					die("too many ops");
				id[r][i] = (uint32_t)next++;
			}
	*total = next;
	return id;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void
write_op(msgpack_packer *pk, const struct gen *g, uint32_t r, size_t i,
    uint32_t *const *id)
{
	const struct gop *o = &g->prog[r].op[i];
	const struct group *gr;
	uint32_t dep[MAXDEP], j;

	stream_pack_record(pk, "op", o->sizes != NULL ? 11 : 10);
	stream_pack_ku64(pk, "id", id[r][i]);
	stream_pack_ku64(pk, "rank", r);
	stream_pack_kstr(pk, "kind", op_kinds[o->kind]);
	stream_pack_kstr(pk, "name", o->name);
	for (j = 0; j < o->ndep; j++)
		dep[j] = id[r][o->dep[j]];
	qsort(dep, o->ndep, sizeof(*dep), cmp_u32);
	stream_pack_str(pk, "deps");
	msgpack_pack_array(pk, o->ndep);
	for (j = 0; j < o->ndep; j++)
		msgpack_pack_uint32(pk, dep[j]);
	stream_pack_ku64(pk, "step", o->step);
	switch (o->kind) {
	case OP_COMPUTE:
		stream_pack_ku64(pk, "flops", (uint64_t)llround(o->cost.flops));
		stream_pack_ku64(pk, "bytes", (uint64_t)llround(o->cost.bytes));
		stream_pack_ku64(pk, "duration_ps",
		    llama_ps(o->cost.seconds));
		break;
	case OP_SEND:
	case OP_RECV:
		stream_pack_ku64(pk, "peer", o->peer);
		stream_pack_ku64(pk, "size", o->size);
		stream_pack_ku64(pk, "tag", o->tag);
		break;
	default:
		gr = &g->grp[o->group];
		stream_pack_str(pk, "group");
		msgpack_pack_array(pk, gr->n);
		for (j = 0; j < gr->n; j++)
			msgpack_pack_uint32(pk, gr->rank[j]);
		stream_pack_ku64(pk, "size", o->size);
		if (o->sizes != NULL) {
			stream_pack_str(pk, "sizes");
			msgpack_pack_array(pk, gr->n);
			for (j = 0; j < gr->n; j++)
				msgpack_pack_uint64(pk, o->sizes[j]);
		}
		stream_pack_ku64(pk, "coll", o->coll);
	}
}

static void
write_workload(msgpack_packer *pk, const struct gen *g)
{
	const struct cfg *c = &g->c;
	int moe = c->model == MODEL_MIXTRAL;

	stream_pack_record(pk, "workload", moe ? 26 : 18);
	stream_pack_kstr(pk, "model", moe ? "mixtral-8x7b" : "llama3-8b");
	stream_pack_ku64(pk, "layers", c->layers);
	stream_pack_ku64(pk, "tp", c->tp);
	stream_pack_ku64(pk, "dp", c->dp);
	stream_pack_ku64(pk, "pp", c->pp);
	stream_pack_ku64(pk, "seq", c->seq);
	stream_pack_ku64(pk, "micro_batch", c->mb);
	stream_pack_ku64(pk, "micro_batches", c->mbs);
	stream_pack_kstr(pk, "gpu", c->gpu->name);
	stream_pack_kdbl(pk, "efficiency", c->eff);
	stream_pack_kstr(pk, "grad_dtype", c->gradbytes == 2 ? "bf16" :
	    "fp32");
	stream_pack_ku64(pk, "steps", c->steps);
	stream_pack_kbool(pk, "embed", c->embed);
	stream_pack_kbool(pk, "optimizer", c->optimizer);
	stream_pack_ku64(pk, "ranks", g->ranks);
	stream_pack_kdbl(pk, "peak_flops", c->gpu->peak_flops);
	stream_pack_kdbl(pk, "hbm_bytes_per_s", c->gpu->hbm_bps);
	if (moe)
		tgmoe_workload(pk, g);
}

static void
write_all(struct stream_writer *w, const struct gen *g, int argc,
    char **argv)
{
	msgpack_packer *pk = stream_packer(w);
	uint32_t **id, r;
	size_t total, i, maxn = 0;

	header_write(w, "tracegen", argc, argv);
	write_workload(pk, g);
	id = number_ops(g, &total);
	for (r = 0; r < g->ranks; r++)
		if (g->prog[r].n > maxn)
			maxn = g->prog[r].n;
	for (i = 0; i < maxn; i++)
		for (r = 0; r < g->ranks; r++)
			if (i < g->prog[r].n)
				write_op(pk, g, r, i, id);
	for (r = 0; r < g->ranks; r++)
		free(id[r]);
	free(id);
}

static uint32_t
count_opt(const char *opt, const char *arg, uint64_t lo, uint64_t hi)
{
	const char *e;
	uint64_t v;

	if ((e = units_parse_count(arg, lo, hi, &v)) != NULL) {
		warnmsg("-%s %s: %s (allowed %llu to %llu)", opt, arg, e,
		    (unsigned long long)lo, (unsigned long long)hi);
		usage();
	}
	return (uint32_t)v;
}

enum { OPT_CAPACITY = 256, OPT_NOMINAL, OPT_SEED, OPT_SKEW, OPT_TOPK };

static const struct option longopts[] = {
	{ "micro-batch",	required_argument, NULL, 'b' },
	{ "dp",			required_argument, NULL, 'd' },
	{ "efficiency",		required_argument, NULL, 'e' },
	{ "embed",		no_argument,	   NULL, 'E' },
	{ "gpu",		required_argument, NULL, 'g' },
	{ "grad-dtype",		required_argument, NULL, 'G' },
	{ "layers",		required_argument, NULL, 'l' },
	{ "micro-batches",	required_argument, NULL, 'm' },
	{ "steps",		required_argument, NULL, 'n' },
	{ "optimizer",		no_argument,	   NULL, 'O' },
	{ "pp",			required_argument, NULL, 'p' },
	{ "seq",		required_argument, NULL, 's' },
	{ "tp",			required_argument, NULL, 't' },
	{ "model",		required_argument, NULL, 'M' },
	{ "ep",			required_argument, NULL, 'x' },
	{ "capacity",		required_argument, NULL, OPT_CAPACITY },
	{ "nominal",		no_argument,	   NULL, OPT_NOMINAL },
	{ "seed",		required_argument, NULL, OPT_SEED },
	{ "skew",		required_argument, NULL, OPT_SKEW },
	{ "topk",		required_argument, NULL, OPT_TOPK },
	CLI_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

static void
parse_eff(struct cfg *c, const char *arg)
{
	const char *err;

	if ((err = units_parse_fraction(arg, &c->eff)) != NULL) {
		warnmsg("-e %s: efficiency %s", arg, err);
		usage();
	}
}

/* The options of the mixture of experts; 0 if ch is none of them. */
static int
parse_moe(struct cfg *c, int ch, const char *arg, int *seen)
{
	const char *e;

	switch (ch) {
	case 'M':
		if (strcmp(arg, "llama3-8b") == 0)
			c->model = MODEL_LLAMA;
		else if (strcmp(arg, "mixtral-8x7b") == 0)
			c->model = MODEL_MIXTRAL;
		else {
			warnmsg("-M %s: unknown model (llama3-8b, "
			    "mixtral-8x7b)", arg);
			usage();
		}
		return 1;
	case 'x':
		c->ep = count_opt("x", arg, 1, MOE_MAX_EXPERTS);
		break;
	case OPT_CAPACITY:
		if ((e = moe_parse_capacity(arg, &c->capacity)) != NULL) {
			warnmsg("--capacity %s: %s", arg, e);
			usage();
		}
		break;
	case OPT_NOMINAL:
		c->nominal = 1;
		break;
	case OPT_SEED:
		if ((e = units_parse_count(arg, 0, UINT64_MAX, &c->seed)) !=
		    NULL) {
			warnmsg("--seed %s: %s", arg, e);
			usage();
		}
		break;
	case OPT_SKEW:
		if ((e = moe_parse_skew(arg, &c->skew)) != NULL) {
			warnmsg("--skew %s: %s", arg, e);
			usage();
		}
		c->skewspec = arg;
		break;
	case OPT_TOPK:
		c->topk = count_opt("-topk", arg, 0, MOE_MAX_EXPERTS);
		break;
	default:
		return 0;
	}
	*seen = 1;
	return 1;
}

static void
check_moe(struct cfg *c, int tp_given, int seen)
{
	if (c->model != MODEL_MIXTRAL) {
		if (seen) {
			warnmsg("-x, --capacity, --nominal, --seed, --skew "
			    "and --topk need -M mixtral-8x7b");
			usage();
		}
		return;
	}
	if (!tp_given)
		c->tp = 1;
	if (c->tp != 1) {
		warnmsg("-t %u: mixtral-8x7b is generated with tensor "
		    "parallelism 1 only", c->tp);
		usage();
	}
	if (c->dp % c->ep != 0 || c->experts % c->ep != 0) {
		warnmsg("-x %u: the expert-parallel degree must divide dp "
		    "(%u) and the %u experts", c->ep, c->dp, c->experts);
		usage();
	}
	if (c->skew.kind == MOE_GINI &&
	    c->skew.param >= (double)(c->experts - 1) / c->experts) {
		warnmsg("--skew %s: the Gini of %u experts is below %u/%u",
		    c->skewspec, c->experts, c->experts - 1, c->experts);
		usage();
	}
	if (c->topk == 0 || c->topk > c->experts) {
		warnmsg("--topk %u: allowed 1 to %u (the model's experts)",
		    c->topk, c->experts);
		usage();
	}
}

static void
parse_args(struct cfg *c, int argc, char **argv)
{
	int ch, tp_given = 0, seen = 0;

	*c = (struct cfg){ .layers = 8, .tp = 4, .dp = 2, .pp = 1,
	    .mbs = 1, .steps = 1, .seq = 4096, .mb = 1,
	    .gpu = llama_gpu("a100"), .eff = 0.4, .gradbytes = 2,
	    .ep = 1, .topk = MIXTRAL_TOPK, .experts = MIXTRAL_EXPERTS,
	    .skewspec = "uniform" };
	while ((ch = getopt_long(argc, die_argv(argv),
	    "hb:d:e:Eg:G:l:M:m:n:Op:s:t:x:", longopts, NULL)) != -1) {
		if (parse_moe(c, ch, optarg, &seen))
			continue;
		switch (ch) {
		case 'b': c->mb = count_opt("b", optarg, 1, 1024); break;
		case 'd': c->dp = count_opt("d", optarg, 1, 1U << 16); break;
		case 'e': parse_eff(c, optarg); break;
		case 'E': c->embed = 1; break;
		case 'g':
			if ((c->gpu = llama_gpu(optarg)) == NULL) {
				warnmsg("-g %s: unknown GPU (a100, h100)",
				    optarg);
				usage();
			}
			break;
		case 'G':
			if (strcmp(optarg, "bf16") == 0)
				c->gradbytes = 2;
			else if (strcmp(optarg, "fp32") == 0)
				c->gradbytes = 4;
			else {
				warnmsg("-G %s: gradient dtype is bf16 or "
				    "fp32", optarg);
				usage();
			}
			break;
		case 'l':
			c->layers = count_opt("l", optarg, 1, LLAMA_LAYERS);
			break;
		case 'm': c->mbs = count_opt("m", optarg, 1, 4096); break;
		case 'n': c->steps = count_opt("n", optarg, 1, 1000); break;
		case 'O': c->optimizer = 1; break;
		case 'p': c->pp = count_opt("p", optarg, 1, LLAMA_LAYERS);
			break;
		case 's':
			c->seq = count_opt("s", optarg, 1, LLAMA_CONTEXT);
			break;
		case 't':
			c->tp = count_opt("t", optarg, 1, 8);
			tp_given = 1;
			break;
		case 'h':
			cli_help(USAGE, OPTIONS);
		case CLI_VERSION:
			cli_version();
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	check_moe(c, tp_given, seen);
	if (LLAMA_KV_HEADS % c->tp != 0) {
		warnmsg("-t %u: tensor parallelism must divide the %d KV "
		    "heads (1, 2, 4 or 8)", c->tp, LLAMA_KV_HEADS);
		usage();
	}
	if (c->layers % c->pp != 0) {
		warnmsg("-p %u: pipeline stages must divide the %u layers",
		    c->pp, c->layers);
		usage();
	}
	if ((uint64_t)c->tp * c->dp * c->pp > NET_MAX_GPUS) {
		warnmsg("tp x dp x pp exceeds %u GPUs", NET_MAX_GPUS);
		usage();
	}
}

static void
free_gen(struct gen *g)
{
	uint32_t r, i;
	size_t k;

	for (r = 0; r < g->ranks; r++) {
		for (k = 0; k < g->prog[r].n; k++) {
			free(g->prog[r].op[k].name);
			free(g->prog[r].op[k].sizes);
		}
		free(g->prog[r].op);
	}
	free(g->prog);
	for (i = 0; i < g->ngrp; i++) {
		free(g->grp[i].rank);
		free(g->grp[i].coll);
		free(g->grp[i].seq);
	}
	free(g->grp);
	free(g->pop);
	free(g->rcache);
}

int
main(int argc, char **argv)
{
	struct stream_writer *w;
	struct gen g;
	int err;

	die_init("tracegen");
	memset(&g, 0, sizeof(g));
	parse_args(&g.c, argc, argv);
	die_if_tty();
	g.sh = (struct llama_shape){ g.c.mb, g.c.seq, g.c.tp, g.c.gpu,
	    g.c.eff };
	generate(&g);
	if ((w = stream_writer(stdout)) == NULL)
		die("out of memory");
	write_all(w, &g, argc - 1, argv + 1);
	if ((err = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(err));
	free_gen(&g);
	return 0;
}
