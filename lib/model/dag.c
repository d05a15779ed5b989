/* dag: the task DAG in memory, and topological ordering. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "records/heap.h"
#include "records/mem.h"
#include "records/radix.h"

void
dag_init(struct dag *d)
{
	memset(d, 0, sizeof(*d));
}

void
dag_free(struct dag *d)
{
	free(d->t);
	free(d->dep);
	dag_init(d);
}

/* Append a task whose dependencies must all be earlier tasks. */
int
dag_add(struct dag *d, const struct dag_task *t, const uint32_t *deps,
    size_t n)
{
	size_t i;

	if (d->n >= UINT32_MAX || n > UINT32_MAX)
		return -1;
	for (i = 0; i < n; i++)
		if (deps[i] >= d->n)
			return -1;
	/*
	 * Room for one more dependency: d->dep is never NULL, so that
	 * dag_deps() of a task without any never computes NULL + 0.
	 */
	if (mem_grow(&d->t, &d->cap, d->n + 1, sizeof(*d->t)) != 0 ||
	    mem_grow(&d->dep, &d->depcap, d->ndep + n + 1,
	    sizeof(*d->dep)) != 0)
		return -1;
	mem_ahead(d->t, sizeof(*d->t), d->n, d->n + 1, d->cap);
	mem_ahead(d->dep, sizeof(*d->dep), d->ndep, d->ndep + n + 1,
	    d->depcap);
	if (n > 0 && deps != d->dep + d->ndep)
		memcpy(d->dep + d->ndep, deps, n * sizeof(*deps));
	dag_push(d, t, (uint32_t)n);
	return 0;
}

uint32_t *
dag_dep_space(struct dag *d, size_t n)
{
	if (mem_grow(&d->dep, &d->depcap, d->ndep + n + 1,
	    sizeof(*d->dep)) != 0)
		return NULL;
	return d->dep + d->ndep;
}

/* Room for n more tasks: dag_push()'s. */
int
dag_reserve(struct dag *d, size_t n)
{
	if (n > SIZE_MAX - d->n)
		return -1;
	return mem_grow(&d->t, &d->cap, d->n + n, sizeof(*d->t));
}

/* The mapping ahead dag_add() does, for the tasks pushed since n0. */
void
dag_pushed(struct dag *d, size_t n0, size_t ndep0)
{
	mem_ahead(d->t, sizeof(*d->t), n0, d->n, d->cap);
	mem_ahead(d->dep, sizeof(*d->dep), ndep0, d->ndep + 1, d->depcap);
}

const uint32_t *
dag_deps(const struct dag *d, size_t i)
{
	return d->dep + d->t[i].dep_off;
}

/* Follow dependencies among unsorted nodes until one repeats. */
static size_t
on_cycle(size_t n, const size_t *off, const uint32_t *adj,
    const uint32_t *indeg, size_t start)
{
	unsigned char *seen;
	size_t v = start, i;

	if ((seen = calloc(n, 1)) == NULL)
		return start;
	while (!seen[v]) {
		seen[v] = 1;
		for (i = off[v]; i < off[v + 1]; i++)
			if (indeg[adj[i]] != 0)
				break;
		if (i == off[v + 1])
			break;
		v = adj[i];
	}
	free(seen);
	return v;
}

/*
 * Node v depends on adj[off[v] .. off[v+1]).  Writes a stable
 * topological order into order[] and returns 0; on a cycle returns -1
 * with *cycle set to a node on it, or -2 when memory runs out.
 */
int
dag_toposort(size_t n, const size_t *off, const uint32_t *adj,
    uint32_t *order, size_t *cycle)
{
	uint32_t *indeg, *succ;
	size_t *soff, i, j, k = 0;
	struct heap h;
	struct heap_item it;
	int rc = 0;

	indeg = mem_calloc(n + 1, sizeof(*indeg));
	soff = mem_calloc(n + 2, sizeof(*soff));
	succ = mem_array(off[n] + 1, sizeof(*succ));
	heap_init(&h);
	if (indeg == NULL || soff == NULL || succ == NULL) {
		rc = -2;
		goto out;
	}
	for (i = 0; i < off[n]; i++)
		soff[adj[i] + 2]++;
	for (i = 0; i < n; i++)
		soff[i + 2] += soff[i + 1];
	for (i = 0; i < n; i++) {
		indeg[i] = (uint32_t)(off[i + 1] - off[i]);
		for (j = off[i]; j < off[i + 1]; j++)
			succ[soff[adj[j] + 1]++] = (uint32_t)i;
	}
	for (i = 0; i < n; i++)
		if (indeg[i] == 0 && heap_push(&h, i, 0, i) != 0) {
			rc = -2;
			goto out;
		}
	while (heap_pop(&h, &it)) {
		order[k++] = (uint32_t)it.val;
		for (j = soff[it.val]; j < soff[it.val + 1]; j++)
			if (--indeg[succ[j]] == 0 &&
			    heap_push(&h, succ[j], 0, succ[j]) != 0) {
				rc = -2;
				goto out;
			}
	}
	if (k < n) {
		for (i = 0; i < n && indeg[i] == 0; i++)
			;
		*cycle = on_cycle(n, off, adj, indeg, i);
		rc = -1;
	}
out:
	heap_free(&h);
	free(indeg);
	free(soff);
	free(succ);
	return rc;
}

int
dag_successors(const struct dag *d, const uint32_t *prev, size_t **offp,
    uint32_t **nxp)
{
	size_t *off, i, j;
	uint32_t *nx;

	off = mem_calloc(d->n + 2, sizeof(*off));
	nx = mem_array(d->ndep + d->n + 1, sizeof(*nx));
	if (off == NULL || nx == NULL) {
		free(off);
		free(nx);
		return -1;
	}
	for (i = 0; i < d->n; i++) {
		for (j = 0; j < d->t[i].ndep; j++)
			off[dag_deps(d, i)[j] + 2]++;
		if (prev != NULL && prev[i] != UINT32_MAX)
			off[prev[i] + 2]++;
	}
	for (i = 0; i < d->n; i++)
		off[i + 2] += off[i + 1];
	for (i = 0; i < d->n; i++) {
		for (j = 0; j < d->t[i].ndep; j++)
			nx[off[dag_deps(d, i)[j] + 1]++] = (uint32_t)i;
		if (prev != NULL && prev[i] != UINT32_MAX)
			nx[off[prev[i] + 1]++] = (uint32_t)i;
	}
	*offp = off;
	*nxp = nx;
	return 0;
}

static const uint64_t *sort_key;

static int
by_key_desc(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (sort_key[i] != sort_key[j])
		return sort_key[i] > sort_key[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

struct kv {
	uint64_t	key;	/* complemented: ascending is largest first */
	uint32_t	id;
};

/* Records by key, least first (lib/records/radix.h). */
RADIX_GENERATE(radix_kv, struct kv, key)

/*
 * Ids by descending key, ties in id order (the sort is stable and the
 * ids come ascending).  -1 when memory runs out.
 */
static int
radix_desc(uint32_t *idx, size_t n, const uint64_t *key)
{
	struct kv *base = mem_array(n, 2 * sizeof(*base)), *v;
	size_t i;

	if (base == NULL)
		return -1;
	for (i = 0; i < n; i++)
		base[i] = (struct kv){ ~key[idx[i]], idx[i] };
	v = radix_kv(base, base + n, n);
	for (i = 0; i < n; i++)
		idx[i] = v[i].id;
	free(base);
	return 0;
}

/*
 * Ids already in ascending order, past a few, go by radix sort (linear
 * time, where qsort's compares through the static key cost a miss
 * each); any other input, or no memory, by qsort.
 */
void
dag_sort_desc(uint32_t *idx, size_t n, const uint64_t *key)
{
	size_t i;

	for (i = 1; i < n && idx[i - 1] < idx[i]; i++)
		;
	if (n >= 64 && i == n && radix_desc(idx, n, key) == 0)
		return;
	sort_key = key;
	qsort(idx, n, sizeof(*idx), by_key_desc);
	sort_key = NULL;
}

/* The same task, but for its amount? */
static int
same_task(const struct dag *a, const struct dag *b, size_t i)
{
	const struct dag_task *p = &a->t[i], *q = &b->t[i];

	if (p->kind != q->kind || p->gpu != q->gpu || p->step != q->step ||
	    p->ndep != q->ndep || (p->kind == DAG_TRANSFER && p->dst != q->dst))
		return 0;
	return p->ndep == 0 || memcmp(a->dep + p->dep_off, b->dep + q->dep_off,
	    p->ndep * sizeof(*a->dep)) == 0;
}

size_t
dag_same_shape(const struct dag *a, const struct dag *b)
{
	size_t i, n = a->n < b->n ? a->n : b->n;

	for (i = 0; i < n; i++)
		if (!same_task(a, b, i))
			return i;
	return a->n == b->n ? SIZE_MAX : n;
}
