/*
 * chakra: import a Chakra execution trace, one file a rank, as the ops
 * of a stream.  See chakra(1).
 *
 * Every rank file is read whole first, and every check (ranks, deps,
 * collectives matched across ranks, sends paired with receives) done,
 * before the first record is written: a refused trace writes nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra.h"
#include "chakra_out.h"
#include "model/llama.h"
#include "records/cli.h"
#include "records/die.h"
#include "records/header.h"
#include "records/stream.h"
#include "records/units.h"

#define MAX_RANKS	1048576
#define PS_PER_US	1000000ULL

enum { K_COMPUTE, K_ALLREDUCE, K_ALLGATHER, K_REDUCESCATTER, K_ALLTOALL,
	K_BROADCAST, K_SEND, K_RECV };

static const char *const kinds[] = { "compute", "allreduce", "allgather",
	"reducescatter", "alltoall", "broadcast", "send", "recv" };

struct rpos {
	uint32_t	 rank, pos;
};

struct comm {
	const char	*key;		/* "" for all ranks */
	const uint32_t	*rank;
	size_t		 n;
	struct rpos	*by;		/* members by rank; NULL: all ranks,
					   each at its own place */
	size_t		*cnt;		/* per member: collectives issued */
	struct inst {
		int		 kind;
		uint64_t	 size, coll;
		uint32_t	 root;		/* broadcast */
		const char	*file;
		uint64_t	 node;
	}		*inst;
	size_t		 ninst, cap;
};

struct op {			/* one kept node */
	int		 kind;
	uint64_t	 id;		/* in the stream */
	uint64_t	 a;		/* duration_ps, or size */
	uint64_t	 coll, peer, tag;
	uint32_t	 root;		/* broadcast: a rank */
	size_t		 comm;		/* index in imp's comm, which grows */
	uint64_t	*dep;
	size_t		 ndep;
};

struct rk {
	struct ck_rank	 tr;
	size_t		*byid;		/* node indices sorted by id */
	int		*state;		/* check_cycles(): 0 new, 1 on the
					   path, 2 done */
	size_t		*at;		/* check_cycles(): the next dep */
	size_t		*stk;		/* a search's stack */
	size_t		*thru;		/* through() */
	size_t		*mark;		/* resolve(): i + 1 when met from i */
	int		*keep;
	struct op	*op;		/* per node; for skipped nodes only */
	size_t		 nkeep;		/* dep and ndep */
};

struct imp {
	const char	*prefix;
	uint32_t	 nranks;
	struct rk	*rk;
	struct ck_groups groups;
	int		 have_groups;
	uint32_t	*all;
	struct comm	*comm;
	size_t		 ncomm, ccap;
	size_t		*gcomm, allcomm;	/* see comm_get() */
	uint64_t	 nextcoll, nodes, skipped, ops;
	const struct llama_gpu *gpu;	/* the roofline of COMP nodes */
	double		 eff;
	uint64_t	 roofline;	/* nodes timed by it */
};

static const char USAGE[] =
    "usage: chakra [-e efficiency] [-g comm_group.json]"
    " [--gpu gpu] prefix\n"
    "       chakra -x prefix\n";

static const char OPTIONS[] =
    "Read a Chakra trace (PREFIX.RANK.et) and write its ops (a stream),\n"
    "or with -x write an op stream as a Chakra trace.\n"
    "  -e, --efficiency=F      fraction of peak of roofline-timed nodes (0.4)\n"
    "  -g FILE                 the communicator groups (comm_group.json)\n"
    "      --gpu=GPU           the GPU of that roofline: a100 or h100 (a100)\n"
    "  -x PREFIX               export: ops on standard input to"
    " PREFIX.RANK.et\n"
    "  -h, --help              this help\n"
    "      --version           the version and the commit of the build\n";

static void
usage(void)
{
	fputs(USAGE, stderr);
	exit(2);
}

static void __attribute__((noreturn))
node_die(const struct rk *r, const struct ck_node *nd, const char *msg)
{
	die("%s: node %llu: %s", r->tr.file, (unsigned long long)nd->id,
	    msg);
}

/* The rank of a file name base.<rank>.et, or -1. */
static long
rank_of_name(const char *name, const char *base)
{
	size_t bl = strlen(base), i;
	const char *p;
	long r = 0;

	if (strncmp(name, base, bl) != 0 || name[bl] != '.')
		return -1;
	p = name + bl + 1;
	for (i = 0; p[i] >= '0' && p[i] <= '9'; i++) {
		r = r * 10 + (p[i] - '0');
		if (r >= MAX_RANKS)
			return -1;
	}
	if (i == 0 || (i > 1 && p[0] == '0') || strcmp(p + i, ".et") != 0)
		return -1;
	return r;
}

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* Count the ranks: files <prefix>.0.et to <prefix>.<N-1>.et, no gap. */
static uint32_t
list_ranks(const char *prefix)
{
	const char *slash = strrchr(prefix, '/'), *base;
	char *dir;
	struct dirent *de;
	DIR *d;
	long *r = NULL, k;
	size_t n = 0, cap = 0, i;

	dir = slash ? xstrndup(prefix, (size_t)(slash - prefix + 1)) :
	    xstrdup(".");
	base = slash ? slash + 1 : prefix;
	if (*base == '\0')
		die("%s: the prefix names no file", prefix);
	if ((d = opendir(dir)) == NULL)
		die("%s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if ((k = rank_of_name(de->d_name, base)) < 0)
			continue;
		xgrow(&r, &cap, n + 1, sizeof(*r));
		r[n++] = k;
	}
	closedir(d);
	free(dir);
	if (n == 0)
		die("%s: no trace files %s.<rank>.et", prefix, prefix);
	qsort(r, n, sizeof(*r), cmp_long);
	for (i = 0; i < n; i++)
		if (r[i] != (long)i)
			die("%s: rank %zu missing: %s.%zu.et is not there, "
			    "and %zu rank files are", prefix, i, prefix, i, n);
	free(r);
	return (uint32_t)n;
}

static struct rk *sort_rk;

static int
cmp_byid(const void *a, const void *b)
{
	uint64_t x = sort_rk->tr.node[*(const size_t *)a].id;
	uint64_t y = sort_rk->tr.node[*(const size_t *)b].id;

	return x < y ? -1 : x > y;
}

static void
index_ids(struct rk *r)
{
	size_t i;

	r->byid = xcalloc(r->tr.n ? r->tr.n : 1, sizeof(*r->byid));
	for (i = 0; i < r->tr.n; i++)
		r->byid[i] = i;
	sort_rk = r;
	qsort(r->byid, r->tr.n, sizeof(*r->byid), cmp_byid);
	for (i = 1; i < r->tr.n; i++)
		if (r->tr.node[r->byid[i]].id == r->tr.node[r->byid[i - 1]].id)
			node_die(r, &r->tr.node[r->byid[i]],
			    "a second node with this id");
}

static size_t
find_id(const struct rk *r, const struct ck_node *from, uint64_t id)
{
	size_t lo = 0, hi = r->tr.n, mid;
	char msg[96];

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r->tr.node[r->byid[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->tr.n && r->tr.node[r->byid[lo]].id == id)
		return r->byid[lo];
	snprintf(msg, sizeof(msg), "depends on node %llu, which is not in "
	    "the file", (unsigned long long)id);
	node_die(r, from, msg);
}

/* Node j as its dep index: index j, or its chain's end (through()). */
static size_t
hop(const struct rk *r, size_t j)
{
	return r->thru[j] != SIZE_MAX ? r->thru[j] : j;
}

/*
 * A dependency cycle of the rank's nodes refused, naming a node on it:
 * an iterative depth-first search, state 1 on the path, 2 done.
 */
static void
check_cycles(struct rk *r)
{
	struct ck_node *nd;
	size_t i, j, top;

	for (i = 0; i < r->tr.n; i++) {
		if (r->state[i] != 0)
			continue;
		r->state[i] = 1;
		r->stk[0] = i;
		r->at[i] = 0;
		top = 1;
		while (top > 0) {
			nd = &r->tr.node[r->stk[top - 1]];
			if (r->at[r->stk[top - 1]] == nd->ndep) {
				r->state[r->stk[--top]] = 2;
				continue;
			}
			j = find_id(r, nd, nd->dep[r->at[r->stk[top - 1]]++]);
			if (r->state[j] == 1)
				node_die(r, &r->tr.node[j], "a dependency cycle "
				    "through this node");
			if (r->state[j] == 0) {
				r->state[j] = 1;
				r->at[j] = 0;
				r->stk[top++] = j;
			}
		}
	}
}

/*
 * Chains of skipped nodes of one dependency each, skipped in one step:
 * thru[j] is where j's chain ends (a kept node, or a skipped one with
 * none or several deps), SIZE_MAX for the rest.  Each node is walked
 * once; there are no cycles (check_cycles()).
 */
static void
through(struct rk *r)
{
	struct ck_node *nd;
	size_t i, j, top, end;

	for (i = 0; i < r->tr.n; i++)
		r->thru[i] = SIZE_MAX;
	for (i = 0; i < r->tr.n; i++) {
		for (top = 0, j = i; !r->keep[j] && r->thru[j] == SIZE_MAX &&
		    (nd = &r->tr.node[j])->ndep == 1; ) {
			r->stk[top++] = j;
			r->thru[j] = j;		/* on the walk */
			j = find_id(r, nd, nd->dep[0]);
		}
		end = hop(r, j);
		while (top > 0)
			r->thru[r->stk[--top]] = end;
	}
}

/* Node j's deps (chains skipped) onto the stack, those not met yet. */
static void
push_deps(struct rk *r, size_t j, size_t tag, size_t *top)
{
	const struct ck_node *nd = &r->tr.node[j];
	size_t k, x;

	for (k = 0; k < nd->ndep; k++)
		if (r->mark[x = hop(r, find_id(r, nd, nd->dep[k]))] != tag) {
			r->mark[x] = tag;
			r->stk[(*top)++] = x;
		}
}

/*
 * The deps of kept node i as op ids: a kept dep is itself, a skipped
 * one its own deps, transitively.  A receive is posted after its deps
 * but its data may come before: its transfer waits for the send's deps
 * only (the receive op gets none, or a ring of sends and receives would
 * be a cycle for dagbuild(1)), and what depends on the receive waits
 * for the receive's deps as well.  A search from i, each node met once
 * (mark[j] == i + 1): its work is the skipped nodes and receives it
 * goes through, and the deps it finds.
 */
static void
resolve(struct rk *r, size_t i)
{
	struct op *o = &r->op[i];
	size_t j, top = 0, cap = 0;

	push_deps(r, i, i + 1, &top);
	while (top > 0) {
		j = r->stk[--top];
		if (r->keep[j]) {
			xgrow(&o->dep, &cap, o->ndep + 1, sizeof(*o->dep));
			o->dep[o->ndep++] = r->op[j].id;
			if (r->op[j].kind != K_RECV)
				continue;
		}
		push_deps(r, j, i + 1, &top);
	}
}

static int
cmp_rpos(const void *a, const void *b)
{
	uint32_t x = ((const struct rpos *)a)->rank;
	uint32_t y = ((const struct rpos *)b)->rank;

	return x < y ? -1 : x > y;
}

/*
 * The communicator of a collective node: that of its pg_name in the
 * groups (-g), else all ranks for "" or "0".  Each is made once, its
 * ranks checked then; *slot below holds its index + 1.
 */
static struct comm *
comm_get(struct imp *im, const struct rk *r, const struct ck_node *nd)
{
	const char *pg = nd->pg ? nd->pg : "";
	const struct ck_group *g = NULL;
	struct comm *c;
	char msg[160];
	size_t i, *slot;

	if (im->have_groups)
		g = ck_groups_find(&im->groups, pg);
	if (g == NULL && strcmp(pg, "") != 0 && strcmp(pg, "0") != 0) {
		snprintf(msg, sizeof(msg), "communicator \"%.64s\" is not in "
		    "%s", pg, im->have_groups ? im->groups.file :
		    "a -g comm_group.json");
		node_die(r, nd, msg);
	}
	slot = g ? &im->gcomm[g - im->groups.g] : &im->allcomm;
	if (*slot != 0)
		return &im->comm[*slot - 1];
	for (i = 0; g != NULL && i < g->n; i++)
		if (g->rank[i] >= im->nranks) {
			snprintf(msg, sizeof(msg), "communicator \"%.64s\" "
			    "names rank %u of a trace of %u ranks", g->name,
			    g->rank[i], im->nranks);
			node_die(r, nd, msg);
		}
	xgrow(&im->comm, &im->ccap, im->ncomm + 1, sizeof(*im->comm));
	c = &im->comm[im->ncomm++];
	memset(c, 0, sizeof(*c));
	c->key = g ? g->name : "";
	c->rank = g ? g->rank : im->all;
	c->n = g ? g->n : im->nranks;
	c->cnt = xcalloc(c->n, sizeof(size_t));
	if (g != NULL) {
		c->by = xcalloc(c->n, sizeof(*c->by));
		for (i = 0; i < c->n; i++)
			c->by[i] = (struct rpos){ c->rank[i], (uint32_t)i };
		qsort(c->by, c->n, sizeof(*c->by), cmp_rpos);
	}
	*slot = im->ncomm;
	return c;
}

/* Where rank sits in communicator c, or SIZE_MAX: a binary search. */
static size_t
comm_pos(const struct comm *c, uint64_t rank)
{
	size_t lo = 0, hi = c->n, mid;

	if (c->by == NULL)
		return rank < c->n ? (size_t)rank : SIZE_MAX;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->by[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && c->by[lo].rank == rank ? c->by[lo].pos :
	    SIZE_MAX;
}

static int
coll_kind(const struct rk *r, const struct ck_node *nd)
{
	static const char *const names[] = { "ALL_REDUCE", "REDUCE",
		"ALL_GATHER", "GATHER", "SCATTER", "BROADCAST",
		"ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK",
		"BARRIER" };
	char msg[160];

	if (!(nd->has & CK_HAS_TYPE))
		node_die(r, nd, "collective without comm_type");
	switch (nd->comm_type) {
	case 0: return K_ALLREDUCE;
	case 2: return K_ALLGATHER;
	case 6: return K_ALLTOALL;
	case 7: return K_REDUCESCATTER;
	case 5: return K_BROADCAST;
	}
	if (nd->comm_type > 0 && nd->comm_type < 10) {
		snprintf(msg, sizeof(msg), "%s is not imported: the op stream "
		    "has no such collective", names[nd->comm_type]);
		node_die(r, nd, msg);
	}
	snprintf(msg, sizeof(msg), "unknown comm_type %lld",
	    (long long)nd->comm_type);
	node_die(r, nd, msg);
}

/*
 * A broadcast's root: its comm_src, a rank of the group, or else the
 * group's first rank.  Chakra names no root (ASTRA-sim replays a
 * broadcast's recorded time), so comm_src is this tool's choice, as a
 * send names its sender, and the first rank torch's src=0 default.
 */
static uint32_t
coll_root(const struct rk *r, const struct ck_node *nd, const struct comm *c)
{
	char msg[160];
	size_t i;

	if (!(nd->has & CK_HAS_SRC))
		return c->rank[0];
	if (nd->src >= 0 && (i = comm_pos(c, (uint64_t)nd->src)) != SIZE_MAX)
		return c->rank[i];
	snprintf(msg, sizeof(msg), "broadcast root (comm_src) %lld is not "
	    "in communicator \"%.64s\"", (long long)nd->src, c->key);
	node_die(r, nd, msg);
}

/* The k-th collective of a communicator is the same on every rank. */
static void
same_inst(const struct rk *r, const struct ck_node *nd, const struct op *o,
    const struct comm *c, size_t k)
{
	const struct inst *in = &c->inst[k];
	char msg[320];

	if (in->kind == o->kind && in->size == o->a &&
	    (o->kind != K_BROADCAST || in->root == o->root))
		return;
	if (in->kind == o->kind && in->size == o->a)
		snprintf(msg, sizeof(msg), "collective %zu of communicator "
		    "\"%.64s\" is a broadcast from rank %u here, from rank "
		    "%u at %s node %llu", k, c->key, o->root, in->root,
		    in->file, (unsigned long long)in->node);
	else
		snprintf(msg, sizeof(msg), "collective %zu of communicator "
		    "\"%.64s\" is %s of %llu bytes here, %s of %llu bytes at "
		    "%s node %llu", k, c->key, kinds[o->kind],
		    (unsigned long long)o->a, kinds[in->kind],
		    (unsigned long long)in->size, in->file,
		    (unsigned long long)in->node);
	node_die(r, nd, msg);
}

static void
map_coll(struct imp *im, struct rk *r, uint32_t rank, const struct ck_node *nd,
    struct op *o)
{
	struct comm *c;
	char msg[200];
	size_t k, i;

	o->kind = coll_kind(r, nd);
	if (!(nd->has & CK_HAS_SIZE))
		node_die(r, nd, "collective without comm_size");
	c = comm_get(im, r, nd);
	if ((i = comm_pos(c, rank)) == SIZE_MAX) {
		snprintf(msg, sizeof(msg), "rank %u is not in communicator "
		    "\"%.64s\"", rank, c->key);
		node_die(r, nd, msg);
	}
	o->a = nd->size;
	if (o->kind == K_ALLGATHER) {	/* comm_size is each rank's input */
		if (nd->size > UINT64_MAX / c->n)
			node_die(r, nd, "comm_size times the group overflows");
		o->a = nd->size * c->n;
	}
	o->comm = (size_t)(c - im->comm);
	if (o->kind == K_BROADCAST)
		o->root = coll_root(r, nd, c);
	k = c->cnt[i]++;
	if (k == c->ninst) {
		xgrow(&c->inst, &c->cap, c->ninst + 1, sizeof(*c->inst));
		c->inst[c->ninst++] = (struct inst){ o->kind, o->a,
		    im->nextcoll++, o->root, r->tr.file, nd->id };
	}
	same_inst(r, nd, o, c, k);
	o->coll = c->inst[k].coll;
}

static void
map_p2p(struct imp *im, struct rk *r, uint32_t rank, const struct ck_node *nd,
    struct op *o)
{
	int send = nd->type == CK_SEND;
	unsigned peerhas = send ? CK_HAS_DST : CK_HAS_SRC;
	unsigned selfhas = send ? CK_HAS_SRC : CK_HAS_DST;
	int64_t peer = send ? nd->dst : nd->src;
	int64_t self = send ? nd->src : nd->dst;
	char msg[200];

	o->kind = send ? K_SEND : K_RECV;
	if (!(nd->has & peerhas)) {
		snprintf(msg, sizeof(msg), "%s without a peer (%s), as "
		    "PyTorch-converted traces write them: it cannot be paired",
		    send ? "send" : "receive", send ? "comm_dst" : "comm_src");
		node_die(r, nd, msg);
	}
	if ((nd->has & selfhas) && self != rank) {
		snprintf(msg, sizeof(msg), "%s %lld is not the file's rank %u",
		    send ? "comm_src" : "comm_dst", (long long)self, rank);
		node_die(r, nd, msg);
	}
	if (peer < 0 || peer >= im->nranks || peer == rank) {
		snprintf(msg, sizeof(msg), "peer %lld is not another rank of "
		    "the trace's %u", (long long)peer, im->nranks);
		node_die(r, nd, msg);
	}
	if (!(nd->has & CK_HAS_SIZE))
		node_die(r, nd, "send or receive without comm_size");
	if ((nd->has & CK_HAS_TAG) && nd->tag < 0)
		node_die(r, nd, "negative comm_tag");
	o->peer = (uint64_t)peer;
	o->tag = (nd->has & CK_HAS_TAG) ? (uint64_t)nd->tag : 0;
	o->a = nd->size;
}

/*
 * A COMP node lasts its duration_micros; lacking one, the roofline of
 * its num_ops FLOPs and tensor_size bytes of memory traffic, as
 * ASTRA-sim's roofline times such nodes, on the GPU of --gpu at the
 * efficiency of -e (tracegen's), rounded to the nearest picosecond.
 */
static void
map_comp(struct imp *im, struct rk *r, const struct ck_node *nd, struct op *o)
{
	double ps;

	o->kind = K_COMPUTE;
	if (!(nd->has & CK_HAS_DUR) &&
	    (nd->has & (CK_HAS_OPS | CK_HAS_TSIZE))) {
		ps = llama_roof(im->gpu, im->eff, (double)nd->ops,
		    (double)nd->tsize) * 1e12;
		if (!(ps < 18e18))
			node_die(r, nd, "the roofline time of num_ops and "
			    "tensor_size overflows picoseconds");
		o->a = (uint64_t)llround(ps);
		im->roofline++;
		return;
	}
	if (nd->dur_us > UINT64_MAX / PS_PER_US)
		node_die(r, nd, "duration_micros overflows picoseconds");
	o->a = nd->dur_us * PS_PER_US;
}

static int
skipped(const struct rk *r, const struct ck_node *nd)
{
	if (nd->type == CK_INVALID)
		node_die(r, nd, "node type INVALID (0)");
	return nd->cpu || nd->type == CK_METADATA ||
	    nd->type == CK_MEM_LOAD || nd->type == CK_MEM_STORE;
}

static void
import_rank(struct imp *im, uint32_t rank)
{
	struct rk *r = &im->rk[rank];
	struct ck_node *nd;
	size_t i, n = r->tr.n ? r->tr.n : 1;

	r->keep = xcalloc(n, sizeof(*r->keep));
	r->state = xcalloc(n, sizeof(*r->state));
	r->at = xcalloc(n, sizeof(*r->at));
	r->stk = xcalloc(n, sizeof(*r->stk));
	r->thru = xcalloc(n, sizeof(*r->thru));
	r->mark = xcalloc(n, sizeof(*r->mark));
	r->op = xcalloc(n, sizeof(*r->op));
	index_ids(r);
	for (i = 0; i < r->tr.n; i++) {
		nd = &r->tr.node[i];
		im->nodes++;
		if (skipped(r, nd)) {
			im->skipped++;
			continue;
		}
		r->keep[i] = 1;
		r->nkeep++;
		r->op[i].id = im->ops++;
		if (nd->type == CK_COMP)
			map_comp(im, r, nd, &r->op[i]);
		else if (nd->type == CK_COLL)
			map_coll(im, r, rank, nd, &r->op[i]);
		else
			map_p2p(im, r, rank, nd, &r->op[i]);
	}
	check_cycles(r);
	through(r);
	for (i = 0; i < r->tr.n; i++)
		if (r->keep[i] && r->op[i].kind != K_RECV)
			resolve(r, i);
}

/* Every member of a communicator issued each of its collectives. */
static void
check_colls(const struct imp *im)
{
	const struct comm *c;
	const struct inst *in;
	size_t i, j;

	for (i = 0; i < im->ncomm; i++) {
		c = &im->comm[i];
		for (j = 0; j < c->n; j++) {
			if (c->cnt[j] == c->ninst)
				continue;
			in = &c->inst[c->cnt[j]];
			die("%s: node %llu: collective %zu of communicator "
			    "\"%s\" is missing on rank %u",
			    in->file, (unsigned long long)in->node,
			    c->cnt[j], c->key, c->rank[j]);
		}
	}
}

struct p2p {
	uint32_t	 src, dst;
	uint64_t	 tag, seq, size;
	uint32_t	 rank;
	size_t		 node;
};

static int
cmp_chan(const struct p2p *x, const struct p2p *y)
{
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static int
cmp_p2p(const void *a, const void *b)
{
	const struct p2p *x = a, *y = b;
	int c;

	if ((c = cmp_chan(x, y)) != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
same_chan(const struct p2p *x, const struct p2p *y)
{
	return cmp_chan(x, y) == 0;
}

static void
unpaired(const struct imp *im, const struct p2p *p, int send)
{
	const struct rk *r = &im->rk[p->rank];
	char msg[160];

	snprintf(msg, sizeof(msg), "%s rank %u (tag %llu) has no "
	    "matching %s", send ? "send to" : "receive from",
	    send ? p->dst : p->src, (unsigned long long)p->tag,
	    send ? "receive" : "send");
	node_die(r, &r->tr.node[p->node], msg);
}

/* The k-th send a to b with a tag meets the k-th receive at b. */
static void
check_p2p(const struct imp *im)
{
	struct p2p *s = NULL, *v = NULL, e;
	size_t ns = 0, nv = 0, cs = 0, cv = 0, i, j;
	const struct rk *r;
	const struct op *o;
	char msg[200];
	uint32_t rank;

	for (rank = 0; rank < im->nranks; rank++) {
		r = &im->rk[rank];
		for (i = 0; i < r->tr.n; i++) {
			o = &r->op[i];
			if (!r->keep[i] || (o->kind != K_SEND &&
			    o->kind != K_RECV))
				continue;
			e = (struct p2p){ rank, (uint32_t)o->peer, o->tag, i,
			    o->a, rank, i };
			if (o->kind == K_SEND) {
				xgrow(&s, &cs, ns + 1, sizeof(*s));
				s[ns++] = e;
			} else {
				e.src = (uint32_t)o->peer;
				e.dst = rank;
				xgrow(&v, &cv, nv + 1, sizeof(*v));
				v[nv++] = e;
			}
		}
	}
	if (ns)
		qsort(s, ns, sizeof(*s), cmp_p2p);
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_p2p);
	for (i = j = 0; i < ns || j < nv; i++, j++) {
		if (j == nv)
			unpaired(im, &s[i], 1);
		if (i == ns)
			unpaired(im, &v[j], 0);
		if (!same_chan(&s[i], &v[j]))
			unpaired(im, cmp_chan(&s[i], &v[j]) < 0 ? &s[i] :
			    &v[j], cmp_chan(&s[i], &v[j]) < 0);
		if (s[i].size != v[j].size) {
			r = &im->rk[v[j].rank];
			snprintf(msg, sizeof(msg), "receives %llu bytes from "
			    "rank %u, whose matching send (node %llu) sends "
			    "%llu", (unsigned long long)v[j].size, s[i].src,
			    (unsigned long long)im->rk[s[i].rank].tr.node[
			    s[i].node].id, (unsigned long long)s[i].size);
			node_die(r, &r->tr.node[v[j].node], msg);
		}
	}
	free(s);
	free(v);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
write_op(msgpack_packer *pk, const struct imp *im, uint32_t rank,
    const struct ck_node *nd, struct op *o)
{
	const struct comm *c;
	size_t i;

	stream_pack_record(pk, "op", o->kind == K_COMPUTE ? 8 :
	    o->kind == K_BROADCAST ? 11 : 10);
	stream_pack_ku64(pk, "id", o->id);
	stream_pack_ku64(pk, "rank", rank);
	stream_pack_kstr(pk, "kind", kinds[o->kind]);
	stream_pack_kstr(pk, "name", nd->name);
	if (o->ndep)
		qsort(o->dep, o->ndep, sizeof(*o->dep), cmp_u64);
	stream_pack_str(pk, "deps");
	if (o->kind == K_RECV)	/* see resolve() */
		msgpack_pack_array(pk, 0);
	else {
		msgpack_pack_array(pk, o->ndep);
		for (i = 0; i < o->ndep; i++)
			msgpack_pack_uint64(pk, o->dep[i]);
	}
	stream_pack_ku64(pk, "step", 0);
	switch (o->kind) {
	case K_COMPUTE:
		stream_pack_ku64(pk, "duration_ps", o->a);
		break;
	case K_SEND:
	case K_RECV:
		stream_pack_ku64(pk, "peer", o->peer);
		stream_pack_ku64(pk, "size", o->a);
		stream_pack_ku64(pk, "tag", o->tag);
		break;
	default:
		c = &im->comm[o->comm];
		stream_pack_str(pk, "group");
		msgpack_pack_array(pk, c->n);
		for (i = 0; i < c->n; i++)
			msgpack_pack_uint32(pk, c->rank[i]);
		stream_pack_ku64(pk, "size", o->a);
		stream_pack_ku64(pk, "coll", o->coll);
		if (o->kind == K_BROADCAST)
			stream_pack_ku64(pk, "root", o->root);
	}
}

static void
write_all(struct imp *im, int argc, char **argv)
{
	struct stream_writer *w;
	msgpack_packer *pk;
	const char *schema = im->rk[0].tr.version;
	struct rk *r;
	uint32_t rank;
	size_t i;
	int err;

	if ((w = stream_writer(stdout)) == NULL)
		die("out of memory");
	pk = stream_packer(w);
	header_write(w, "chakra", argc, argv);
	stream_pack_record(pk, "workload", 10);
	stream_pack_kstr(pk, "model", "chakra");
	stream_pack_kstr(pk, "trace", im->prefix);
	stream_pack_ku64(pk, "ranks", im->nranks);
	stream_pack_ku64(pk, "nodes", im->nodes);
	stream_pack_ku64(pk, "nodes_skipped", im->skipped);
	stream_pack_kstr(pk, "schema", schema ? schema : "none");
	stream_pack_ku64(pk, "nodes_roofline", im->roofline);
	stream_pack_kstr(pk, "gpu", im->gpu->name);
	stream_pack_kdbl(pk, "efficiency", im->eff);
	for (rank = 0; rank < im->nranks; rank++) {
		r = &im->rk[rank];
		for (i = 0; i < r->tr.n; i++)
			if (r->keep[i])
				write_op(pk, im, rank, &r->tr.node[i],
				    &r->op[i]);
	}
	if ((err = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(err));
}

static void
free_all(struct imp *im)
{
	uint32_t rank;
	size_t i;

	for (rank = 0; rank < im->nranks; rank++) {
		for (i = 0; i < im->rk[rank].tr.n; i++)
			free(im->rk[rank].op[i].dep);
		free(im->rk[rank].op);
		free(im->rk[rank].keep);
		free(im->rk[rank].state);
		free(im->rk[rank].at);
		free(im->rk[rank].stk);
		free(im->rk[rank].thru);
		free(im->rk[rank].mark);
		free(im->rk[rank].byid);
		ck_rank_free(&im->rk[rank].tr);
	}
	free(im->rk);
	for (i = 0; i < im->ncomm; i++) {
		free(im->comm[i].cnt);
		free(im->comm[i].by);
		free(im->comm[i].inst);
	}
	free(im->comm);
	free(im->gcomm);
	free(im->all);
	if (im->have_groups)
		ck_groups_free(&im->groups);
}

/* The ranks read, and the groups if any: their ops, every check made. */
static void
import_all(struct imp *im)
{
	uint32_t rank;

	im->gcomm = xcalloc(im->groups.n + 1, sizeof(*im->gcomm));
	for (rank = 0; rank < im->nranks; rank++)
		import_rank(im, rank);
	check_colls(im);
	check_p2p(im);
}

/* An import not begun: tracegen's GPU and efficiency for the roofline. */
static void
imp_init(struct imp *im)
{
	memset(im, 0, sizeof(*im));
	im->gpu = llama_gpu("a100");
	im->eff = 0.4;
}

static const struct option longopts[] = {
	{ "efficiency",	required_argument, NULL, 'e' },
	{ "gpu",	required_argument, NULL, 'G' },
	CLI_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

static double
parse_eff(const char *arg)
{
	const char *err;
	double e;

	if ((err = units_parse_fraction(arg, &e)) != NULL) {
		warnmsg("-e %s: efficiency %s", arg, err);
		usage();
	}
	return e;
}

int
main(int argc, char **argv)
{
	struct imp im;
	char *file;
	const char *gfile = NULL, *xprefix = NULL;
	uint32_t rank;
	size_t len;
	int ch, roofopt = 0;

	die_init("chakra");
	imp_init(&im);
	while ((ch = getopt_long(argc, die_argv(argv), "he:g:x:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'e':
			im.eff = parse_eff(optarg);
			roofopt = 1;
			break;
		case 'G':
			if ((im.gpu = llama_gpu(optarg)) == NULL) {
				warnmsg("--gpu %s: no such GPU (a100, h100)",
				    optarg);
				usage();
			}
			roofopt = 1;
			break;
		case 'g':
			gfile = optarg;
			break;
		case 'x':
			xprefix = optarg;
			break;
		case 'h':
			cli_help(USAGE, OPTIONS);
		case CLI_VERSION:
			cli_version();
		default:
			usage();
		}
	}
	if (xprefix != NULL) {
		if (gfile != NULL || roofopt || argc != optind)
			usage();
		chakra_export(xprefix, argc - 1, argv + 1);
		return 0;
	}
	if (argc - optind != 1)
		usage();
	die_if_tty();
	im.prefix = argv[optind];
	im.nranks = list_ranks(im.prefix);
	if (gfile != NULL) {
		ck_groups_read(gfile, &im.groups);
		im.have_groups = 1;
	}

	im.all = xcalloc(im.nranks, sizeof(*im.all));
	for (rank = 0; rank < im.nranks; rank++)
		im.all[rank] = rank;
	im.rk = xcalloc(im.nranks, sizeof(*im.rk));
	len = strlen(im.prefix) + 16;
	file = xmalloc(len);
	for (rank = 0; rank < im.nranks; rank++) {
		snprintf(file, len, "%s.%u.et", im.prefix, rank);
		ck_rank_read(file, &im.rk[rank].tr);
	}
	free(file);
	import_all(&im);
	write_all(&im, argc - 1, argv + 1);
	free_all(&im);
	return 0;
}
