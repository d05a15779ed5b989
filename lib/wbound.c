/* wbound: relaxed windows of a Flux problem. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "fmodel.h"
#include "greedy.h"
#include "net.h"
#include "wbound.h"

#define UNSET	UINT64_MAX

static int
desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x > y ? -1 : x < y;
}

/* Does a transfer touch the GPUs of the window? */
static int
touches(const struct dag_task *tk, const uint8_t *set)
{
	return tk->kind == DAG_TRANSFER && (set[tk->gpu] || set[tk->dst]);
}

/* The threshold: the head of the k-th last transfer touching the set,
 * or UNSET. */
static uint64_t
threshold(const struct dag *d, const uint64_t *head, const uint8_t *set,
    size_t k)
{
	uint64_t *h, t;
	size_t i, m = 0;

	if ((h = malloc((d->n + 1) * sizeof(*h))) == NULL)
		return 0;
	for (i = 0; i < d->n; i++)
		if (touches(&d->t[i], set))
			h[m++] = head[i];
	if (m == 0) {
		free(h);
		return UNSET;
	}
	qsort(h, m, sizeof(*h), desc);
	t = h[(k < m ? k : m) - 1];
	free(h);
	return t;
}

/*
 * Longest paths from the end of kept task i (index ki) to the start of
 * every later task of the window, through the window; arcs to the
 * kept ones reached.
 */
static int
lags(const struct dag *d, const struct net *n, const uint64_t *head,
    uint64_t T, const uint32_t *kept, size_t nk, size_t ki, uint64_t *L,
    struct fprob *p)
{
	size_t k, j, next = ki + 1;
	uint32_t i = kept[ki];

	for (k = i + 1; k < d->n && next < nk; k++) {
		const uint32_t *dep = dag_deps(d, k);

		L[k] = UNSET;
		if (head[k] < T)
			continue;
		for (j = 0; j < d->t[k].ndep; j++) {
			uint64_t v;

			if (dep[j] == i)
				v = 0;
			else if (dep[j] > i && L[dep[j]] != UNSET)
				v = L[dep[j]] + greedy_length(d, n, dep[j]);
			else
				continue;
			if (L[k] == UNSET || v > L[k])
				L[k] = v;
		}
		if (k == kept[next]) {
			if (L[k] != UNSET && fprob_arc(p, (uint32_t)ki,
			    (uint32_t)next, L[k]) != 0)
				return -1;
			next++;
		}
	}
	return 0;
}

long
wbound_window(const struct dag *d, const struct net *n,
    const uint64_t *head, const uint64_t *bl, const uint8_t *set, size_t k,
    uint64_t horizon, uint64_t lb, struct fprob *p)
{
	uint32_t *kept = NULL;
	uint64_t *L = NULL, T;
	size_t i, nk = 0;
	long rc = -1;

	fprob_setup(p, n, horizon, lb);
	if ((T = threshold(d, head, set, k > 0 ? k : 1)) == UNSET)
		return 0;
	kept = malloc((d->n + 1) * sizeof(*kept));
	L = malloc((d->n + 1) * sizeof(*L));
	if (kept == NULL || L == NULL)
		goto out;
	for (i = 0; i < d->n; i++) {
		const struct dag_task *tk = &d->t[i];
		uint64_t dur = greedy_duration(n, tk->amount);
		struct fptask t = { (uint32_t)i, DAG_TRANSFER, tk->gpu, tk->dst,
		    dur > 0 ? dur : 1, greedy_length(d, n, i), head[i],
		    bl[i] - greedy_length(d, n, i) };

		if (!touches(tk, set) || head[i] < T)
			continue;
		if (fprob_task(p, &t) != 0)
			goto out;
		kept[nk++] = (uint32_t)i;
	}
	for (i = 0; i < nk; i++)
		if (lags(d, n, head, T, kept, nk, i, L, p) != 0)
			goto out;
	rc = (long)nk;
out:
	free(kept);
	free(L);
	return rc;
}

/* GPU labels in order of first appearance. */
static void
labels(const struct fprob *p, uint32_t *lab, size_t cap)
{
	size_t i, m = 0, k;
	uint32_t g[2];

	for (i = 0; i < p->n && m + 2 <= cap; i++) {
		g[0] = p->t[i].a;
		g[1] = p->t[i].b;
		for (k = 0; k < 2; k++) {
			size_t j;

			for (j = 0; j < m && lab[j] != g[k]; j++)
				;
			if (j == m)
				lab[m++] = g[k];
		}
	}
	for (; m < cap; m++)
		lab[m] = UINT32_MAX;
}

static uint32_t
label(const uint32_t *lab, size_t cap, uint32_t g)
{
	uint32_t j;

	for (j = 0; j < cap && lab[j] != g; j++)
		;
	return j;
}

/*
 * Are two windows the same problem up to a renaming of GPUs (as the
 * symmetric ranks of a parallel job give)?  Their optima are equal.
 */
int
wbound_same(const struct fprob *x, const struct fprob *y)
{
	uint32_t lx[64], ly[64];
	size_t i;

	if (x->n != y->n || x->narc != y->narc || x->n > 32 ||
	    x->switches != y->switches || x->tau != y->tau)
		return 0;
	labels(x, lx, 64);
	labels(y, ly, 64);
	for (i = 0; i < x->n; i++) {
		const struct fptask *a = &x->t[i], *b = &y->t[i];

		if (a->len != b->len || a->span != b->span ||
		    a->rel != b->rel ||
		    a->tail != b->tail ||
		    label(lx, 64, a->a) != label(ly, 64, b->a) ||
		    label(lx, 64, a->b) != label(ly, 64, b->b))
			return 0;
	}
	for (i = 0; i < x->narc; i++)
		if (x->arc[i].i != y->arc[i].i || x->arc[i].j != y->arc[i].j ||
		    x->arc[i].lag != y->arc[i].lag)
			return 0;
	return 1;
}
