/*
 * dagbuild: turn a trace of ops into the task DAG, plus the network.
 *
 * Reads op records (one per rank and op, see fluxocs(5)), matches the
 * ranks' parts of every collective and every send with its receive,
 * expands collectives into point-to-point transfers with the chosen
 * algorithm, and writes a net record and the tasks, numbered densely
 * in a topological order.  Other records pass through.  See dagbuild(1).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "dag.h"
#include "die.h"
#include "filter.h"
#include "header.h"
#include "horizon.h"
#include "net.h"
#include "rec.h"
#include "stream.h"
#include "taskio.h"
#include "units.h"

enum { OP_COMPUTE, OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER,
	OP_ALLTOALL, OP_BROADCAST, OP_SEND, OP_RECV };

static const char *const op_kinds[] = { "compute", "allreduce",
	"allgather", "reducescatter", "alltoall", "broadcast", "send", "recv",
	NULL };

#define IS_COLL(k)	((k) >= OP_ALLREDUCE && (k) <= OP_BROADCAST)

struct op {
	uint64_t	 id;
	uint64_t	 off;		/* byte offset, for messages */
	char		*name;
	int		 kind;
	uint32_t	 rank, step;
	uint64_t	 amount;	/* compute: ps; others: bytes */
	uint64_t	 key;		/* coll id, or tag */
	uint32_t	 peer;
	uint32_t	*group;
	uint32_t	 ngroup;
	uint32_t	 root;		/* broadcast: position in group */
	uint64_t	*sizes;		/* all-to-all: bytes to each member */
	size_t		 dep_off;	/* into ops.dep: op indices */
	uint32_t	 ndep;
	uint32_t	 node;		/* merged node */
	uint32_t	 prev;		/* previous compute op on the rank */
	size_t		 done_off;	/* into done[]: task ids */
	uint32_t	 ndone;
};

struct ops {
	struct op	*o;
	size_t		 n, cap;
	uint64_t	*rawdep;	/* ids as read, then indices */
	size_t		 ndep, depcap;
};

/* A merged node: one op, a whole collective, or a send with its recv. */
struct node {
	uint32_t	 first;		/* op index of the first member */
	uint32_t	*member;
	uint32_t	 nmember;
};

struct build {
	struct ops	 ops;
	struct node	*node;
	size_t		 nnode;
	struct dag	 dag;
	uint32_t	*taskop;	/* task -> op index */
	int32_t		*taskpart;	/* task -> collective step, or -1 */
	size_t		 tcap;
	uint32_t	*done;
	size_t		 ndone, donecap;
	uint32_t	*scratch;
	size_t		 scap;
	int		 algo;
	const char	*input;
};

static void
usage(void)
{
	fprintf(stderr, "usage: dagbuild [-a ring|hd|direct] "
	    "[-b bandwidth] [-g gpus] [-L latency]\n"
	    "                [-m port|switch] [-r reconfig] [-s switches]\n");
	exit(2);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int
has_dup(const uint32_t *v, uint32_t n)
{
	uint32_t *c = xcalloc(n, sizeof(*c)), i;
	int dup = 0;

	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_u32);
	for (i = 1; i < n && !dup; i++)
		dup = c[i] == c[i - 1];
	free(c);
	return dup;
}

/* A broadcast's root: a rank of the group, kept as its position. */
static void
read_root(struct rec *r, struct op *o)
{
	uint64_t v;

	if (o->kind != OP_BROADCAST || r->failed)
		return;
	v = rec_u64(r, "root");
	for (o->root = 0; o->root < o->ngroup && o->group[o->root] != v;
	    o->root++)
		;
	if (!r->failed && o->root == o->ngroup)
		rec_fail(r, "key \"root\": rank %llu is not in the group",
		    (unsigned long long)v);
}

/*
 * An all-to-all's optional sizes: the bytes to each position of the
 * group, summing exactly to the op's size, its send buffer.
 */
static void
read_sizes(struct rec *r, struct op *o)
{
	const msgpack_object_array *a;
	uint64_t sum = 0, v;
	uint32_t i;

	if (!rec_has(r, "sizes") || r->failed)
		return;
	if (o->kind != OP_ALLTOALL) {
		rec_fail(r, "key \"sizes\": only an all-to-all has sizes");
		return;
	}
	a = rec_array(r, "sizes");
	if (!r->failed && a->size != o->ngroup) {
		rec_fail(r, "key \"sizes\": %u entries for a group of %u",
		    (unsigned)a->size, o->ngroup);
		return;
	}
	o->sizes = xcalloc(o->ngroup, sizeof(*o->sizes));
	for (i = 0; i < o->ngroup && !r->failed; i++) {
		v = o->sizes[i] = rec_elem_u64(r, "sizes", a, i);
		if (!r->failed && sum > UINT64_MAX - v)
			rec_fail(r, "key \"sizes\": the entries sum past "
			    "2^64-1 bytes");
		sum += v;
	}
	if (!r->failed && sum != o->amount)
		rec_fail(r, "key \"sizes\": the entries sum to %llu, not the "
		    "size %llu", (unsigned long long)sum,
		    (unsigned long long)o->amount);
}

/*
 * The longest op name taken, whole: the task names made of it, with
 * "[part]", and a task's deps stay far below a reader's record limit.
 */
#define MAX_NAME	4096

static void
read_op(struct build *b, struct rec *r)
{
	struct ops *os = &b->ops;
	const msgpack_object_array *deps, *grp;
	struct op o = { 0 };
	const char *nm;
	size_t len, i;

	o.off = r->off;
	o.id = rec_u64(r, "id");
	o.rank = (uint32_t)rec_u64_max(r, "rank", NET_MAX_GPUS - 1);
	o.kind = rec_enum(r, "kind", op_kinds);
	nm = rec_str(r, "name", &len);
	if (!r->failed && len > MAX_NAME)
		rec_fail(r, "key \"name\": %zu bytes, over the %d a name may "
		    "have", len, MAX_NAME);
	deps = rec_array(r, "deps");
	if (rec_has(r, "step"))
		o.step = (uint32_t)rec_u64_max(r, "step", DAG_MAX_STEP);
	if (o.kind == OP_COMPUTE)
		o.amount = rec_u64(r, "duration_ps");
	else
		o.amount = rec_u64(r, "size");
	if (IS_COLL(o.kind)) {
		o.key = rec_u64(r, "coll");
		grp = rec_array(r, "group");
		if (!r->failed && grp->size == 0)
			rec_fail(r, "key \"group\": empty group");
		o.group = xcalloc(grp->size, sizeof(*o.group));
		o.ngroup = grp->size;
		for (i = 0; i < grp->size && !r->failed; i++) {
			uint64_t g = rec_elem_u64(r, "group", grp, i);

			if (g >= NET_MAX_GPUS)
				rec_fail(r, "key \"group\": rank %llu out of "
				    "range", (unsigned long long)g);
			o.group[i] = (uint32_t)g;
		}
		if (!r->failed && has_dup(o.group, o.ngroup))
			rec_fail(r, "key \"group\": a rank is listed twice");
		read_root(r, &o);
		read_sizes(r, &o);
	}
	if (!IS_COLL(o.kind) && rec_has(r, "sizes"))
		rec_fail(r, "key \"sizes\": only an all-to-all has sizes");
	if (o.kind != OP_BROADCAST && rec_has(r, "root"))
		rec_fail(r, "key \"root\": only a broadcast has a root");
	if (!IS_COLL(o.kind) && o.kind != OP_COMPUTE) {
		o.peer = (uint32_t)rec_u64_max(r, "peer", NET_MAX_GPUS - 1);
		o.key = rec_u64_or(r, "tag", 0);
	}
	if (!r->failed && os->n >= UINT32_MAX / 2)
		rec_fail(r, "too many ops");
	xgrow(&os->rawdep, &os->depcap, os->ndep + deps->size,
	    sizeof(*os->rawdep));
	for (i = 0; i < deps->size; i++)
		os->rawdep[os->ndep + i] = rec_elem_u64(r, "deps", deps, i);
	if (rec_failed(r))
		die("%s", rec_error(r));
	o.name = xstrndup(nm, len);
	o.dep_off = os->ndep;
	o.ndep = deps->size;
	os->ndep += deps->size;
	xgrow(&os->o, &os->cap, os->n + 1, sizeof(*os->o));
	os->o[os->n++] = o;
}

static void
opfail(const struct build *b, const struct op *o, const char *fmt,
    const char *what)
{
	char msg[200];

	char name[64];

	snprintf(msg, sizeof(msg), fmt, what);
	die("%s: byte %llu: op %llu (%s): %s", b->input,
	    (unsigned long long)o->off, (unsigned long long)o->id,
	    rec_printable(o->name, strlen(o->name), name, sizeof(name)), msg);
}

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

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * An op's dependencies.  rawdep stays NULL while no op has any, and
 * NULL + 0 is undefined: point into it only when there is something.
 */
static uint64_t *
op_deps(const struct ops *os, const struct op *o)
{
	return o->ndep == 0 ? NULL : os->rawdep + o->dep_off;
}

/* Sort a dependency list and drop repeats; returns the new count. */
static uint32_t
uniq64(uint64_t *v, uint32_t n)
{
	uint32_t i, k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
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
static void
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
		o->ndep = uniq64(op_deps(os, o), o->ndep);
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
static void
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

/* Order the nodes; a cycle among them is a deadlock in the trace. */
static uint32_t *
order_nodes(struct build *b)
{
	struct op *o = b->ops.o;
	size_t *off, i, j, k, e = 0, cyc = 0, cap = 0;
	uint32_t *adj = NULL, *order;

	off = xcalloc(b->nnode + 1, sizeof(*off));
	for (i = 0; i < b->nnode; i++) {
		off[i] = e;
		for (j = 0; j < b->node[i].nmember; j++) {
			const struct op *m = &o[b->node[i].member[j]];
			const uint64_t *d = op_deps(&b->ops, m);

			xgrow(&adj, &cap, e + m->ndep + 1, sizeof(*adj));
			for (k = 0; k < m->ndep; k++) {
				if (o[d[k]].node == i)
					opfail(b, m, "%s", "depends on an op "
					    "of its own collective or "
					    "transfer");
				adj[e++] = o[d[k]].node;
			}
			if (m->prev != UINT32_MAX)
				adj[e++] = o[m->prev].node;
		}
	}
	off[b->nnode] = e;
	order = xcalloc(b->nnode + 1, sizeof(*order));
	switch (dag_toposort(b->nnode, off, adj, order, &cyc)) {
	case 0:
		break;
	case -1:
		opfail(b, &o[b->node[cyc].first], "%s", "is on a cycle: the "
		    "trace deadlocks");
		break;
	default:
		die("out of memory");
	}
	free(off);
	free(adj);
	return order;
}

/*
 * Append the done sets of an op's dependencies to b->scratch[0..n);
 * returns the new count.  It may move b->scratch: read the pointer only
 * after the call, never in the same expression.
 */
static size_t
gather(struct build *b, const struct op *m, size_t n)
{
	const struct op *o = b->ops.o;
	const uint64_t *d = op_deps(&b->ops, m);
	size_t k;

	for (k = 0; k <= m->ndep; k++) {
		const struct op *p;

		if (k == m->ndep) {
			if (m->prev == UINT32_MAX)
				break;
			p = &o[m->prev];
		} else
			p = &o[d[k]];
		if (p->ndone == 0)
			continue;
		xgrow(&b->scratch, &b->scap, n + p->ndone, sizeof(uint32_t));
		memcpy(b->scratch + n, b->done + p->done_off,
		    p->ndone * sizeof(uint32_t));
		n += p->ndone;
	}
	return n;
}

/* Sort and deduplicate scratch[0..n); returns the new count. */
static size_t
uniq(uint32_t *v, size_t n)
{
	size_t i, k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u32);
	for (i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static uint32_t
add_task(struct build *b, const struct dag_task *t, const uint32_t *dep,
    size_t n, uint32_t op, int32_t part)
{
	size_t id = b->dag.n, cap = b->tcap;
	char msg[120];

	/*
	 * Never write a deps array that every reader refuses.  The bytes
	 * stay below STREAM_MAX_RECORD: at most 5 a dep, MAX_NAME + 16 for
	 * the name.
	 */
	if (n > STREAM_MAX_ELEMS) {
		snprintf(msg, sizeof(msg), "its task would have %zu deps, over "
		    "the limit of %lu items a reader accepts", n,
		    (unsigned long)STREAM_MAX_ELEMS);
		opfail(b, &b->ops.o[op], "%s", msg);
	}
	/* adversarial traces can ask for quadratic dependencies: refuse */
	if (b->dag.ndep + n > 32 * (b->ops.n + b->dag.n) + (1U << 22))
		die("%s: the trace's dependencies fan out too widely (an op "
		    "with very many inputs feeding a large collective?)",
		    b->input);
	if (dag_add(&b->dag, t, dep, n) != 0)
		die("out of memory or too many tasks");
	/* taskpart shares taskop's capacity: resize it only when that grew */
	xgrow(&b->taskop, &b->tcap, id + 1, sizeof(*b->taskop));
	if (b->tcap != cap)
		b->taskpart = xreallocarray(b->taskpart, b->tcap,
		    sizeof(*b->taskpart));
	b->taskop[id] = op;
	b->taskpart[id] = part;
	return (uint32_t)id;
}

static void
set_done(struct build *b, struct op *m, const uint32_t *v, size_t n)
{
	m->done_off = b->ndone;
	m->ndone = 0;
	if (n == 0)
		return;
	if (b->ndone + n > 16 * (b->ops.n + b->dag.n) + (1U << 20))
		opfail(b, m, "%s", "the trace's dependencies fan in too "
		    "widely (collectives of one rank chained over many "
		    "inputs?)");
	xgrow(&b->done, &b->donecap, b->ndone + n, sizeof(*b->done));
	memcpy(b->done + b->ndone, v, n * sizeof(*v));
	m->ndone = (uint32_t)n;
	b->ndone += n;
}

static void
expand_compute(struct build *b, struct op *m)
{
	struct dag_task t = { .kind = DAG_COMPUTE, .gpu = m->rank,
	    .amount = m->amount, .step = (uint16_t)m->step };
	size_t n;
	uint32_t id;

	n = gather(b, m, 0);
	n = uniq(b->scratch, n);
	id = add_task(b, &t, b->scratch, n, (uint32_t)(m - b->ops.o), -1);
	set_done(b, m, &id, 1);
}

static void
expand_p2p(struct build *b, const struct node *nd)
{
	struct op *s = &b->ops.o[nd->member[0]], *r = &b->ops.o[nd->member[1]];
	struct dag_task t = { .kind = DAG_TRANSFER, .gpu = s->rank,
	    .dst = s->peer, .amount = s->amount, .step = (uint16_t)s->step };
	size_t n;
	uint32_t id;

	n = gather(b, s, 0);
	n = gather(b, r, n);
	n = uniq(b->scratch, n);
	id = add_task(b, &t, b->scratch, n, nd->member[0], -1);
	set_done(b, s, &id, 1);
	set_done(b, r, &id, 1);
}

/* An all-to-all with sizes: each position's row, in group order. */
static int
alltoallv(struct build *b, const struct node *nd, struct coll_plan *pl)
{
	const uint64_t **rows;
	uint32_t q;
	int rc;

	rows = xcalloc(nd->nmember, sizeof(*rows));
	for (q = 0; q < nd->nmember; q++)
		rows[q] = b->ops.o[nd->member[q]].sizes;
	rc = coll_alltoallv(pl, nd->nmember, rows);
	free(rows);
	return rc;
}

static void
expand_coll(struct build *b, const struct node *nd, struct coll_plan *pl)
{
	struct op *o = b->ops.o, *f = &o[nd->member[0]];
	uint32_t base = (uint32_t)b->dag.n, q, *fin;
	size_t i, k, n, nf;
	int rc;

	coll_free(pl);
	rc = f->sizes != NULL ? alltoallv(b, nd, pl) : coll_expand(pl,
	    f->kind - OP_ALLREDUCE, b->algo, nd->nmember, f->amount, f->root);
	if (rc == -2)
		opfail(b, f, "%s", "halving-doubling needs a group whose "
		    "size is a power of two");
	if (rc != 0)
		die("out of memory");
	for (i = 0; i < pl->n; i++) {
		const struct coll_xfer *x = &pl->x[i];
		struct op *src = &o[nd->member[x->src]];
		struct dag_task t = { .kind = DAG_TRANSFER, .gpu = src->rank,
		    .dst = f->group[x->dst], .amount = x->bytes,
		    .step = (uint16_t)src->step };

		/*
		 * Every send of a rank also waits for the rank's own
		 * inputs: a reduction combines them with what arrived.
		 */
		n = gather(b, src, 0);
		xgrow(&b->scratch, &b->scap, n + x->ndep, sizeof(uint32_t));
		for (k = 0; k < x->ndep; k++)
			b->scratch[n++] = base + pl->dep[x->dep_off + k];
		n = uniq(b->scratch, n);
		add_task(b, &t, b->scratch, n, nd->member[x->src],
		    (int32_t)x->step);
	}
	fin = xcalloc(pl->n + 1, sizeof(*fin));
	for (q = 0; q < nd->nmember; q++) {
		struct op *m = &o[nd->member[q]];

		for (i = nf = 0; i < pl->n; i++)
			if ((pl->x[i].final & COLL_FINAL_DST &&
			    pl->x[i].dst == q) || (pl->x[i].final &
			    COLL_FINAL_SRC && pl->x[i].src == q))
				fin[nf++] = base + (uint32_t)i;
		/*
		 * Nothing to move for this rank (a group of one, or an
		 * all-to-all rank that neither sends nor receives): what
		 * follows waits for what the op waits for.
		 */
		if (nf == 0) {
			n = gather(b, m, 0);
			n = uniq(b->scratch, n);
			set_done(b, m, b->scratch, n);
			continue;
		}
		set_done(b, m, fin, nf);
	}
	free(fin);
}

static void
expand(struct build *b)
{
	struct coll_plan pl;
	uint32_t *order;
	size_t i;

	order = order_nodes(b);
	coll_init(&pl);
	for (i = 0; i < b->nnode; i++) {
		const struct node *nd = &b->node[order[i]];
		struct op *f = &b->ops.o[nd->member[0]];

		if (f->kind == OP_COMPUTE)
			expand_compute(b, f);
		else if (IS_COLL(f->kind))
			expand_coll(b, nd, &pl);
		else
			expand_p2p(b, nd);
	}
	coll_free(&pl);
	free(order);
}

static uint32_t
count_gpus(const struct build *b)
{
	uint32_t max = 0, j;
	size_t i;

	for (i = 0; i < b->ops.n; i++) {
		const struct op *o = &b->ops.o[i];

		if (o->rank > max)
			max = o->rank;
		if (o->kind == OP_SEND || o->kind == OP_RECV)
			max = o->peer > max ? o->peer : max;
		for (j = 0; j < o->ngroup; j++)
			max = o->group[j] > max ? o->group[j] : max;
	}
	return max + 1;
}

static void
write_tasks(struct build *b, msgpack_packer *pk)
{
	char name[MAX_NAME + 16];	/* the op's name and "[part]" */
	size_t i;

	for (i = 0; i < b->dag.n; i++) {
		const struct op *o = &b->ops.o[b->taskop[i]];

		if (b->taskpart[i] >= 0)
			snprintf(name, sizeof(name), "%s[%d]", o->name,
			    b->taskpart[i]);
		else
			snprintf(name, sizeof(name), "%s", o->name);
		taskio_write(pk, &b->dag, i, name, &o->id);
	}
}

static void
free_build(struct build *b)
{
	size_t i;

	for (i = 0; i < b->ops.n; i++) {
		free(b->ops.o[i].name);
		free(b->ops.o[i].group);
		free(b->ops.o[i].sizes);
	}
	for (i = 0; i < b->nnode; i++)
		free(b->node[i].member);
	free(b->ops.o);
	free(b->ops.rawdep);
	free(b->node);
	dag_free(&b->dag);
	free(b->taskop);
	free(b->taskpart);
	free(b->done);
	free(b->scratch);
}

static const struct option longopts[] = {
	{ "algorithm",		required_argument, NULL, 'a' },
	{ "bandwidth",		required_argument, NULL, 'b' },
	{ "gpus",		required_argument, NULL, 'g' },
	{ "latency",		required_argument, NULL, 'L' },
	{ "reconfig-model",	required_argument, NULL, 'm' },
	{ "reconfig",		required_argument, NULL, 'r' },
	{ "switches",		required_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 }
};

static int
pick(const char *opt, const char *arg, const char *const *names)
{
	int i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(arg, names[i]) == 0)
			return i;
	warnmsg("-%s %s: unknown value", opt, arg);
	usage();
	return 0;
}

static void
unit_opt(const char *opt, const char *arg, const char *(*fn)(const char *,
    uint64_t *), uint64_t *out)
{
	const char *e;

	if ((e = fn(arg, out)) != NULL) {
		warnmsg("-%s %s: %s", opt, arg, e);
		usage();
	}
}

/*
 * A delay of the net: past 2^62 ps (53 days) no schedule's times could
 * hold it (lib/horizon), so it is refused here, not downstream.
 */
static void
time_opt(const char *opt, const char *arg, uint64_t *out)
{
	unit_opt(opt, arg, units_parse_time, out);
	if (*out <= HORIZON_MAX_PS)
		return;
	warnmsg("-%s %s: over the %llu ps (2^62) a delay may last", opt,
	    arg, (unsigned long long)HORIZON_MAX_PS);
	usage();
}

static void
parse_args(struct build *b, struct net *net, int argc, char **argv)
{
	uint64_t v;
	int ch;

	*net = (struct net){ .switches = 2, .bandwidth_bps = 800000000000ULL,
	    .reconfig_ps = 10000000ULL, .model = NET_PORT };
	while ((ch = getopt_long(argc, die_argv(argv), "a:b:g:L:m:r:s:",
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'a': b->algo = pick("a", optarg, coll_algos); break;
		case 'b':
			unit_opt("b", optarg, units_parse_rate,
			    &net->bandwidth_bps);
			if (net->bandwidth_bps == 0) {
				warnmsg("-b %s: must be positive", optarg);
				usage();
			}
			break;
		case 'g':
			if (units_parse_count(optarg, 1, NET_MAX_GPUS, &v)) {
				warnmsg("-g %s: not a GPU count", optarg);
				usage();
			}
			net->gpus = (uint32_t)v;
			break;
		case 'L': time_opt("L", optarg, &net->latency_ps); break;
		case 'm': net->model = pick("m", optarg, net_models); break;
		case 'r': time_opt("r", optarg, &net->reconfig_ps); break;
		case 's':
			if (units_parse_count(optarg, 1, NET_MAX_SWITCHES, &v)) {
				warnmsg("-s %s: not a switch count", optarg);
				usage();
			}
			net->switches = (uint32_t)v;
			break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
}

/* Keep the ops, pass the rest.  Refuse a stream built already. */
static int
take(void *arg, const struct stream_rec *sr)
{
	struct build *b = arg;
	struct rec r;

	if (stream_rec_is(sr, "net") || stream_rec_is(sr, "task"))
		die("%s: byte %llu: the stream already holds a %.*s record: "
		    "it has been through dagbuild", b->input,
		    (unsigned long long)sr->off, (int)sr->typelen, sr->type);
	if (!stream_rec_is(sr, "op"))
		return 1;
	rec_init(&r, sr, b->input);
	read_op(b, &r);
	return 0;
}

static void
read_input(struct build *b, struct stream_writer *w, int argc, char **argv)
{
	char err[400];

	if (filter_run(stdin, b->input, w, "dagbuild", argc, argv, take, b,
	    err, sizeof(err)) != 0)
		die("%s", err);
}

int
main(int argc, char **argv)
{
	struct stream_writer *w;
	struct build b;
	struct net net;
	uint32_t need;
	int err;

	die_init("dagbuild");
	memset(&b, 0, sizeof(b));
	b.input = "stdin";
	parse_args(&b, &net, argc, argv);
	die_if_tty();
	if ((w = stream_writer(stdout)) == NULL)
		die("out of memory");
	read_input(&b, w, argc - 1, argv + 1);
	if (b.ops.n == 0)
		die("%s: no op records in the input", b.input);
	resolve_deps(&b);
	make_nodes(&b);
	need = count_gpus(&b);
	if (net.gpus == 0)
		net.gpus = need;
	else if (net.gpus < need)
		die("-g %u: the trace uses %u GPUs", net.gpus, need);
	expand(&b);
	net_write(stream_packer(w), &net);
	write_tasks(&b, stream_packer(w));
	if ((err = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(err));
	free_build(&b);
	return 0;
}
