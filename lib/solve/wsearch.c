/* wsearch: an exact branch and bound over a Flux problem. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "records/wclock.h"
#include "solve/fmodel.h"
#include "solve/wsearch.h"
#include "solve/wstate.h"

const char *const wsearch_statuses[] = { "optimal", "above", "cut", NULL };

#define CHECK	1024			/* nodes between clock readings */

/* The earliest start of transfer j on switch s, the cursor aside. */
static uint64_t
earliest(struct ws *w, uint32_t j, uint32_t s)
{
	const struct wtask *t = &w->t[j];
	const struct wport *A = port(w, s, t->a), *B = port(w, s, t->b);
	uint64_t e = w->rdy[j];

	if (A->partner == t->b && B->partner == t->a)
		return max64(e, max64(A->tx, B->rx));
	if (A->used)
		e = max64(e, A->partner == t->b ? A->tx : A->last + w->tau);
	if (B->used)
		e = max64(e, B->partner == t->a ? B->rx : B->last + w->tau);
	return e;
}

/*
 * Switch model: transfer j on switch s joining its current epoch, whose
 * circuits stay; INF when a port of it is in a circuit of the epoch
 * with another partner.  A port not used in the epoch takes any
 * partner: the epoch's change, tau after every earlier use ended,
 * made it free.
 */
static uint64_t
join_at(struct ws *w, uint32_t j, uint32_t s)
{
	const struct wtask *t = &w->t[j];
	const struct wport *A = port(w, s, t->a), *B = port(w, s, t->b);
	const struct wsw *x = &w->swst[s];
	uint64_t e = max64(w->rdy[j], x->ep);

	if ((A->used && A->pe == x->eid && A->partner != t->b) ||
	    (B->used && B->pe == x->eid && B->partner != t->a))
		return INF;
	if (A->used && A->partner == t->b)
		e = max64(e, A->tx);
	if (B->used && B->partner == t->a)
		e = max64(e, B->rx);
	return e;
}

/* Switch model: j opening a new epoch of s, dark for tau after every
 * use of s ended; INF on a switch not used yet (its first epoch takes
 * any circuit). */
static uint64_t
open_at(struct ws *w, uint32_t j, uint32_t s)
{
	const struct wsw *x = &w->swst[s];

	if (!x->any)
		return INF;
	return max64(w->rdy[j], x->lastuse + w->tau);
}

static void place_task(struct ws *, uint32_t, uint64_t);

/* A task ended at end: its successors learn it; computes that become
 * ready start at once. */
static void
release(struct ws *w, uint32_t i, uint64_t end)
{
	const struct wtask *t = &w->t[i];
	size_t k;

	for (k = 0; k < t->ns; k++) {
		uint32_t j = w->succ[t->soff + k];
		uint64_t r = end + w->lag[t->soff + k];

		if (r > w->rdy[j]) {
			set(w, &w->rdy[j], r);
			set(w, &w->touched, w->touched | (1ULL << j));
			if (r + w->t[j].q > w->R)
				set(w, &w->R, r + w->t[j].q);
			if (w->t[j].xfer)
				ws_later(w, j);
		}
		set(w, &w->left[j], w->left[j] - 1);
		if (w->left[j] > 0)
			continue;
		if (w->t[j].xfer)
			set(w, &w->elig, w->elig | (1ULL << j));
		else
			place_task(w, j, w->rdy[j]);
	}
}

static void
place_task(struct ws *w, uint32_t i, uint64_t t)
{
	const struct wtask *x = &w->t[i];

	set(w, &w->st[i], t);
	set(w, &w->placed, w->placed | (1ULL << i));
	if (t + x->q > w->R)
		set(w, &w->R, t + x->q);
	if (t + x->span + x->tail > w->maxend)
		set(w, &w->maxend, t + x->span + x->tail);
	release(w, i, t + x->span);
}

static void
set_port(struct ws *w, struct wport *x, uint64_t partner, int send,
    uint64_t end, uint64_t eid)
{
	set(w, &x->partner, partner);
	set(w, &x->used, 1);
	if (x->pe != eid)
		set(w, &x->pe, eid);
	if (send && end > x->tx)
		set(w, &x->tx, end);
	if (!send && end > x->rx)
		set(w, &x->rx, end);
	if (end > x->last)
		set(w, &x->last, end);
}

static void
place_xfer(struct ws *w, uint32_t j, uint32_t s, uint64_t t, int newep)
{
	const struct wtask *x = &w->t[j];
	struct wsw *q = w->allstop ? &w->swst[s] : NULL;
	uint64_t eid = 0;

	if (q != NULL) {
		if (newep) {
			set(w, &q->eid, q->eid + 1);
			set(w, &q->ep, t);
		}
		if (!q->any)
			set(w, &q->any, 1);
		if (t + x->len > q->lastuse)
			set(w, &q->lastuse, t + x->len);
		eid = q->eid;
	}
	set(w, &w->elig, w->elig & ~(1ULL << j));
	set(w, &w->sw[j], s);
	set(w, &w->cursor, t);
	set(w, &w->last, j);
	set(w, &w->touched, 0);
	if (s >= w->nused)
		set(w, &w->nused, s + 1);
	set_port(w, port(w, s, x->a), x->b, 1, t + x->len, eid);
	set_port(w, port(w, s, x->b), x->a, 0, t + x->len, eid);
	set(w, &w->placed, w->placed | (1ULL << j));
	ws_unload(w, j);
	place_task(w, j, t);
}

static int
out_of_time(struct ws *w)
{
	const struct wsearch_opts *o = w->o;

	if (o->max_nodes > 0 && w->nodes >= o->max_nodes)
		return 1;
	if (w->nodes % CHECK != 0)
		return 0;
	if (o->stop != NULL && *o->stop)
		return 1;
	return o->limit > 0 && wclock_now() - w->t0 >= o->limit;
}

static int
share_port(const struct ws *w, uint32_t i, uint32_t si, uint32_t j,
    uint32_t sj)
{
	const struct wtask *x = &w->t[i], *y = &w->t[j];

	if (w->allstop)		/* a switch's epochs tie all its ports */
		return si == sj;
	return si == sj && (x->a == y->a || x->a == y->b || x->b == y->a ||
	    x->b == y->b);
}

static int
cmp_cand(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->cb != b->cb)
		return a->cb < b->cb ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->j != b->j)
		return a->j < b->j ? -1 : 1;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	return a->newep < b->newep ? -1 : a->newep > b->newep;
}

/* Insertion sort: a few dozen children, mostly in order already. */
static void
sort_cands(struct cand *c, size_t n)
{
	size_t i, k;

	for (i = 1; i < n; i++) {
		struct cand x = c[i];

		for (k = i; k > 0 && cmp_cand(&x, &c[k - 1]) < 0; k--)
			c[k] = c[k - 1];
		c[k] = x;
	}
}

/*
 * The children of the node: every eligible transfer on every switch
 * worth trying, filtered by the tie, swap and symmetry rules, in c[].
 * Returns how many, or -1 when some transfer cannot start early
 * enough to beat the best.  parent is the cursor before the last
 * placement, pelig what was eligible then.
 */
static long
children(struct ws *w, uint64_t parent, uint64_t pelig, uint64_t lb,
    struct cand *c)
{
	uint64_t el = w->elig;
	uint32_t ns = w->S, lj = (uint32_t)w->last, s;
	int swap = w->placed != 0 && !(w->o->flags & WSEARCH_NOSWAP) &&
	    w->last != INF;
	long k = 0;

	if (w->sym && w->nused < w->S)
		ns = (uint32_t)w->nused + 1;
	for (; el != 0; el &= el - 1) {
		uint32_t j = (uint32_t)__builtin_ctzll(el);
		uint64_t emin = INF;
		int free_of_last = swap && (pelig >> j & 1) &&
		    !(w->touched >> j & 1);

		for (s = 0; s < w->S; s++) {
			uint32_t op, nop = w->allstop ? 2 : 1;

			for (op = 0; op < nop; op++) {
				uint64_t raw, t;

				raw = !w->allstop ? earliest(w, j, s) :
				    op == 0 ? join_at(w, j, s) :
				    open_at(w, j, s);
				if (raw == INF)
					continue;
				t = max64(raw, w->cursor);
				emin = min64(emin, t);
				if (s >= ns)
					continue;
				if (w->last != INF && t == w->cursor &&
				    j < lj)
					continue;	/* ties by index */
				if (free_of_last && max64(parent, raw) <
				    w->cursor && !share_port(w, lj,
				    (uint32_t)w->sw[lj], j, s))
					continue;	/* swapped is better */
				c[k].t = t;
				c[k].raw = raw;
				c[k].cb = max64(lb, t + w->t[j].q);
				c[k].j = j;
				c[k].s = s;
				c[k].newep = op;
				k++;
			}
		}
		if (emin + w->t[j].q >= w->best)
			return -1;
	}
	sort_cands(c, (size_t)k);
	return k;
}

static void
record(struct ws *w)
{
	size_t i;

	w->best = max64(w->floor, w->maxend);
	w->have = 1;
	for (i = 0; i < w->n; i++) {
		w->bst[i] = w->st[i];
		w->bsw[i] = (uint32_t)w->sw[i];
	}
}

/*
 * Search below the node, whose bound is lb; parent is the cursor and
 * pelig the eligible transfers before the last placement.  Returns the
 * smallest lower bound over the nodes it leaves open (INF: none).
 */
static uint64_t
dfs(struct ws *w, size_t depth, uint64_t lb, uint64_t parent,
    uint64_t pelig)
{
	struct cand *c = w->cand + depth * w->ccap;
	uint64_t cur = w->cursor, el = w->elig, clb, open;
	size_t mark;
	long k, i;

	w->nodes++;
	if (out_of_time(w)) {
		w->cut = 1;
		return lb;
	}
	if (el == 0) {		/* every task placed: computes go eagerly */
		if (lb < w->best)
			record(w);
		return INF;
	}
	if ((k = children(w, parent, pelig, lb, c)) < 0)
		return INF;
	for (i = 0; i < k && c[i].cb < w->best; i++) {
		mark = w->ntr;
		place_xfer(w, c[i].j, c[i].s, c[i].t, (int)c[i].newep);
		clb = ws_node_bound(w, lb);
		open = INF;
		if (clb < w->best)
			open = dfs(w, depth + 1, clb, cur, el);
		undo(w, mark);
		if (w->cut)
			return i + 1 < k ? min64(open, c[i + 1].cb) : open;
	}
	return INF;
}

static void
result(struct ws *w, uint64_t target, uint64_t open,
    struct wsearch_result *r)
{
	size_t i;

	r->nodes = w->nodes;
	r->value = w->have ? w->best : UINT64_MAX;
	if (w->cut) {
		r->status = WSEARCH_CUT;
		r->bound = min64(open, w->best);
	} else if (w->have) {
		r->status = WSEARCH_OPTIMAL;
		r->bound = w->best;
	} else {
		r->status = WSEARCH_ABOVE;
		r->bound = max64(target, r->root);
	}
	if (!w->have)
		return;
	for (i = 0; i < w->n; i++) {
		r->start[i] = w->bst[i];
		r->sw[i] = w->t[i].xfer ? w->bsw[i] : 0;
	}
}

static void
ws_free(struct ws *w)
{
	free(w->succ);
	free(w->lag);
	free(w->pt);
	free(w->swst);
	free(w->gx);
	free(w->ngx);
	free(w->wt);
	free(w->gl);
	free(w->cand);
	free(w->tr);
}

int
wsearch_run(const struct fprob *p, const struct wsearch_opts *o,
    struct wsearch_result *r, char *err, size_t len)
{
	struct ws *w;
	uint64_t target = o->target > 0 ? o->target : INF, open;
	size_t i;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->value = UINT64_MAX;
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return fail(err, len, "out of memory");
	w->p = p;
	w->o = o;
	w->t0 = wclock_now();
	w->last = INF;
	w->best = target;
	if (ws_setup(w, err, len) != 0)
		goto out;
	r->sw = calloc(w->n + 1, sizeof(*r->sw));
	r->start = calloc(w->n + 1, sizeof(*r->start));
	if (r->sw == NULL || r->start == NULL) {
		fail(err, len, "out of memory");
		goto out;
	}
	for (i = 0; i < w->n; i++)
		if (w->left[i] == 0 && w->t[i].xfer)
			w->elig |= 1ULL << i;
		else if (w->left[i] == 0 && !(w->placed >> i & 1))
			place_task(w, (uint32_t)i, w->rdy[i]);
	r->root = ws_node_bound(w, 0);
	open = INF;
	if (r->root < w->best)
		open = dfs(w, 0, r->root, 0, 0);
	result(w, target, open, r);
	r->seconds = wclock_now() - w->t0;
	rc = 0;
out:
	ws_free(w);
	free(w);
	if (rc != 0)
		wsearch_result_free(r);
	return rc;
}

void
wsearch_result_free(struct wsearch_result *r)
{
	free(r->sw);
	free(r->start);
	r->sw = NULL;
	r->start = NULL;
}
