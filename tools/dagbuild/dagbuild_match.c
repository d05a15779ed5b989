/* dagbuild: ops merged into nodes (see dagbuild.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/net.h"
#include "records/die.h"

#include "dagbuild.h"

struct idx {
	uint64_t	id;
	uint32_t	i;
};

static int
cmp_idx(const void *a, const void *b)
{
	const struct idx *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Index of the op with this id in the sorted table, or -1. */
static long
find_id(const struct idx *ix, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ix[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ix[lo].id == id ? (long)ix[lo].i : -1;
}

/* Turn dependency ids into op indices; refuse duplicates, unknowns. */
void
resolve_deps(struct build *b)
{
	struct ops *os = &b->ops;
	struct idx *ix;
	size_t i, j;
	long k;

	ix = xcalloc(os->n, sizeof(*ix));
	for (i = 0; i < os->n; i++)
		ix[i] = (struct idx){ os->o[i].id, (uint32_t)i };
	qsort(ix, os->n, sizeof(*ix), cmp_idx);
	for (i = 1; i < os->n; i++)
		if (ix[i].id == ix[i - 1].id)
			opfail(b, &os->o[ix[i].i], "%s", "duplicate op id");
	for (i = 0; i < os->n; i++) {
		struct op *o = &os->o[i];

		for (j = 0; j < o->ndep; j++) {
			k = find_id(ix, os->n, os->rawdep[o->dep_off + j]);
			if (k < 0)
				opfail(b, o, "%s", "depends on an unknown op");
			if ((size_t)k == i)
				opfail(b, o, "%s", "depends on itself");
			os->rawdep[o->dep_off + j] = (uint64_t)k;
		}
		o->ndep = (uint32_t)sort_uniq(op_deps(os, o), o->ndep,
		    sizeof(uint64_t), cmp_u64);
	}
	free(ix);
}

struct mkey {
	uint64_t	a, b, c;	/* match key */
	uint32_t	i;		/* op index */
};

static int
cmp_mkey(const void *x, const void *y)
{
	const struct mkey *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	if (p->c != q->c)
		return p->c < q->c ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

static struct node *
new_node(struct build *b, uint32_t n)
{
	struct node *nd;

	nd = &b->node[b->nnode++];
	nd->member = xcalloc(n, sizeof(*nd->member));
	nd->nmember = n;
	return nd;
}

/* Check one collective instance: ops k[0..n) share a coll id. */
static void
one_collective(struct build *b, const struct mkey *k, size_t n)
{
	const struct op *o = b->ops.o, *f = &o[k[0].i];
	struct node *nd;
	size_t j;
	uint32_t q;

	if (n != f->ngroup)
		opfail(b, f, "%s", n < f->ngroup ? "collective is missing "
		    "the op of some rank of its group" : "collective has "
		    "more ops than its group has ranks");
	nd = new_node(b, (uint32_t)n);
	nd->first = UINT32_MAX;
	for (j = 0; j < n; j++) {
		const struct op *m = &o[k[j].i];

		if (m->kind == f->kind && (m->sizes == NULL) !=
		    (f->sizes == NULL))
			opfail(b, m, "%s", "all-to-all ops disagree: some "
			    "have sizes, some not");
		/* with sizes, each rank has its own send buffer */
		if (m->kind != f->kind || (m->sizes == NULL &&
		    m->amount != f->amount) ||
		    m->ngroup != f->ngroup || memcmp(m->group, f->group,
		    n * sizeof(*m->group)) != 0)
			opfail(b, m, "%s", "collective ops disagree on kind, "
			    "size or group");
		if (m->root != f->root)
			opfail(b, m, "%s", "broadcast ops disagree on the root");
		if (j > 0 && m->rank == o[k[j - 1].i].rank)
			opfail(b, m, "%s", "rank has two ops in one "
			    "collective");
		for (q = 0; q < n && f->group[q] != m->rank; q++)
			;
		if (q == n)
			opfail(b, m, "%s", "rank is not in the group");
		nd->member[q] = k[j].i;
		if (k[j].i < nd->first)
			nd->first = k[j].i;
	}
}

static void
match_collectives(struct build *b)
{
	struct op *o = b->ops.o;
	struct mkey *k;
	size_t i, n = 0, j;

	k = xcalloc(b->ops.n, sizeof(*k));
	for (i = 0; i < b->ops.n; i++)
		if (IS_COLL(o[i].kind))
			k[n++] = (struct mkey){ o[i].key, o[i].rank, 0,
			    (uint32_t)i };
	qsort(k, n, sizeof(*k), cmp_mkey);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && k[j].a == k[i].a; j++)
			;
		one_collective(b, k + i, j - i);
	}
	free(k);
}

static int
key_less(const struct mkey *p, const struct mkey *q)
{
	if (p->a != q->a)
		return p->a < q->a;
	if (p->b != q->b)
		return p->b < q->b;
	return p->c < q->c;
}

/* Pair the k-th send src->dst with tag t with the k-th such receive. */
static void
match_p2p(struct build *b)
{
	struct op *o = b->ops.o;
	struct mkey *sk, *rk;
	size_t i, j, ns = 0, nr = 0;
	struct node *nd;

	sk = xcalloc(b->ops.n, sizeof(*sk));
	rk = xcalloc(b->ops.n, sizeof(*rk));
	for (i = 0; i < b->ops.n; i++) {
		if (o[i].kind == OP_SEND)
			sk[ns++] = (struct mkey){ o[i].rank, o[i].peer,
			    o[i].key, (uint32_t)i };
		if (o[i].kind == OP_RECV)
			rk[nr++] = (struct mkey){ o[i].peer, o[i].rank,
			    o[i].key, (uint32_t)i };
	}
	qsort(sk, ns, sizeof(*sk), cmp_mkey);
	qsort(rk, nr, sizeof(*rk), cmp_mkey);
	for (i = j = 0; i < ns || j < nr; i++, j++) {
		if (j == nr || (i < ns && key_less(&sk[i], &rk[j])))
			opfail(b, &o[sk[i].i], "%s", "send has no matching "
			    "receive");
		if (i == ns || key_less(&rk[j], &sk[i]))
			opfail(b, &o[rk[j].i], "%s", "receive has no "
			    "matching send");
		if (o[sk[i].i].rank == o[sk[i].i].peer)
			opfail(b, &o[sk[i].i], "%s", "send to itself");
		if (o[sk[i].i].amount != o[rk[j].i].amount)
			opfail(b, &o[rk[j].i], "%s", "receive size differs "
			    "from its send");
		nd = new_node(b, 2);
		nd->member[0] = sk[i].i;
		nd->member[1] = rk[j].i;
		nd->first = sk[i].i < rk[j].i ? sk[i].i : rk[j].i;
	}
	free(sk);
	free(rk);
}

static int
cmp_node(const void *x, const void *y)
{
	const struct node *p = x, *q = y;

	return p->first < q->first ? -1 : p->first > q->first;
}

/*
 * Merge each collective and each send/receive pair into one node,
 * number the nodes by their first op, and link each compute op to the
 * previous compute op of its rank (the GPU's program order).
 */
void
make_nodes(struct build *b)
{
	struct op *o = b->ops.o;
	uint32_t *last;
	size_t i, j;

	b->node = xcalloc(b->ops.n, sizeof(*b->node));
	for (i = 0; i < b->ops.n; i++)
		if (o[i].kind == OP_COMPUTE) {
			struct node *nd = new_node(b, 1);

			nd->member[0] = (uint32_t)i;
			nd->first = (uint32_t)i;
		}
	match_collectives(b);
	match_p2p(b);
	qsort(b->node, b->nnode, sizeof(*b->node), cmp_node);
	for (i = 0; i < b->nnode; i++)
		for (j = 0; j < b->node[i].nmember; j++)
			o[b->node[i].member[j]].node = (uint32_t)i;
	last = xcalloc(NET_MAX_GPUS, sizeof(*last));
	for (i = 0; i < b->ops.n; i++) {
		o[i].prev = UINT32_MAX;
		if (o[i].kind != OP_COMPUTE)
			continue;
		if (last[o[i].rank] != 0)
			o[i].prev = last[o[i].rank] - 1;
		last[o[i].rank] = (uint32_t)i + 1;
	}
	free(last);
}
