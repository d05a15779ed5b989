/* milp: mixed-integer linear models, and their solution by a backend. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lp_lib.h>

#include "mem.h"
#include "milp.h"

const char *const milp_statuses[] = { "optimal", "feasible", "infeasible",
	"unbounded", "no solution", "error", NULL };

void
milp_init(struct milp *m)
{
	memset(m, 0, sizeof(*m));
}

void
milp_free(struct milp *m)
{
	free(m->lo);
	free(m->hi);
	free(m->obj);
	free(m->isint);
	free(m->roff);
	free(m->sense);
	free(m->rhs);
	free(m->ecol);
	free(m->eval);
	milp_init(m);
}

void
milp_result_free(struct milp_result *r)
{
	free(r->x);
	r->x = NULL;
}

/* A column; returns its index, or -1 when memory runs out. */
long
milp_col(struct milp *m, double lo, double hi, double obj, int isint)
{
	size_t c = m->ccap;

	if (mem_grow(&m->lo, &c, m->ncol + 1, sizeof(*m->lo)) != 0)
		return -1;
	c = m->ccap;
	if (mem_grow(&m->hi, &c, m->ncol + 1, sizeof(*m->hi)) != 0)
		return -1;
	c = m->ccap;
	if (mem_grow(&m->obj, &c, m->ncol + 1, sizeof(*m->obj)) != 0)
		return -1;
	c = m->ccap;
	if (mem_grow(&m->isint, &c, m->ncol + 1, sizeof(*m->isint)) != 0)
		return -1;
	m->ccap = c;
	m->lo[m->ncol] = lo;
	m->hi[m->ncol] = hi;
	m->obj[m->ncol] = obj;
	m->isint[m->ncol] = isint != 0;
	m->nint += isint != 0;
	return (long)m->ncol++;
}

/* A row: sum of vals[i] * x[cols[i]] (sense) rhs. */
int
milp_row(struct milp *m, size_t n, const int *cols, const double *vals,
    int sense, double rhs)
{
	size_t c, e = m->ecap, i;

	for (i = 0; i < n; i++)
		if (cols[i] < 0 || (size_t)cols[i] >= m->ncol)
			return -1;
	c = m->rcap;
	if (mem_grow(&m->sense, &c, m->nrow + 1, sizeof(*m->sense)) != 0)
		return -1;
	c = m->rcap;
	if (mem_grow(&m->rhs, &c, m->nrow + 1, sizeof(*m->rhs)) != 0)
		return -1;
	m->rcap = c;
	if (mem_grow(&m->roff, &m->ocap, m->nrow + 2, sizeof(*m->roff)) != 0)
		return -1;
	if (mem_grow(&m->ecol, &e, m->nent + n + 1, sizeof(*m->ecol)) != 0)
		return -1;
	e = m->ecap;
	if (mem_grow(&m->eval, &e, m->nent + n + 1, sizeof(*m->eval)) != 0)
		return -1;
	m->ecap = e;
	memcpy(m->ecol + m->nent, cols, n * sizeof(*cols));
	memcpy(m->eval + m->nent, vals, n * sizeof(*vals));
	m->roff[m->nrow] = m->nent;
	m->nent += n;
	m->roff[m->nrow + 1] = m->nent;
	m->sense[m->nrow] = (uint8_t)sense;
	m->rhs[m->nrow] = rhs;
	m->nrow++;
	return 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The model as lp_solve holds it: 1-based columns, rows added in row
 * mode, logging to stderr only when asked, never to stdout. */
static lprec *
lps_build(const struct milp *m, char *err, size_t n)
{
	static const int senses[] = { LE, GE, EQ };
	int *cols = NULL;
	double *vals = NULL;
	size_t r, i;
	lprec *lp;

	if ((lp = make_lp(0, (int)m->ncol)) == NULL) {
		snprintf(err, n, "lp_solve: cannot make a model of %zu "
		    "columns", m->ncol);
		return NULL;
	}
	set_outputstream(lp, stderr);
	set_verbose(lp, NEUTRAL);
	/*
	 * lp_solve sorts the arrays it is given in place: hand it copies,
	 * never the model's own.
	 */
	if ((cols = malloc((m->nent + m->ncol + 1) * sizeof(*cols))) == NULL ||
	    (vals = malloc((m->nent + m->ncol + 1) * sizeof(*vals))) == NULL)
		goto fail;
	for (i = 0; i < m->ncol; i++)
		cols[i] = (int)i + 1;
	memcpy(vals, m->obj, m->ncol * sizeof(*vals));
	if (!set_obj_fnex(lp, (int)m->ncol, vals, cols))
		goto fail;
	set_add_rowmode(lp, TRUE);
	for (r = 0; r < m->nrow; r++) {
		size_t k = m->roff[r + 1] - m->roff[r];

		for (i = 0; i < k; i++) {
			cols[i] = m->ecol[m->roff[r] + i] + 1;
			vals[i] = m->eval[m->roff[r] + i];
		}
		if (!add_constraintex(lp, (int)k, vals, cols,
		    senses[m->sense[r]], m->rhs[r]))
			goto fail;
	}
	set_add_rowmode(lp, FALSE);
	for (i = 0; i < m->ncol; i++) {
		double lo = m->lo[i] <= -MILP_INF ? -get_infinite(lp) : m->lo[i];
		double hi = m->hi[i] >= MILP_INF ? get_infinite(lp) : m->hi[i];

		if (!set_bounds(lp, (int)i + 1, lo, hi) ||
		    (m->isint[i] && !set_int(lp, (int)i + 1, TRUE)))
			goto fail;
	}
	set_minim(lp);
	free(cols);
	free(vals);
	return lp;
fail:
	snprintf(err, n, "lp_solve: out of memory building the model");
	free(cols);
	free(vals);
	delete_lp(lp);
	return NULL;
}

static int
lps_status(int rc, int have)
{
	switch (rc) {
	case OPTIMAL:
	case PRESOLVED:
		return MILP_OPTIMAL;
	case SUBOPTIMAL:	/* a time limit with a solution in hand */
		return MILP_FEASIBLE;
	case INFEASIBLE:
		return MILP_INFEASIBLE;
	case UNBOUNDED:
		return MILP_UNBOUNDED;
	case TIMEOUT:
		return have ? MILP_FEASIBLE : MILP_NOSOLUTION;
	default:
		return MILP_ERROR;
	}
}

int
milp_solve(const struct milp *m, const char *backend, double limit,
    struct milp_result *res, char *err, size_t n)
{
	double t0 = now_s();
	lprec *lp;
	int rc;

	memset(res, 0, sizeof(*res));
	res->status = MILP_ERROR;
	if (strcmp(backend, "lpsolve") != 0) {
		snprintf(err, n, "unknown solver \"%s\"", backend);
		return -1;
	}
	if ((lp = lps_build(m, err, n)) == NULL)
		return -1;
	if (limit > 0)
		set_timeout(lp, (long)ceil(limit));
	rc = solve(lp);
	res->seconds = now_s() - t0;
	if ((res->x = calloc(m->ncol + 1, sizeof(*res->x))) == NULL) {
		delete_lp(lp);
		snprintf(err, n, "out of memory");
		return -1;
	}
	res->status = lps_status(rc, rc == SUBOPTIMAL);
	if (res->status == MILP_OPTIMAL || res->status == MILP_FEASIBLE) {
		get_variables(lp, res->x);
		res->objective = get_objective(lp);
	}
	delete_lp(lp);
	return 0;
}

/* Write the model as an LP or (fixed) MPS file, through lp_solve. */
int
milp_write(const struct milp *m, const char *path, int format, char *err,
    size_t n)
{
	lprec *lp;
	int ok;

	if ((lp = lps_build(m, err, n)) == NULL)
		return -1;
	ok = format == MILP_MPS ? write_mps(lp, (char *)path) :
	    write_lp(lp, (char *)path);
	delete_lp(lp);
	if (!ok) {
		snprintf(err, n, "%s: cannot write the model", path);
		return -1;
	}
	return 0;
}
