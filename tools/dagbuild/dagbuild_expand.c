/* dagbuild: nodes expanded into tasks (see dagbuild.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/coll.h"
#include "model/dag.h"
#include "records/die.h"
#include "records/mem.h"
#include "records/stream.h"

#include "dagbuild.h"

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
	mem_ahead(b->taskop, sizeof(*b->taskop), id, id + 1, b->tcap);
	mem_ahead(b->taskpart, sizeof(*b->taskpart), id, id + 1, b->tcap);
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
	n = sort_uniq(b->scratch, n, sizeof(uint32_t), cmp_u32);
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
	n = sort_uniq(b->scratch, n, sizeof(uint32_t), cmp_u32);
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

/* The positions transfer x is final for, into end: how many (0-2). */
static int
final_ends(const struct coll_xfer *x, uint32_t *end)
{
	int n = 0;

	if (x->final & COLL_FINAL_DST)
		end[n++] = x->dst;
	if (x->final & COLL_FINAL_SRC && (n == 0 || x->src != x->dst))
		end[n++] = x->src;
	return n;
}

/*
 * Each position's final transfers, as task ids from base, in plan
 * order: fin[at[q]] .. fin[at[q + 1] - 1], in one pass over the plan
 * (a transfer is final for its destination, its source or both).
 */
static void
finals(const struct coll_plan *pl, uint32_t nmember, uint32_t base,
    uint32_t **fin, size_t **at)
{
	size_t *cnt, *pos, i;
	uint32_t q, end[2];
	int e, ne;

	cnt = xcalloc((size_t)nmember + 1, sizeof(*cnt));
	for (i = 0; i < pl->n; i++)
		for (e = 0, ne = final_ends(&pl->x[i], end); e < ne; e++)
			cnt[end[e] + 1]++;
	for (q = 0; q < nmember; q++)
		cnt[q + 1] += cnt[q];
	pos = xcalloc((size_t)nmember + 1, sizeof(*pos));
	memcpy(pos, cnt, ((size_t)nmember + 1) * sizeof(*pos));
	*fin = xcalloc(cnt[nmember] + 1, sizeof(**fin));
	for (i = 0; i < pl->n; i++)
		for (e = 0, ne = final_ends(&pl->x[i], end); e < ne; e++)
			(*fin)[pos[end[e]]++] = base + (uint32_t)i;
	free(pos);
	*at = cnt;
}

static void
expand_coll(struct build *b, const struct node *nd, struct coll_plan *pl)
{
	struct op *o = b->ops.o, *f = &o[nd->member[0]];
	uint32_t base = (uint32_t)b->dag.n, q, *fin;
	size_t i, k, n, nf, *at;
	int rc;

	coll_free(pl);
	rc = f->sizes != NULL ? alltoallv(b, nd, pl) : coll_expand(pl,
	    f->kind - OP_ALLREDUCE, b->algo, nd->nmember, f->amount, f->root);
	if (rc == -2)
		opfail(b, f, "%s", "halving-doubling needs a group whose "
		    "size is a power of two, but for an all-reduce");
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
		n = sort_uniq(b->scratch, n, sizeof(uint32_t), cmp_u32);
		add_task(b, &t, b->scratch, n, nd->member[x->src],
		    (int32_t)x->step);
	}
	finals(pl, nd->nmember, base, &fin, &at);
	for (q = 0; q < nd->nmember; q++) {
		struct op *m = &o[nd->member[q]];

		nf = at[q + 1] - at[q];
		/*
		 * Nothing to move for this rank (a group of one, or an
		 * all-to-all rank that neither sends nor receives): what
		 * follows waits for what the op waits for.
		 */
		if (nf == 0) {
			n = gather(b, m, 0);
			n = sort_uniq(b->scratch, n, sizeof(uint32_t), cmp_u32);
			set_done(b, m, b->scratch, n);
			continue;
		}
		set_done(b, m, fin + at[q], nf);
	}
	free(fin);
	free(at);
}

void
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
