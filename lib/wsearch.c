/* wsearch: an exact branch and bound over a Flux problem. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "fmodel.h"
#include "wclock.h"
#include "wsearch.h"

const char *const wsearch_statuses[] = { "optimal", "above", "cut", NULL };

#define NOGPU	UINT64_MAX		/* a port with no partner */
#define OTHER	(UINT64_MAX - 1)	/* a partner outside the problem */
#define INF	UINT64_MAX
#define CHECK	1024			/* nodes between clock readings */

/* A port (switch, GPU): every field a word, so that the trail keeps
 * it. */
struct wport {
	uint64_t	partner;	/* local GPU, NOGPU or OTHER */
	uint64_t	used;
	uint64_t	tx, rx, last;	/* ends of sends, receives, uses */
	uint64_t	pe;		/* switch model: epoch of last use */
};

/* A switch under the switch model: its current epoch (number, start)
 * and when its last use ends. */
struct wsw {
	uint64_t	eid, ep, lastuse, any;
};

struct wtask {
	int		 xfer;
	uint32_t	 a, b;		/* local GPUs: compute a; ends a->b */
	uint64_t	 len, span, rel, tail;
	uint64_t	 q;		/* longest path from start to the end */
	uint64_t	 after;		/* q - len, or 0: after the ports */
	size_t		 soff, ns;	/* successors */
};

/*
 * What is left to a GPU, by direction (0 receives, 1 sends, 2 both),
 * kept up to date as transfers are placed: the work (both ways, each
 * partner weighs its larger direction), the partners, the earliest
 * ready time and the shortest path after, with the tasks that give
 * those two.  Every field a word, for the trail.
 */
struct gl {
	uint64_t	L[3];
	uint64_t	P[3][2];
	uint64_t	np[3];		/* partners: bits of P */
	uint64_t	er[3], ea[3];
	uint64_t	mv[3], ma[3];
};

struct cand {
	uint64_t	t, raw, cb;
	uint32_t	j, s;
	uint32_t	newep;		/* switch model: opens an epoch */
};

struct trail {
	uint64_t	*p;
	uint64_t	 v;
};

struct ws {
	const struct fprob		*p;
	const struct wsearch_opts	*o;
	size_t		 n, ng;
	uint32_t	 S;
	uint64_t	 tau, floor;
	struct wtask	 t[WSEARCH_MAX];
	uint32_t	*succ;
	uint64_t	*lag;
	struct wport	*pt;		/* [s * ng + g] */
	struct wsw	*swst;		/* [s], switch model */
	int		 allstop;	/* the switch model */
	int		 sym;
	/* The node. */
	uint64_t	 placed, elig;
	uint64_t	 left[WSEARCH_MAX];	/* predecessors unplaced */
	uint64_t	 rdy[WSEARCH_MAX], st[WSEARCH_MAX];
	uint64_t	 sw[WSEARCH_MAX];
	uint64_t	 cursor, last, maxend, nused, touched;
	struct trail	*tr;
	size_t		 ntr, trcap;
	struct cand	*cand;		/* [depth * ccap] */
	size_t		 ccap;
	/* The best. */
	uint64_t	 best;
	int		 have;
	uint64_t	 bst[WSEARCH_MAX];
	uint32_t	 bsw[WSEARCH_MAX];
	uint64_t	 nodes;
	double		 t0;
	int		 cut;
	uint64_t	 R;		/* max of earliest start + path */
	uint32_t	 byq[WSEARCH_MAX];	/* transfers, longest path first */
	size_t		 nbyq;
	uint32_t	*gx;		/* each GPU's transfers: [g * n] */
	uint64_t	*wt;		/* unplaced work [(g * ng + o) * 2 + snd] */
	struct gl	*gl;		/* [ng] */
	size_t		*ngx;
};

static void	later(struct ws *, uint32_t);
static void	unload(struct ws *, uint32_t);
static void	load_init(struct ws *);

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t
min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Sums in this module stay below 2^63: the caller's times are
 * checked against WSEARCH_TMAX first. */
#define WSEARCH_TMAX	((uint64_t)1 << 61)

static void
set(struct ws *w, uint64_t *p, uint64_t v)
{
	w->tr[w->ntr].p = p;
	w->tr[w->ntr].v = *p;
	w->ntr++;
	*p = v;
}

static void
undo(struct ws *w, size_t mark)
{
	while (w->ntr > mark) {
		w->ntr--;
		*w->tr[w->ntr].p = w->tr[w->ntr].v;
	}
}

static struct wport *
port(struct ws *w, uint64_t s, uint32_t g)
{
	return &w->pt[s * w->ng + g];
}

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

static int
fail(char *err, size_t len, const char *msg)
{
	snprintf(err, len, "%s", msg);
	return -1;
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

static int
setup(struct ws *w, char *err, size_t len)
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
	load_init(w);
	return 0;
}

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
				later(w, j);
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
	unload(w, j);
	place_task(w, j, t);
}

/*
 * GPU g: the work left on its ports from when each is free, shared over
 * the m that are free first (for the m that gives the least), plus tau
 * for each partner it needs beyond one per port (a port's second
 * circuit needs a change after its first), then the shortest path
 * after.  In one direction (dir 1 sends, 0 receives) the work is the
 * bytes' time; in both (dir 2) a circuit is busy at least for the
 * larger of its two directions, so a partner weighs the larger of what
 * goes to it and what comes from it.  A port whose partner is not
 * needed changes before any use.
 */
/* Does transfer j count for GPU g in direction d? */
static int
counts(const struct wtask *t, uint32_t g, size_t d)
{
	return d == 2 ? (t->a == g || t->b == g) : d == 1 ? t->a == g :
	    t->b == g;
}

/* The earliest ready time and the shortest path after, again. */
static void
rescan(struct ws *w, uint32_t g, size_t d)
{
	struct gl *l = &w->gl[g];
	uint64_t er = INF, ea = INF, mv = INF, ma = INF;
	size_t k;

	for (k = 0; k < w->ngx[g]; k++) {
		uint32_t j = w->gx[g * w->n + k];

		if (w->placed >> j & 1 || !counts(&w->t[j], g, d))
			continue;
		if (w->rdy[j] < er) {
			er = w->rdy[j];
			ea = j;
		}
		if (w->t[j].after < mv) {
			mv = w->t[j].after;
			ma = j;
		}
	}
	if (l->er[d] != er)
		set(w, &l->er[d], er);
	if (l->ea[d] != ea)
		set(w, &l->ea[d], ea);
	if (l->mv[d] != mv)
		set(w, &l->mv[d], mv);
	if (l->ma[d] != ma)
		set(w, &l->ma[d], ma);
}

/* Transfer j (unplaced) is ready later: the GPUs it counts for. */
static void
later(struct ws *w, uint32_t j)
{
	const struct wtask *t = &w->t[j];
	size_t d;

	for (d = 0; d < 3; d++) {
		if (d != 0 && w->gl[t->a].ea[d] == j)
			rescan(w, t->a, d);
		if (d != 1 && w->gl[t->b].ea[d] == j)
			rescan(w, t->b, d);
	}
}

/* Transfer j is placed: the work of its two GPUs. */
static void
unload(struct ws *w, uint32_t j)
{
	const struct wtask *t = &w->t[j];
	size_t e, d;

	for (e = 0; e < 2; e++) {
		uint32_t g = e == 0 ? t->a : t->b, o = e == 0 ? t->b : t->a;
		uint64_t *x = &w->wt[((size_t)g * w->ng + o) * 2];
		uint64_t snd = e == 0, old = max64(x[0], x[1]);
		struct gl *l = &w->gl[g];

		set(w, &x[snd], x[snd] - t->len);
		set(w, &l->L[snd], l->L[snd] - t->len);
		set(w, &l->L[2], l->L[2] - old + max64(x[0], x[1]));
		if (x[snd] == 0) {
			set(w, &l->P[snd][o >> 6], l->P[snd][o >> 6] &
			    ~(1ULL << (o & 63)));
			set(w, &l->np[snd], l->np[snd] - 1);
		}
		if (x[0] == 0 && x[1] == 0) {
			set(w, &l->P[2][o >> 6], l->P[2][o >> 6] &
			    ~(1ULL << (o & 63)));
			set(w, &l->np[2], l->np[2] - 1);
		}
		for (d = 0; d < 3; d++)
			if ((d == 2 || d == snd) &&
			    (l->ea[d] == j || l->ma[d] == j))
				rescan(w, g, d);
	}
}

/* The loads at the root. */
static void
load_init(struct ws *w)
{
	size_t i, d;
	uint32_t g;

	for (i = 0; i < w->n; i++) {
		const struct wtask *t = &w->t[i];
		uint64_t *x, *y;

		if (!t->xfer)
			continue;
		x = &w->wt[((size_t)t->a * w->ng + t->b) * 2];
		y = &w->wt[((size_t)t->b * w->ng + t->a) * 2];
		w->gl[t->a].L[2] += max64(x[0], x[1] + t->len) -
		    max64(x[0], x[1]);
		x[1] += t->len;
		w->gl[t->b].L[2] += max64(y[0] + t->len, y[1]) -
		    max64(y[0], y[1]);
		y[0] += t->len;
		w->gl[t->a].L[1] += t->len;
		w->gl[t->b].L[0] += t->len;
		w->gl[t->a].P[1][t->b >> 6] |= 1ULL << (t->b & 63);
		w->gl[t->b].P[0][t->a >> 6] |= 1ULL << (t->a & 63);
		w->gl[t->a].P[2][t->b >> 6] |= 1ULL << (t->b & 63);
		w->gl[t->b].P[2][t->a >> 6] |= 1ULL << (t->a & 63);
	}
	for (g = 0; g < w->ng; g++)
		for (d = 0; d < 3; d++) {
			const uint64_t *P = w->gl[g].P[d];

			w->gl[g].np[d] = (uint64_t)__builtin_popcountll(P[0]) +
			    (uint64_t)__builtin_popcountll(P[1]);
			w->gl[g].er[d] = w->gl[g].mv[d] = INF;
			w->gl[g].ea[d] = w->gl[g].ma[d] = INF;
			rescan(w, g, d);
		}
}

/*
 * GPU g in direction d: the work left on its ports from when each is
 * free, shared over the m that are free first (for the m that gives
 * the least), plus tau for each partner it needs beyond one per port
 * (a port's second circuit needs a change after its first), then the
 * shortest path after.  Both ways (d 2) a circuit is busy at least for
 * the larger of its two directions, so a partner weighs the larger of
 * what goes to it and what comes from it.  A port whose partner is not
 * needed changes before any use.
 */
static uint64_t
load_dir(struct ws *w, uint32_t g, size_t d)
{
	const struct gl *l = &w->gl[g];
	uint64_t fs[FMODEL_MAX_SWITCHES], sum, f, best = INF, E;
	size_t np, m;
	uint32_t s;

	if (l->L[d] == 0)
		return 0;
	E = max64(l->er[d], w->cursor);
	np = l->np[d];
	for (s = 0; s < w->S; s++) {
		const struct wport *x = port(w, s, g);

		f = E;
		if (x->used && x->partner < w->ng &&
		    (l->P[d][x->partner >> 6] >> (x->partner & 63) & 1))
			f = max64(f, d == 2 ? min64(x->tx, x->rx) :
			    d ? x->tx : x->rx);
		else if (x->used)
			f = max64(f, x->last + w->tau);
		for (m = s; m > 0 && fs[m - 1] > f; m--)
			fs[m] = fs[m - 1];
		fs[m] = f;
	}
	/* The work may go to the m ports free first, for any m. */
	for (m = 1, sum = 0; m <= w->S; m++) {
		sum += fs[m - 1];
		f = sum + l->L[d] + (np > m ? (np - m) * w->tau : 0);
		/* two switches are the common case: no division */
		f = m == 1 ? f : m == 2 ? (f + 1) >> 1 : (f + m - 1) / m;
		best = min64(best, f);
	}
	return best + l->mv[d];
}

static uint64_t
load_gpu(struct ws *w, uint32_t g)
{
	if (w->o->flags & WSEARCH_NOLOAD)
		return 0;
	return max64(load_dir(w, g, 2), max64(load_dir(w, g, 1),
	    load_dir(w, g, 0)));
}

/*
 * The lower bound of the node (wsearch.h); the parent's bound holds for
 * the child too.
 */
static uint64_t
node_bound(struct ws *w, uint64_t parent)
{
	uint64_t lb = max64(parent, max64(w->floor, w->maxend));
	size_t i;
	uint32_t g;

	lb = max64(lb, w->R);
	for (i = 0; i < w->nbyq; i++)
		if (!(w->placed >> w->byq[i] & 1)) {
			lb = max64(lb, w->cursor + w->t[w->byq[i]].q);
			break;
		}
	for (g = 0; g < w->ng; g++)
		lb = max64(lb, load_gpu(w, g));
	return lb;
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
		clb = node_bound(w, lb);
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
	if (setup(w, err, len) != 0)
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
	r->root = node_bound(w, 0);
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
