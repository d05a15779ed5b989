/* fmodel: Flux's scheduling problem as a mixed-integer model. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "fmodel.h"
#include "greedy.h"
#include "mem.h"
#include "milp.h"
#include "net.h"

#define NS(ps)	((double)(ps) / 1000.0)

void
fprob_init(struct fprob *p)
{
	memset(p, 0, sizeof(*p));
}

/* An empty problem on the net's switches, with a known horizon and
 * bound. */
void
fprob_setup(struct fprob *p, const struct net *n, uint64_t horizon,
    uint64_t lb)
{
	fprob_init(p);
	p->switches = n->switches;
	p->model = n->model;
	p->tau = n->reconfig_ps;
	p->horizon = horizon;
	p->lb = lb;
}

void
fprob_free(struct fprob *p)
{
	free(p->t);
	free(p->arc);
	free(p->port);
	fprob_init(p);
}

int
fprob_task(struct fprob *p, const struct fptask *t)
{
	if (mem_grow(&p->t, &p->tcap, p->n + 1, sizeof(*p->t)) != 0)
		return -1;
	p->t[p->n++] = *t;
	return 0;
}

int
fprob_arc(struct fprob *p, uint32_t i, uint32_t j, uint64_t lag)
{
	if (mem_grow(&p->arc, &p->acap, p->narc + 1, sizeof(*p->arc)) != 0)
		return -1;
	p->arc[p->narc++] = (struct fparc){ i, j, lag };
	return 0;
}

int
fprob_port(struct fprob *p, const struct fpport *x)
{
	if (mem_grow(&p->port, &p->pcap, p->nport + 1, sizeof(*p->port)) != 0)
		return -1;
	p->port[p->nport++] = *x;
	return 0;
}

/*
 * The whole DAG: its dependencies as arcs, and each GPU's compute
 * tasks in id order.  No release times or tails.
 */
int
fprob_whole(const struct dag *d, const struct net *n, uint64_t horizon,
    uint64_t lb, struct fprob *p)
{
	uint32_t *last;
	size_t i, j;
	int rc = -1;

	fprob_setup(p, n, horizon, lb);
	if ((last = malloc((n->gpus + 1) * sizeof(*last))) == NULL)
		return -1;
	memset(last, 0xff, (n->gpus + 1) * sizeof(*last));
	for (i = 0; i < d->n; i++) {
		const struct dag_task *tk = &d->t[i];
		struct fptask t = { (uint32_t)i, tk->kind, tk->gpu, tk->dst,
		    tk->amount, greedy_length(d, n, i), 0, 0 };

		if (tk->kind == DAG_TRANSFER) {
			t.len = greedy_duration(n, tk->amount);
			t.len = t.len > 0 ? t.len : 1;
		}
		if (fprob_task(p, &t) != 0)
			goto out;
		for (j = 0; j < tk->ndep; j++)
			if (fprob_arc(p, dag_deps(d, i)[j], (uint32_t)i,
			    0) != 0)
				goto out;
		if (tk->kind != DAG_COMPUTE)
			continue;
		if (last[tk->gpu] != UINT32_MAX &&
		    fprob_arc(p, last[tk->gpu], (uint32_t)i, 0) != 0)
			goto out;
		last[tk->gpu] = (uint32_t)i;
	}
	rc = 0;
out:
	free(last);
	return rc;
}

void
fmodel_free(struct fmodel *f)
{
	milp_free(&f->m);
	free(f->pair);
	free(f->s);
	free(f->x);
	memset(f, 0, sizeof(*f));
}

/* Builder state: the problem, the model, reachability, arcs by head. */
struct build {
	const struct fprob	*p;
	struct fmodel		*f;
	uint64_t		*reach;		/* [j * words]: who reaches j */
	size_t			 words;
	size_t			*aoff;		/* arcs into j: aoff[j].. */
	uint32_t		*aidx;
};

static int
row(struct build *b, size_t n, const int *c, const double *v, int sense,
    double rhs)
{
	return milp_row(&b->f->m, n, c, v, sense, rhs);
}

static int
reachable(const struct build *b, size_t i, size_t j)
{
	return (b->reach[j * b->words + i / 64] >> (i % 64)) & 1;
}

/* Arcs sorted by head, and who reaches whom through them. */
static int
closure(struct build *b)
{
	const struct fprob *p = b->p;
	size_t i, k, w;

	b->words = (p->n + 63) / 64;
	b->reach = calloc(p->n * b->words + 1, sizeof(*b->reach));
	b->aoff = calloc(p->n + 2, sizeof(*b->aoff));
	b->aidx = malloc((p->narc + 1) * sizeof(*b->aidx));
	if (b->reach == NULL || b->aoff == NULL || b->aidx == NULL)
		return -1;
	for (k = 0; k < p->narc; k++)
		b->aoff[p->arc[k].j + 2]++;
	for (i = 0; i < p->n; i++)
		b->aoff[i + 2] += b->aoff[i + 1];
	for (k = 0; k < p->narc; k++)
		b->aidx[b->aoff[p->arc[k].j + 1]++] = (uint32_t)k;
	for (i = 0; i < p->n; i++)
		for (k = b->aoff[i]; k < b->aoff[i + 1]; k++) {
			size_t h = p->arc[b->aidx[k]].i;
			uint64_t *dst = b->reach + i * b->words;

			for (w = 0; w < b->words; w++)
				dst[w] |= b->reach[h * b->words + w];
			dst[h / 64] |= 1ULL << (h % 64);
		}
	return 0;
}

/* Does a direct arc i -> j already keep gap ps after i's occupancy? */
static int
arc_covers(const struct build *b, size_t i, size_t j, uint64_t gap)
{
	const struct fprob *p = b->p;
	size_t k;

	for (k = b->aoff[j]; k < b->aoff[j + 1]; k++) {
		const struct fparc *a = &p->arc[b->aidx[k]];

		if (a->i == i && p->t[i].span + a->lag >= p->t[i].len + gap)
			return 1;
	}
	return 0;
}

static int
columns(struct build *b)
{
	const struct fprob *p = b->p;
	struct fmodel *f = b->f;
	double H = NS(p->horizon);
	size_t i, s, first = p->nport == 0;

	f->s = malloc((p->n + 1) * sizeof(*f->s));
	f->x = malloc((p->n * p->switches + 1) * sizeof(*f->x));
	if (f->s == NULL || f->x == NULL)
		return -1;
	if ((f->c = milp_col(&f->m, NS(p->lb), H, 1, 0)) < 0)
		return -1;
	for (i = 0; i < p->n; i++) {
		const struct fptask *t = &p->t[i];
		uint64_t need = t->span + t->tail;
		double hi = p->horizon > need ? NS(p->horizon - need) : 0;

		hi = hi > NS(t->rel) ? hi : NS(t->rel);
		if ((f->s[i] = milp_col(&f->m, NS(t->rel), hi, 0, 0)) < 0)
			return -1;
		for (s = 0; s < p->switches; s++) {
			f->x[i * p->switches + s] = -1;
			if (t->kind != DAG_TRANSFER || p->switches < 2)
				continue;
			f->x[i * p->switches + s] = milp_col(&f->m,
			    first && s == 0, 1, 0, 1);
			if (f->x[i * p->switches + s] < 0)
				return -1;
			f->nbin++;
		}
		first &= t->kind != DAG_TRANSFER;
	}
	return 0;
}

/* Precedence, the makespan, one switch per transfer. */
static int
basic_rows(struct build *b)
{
	const struct fprob *p = b->p;
	struct fmodel *f = b->f;
	int c[64];
	double v[64];
	size_t i, k, s;

	for (k = 0; k < p->narc; k++) {
		const struct fparc *a = &p->arc[k];
		const struct fptask *t = &p->t[a->i];

		c[0] = (int)f->s[a->j]; v[0] = 1;
		c[1] = (int)f->s[a->i]; v[1] = -1;
		if (row(b, 2, c, v, MILP_GE, NS(t->span + a->lag)) != 0)
			return -1;
	}
	for (i = 0; i < p->n; i++) {
		const struct fptask *t = &p->t[i];

		c[0] = (int)f->c; v[0] = 1;
		c[1] = (int)f->s[i]; v[1] = -1;
		if (row(b, 2, c, v, MILP_GE, NS(t->span + t->tail)) != 0)
			return -1;
		if (t->kind != DAG_TRANSFER || p->switches < 2)
			continue;
		for (s = 0; s < p->switches && s < 64; s++) {
			c[s] = (int)f->x[i * p->switches + s];
			v[s] = 1;
		}
		if (row(b, s, c, v, MILP_EQ, 1) != 0)
			return -1;
	}
	return 0;
}

/*
 * A port's given state delays a transfer that uses it on that switch:
 * over the same partner, after the port's use in its direction; with
 * another, tau after its last use.
 */
static int
port_rows(struct build *b)
{
	const struct fprob *p = b->p;
	struct fmodel *f = b->f;
	size_t i, k;
	int c[2];
	double v[2];

	for (k = 0; k < p->nport; k++) {
		const struct fpport *x = &p->port[k];

		for (i = 0; i < p->n; i++) {
			const struct fptask *t = &p->t[i];
			int src = t->a == x->gpu;
			uint64_t need;

			if (t->kind != DAG_TRANSFER || x->sw >= p->switches ||
			    (t->a != x->gpu && t->b != x->gpu))
				continue;
			if (x->partner == (src ? t->b : t->a))
				need = src ? x->txend : x->rxend;
			else
				need = x->last + p->tau;
			c[0] = (int)f->s[i]; v[0] = 1;
			if (p->switches < 2) {
				if (row(b, 1, c, v, MILP_GE, NS(need)) != 0)
					return -1;
				continue;
			}
			c[1] = (int)f->x[i * p->switches + x->sw];
			v[1] = -NS(need);
			if (row(b, 2, c, v, MILP_GE, 0) != 0)
				return -1;
		}
	}
	return 0;
}

/*
 * Big-M for "t[j] starts gap after t[i]'s occupancy": just enough to
 * free the row, from the bounds of the two starts.
 */
static double
bigm(const struct build *b, size_t i, size_t j, uint64_t gap)
{
	const struct milp *m = &b->f->m;
	double M = m->hi[b->f->s[i]] + NS(b->p->t[i].len + gap) -
	    m->lo[b->f->s[j]];

	return M > 0 ? M + 1 : 1;
}

/*
 * Transfers i and j (i first when ordered) on one switch: j starts
 * gap after i's occupancy, or i after j's when y = 0 (y < 0: i is
 * before j in every schedule).  Per switch, a row holds only when both
 * are on it.
 */
static int
disjunction(struct build *b, size_t i, size_t j, uint64_t gap, long y)
{
	const struct fprob *p = b->p;
	struct fmodel *f = b->f;
	double M1 = bigm(b, i, j, gap), M2 = bigm(b, j, i, gap);
	int c[5], two = p->switches >= 2;
	double v[5];
	size_t s, k;

	for (s = 0; s < p->switches; s++) {
		k = 0;
		c[k] = (int)f->s[j]; v[k++] = 1;
		c[k] = (int)f->s[i]; v[k++] = -1;
		if (two) {
			c[k] = (int)f->x[i * p->switches + s]; v[k++] = -M1;
			c[k] = (int)f->x[j * p->switches + s]; v[k++] = -M1;
		}
		if (y >= 0) {
			c[k] = (int)y; v[k++] = -M1;
		}
		if (row(b, k, c, v, MILP_GE, NS(p->t[i].len + gap) -
		    (two ? 2 * M1 : 0) - (y >= 0 ? M1 : 0)) != 0)
			return -1;
		if (y < 0)
			continue;
		v[0] = -1;
		v[1] = 1;
		if (two)
			v[2] = v[3] = -M2;
		v[k - 1] = M2;
		if (row(b, k, c, v, MILP_GE, NS(p->t[j].len + gap) -
		    (two ? 2 * M2 : 0)) != 0)
			return -1;
	}
	return 0;
}

/* The gap two transfers need on one switch; -1: none, they may overlap. */
static int64_t
pair_gap(const struct fprob *p, size_t i, size_t j)
{
	const struct fptask *x = &p->t[i], *y = &p->t[j];

	if (x->a == y->a && x->b == y->b)
		return 0;
	if (x->a == y->b && x->b == y->a)
		return -1;
	if (x->a == y->a || x->a == y->b || x->b == y->a || x->b == y->b)
		return (int64_t)p->tau;
	return -1;
}

static int
pair_rows(struct build *b, size_t i, size_t j)
{
	int64_t gap = pair_gap(b->p, i, j);
	long y;

	if (gap < 0)
		return 0;
	if (reachable(b, i, j)) {
		/* a chain keeps them apart by i's span at least */
		if ((gap == 0 && b->p->t[i].span >= b->p->t[i].len) ||
		    arc_covers(b, i, j, (uint64_t)gap))
			return 0;
		return disjunction(b, i, j, (uint64_t)gap, -1);
	}
	if ((y = milp_col(&b->f->m, 0, 1, 0, 1)) < 0 ||
	    mem_grow(&b->f->pair, &b->f->pcap, b->f->npair + 1,
	    sizeof(*b->f->pair)) != 0)
		return -1;
	b->f->pair[b->f->npair++] = (struct fpair){ (uint32_t)i,
	    (uint32_t)j, y };
	b->f->nbin++;
	return disjunction(b, i, j, (uint64_t)gap, y);
}

int
fmodel_build(const struct fprob *p, struct fmodel *f)
{
	struct build b = { p, f, NULL, 0, NULL, NULL };
	size_t i, j;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	milp_init(&f->m);
	if (p->switches > FMODEL_MAX_SWITCHES)
		return -1;
	if (closure(&b) != 0 || columns(&b) != 0 || basic_rows(&b) != 0 ||
	    port_rows(&b) != 0)
		goto out;
	for (i = 0; i < p->n; i++) {
		if (p->t[i].kind != DAG_TRANSFER)
			continue;
		for (j = i + 1; j < p->n; j++)
			if (p->t[j].kind == DAG_TRANSFER &&
			    pair_rows(&b, i, j) != 0)
				goto out;
	}
	rc = 0;
out:
	free(b.reach);
	free(b.aoff);
	free(b.aidx);
	return rc;
}

void
fmodel_decode(const struct fprob *p, const struct fmodel *f,
    const double *x, uint32_t *sw, double *key)
{
	size_t i, s;

	for (i = 0; i < p->n; i++) {
		uint32_t id = p->t[i].id;

		key[id] = x[f->s[i]];
		if (p->t[i].kind != DAG_TRANSFER)
			continue;
		sw[id] = 0;
		for (s = 0; s < p->switches && p->switches >= 2; s++)
			if (x[f->x[i * p->switches + s]] > 0.5)
				sw[id] = (uint32_t)s;
	}
}

void
fmodel_encode(const struct fprob *p, const struct fmodel *f,
    const uint64_t *start, const uint32_t *sw, uint64_t makespan,
    double *x)
{
	uint32_t f0 = UINT32_MAX, k;
	size_t i, s;

	memset(x, 0, f->m.ncol * sizeof(*x));
	x[f->c] = NS(makespan);
	for (i = 0; i < p->n; i++) {
		uint32_t id = p->t[i].id;

		x[f->s[i]] = NS(start[id]);
		if (p->t[i].kind != DAG_TRANSFER || p->switches < 2)
			continue;
		/* the first transfer is on switch 0: swap it with its own */
		if (f0 == UINT32_MAX)
			f0 = sw[id];
		k = sw[id] == f0 ? 0 : sw[id] == 0 ? f0 : sw[id];
		for (s = 0; s < p->switches; s++)
			x[f->x[i * p->switches + s]] = k == s;
	}
	for (i = 0; i < f->npair; i++)
		x[f->pair[i].y] = start[p->t[f->pair[i].i].id] <=
		    start[p->t[f->pair[i].j].id];
}
