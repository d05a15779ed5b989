/* wbound: relaxed windows of a Flux problem. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/fmodel.h"
#include "solve/greedy.h"
#include "solve/wbound.h"

#define UNSET	UINT64_MAX

static int
asc32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

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
uint64_t
wbound_threshold(const struct dag *d, const uint64_t *head, const uint8_t *set,
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

size_t
wbound_touching(const struct dag *d, const uint8_t *set)
{
	size_t i, m = 0;

	for (i = 0; i < d->n; i++)
		m += touches(&d->t[i], set);
	return m;
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

/* Candidates ordered by directed pair, then id. */
static const struct dag *pair_dag;

static int
by_pair(const void *a, const void *b)
{
	const struct dag_task *x = &pair_dag->t[*(const uint32_t *)a];
	const struct dag_task *y = &pair_dag->t[*(const uint32_t *)b];

	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Kept of m candidates (by pair) when each pair keeps f first, f last. */
static size_t
thinned(const struct dag *d, const uint32_t *c, size_t m, size_t f,
    uint8_t *keep)
{
	size_t i, j, k, n = 0;

	for (i = 0; i < m; i = j) {
		for (j = i; j < m && d->t[c[j]].gpu == d->t[c[i]].gpu &&
		    d->t[c[j]].dst == d->t[c[i]].dst; j++)
			;
		for (k = i; k < j; k++) {
			int on = k - i < f || j - k <= f;

			if (keep != NULL)
				keep[k] = (uint8_t)on;
			n += on;
		}
	}
	return n;
}

/*
 * Thin the candidates to at most cap: each directed pair keeps its
 * first and last f transfers, f as large as fits; the transfers
 * dropped become lags.  The order by id comes back.
 */
static size_t
thin(const struct dag *d, uint32_t *c, size_t m, size_t cap)
{
	uint8_t *keep;
	size_t f, i, n = 0;

	if (cap == 0 || m <= cap || (keep = malloc(m)) == NULL)
		return m;
	pair_dag = d;
	qsort(c, m, sizeof(*c), by_pair);
	for (f = m; f > 1 && thinned(d, c, m, f, NULL) > cap; f /= 2)
		;
	while (thinned(d, c, m, f + 1, NULL) <= cap)
		f++;
	thinned(d, c, m, f, keep);
	for (i = 0; i < m; i++)
		if (keep[i])
			c[n++] = c[i];
	free(keep);
	qsort(c, n, sizeof(*c), asc32);
	return n;
}

long
wbound_window(const struct dag *d, const struct net *n,
    const uint64_t *head, const uint64_t *bl, const uint8_t *set, size_t k,
    size_t cap, uint64_t horizon, uint64_t lb, struct fprob *p)
{
	uint32_t *kept = NULL;
	uint64_t *L = NULL, T;
	size_t i, nk = 0;
	long rc = -1;

	fprob_setup(p, n, horizon, lb);
	if ((T = wbound_threshold(d, head, set, k > 0 ? k : 1)) == UNSET)
		return 0;
	kept = malloc((d->n + 1) * sizeof(*kept));
	L = malloc((d->n + 1) * sizeof(*L));
	if (kept == NULL || L == NULL)
		goto out;
	for (i = 0; i < d->n; i++)
		if (touches(&d->t[i], set) && head[i] >= T)
			kept[nk++] = (uint32_t)i;
	nk = thin(d, kept, nk, cap);
	for (i = 0; i < nk; i++) {
		const struct dag_task *tk = &d->t[kept[i]];
		uint64_t dur = greedy_duration(n, tk->amount);
		struct fptask t = { kept[i], DAG_TRANSFER, tk->gpu, tk->dst,
		    dur > 0 ? dur : 1, greedy_length(d, n, kept[i]),
		    head[kept[i]], bl[kept[i]] - greedy_length(d, n, kept[i]) };

		if (fprob_task(p, &t) != 0)
			goto out;
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

/* The search for a renaming that makes two windows one. */
struct iso {
	const struct fprob	*x, *y;
	uint64_t		*lx, *ly;	/* lags [i * n + j], or UNSET */
	uint32_t		*gx, *gy;	/* local GPUs of each task end */
	uint32_t		 mx[128], my[128];	/* GPU maps, both ways */
	uint32_t		 map[64];
	uint8_t			 used[64];
	size_t			 steps;
};

#define ISO_STEPS	200000
#define NOMAP		UINT32_MAX

static int
alike(const struct fptask *a, const struct fptask *b)
{
	return a->len == b->len && a->span == b->span && a->rel == b->rel &&
	    a->tail == b->tail && a->kind == b->kind;
}

/* Local numbers of the GPUs of a problem, per task end: 2n of them. */
static int
local_gpus(const struct fprob *p, uint32_t *out)
{
	uint32_t seen[128];
	size_t i, k, j, m = 0;

	for (i = 0; i < p->n; i++)
		for (k = 0; k < 2; k++) {
			uint32_t g = k == 0 ? p->t[i].a : p->t[i].b;

			if (k == 1 && p->t[i].kind != DAG_TRANSFER)
				g = UINT32_MAX - 1;	/* no second end */
			for (j = 0; j < m && seen[j] != g; j++)
				;
			if (j == m) {
				if (m == 128)
					return -1;
				seen[m++] = g;
			}
			out[2 * i + k] = (uint32_t)j;
		}
	return 0;
}

static void
lag_matrix(const struct fprob *p, uint64_t *L)
{
	size_t i;

	for (i = 0; i < p->n * p->n; i++)
		L[i] = UNSET;
	for (i = 0; i < p->narc; i++)
		L[p->arc[i].i * p->n + p->arc[i].j] = p->arc[i].lag;
}

/* Can x's task i be y's task j, given the tasks matched before? */
static int
fits(struct iso *s, size_t i, size_t j)
{
	size_t k, n = s->x->n;

	for (k = 0; k < 2; k++) {
		uint32_t a = s->gx[2 * i + k], b = s->gy[2 * j + k];

		if ((s->mx[a] != NOMAP && s->mx[a] != b) ||
		    (s->my[b] != NOMAP && s->my[b] != a))
			return 0;
	}
	for (k = 0; k < i; k++)
		if (s->lx[k * n + i] != s->ly[s->map[k] * n + j] ||
		    s->lx[i * n + k] != s->ly[j * n + s->map[k]])
			return 0;
	return 1;
}

static int
match(struct iso *s, size_t i)
{
	size_t j, k, n = s->x->n;
	uint32_t save[4];

	if (i == n)
		return 1;
	for (j = 0; j < n; j++) {
		if (s->used[j] || !alike(&s->x->t[i], &s->y->t[j]) ||
		    !fits(s, i, j))
			continue;
		if (++s->steps > ISO_STEPS)
			return 0;
		for (k = 0; k < 2; k++) {
			save[2 * k] = s->mx[s->gx[2 * i + k]];
			save[2 * k + 1] = s->my[s->gy[2 * j + k]];
			s->mx[s->gx[2 * i + k]] = s->gy[2 * j + k];
			s->my[s->gy[2 * j + k]] = s->gx[2 * i + k];
		}
		s->used[j] = 1;
		s->map[i] = (uint32_t)j;
		if (match(s, i + 1))
			return 1;
		s->used[j] = 0;
		for (k = 2; k-- > 0;) {
			s->mx[s->gx[2 * i + k]] = save[2 * k];
			s->my[s->gy[2 * j + k]] = save[2 * k + 1];
		}
	}
	return 0;
}

/*
 * Are two windows the same problem up to a renaming of GPUs and an
 * order of tasks (as the symmetric ranks of a parallel job give)?
 * Their optima are equal.  A backtracking match of tasks with equal
 * times, GPUs renamed one to one, arcs and lags kept; a match not
 * found in ISO_STEPS steps counts as none.
 */
int
wbound_same(const struct fprob *x, const struct fprob *y)
{
	struct iso s;
	uint32_t gx[128], gy[128];
	int rc = 0;

	if (x->n != y->n || x->narc != y->narc || x->n > 64 ||
	    x->switches != y->switches || x->tau != y->tau ||
	    x->lb != y->lb || x->nport > 0 || y->nport > 0)
		return 0;
	memset(&s, 0, sizeof(s));
	s.x = x;
	s.y = y;
	s.gx = gx;
	s.gy = gy;
	if (local_gpus(x, gx) != 0 || local_gpus(y, gy) != 0)
		return 0;
	s.lx = malloc((x->n * x->n + 1) * sizeof(*s.lx));
	s.ly = malloc((x->n * x->n + 1) * sizeof(*s.ly));
	if (s.lx != NULL && s.ly != NULL) {
		lag_matrix(x, s.lx);
		lag_matrix(y, s.ly);
		memset(s.mx, 0xff, sizeof(s.mx));
		memset(s.my, 0xff, sizeof(s.my));
		rc = match(&s, 0);
	}
	free(s.lx);
	free(s.ly);
	return rc;
}

/* Growth of a window's set of GPUs: counts of dropped transfers. */
struct grow {
	const struct dag	*d;
	const struct net	*n;
	const uint64_t		*head, *bl;
	const size_t		*soff;
	const uint32_t		*succ;
	const uint8_t		*set;
	uint64_t		 T;
	const struct fprob	*p;
	uint32_t		*cnt;		/* per GPU */
};

static int
in_window(const struct fprob *p, uint32_t id)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->t[i].id == id)
			return 1;
	return 0;
}

/* A dropped transfer behind a binding constraint: its GPUs count. */
static void
count(struct grow *g, uint32_t id)
{
	const struct dag_task *t = &g->d->t[id];

	if (t->kind != DAG_TRANSFER || g->head[id] < g->T ||
	    in_window(g->p, id))
		return;
	if (!g->set[t->gpu])
		g->cnt[t->gpu]++;
	if (!g->set[t->dst])
		g->cnt[t->dst]++;
}

/* The longest path after task x: its dropped transfers. */
static void
tail_path(struct grow *g, uint32_t x)
{
	size_t k, steps;

	for (steps = 0; steps < g->d->n; steps++) {
		uint64_t want = g->bl[x] - greedy_length(g->d, g->n, x);
		uint32_t next = UINT32_MAX;

		for (k = g->soff[x]; k < g->soff[x + 1]; k++)
			if (g->bl[g->succ[k]] == want) {
				next = g->succ[k];
				break;
			}
		if (next == UINT32_MAX)
			return;
		count(g, next);
		x = next;
	}
}

/* The longest path before task x, back to the threshold. */
static void
release_path(struct grow *g, uint32_t x)
{
	size_t j, steps;

	for (steps = 0; steps < g->d->n && g->head[x] > 0; steps++) {
		const uint32_t *dep = dag_deps(g->d, x);
		uint32_t prev = UINT32_MAX;

		for (j = 0; j < g->d->t[x].ndep; j++)
			if (g->head[dep[j]] + greedy_length(g->d, g->n,
			    dep[j]) == g->head[x]) {
				prev = dep[j];
				break;
			}
		if (prev == UINT32_MAX || g->head[prev] < g->T)
			return;
		count(g, prev);
		x = prev;
	}
}

/* The longest path from the end of task i to the start of task j,
 * through tasks whose heads are at least T. */
static int
lag_path(struct grow *g, uint32_t i, uint32_t j)
{
	uint64_t *L;
	size_t k, x, steps;

	if (j <= i || (L = malloc((j - i + 1) * sizeof(*L))) == NULL)
		return j <= i ? 0 : -1;
	for (k = i + 1; k <= j; k++) {
		const uint32_t *dep = dag_deps(g->d, k);

		L[k - i] = UNSET;
		if (g->head[k] < g->T && k != j)
			continue;
		for (x = 0; x < g->d->t[k].ndep; x++) {
			uint64_t v;

			if (dep[x] == i)
				v = 0;
			else if (dep[x] > i && L[dep[x] - i] != UNSET)
				v = L[dep[x] - i] + greedy_length(g->d, g->n,
				    dep[x]);
			else
				continue;
			if (L[k - i] == UNSET || v > L[k - i])
				L[k - i] = v;
		}
	}
	for (k = j, steps = 0; k != i && L[k - i] != UNSET && steps < j - i;
	    steps++) {
		const uint32_t *dep = dag_deps(g->d, k);
		size_t prev = i;

		for (x = 0; x < g->d->t[k].ndep; x++)
			if (dep[x] > i && L[dep[x] - i] != UNSET &&
			    L[dep[x] - i] + greedy_length(g->d, g->n, dep[x]) ==
			    L[k - i]) {
				prev = dep[x];
				break;
			}
		if (k != j)
			count(g, (uint32_t)k);
		k = prev;
	}
	free(L);
	return 0;
}

/* The task whose constraint sets the start of task c, and its path. */
static long
binding(struct grow *g, const uint64_t *st, const uint32_t *sw, size_t c)
{
	const struct fprob *p = g->p;
	const struct fptask *t = &p->t[c];
	size_t k, best = SIZE_MAX;

	for (k = 0; k < p->narc; k++) {
		const struct fparc *a = &p->arc[k];

		if (a->j != c || st[a->i] + p->t[a->i].span + a->lag != st[c])
			continue;
		if (a->lag > 0 && lag_path(g, p->t[a->i].id, t->id) != 0)
			return -2;
		return (long)a->i;
	}
	if (st[c] == t->rel) {
		release_path(g, t->id);
		return -1;
	}
	for (k = 0; k < p->n; k++) {	/* a port, or the order */
		const struct fptask *u = &p->t[k];

		if (k == c || st[k] > st[c] || (st[k] == st[c] && k > c))
			continue;
		if (sw[k] == sw[c] && (u->a == t->a || u->a == t->b ||
		    u->b == t->a || u->b == t->b) && (st[k] + u->len == st[c] ||
		    st[k] + u->len + p->tau == st[c]))
			return (long)k;
		if (best == SIZE_MAX || st[k] > st[best])
			best = k;
	}
	return best == SIZE_MAX ? -1 : (long)best;
}

long
wbound_grow(const struct dag *d, const struct net *n, const uint64_t *head,
    const uint64_t *bl, const size_t *soff, const uint32_t *succ,
    const uint8_t *set, uint64_t T, const struct fprob *p,
    const uint64_t *st, const uint32_t *sw)
{
	struct grow g = { d, n, head, bl, soff, succ, set, T, p, NULL };
	uint64_t ms = 0;
	size_t i, top = 0, steps;
	long c, pick = -1;

	if (p->n == 0)
		return -1;
	if ((g.cnt = calloc(n->gpus + 1, sizeof(*g.cnt))) == NULL)
		return -2;
	for (i = 0; i < p->n; i++)
		if (st[i] + p->t[i].span + p->t[i].tail > ms) {
			ms = st[i] + p->t[i].span + p->t[i].tail;
			top = i;
		}
	if (p->t[top].tail > 0)
		tail_path(&g, p->t[top].id);
	for (c = (long)top, steps = 0; c >= 0 && steps < p->n; steps++)
		c = binding(&g, st, sw, (size_t)c);
	for (i = 0; c != -2 && i < n->gpus; i++)
		if (g.cnt[i] > 0 && (pick < 0 || g.cnt[i] > g.cnt[pick]))
			pick = (long)i;
	free(g.cnt);
	return c == -2 ? -2 : pick;
}
