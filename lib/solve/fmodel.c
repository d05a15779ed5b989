/* fmodel: Flux's scheduling problem as a mixed-integer model. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "records/mem.h"
#include "solve/fmodel.h"
#include "solve/milp.h"

#define NS(ps)	((double)(ps) / 1000.0)

/* A proved optimum (ns) as whole picoseconds. */
uint64_t
fmodel_optimum_ps(double v)
{
	double ps = ceil(v * 1000.0 - 0.5);

	return ps > 0 ? (uint64_t)ps : 0;
}

/* A solver's bound (ns) as the whole picoseconds it implies. */
uint64_t
fmodel_bound_ps(double v)
{
	double ps = ceil(v * 1000.0 - 1e-3);

	return ps > 0 && v < MILP_INF ? (uint64_t)ps : 0;
}

void
fmodel_free(struct fmodel *f)
{
	milp_free(&f->m);
	free(f->pair);
	free(f->s);
	free(f->x);
	free(f->ep);
	free(f->gv);
	free(f->given);
	free(f->sp);
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

/*
 * The switch (all-stop) model.  A change of a switch's matching darkens
 * all its ports for tau, so the transfers of a switch fall into epochs:
 * an epoch starts at some time, holds one matching, and each of its
 * transfers starts in it and ends tau before the next epoch starts.
 * Each transfer j has a column c_j, the start of its epoch (c_j <=
 * S_j), and each pair of transfers, whatever their GPUs (a change
 * darkens them all), a column q (>= x_is + x_js - 1 for every switch s:
 * 1 when they share one; none on one switch) under which either z = 1,
 * one epoch (c_i = c_j), or z = 0 and the epoch of the first by o (1:
 * i's) ended tau before the other's began (S_i + len_i + tau <= c_j).
 * As len_i >= 1 puts c_j above c_i there, the classes of c on a switch
 * are its epochs, in the order of c, and every rule of the model is a
 * row of the pair:
 *   two partners	a pair sharing exactly one GPU has no z: never
 *			in one epoch;
 *   one circuit	one directed pair goes one after the other in
 *			the order o, which in two epochs orders them too;
 *			its two directions may overlap;
 *   arcs		a pair the arcs order has no o: j's epoch is not
 *			before i's, for S_j >= S_i.
 * Elsewhere o means nothing in one epoch (a row o >= z that said so
 * made CBC no faster).
 * A switch with given port states is in an epoch the fixed part left,
 * started before 0 (as wsearch.c has it): the binary g_j = 1 puts
 * transfer j in it with c_j = -1 ns, below any other epoch's start, so
 * that the pair rows take it for the first epoch; there each port of j
 * given a state has j's partner and j waits for its direction's given
 * use, and any epoch after it starts tau after the last given use of
 * the switch.  Only the states of GPUs that a task uses count, as in
 * the search.
 */

/* Does some task of the problem use GPU g? */
static int
uses_gpu(const struct fprob *p, uint32_t g)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->t[i].a == g || (p->t[i].kind == DAG_TRANSFER &&
		    p->t[i].b == g))
			return 1;
	return 0;
}

/* Is the port state counted?  Then its switch has a given epoch. */
static int
counted(const struct fprob *p, const struct fpport *x)
{
	return x->sw < p->switches && uses_gpu(p, x->gpu);
}

/* The columns c_j and g_j, and the last given use of each switch. */
static int
sw_columns(struct build *b)
{
	const struct fprob *p = b->p;
	struct fmodel *f = b->f;
	size_t i, k;
	int any = 0;

	f->ep = malloc((p->n + 1) * sizeof(*f->ep));
	f->gv = malloc((p->n + 1) * sizeof(*f->gv));
	f->given = malloc((p->switches + 1) * sizeof(*f->given));
	if (f->ep == NULL || f->gv == NULL || f->given == NULL)
		return -1;
	for (k = 0; k < p->switches; k++)
		f->given[k] = FMODEL_NONE;
	for (k = 0; k < p->nport; k++) {
		const struct fpport *x = &p->port[k];

		if (!counted(p, x))
			continue;
		if (f->given[x->sw] == FMODEL_NONE || x->last > f->given[x->sw])
			f->given[x->sw] = x->last;
		any = 1;
	}
	for (i = 0; i < p->n; i++) {
		f->ep[i] = f->gv[i] = -1;
		if (p->t[i].kind != DAG_TRANSFER)
			continue;
		if ((f->ep[i] = milp_col(&f->m, any ? -1 : 0,
		    f->m.hi[f->s[i]], 0, 0)) < 0)
			return -1;
		if (!any)
			continue;
		if ((f->gv[i] = milp_col(&f->m, 0, 1, 0, 1)) < 0)
			return -1;
		f->nbin++;
	}
	return 0;
}

/*
 * Transfer j in the given epoch of switch s (x_js = 1, g_j = 1), per
 * port state of its ends there: j waits for the port's use in its
 * direction when the port holds j's circuit, and cannot be there when
 * the port holds another.
 */
static int
sw_given_ports(struct build *b, size_t j, size_t s)
{
	const struct fprob *p = b->p;
	struct fmodel *f = b->f;
	const struct fptask *t = &p->t[j];
	int c[3], two = p->switches >= 2;
	double v[3], need;
	size_t k;

	for (k = 0; k < p->nport; k++) {
		const struct fpport *x = &p->port[k];
		int src = t->a == x->gpu;

		if (x->sw != s || (t->a != x->gpu && t->b != x->gpu) ||
		    !counted(p, x))
			continue;
		if (x->partner != (src ? t->b : t->a)) {
			c[0] = (int)f->gv[j]; v[0] = 1;
			c[1] = two ? (int)f->x[j * p->switches + s] : 0;
			v[1] = 1;
			if (row(b, 1 + two, c, v, MILP_LE, two) != 0)
				return -1;
			continue;
		}
		if ((need = NS(src ? x->txend : x->rxend)) <= 0)
			continue;
		c[0] = (int)f->s[j]; v[0] = 1;
		c[1] = (int)f->gv[j]; v[1] = -need;
		c[2] = two ? (int)f->x[j * p->switches + s] : 0;
		v[2] = -need;
		if (row(b, 2 + two, c, v, MILP_GE, two ? -need : 0) != 0)
			return -1;
	}
	return 0;
}

/*
 * Per transfer: its epoch starts by its start; g_j = 1 puts the epoch
 * at -1 ns, g_j = 0 at 0 or later, on a switch with a given epoch tau
 * after its given uses; g_j = 1 only on such a switch.
 */
static int
sw_task_rows(struct build *b)
{
	const struct fprob *p = b->p;
	struct fmodel *f = b->f;
	int c[FMODEL_MAX_SWITCHES + 1], two = p->switches >= 2, all;
	double v[FMODEL_MAX_SWITCHES + 1], hc, next;
	size_t j, s, k;

	for (j = 0; j < p->n; j++) {
		if (p->t[j].kind != DAG_TRANSFER)
			continue;
		c[0] = (int)f->s[j]; v[0] = 1;
		c[1] = (int)f->ep[j]; v[1] = -1;
		if (row(b, 2, c, v, MILP_GE, 0) != 0)
			return -1;
		if (f->gv[j] < 0)
			continue;
		hc = f->m.hi[f->ep[j]];
		c[0] = (int)f->ep[j]; v[0] = 1;
		c[1] = (int)f->gv[j]; v[1] = hc + 1;
		if (row(b, 2, c, v, MILP_LE, hc) != 0)
			return -1;
		v[1] = 1;
		if (row(b, 2, c, v, MILP_GE, 0) != 0)
			return -1;
		all = 1;
		for (s = 0; s < p->switches; s++) {
			if (f->given[s] == FMODEL_NONE) {
				all = 0;
				continue;
			}
			if (sw_given_ports(b, j, s) != 0)
				return -1;
			if ((next = NS(f->given[s] + p->tau)) <= 0)
				continue;	/* c_j >= 0 is enough */
			/* g_j = 0, x_js = 1: c_j >= next */
			c[0] = (int)f->ep[j]; v[0] = 1;
			c[1] = (int)f->gv[j]; v[1] = next + 1;
			c[2] = two ? (int)f->x[j * p->switches + s] : 0;
			v[2] = -(next + 1);
			if (row(b, 2 + two, c, v, MILP_GE, two ? -1 :
			    next) != 0)
				return -1;
		}
		if (all || !two)
			continue;
		c[0] = (int)f->gv[j]; v[0] = 1;
		for (k = 1, s = 0; s < p->switches; s++)
			if (f->given[s] != FMODEL_NONE) {
				c[k] = (int)f->x[j * p->switches + s];
				v[k++] = -1;
			}
		if (row(b, k, c, v, MILP_LE, 0) != 0)
			return -1;
	}
	return 0;
}

/*
 * A row of a pair, x[u] - x[w] >= rhs, that holds only when each column
 * of on[] is 1 and each of off[] is 0 (-1: no column): big-M frees it
 * otherwise, just enough from the bounds of u and w.
 */
static int
diff(struct build *b, long u, long w, double rhs, const long *on,
    size_t non, const long *off, size_t noff)
{
	const struct milp *m = &b->f->m;
	double M = rhs - (m->lo[u] - m->hi[w]), v[6];
	int c[6];
	size_t k, n = 0, nm = 0;

	M = M > 0 ? M + 1 : 1;
	c[n] = (int)u; v[n++] = 1;
	c[n] = (int)w; v[n++] = -1;
	for (k = 0; k < non; k++)
		if (on[k] >= 0) {
			c[n] = (int)on[k]; v[n++] = -M;
			nm++;
		}
	for (k = 0; k < noff; k++)
		if (off[k] >= 0) {
			c[n] = (int)off[k]; v[n++] = M;
		}
	return row(b, n, c, v, MILP_GE, rhs - M * (double)nm);
}

/* Transfers i < j under the switch model: their pair's columns, rows. */
static int
sw_pair(struct build *b, size_t i, size_t j)
{
	const struct fprob *p = b->p;
	struct fmodel *f = b->f;
	const struct fptask *x = &p->t[i], *y = &p->t[j];
	int same = x->a == y->a && x->b == y->b;
	int rev = x->a == y->b && x->b == y->a;
	int share = x->a == y->a || x->a == y->b || x->b == y->a ||
	    x->b == y->b;
	struct fspair sp = { (uint32_t)i, (uint32_t)j, -1, -1, -1 };
	double gi = NS(x->len + p->tau), gj = NS(y->len + p->tau);
	long on[2], off[2];
	int c[3];
	double v[3];
	size_t s;

	if (p->switches >= 2) {
		if ((sp.q = milp_col(&f->m, 0, 1, 0, 0)) < 0)
			return -1;
		for (s = 0; s < p->switches; s++) {
			c[0] = (int)sp.q; v[0] = 1;
			c[1] = (int)f->x[i * p->switches + s]; v[1] = -1;
			c[2] = (int)f->x[j * p->switches + s]; v[2] = -1;
			if (row(b, 3, c, v, MILP_GE, -1) != 0)
				return -1;
		}
	}
	if (same || rev || !share) {
		if ((sp.z = milp_col(&f->m, 0, 1, 0, 1)) < 0)
			return -1;
		f->nbin++;
	}
	if (!reachable(b, i, j)) {
		if ((sp.o = milp_col(&f->m, 0, 1, 0, 1)) < 0)
			return -1;
		f->nbin++;
	}
	if (mem_grow(&f->sp, &f->spcap, f->nsp + 1, sizeof(*f->sp)) != 0)
		return -1;
	f->sp[f->nsp++] = sp;
	/* one epoch: c_i = c_j */
	on[0] = sp.z;
	on[1] = sp.q;
	if (sp.z >= 0 && (diff(b, f->ep[j], f->ep[i], 0, on, 2, NULL, 0) != 0 ||
	    diff(b, f->ep[i], f->ep[j], 0, on, 2, NULL, 0) != 0))
		return -1;
	/* two epochs: the first ended tau before the second began */
	on[0] = sp.o;
	off[0] = sp.z;
	if (diff(b, f->ep[j], f->s[i], gi, on, 2, off, 1) != 0)
		return -1;
	off[1] = sp.o;
	if (sp.o >= 0 && diff(b, f->ep[i], f->s[j], gj, on + 1, 1, off, 2) != 0)
		return -1;
	if (!same)
		return 0;
	/* one circuit: one after the other, in the order o */
	if (sp.o < 0) {
		if (x->span >= x->len || arc_covers(b, i, j, 0))
			return 0;	/* the arcs keep them apart */
		return diff(b, f->s[j], f->s[i], NS(x->len), on + 1, 1, NULL,
		    0);
	}
	if (diff(b, f->s[j], f->s[i], NS(x->len), on, 2, NULL, 0) != 0)
		return -1;
	off[0] = sp.o;
	return diff(b, f->s[i], f->s[j], NS(y->len), on + 1, 1, off, 1);
}

/* Is transfer k (task id ik) before j (ij) in start order, ties by
 * index? */
static int
before(const uint64_t *start, uint32_t ik, size_t k, uint32_t ij, size_t j)
{
	return start[ik] < start[ij] || (start[ik] == start[ij] && k < j);
}

/*
 * The epochs of a schedule under the switch model, as columns: on each
 * switch, in order of start (ties by index), a transfer opens an epoch
 * when every transfer before it (and the given uses) ended tau before
 * it starts, and the first on a switch without a given epoch opens the
 * first.  Opening whenever it may is as good as any choice: it keeps
 * every earlier rule and parts more pairs.  c_j is the start of the
 * last opener up to j, -1 ns for the given epoch; pass one marks the
 * openers (-2 the others), pass two takes the largest mark up to j,
 * which an earlier j's final value never exceeds.
 */
static void
sw_encode(const struct fprob *p, const struct fmodel *f,
    const uint64_t *start, const uint32_t *sw, double *x)
{
	size_t i, j, k;

	for (j = 0; j < p->n; j++) {
		uint32_t id = p->t[j].id, s = sw[id];
		uint64_t end = f->given[s] == FMODEL_NONE ? 0 : f->given[s];
		int first = f->given[s] == FMODEL_NONE;

		if (p->t[j].kind != DAG_TRANSFER)
			continue;
		for (k = 0; k < p->n; k++) {
			uint32_t ik = p->t[k].id;

			if (k == j || p->t[k].kind != DAG_TRANSFER ||
			    sw[ik] != s || !before(start, ik, k, id, j))
				continue;
			first = 0;
			if (start[ik] + p->t[k].len > end)
				end = start[ik] + p->t[k].len;
		}
		x[f->ep[j]] = first || end + p->tau <= start[id] ?
		    NS(start[id]) : -2;
	}
	for (j = 0; j < p->n; j++) {
		uint32_t id = p->t[j].id;
		double v = -1;

		if (p->t[j].kind != DAG_TRANSFER)
			continue;
		for (k = 0; k < p->n; k++) {
			uint32_t ik = p->t[k].id;

			if (p->t[k].kind == DAG_TRANSFER && sw[ik] == sw[id] &&
			    (k == j || before(start, ik, k, id, j)) &&
			    x[f->ep[k]] > v)
				v = x[f->ep[k]];
		}
		x[f->ep[j]] = v;
		if (f->gv[j] >= 0)
			x[f->gv[j]] = v < 0;
	}
	for (k = 0; k < f->nsp; k++) {
		const struct fspair *q = &f->sp[k];
		uint32_t ii = p->t[q->i].id, ij = p->t[q->j].id;
		int same = sw[ii] == sw[ij];
		int one = same && x[f->ep[q->i]] == x[f->ep[q->j]];

		i = q->i;
		j = q->j;
		if (q->q >= 0)
			x[q->q] = same;
		if (q->z >= 0)
			x[q->z] = one;
		if (q->o < 0)
			continue;
		if (same && !one)
			x[q->o] = x[f->ep[i]] < x[f->ep[j]];
		else if (one && p->t[i].a == p->t[j].a &&
		    p->t[i].b == p->t[j].b)
			x[q->o] = before(start, ii, i, ij, j);
		else
			x[q->o] = 1;
	}
}

int
fmodel_build(const struct fprob *p, struct fmodel *f)
{
	return fmodel_build_capped(p, f, SIZE_MAX, NULL, NULL);
}

int
fmodel_build_capped(const struct fprob *p, struct fmodel *f, size_t cap,
    int (*late)(void *), void *arg)
{
	struct build b = { p, f, NULL, 0, NULL, NULL };
	size_t i, j;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	milp_init(&f->m);
	if (p->switches > FMODEL_MAX_SWITCHES)
		return -1;
	if (closure(&b) != 0 || columns(&b) != 0 || basic_rows(&b) != 0)
		goto out;
	if (p->model == NET_SWITCH ? sw_columns(&b) != 0 ||
	    sw_task_rows(&b) != 0 : port_rows(&b) != 0)
		goto out;
	for (i = 0; i < p->n; i++) {
		if (f->nbin > cap || (late != NULL && late(arg))) {
			rc = f->nbin > cap ? 1 : 2;
			goto out;
		}
		if (p->t[i].kind != DAG_TRANSFER)
			continue;
		for (j = i + 1; j < p->n; j++)
			if (p->t[j].kind == DAG_TRANSFER &&
			    (p->model == NET_SWITCH ? sw_pair(&b, i, j) :
			    pair_rows(&b, i, j)) != 0)
				goto out;
	}
	rc = f->nbin > cap;
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
		/*
		 * The first transfer is on switch 0: swap it with its own,
		 * when the model has that cut (no port states: switches
		 * alike).
		 */
		if (f0 == UINT32_MAX)
			f0 = p->nport == 0 ? sw[id] : 0;
		k = sw[id] == f0 ? 0 : sw[id] == 0 ? f0 : sw[id];
		for (s = 0; s < p->switches; s++)
			x[f->x[i * p->switches + s]] = k == s;
	}
	for (i = 0; i < f->npair; i++)
		x[f->pair[i].y] = start[p->t[f->pair[i].i].id] <=
		    start[p->t[f->pair[i].j].id];
	/* the epochs need only which transfers share a switch: relabeling
	 * keeps that */
	if (p->model == NET_SWITCH)
		sw_encode(p, f, start, sw, x);
}
