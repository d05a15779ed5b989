/* wsetup: wsearch's state built from a Flux problem (wstate.h). */
#include <stdint.h>
#include <stdlib.h>

#include "model/dag.h"
#include "solve/fmodel.h"
#include "solve/wstate.h"

/* GPUs of the problem, numbered in order of first appearance. */
static int
localize(struct ws *w, uint32_t *gl, size_t cap, uint32_t g, uint32_t *out)
{
	size_t i;

	for (i = 0; i < w->ng && gl[i] != g; i++)
		;
	if (i == w->ng) {
		if (w->ng == cap)
			return -1;
		gl[w->ng++] = g;
	}
	*out = (uint32_t)i;
	return 0;
}

/* Tasks, successors and the longest paths to the end. */
static int
setup_tasks(struct ws *w, uint32_t *gl, size_t glcap, char *err,
    size_t len)
{
	const struct fprob *p = w->p;
	size_t i, k, *cnt;

	for (i = 0; i < p->n; i++) {
		const struct fptask *f = &p->t[i];
		struct wtask *t = &w->t[i];

		if (f->len >= WSEARCH_TMAX || f->span >= WSEARCH_TMAX ||
		    f->rel >= WSEARCH_TMAX || f->tail >= WSEARCH_TMAX)
			return fail(err, len, "a time of the problem is "
			    "above 2^61 ps");
		t->xfer = f->kind == DAG_TRANSFER;
		if (localize(w, gl, glcap, f->a, &t->a) != 0 || (t->xfer &&
		    localize(w, gl, glcap, f->b, &t->b) != 0))
			return fail(err, len, "too many GPUs");
		t->len = f->len;
		t->span = f->span;
		t->rel = f->rel;
		t->tail = f->tail;
	}
	if ((cnt = calloc(p->n + 1, sizeof(*cnt))) == NULL)
		return fail(err, len, "out of memory");
	for (k = 0; k < p->narc; k++) {
		if (p->arc[k].i >= p->arc[k].j || p->arc[k].j >= p->n ||
		    p->arc[k].lag >= WSEARCH_TMAX) {
			free(cnt);
			return fail(err, len, "an arc goes backwards or "
			    "out of the problem");
		}
		cnt[p->arc[k].i]++;
		w->left[p->arc[k].j]++;
	}
	for (i = 0, k = 0; i < p->n; k += cnt[i], i++) {
		w->t[i].soff = k;
		w->t[i].ns = 0;
	}
	free(cnt);
	for (k = 0; k < p->narc; k++) {
		struct wtask *t = &w->t[p->arc[k].i];

		w->succ[t->soff + t->ns] = p->arc[k].j;
		w->lag[t->soff + t->ns++] = p->arc[k].lag;
	}
	for (i = p->n; i-- > 0;) {
		struct wtask *t = &w->t[i];

		t->q = t->span + t->tail;
		for (k = 0; k < t->ns; k++)
			t->q = max64(t->q, t->span + w->lag[t->soff + k] +
			    w->t[w->succ[t->soff + k]].q);
		if (t->q >= WSEARCH_TMAX)
			return fail(err, len, "a path of the problem is "
			    "above 2^61 ps");
		t->after = t->q > t->len ? t->q - t->len : 0;
	}
	return 0;
}

/* Ports given a state by the problem (a fixed part before it). */
static int
setup_ports(struct ws *w, uint32_t *gl, size_t glcap, char *err,
    size_t len)
{
	const struct fprob *p = w->p;
	size_t i, j;

	for (i = 0; i < p->nport; i++) {
		const struct fpport *f = &p->port[i];
		uint32_t g, q;
		struct wport *x;

		for (g = 0; g < w->ng && gl[g] != f->gpu; g++)
			;
		if (g == w->ng || f->sw >= w->S)
			continue;	/* no task of the problem uses it */
		if (f->txend >= WSEARCH_TMAX || f->rxend >= WSEARCH_TMAX ||
		    f->last >= WSEARCH_TMAX)
			return fail(err, len, "a port time of the problem "
			    "is above 2^61 ps");
		x = port(w, f->sw, g);
		x->used = 1;
		x->tx = f->txend;
		x->rx = f->rxend;
		x->last = f->last;
		x->pe = 0;	/* switch model: in the epoch the fixed part
				 * left, whose start is not known */
		if (f->last > w->swst[f->sw].lastuse)
			w->swst[f->sw].lastuse = f->last;
		w->swst[f->sw].any = 1;
		x->partner = OTHER;
		for (q = 0; q < w->ng; q++)
			if (gl[q] == f->partner)
				x->partner = q;
	}
	for (j = 0; j < w->S * w->ng; j++)
		if (w->pt[j].used)
			w->sym = 0;
	(void)glcap;
	return 0;
}

static int
by_q(const void *x, const void *y, void *arg)
{
	const struct ws *w = arg;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;

	if (w->t[i].q != w->t[j].q)
		return w->t[i].q > w->t[j].q ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Transfers by longest path, and the transfers of each GPU. */
static void
index_tasks(struct ws *w)
{
	size_t i, a, b;

	for (i = 0; i < w->n; i++) {
		if (!w->t[i].xfer)
			continue;
		w->byq[w->nbyq++] = (uint32_t)i;
		a = w->t[i].a;
		b = w->t[i].b;
		w->gx[a * w->n + w->ngx[a]++] = (uint32_t)i;
		w->gx[b * w->n + w->ngx[b]++] = (uint32_t)i;
	}
	/* insertion sort: at most 64, and no qsort_r in C11 */
	for (i = 1; i < w->nbyq; i++) {
		uint32_t x = w->byq[i];

		for (a = i; a > 0 && by_q(&x, &w->byq[a - 1], w) < 0; a--)
			w->byq[a] = w->byq[a - 1];
		w->byq[a] = x;
	}
}

int
ws_setup(struct ws *w, char *err, size_t len)
{
	const struct fprob *p = w->p;
	uint32_t gl[2 * WSEARCH_MAX];
	size_t i;

	if (p->n > WSEARCH_MAX)
		return fail(err, len, "the problem has more tasks than the "
		    "search takes");
	if (p->switches == 0 || p->switches > FMODEL_MAX_SWITCHES)
		return fail(err, len, "the search takes 1 to 64 switches");
	if (p->tau >= WSEARCH_TMAX || p->lb >= WSEARCH_TMAX)
		return fail(err, len, "tau or the bound is above 2^61 ps");
	w->n = p->n;
	w->S = p->switches;
	w->tau = p->tau;
	w->floor = p->lb;
	w->succ = malloc((p->narc + 1) * sizeof(*w->succ));
	w->lag = malloc((p->narc + 1) * sizeof(*w->lag));
	if (w->succ == NULL || w->lag == NULL)
		return fail(err, len, "out of memory");
	if (setup_tasks(w, gl, 2 * WSEARCH_MAX, err, len) != 0)
		return -1;
	w->pt = calloc((size_t)w->S * w->ng + 1, sizeof(*w->pt));
	w->swst = calloc(w->S + 1, sizeof(*w->swst));
	w->gx = malloc(((size_t)w->ng * w->n + 1) * sizeof(*w->gx));
	w->wt = calloc((size_t)w->ng * w->ng * 2 + 1, sizeof(*w->wt));
	w->gl = calloc(w->ng + 1, sizeof(*w->gl));
	w->ngx = calloc(w->ng + 1, sizeof(*w->ngx));
	w->allstop = p->model == NET_SWITCH;
	w->ccap = 2 * w->n * w->S + 1;
	w->cand = malloc((w->n + 1) * w->ccap * sizeof(*w->cand));
	/* a path from the root: per transfer placed and per arc, what
	 * they change at most, and the root's own */
	w->trcap = 64 * (w->n + 1) + 32 * (p->narc + 1) + 16 * (w->ng + 1);
	w->tr = malloc(w->trcap * sizeof(*w->tr));
	if (w->pt == NULL || w->swst == NULL || w->gx == NULL || w->ngx == NULL ||
	    w->wt == NULL || w->gl == NULL ||
	    w->cand == NULL || w->tr == NULL)
		return fail(err, len, "out of memory");
	index_tasks(w);
	for (i = 0; i < (size_t)w->S * w->ng; i++)
		w->pt[i].partner = NOGPU;
	w->sym = !(w->o->flags & WSEARCH_NOSYM);
	if (setup_ports(w, gl, 2 * WSEARCH_MAX, err, len) != 0)
		return -1;
	for (i = 0; i < w->n; i++) {
		w->rdy[i] = w->t[i].rel;
		w->R = max64(w->R, w->t[i].rel + w->t[i].q);
	}
	ws_load_init(w);
	return 0;
}
