/* milp: mixed-integer linear models, and their solution by a backend. */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <Cbc_C_Interface.h>
#include <lp_lib.h>

#include "records/mem.h"
#include "records/wclock.h"
#include "solve/milp.h"

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
	if (n > 0) {
		memcpy(m->ecol + m->nent, cols, n * sizeof(*cols));
		memcpy(m->eval + m->nent, vals, n * sizeof(*vals));
	}
	m->roff[m->nrow] = m->nent;
	m->nent += n;
	m->roff[m->nrow + 1] = m->nent;
	m->sense[m->nrow] = (uint8_t)sense;
	m->rhs[m->nrow] = rhs;
	m->nrow++;
	return 0;
}

/* What the solver callbacks watch: the caller's flag and a deadline. */
struct watch {
	volatile sig_atomic_t	*stop;
	double			 deadline;	/* wclock_now() time, or 0: none */
	int			 fired;		/* the callback stopped it */
};

static int
stopped(const volatile sig_atomic_t *stop)
{
	return stop != NULL && *stop != 0;
}

/* Whether x meets row r, within tol relative to its right-hand side. */
static int
row_holds(const struct milp *m, size_t r, const double *x, double tol)
{
	double a = 0, t = tol * (1 + fabs(m->rhs[r]));
	size_t e;

	for (e = m->roff[r]; e < m->roff[r + 1]; e++)
		a += m->eval[e] * x[m->ecol[e]];
	if (m->sense[r] != MILP_GE && a > m->rhs[r] + t)
		return 0;
	if (m->sense[r] != MILP_LE && a < m->rhs[r] - t)
		return 0;
	return 1;
}

static int
feasible(const struct milp *m, const double *x)
{
	const double tol = 1e-6;
	size_t c, r;

	for (c = 0; c < m->ncol; c++) {
		if (!isfinite(x[c]) || x[c] < m->lo[c] - tol ||
		    x[c] > m->hi[c] + tol)
			return 0;
		if (m->isint[c] && fabs(x[c] - round(x[c])) > tol)
			return 0;
	}
	for (r = 0; r < m->nrow; r++)
		if (!row_holds(m, r, x, tol))
			return 0;
	return 1;
}

/*
 * The caller's feasible start, when the solver ended with nothing
 * better: lp_solve cannot take it in, and either solver may be stopped
 * before it finds as good a solution.
 */
static void
keep_start(const struct milp *m, const double *start, struct milp_result *res)
{
	double v = 0;
	size_t c;

	if (start == NULL || (res->status != MILP_NOSOLUTION &&
	    res->status != MILP_FEASIBLE) || !feasible(m, start))
		return;
	for (c = 0; c < m->ncol; c++)
		v += m->obj[c] * start[c];
	if (res->status == MILP_FEASIBLE && res->objective <= v)
		return;
	memcpy(res->x, start, m->ncol * sizeof(*start));
	res->objective = v;
	res->status = MILP_FEASIBLE;
	if (res->bound > v)
		res->bound = v;
}

/*
 * CBC logs to stdout, through stdio and iostreams, and its C interface
 * printf()s some errors whatever the log level: point fd 1 at stderr
 * around its work.  Returns the saved fd 1, -2 when there is no fd 1
 * to protect, or -1 on error.
 */
static int
out_hide(char *err, size_t n)
{
	int fd;

	fflush(stdout);
	if ((fd = dup(STDOUT_FILENO)) == -1) {
		if (errno == EBADF)
			return -2;
		snprintf(err, n, "cannot save stdout: %s", strerror(errno));
		return -1;
	}
	if (dup2(STDERR_FILENO, STDOUT_FILENO) == -1) {
		snprintf(err, n, "cannot redirect stdout: %s",
		    strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void
out_restore(int fd)
{
	if (fd < 0)
		return;
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	close(fd);
}

/* The model as lp_solve holds it: 1-based columns, rows added in row
 * mode, logging to stderr only when asked, never to stdout. */
static lprec *
lps_build(const struct milp *m, int verbose, char *err, size_t n)
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
	set_verbose(lp, verbose ? NORMAL : NEUTRAL);
	/*
	 * lp_solve sorts the arrays it is given in place: hand it copies,
	 * never the model's own.
	 */
	if ((cols = malloc((m->nent + m->ncol + 1) * sizeof(*cols))) == NULL ||
	    (vals = malloc((m->nent + m->ncol + 1) * sizeof(*vals))) == NULL)
		goto fail;
	for (i = 0; i < m->ncol; i++)
		cols[i] = (int)i + 1;
	if (m->ncol > 0)
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
		double lo = m->lo[i] <= -MILP_INF ? -get_infinite(lp) :
		    m->lo[i];
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
	case SUBOPTIMAL:	/* a limit or a stop, with a solution in hand */
		return MILP_FEASIBLE;
	case INFEASIBLE:
		return MILP_INFEASIBLE;
	case UNBOUNDED:
		return MILP_UNBOUNDED;
	case TIMEOUT:
	case USERABORT:
		return have ? MILP_FEASIBLE : MILP_NOSOLUTION;
	default:
		return MILP_ERROR;
	}
}

/*
 * lp_solve's abort callback, polled during simplex iterations and at
 * each node: the stop flag, and the deadline, finer than the whole
 * seconds of set_timeout().
 */
static int
lps_abort(lprec *lp, void *arg)
{
	struct watch *w = arg;

	(void)lp;
	if (stopped(w->stop) ||
	    (w->deadline > 0 && wclock_now() >= w->deadline))
		w->fired = 1;
	return w->fired;
}

static int
lps_solve(const struct milp *m, const struct milp_opts *o,
    struct milp_result *res, char *err, size_t n)
{
	struct watch w = { o->stop, 0, 0 };
	lprec *lp;
	int rc;

	if ((lp = lps_build(m, o->verbose, err, n)) == NULL)
		return -1;
	if (o->limit > 0) {
		w.deadline = wclock_now() + o->limit;
		set_timeout(lp, (long)ceil(o->limit));
	}
	if (o->gap > 0) {
		set_mip_gap(lp, TRUE, o->gap);
		set_mip_gap(lp, FALSE, 0);
	}
	put_abortfunc(lp, lps_abort, &w);
	rc = solve(lp);
	res->status = lps_status(rc, get_solutioncount(lp) > 0);
	if (res->status == MILP_OPTIMAL || res->status == MILP_FEASIBLE) {
		get_variables(lp, res->x);
		res->objective = get_objective(lp);
	}
	if (res->status == MILP_OPTIMAL)
		res->bound = res->objective;
	if (res->status == MILP_ERROR)
		snprintf(err, n, "lp_solve: solve() returned %d", rc);
	delete_lp(lp);
	return 0;
}

/* The model by column, as Cbc_loadProblem() takes it. */
struct csc {
	CoinBigIndex	*start;
	int		*row;
	double		*val, *clo, *chi, *rlo, *rhi;
};

static void
csc_free(struct csc *a)
{
	free(a->start);
	free(a->row);
	free(a->val);
	free(a->clo);
	free(a->chi);
	free(a->rlo);
	free(a->rhi);
}

static void
csc_bounds(struct csc *a, const struct milp *m)
{
	size_t c, r;

	for (c = 0; c < m->ncol; c++) {
		a->clo[c] = m->lo[c] <= -MILP_INF ? -DBL_MAX : m->lo[c];
		a->chi[c] = m->hi[c] >= MILP_INF ? DBL_MAX : m->hi[c];
	}
	for (r = 0; r < m->nrow; r++) {
		a->rlo[r] = m->sense[r] == MILP_LE ? -DBL_MAX : m->rhs[r];
		a->rhi[r] = m->sense[r] == MILP_GE ? DBL_MAX : m->rhs[r];
	}
}

/*
 * Count the entries of each column into start[c + 1], add up, then
 * place each entry at start[c]++, which leaves start shifted by one
 * column.
 */
static int
csc_make(struct csc *a, const struct milp *m)
{
	size_t c, e, r;
	CoinBigIndex k;

	memset(a, 0, sizeof(*a));
	if ((a->start = calloc(m->ncol + 1, sizeof(*a->start))) == NULL ||
	    (a->row = malloc((m->nent + 1) * sizeof(*a->row))) == NULL ||
	    (a->val = malloc((m->nent + 1) * sizeof(*a->val))) == NULL ||
	    (a->clo = malloc((m->ncol + 1) * sizeof(*a->clo))) == NULL ||
	    (a->chi = malloc((m->ncol + 1) * sizeof(*a->chi))) == NULL ||
	    (a->rlo = malloc((m->nrow + 1) * sizeof(*a->rlo))) == NULL ||
	    (a->rhi = malloc((m->nrow + 1) * sizeof(*a->rhi))) == NULL)
		return -1;
	for (e = 0; e < m->nent; e++)
		a->start[m->ecol[e] + 1]++;
	for (c = 0; c < m->ncol; c++)
		a->start[c + 1] += a->start[c];
	for (r = 0; r < m->nrow; r++)
		for (e = m->roff[r]; e < m->roff[r + 1]; e++) {
			k = a->start[m->ecol[e]]++;
			a->row[k] = (int)r;
			a->val[k] = m->eval[e];
		}
	for (c = m->ncol; c > 0; c--)
		a->start[c] = a->start[c - 1];
	a->start[0] = 0;
	csc_bounds(a, m);
	return 0;
}

/*
 * CBC 2.10's C interface has no way to interrupt a solve, but it calls
 * cut callbacks in the root's cut loop and at every node.  Once *stop
 * is set, hand it a cut no point meets (a column past one of its
 * bounds): each node left is pruned as CBC comes to it.  CBC then
 * claims a proof of optimality or infeasibility it does not have;
 * fired tells.
 */
static void
cbc_cut(void *osi, void *cuts, void *arg)
{
	struct watch *w = arg;
	const double *lo, *hi;
	double one = 1;
	int c, nc;

	if (!stopped(w->stop))
		return;
	nc = Osi_getNumCols(osi);
	lo = Osi_getColLower(osi);
	hi = Osi_getColUpper(osi);
	for (c = 0; c < nc; c++) {
		if (fabs(hi[c]) < 1e15) {
			OsiCuts_addRowCut(cuts, 1, &c, &one, 'G',
			    hi[c] + 1 + fabs(hi[c]));
			break;
		}
		if (fabs(lo[c]) < 1e15) {
			OsiCuts_addRowCut(cuts, 1, &c, &one, 'L',
			    lo[c] - 1 - fabs(lo[c]));
			break;
		}
	}
	if (c < nc)
		w->fired = 1;
}

/*
 * A MIP start names its columns: name them all, and give integers
 * only.  Name the rows too: with column names alone, Clp's presolve
 * reads row names that are not there and crashes (coin-or/Cbc#515).
 */
static int
cbc_start(Cbc_Model *cm, const struct milp *m, const double *start)
{
	char name[32];
	double *val;
	int *idx;
	size_t c, r, k = 0;

	idx = malloc((m->nint + 1) * sizeof(*idx));
	val = malloc((m->nint + 1) * sizeof(*val));
	if (idx == NULL || val == NULL) {
		free(idx);
		free(val);
		return -1;
	}
	for (r = 0; r < m->nrow; r++) {
		snprintf(name, sizeof(name), "r%zu", r);
		Cbc_setRowName(cm, (int)r, name);
	}
	for (c = 0; c < m->ncol; c++) {
		snprintf(name, sizeof(name), "x%zu", c);
		Cbc_setColName(cm, (int)c, name);
		if (m->isint[c]) {
			idx[k] = (int)c;
			val[k++] = start[c];
		}
	}
	Cbc_setMIPStartI(cm, (int)k, idx, val);
	free(idx);
	free(val);
	return 0;
}

/*
 * Parameters as on cbc's command line: quiet (the log level too, for
 * Clp), no threads, time in wall clock, not CPU seconds.
 */
static void
cbc_params(Cbc_Model *cm, const struct milp_opts *o)
{
	char buf[32];

	Cbc_setLogLevel(cm, o->verbose ? 1 : 0);
	Cbc_setParameter(cm, "log", o->verbose ? "1" : "0");
	Cbc_setParameter(cm, "threads", "0");
	Cbc_setParameter(cm, "timeMode", "elapsed");
	Cbc_setParameter(cm, "preprocess", "off");
	if (o->limit > 0) {
		snprintf(buf, sizeof(buf), "%.6g", o->limit);
		Cbc_setParameter(cm, "sec", buf);
	}
	if (o->gap > 0) {
		snprintf(buf, sizeof(buf), "%.6g", o->gap);
		Cbc_setParameter(cm, "allowableGap", buf);
		Cbc_setParameter(cm, "ratioGap", "0");
	}
}

static Cbc_Model *
cbc_build(const struct milp *m, const struct milp_opts *o, struct watch *w,
    char *err, size_t n)
{
	Cbc_Model *cm;
	struct csc a;
	size_t c;

	if (m->ncol > INT_MAX || m->nrow > INT_MAX || m->nent > INT_MAX) {
		snprintf(err, n, "cbc: the model is too large");
		return NULL;
	}
	if (csc_make(&a, m) != 0 || (cm = Cbc_newModel()) == NULL) {
		csc_free(&a);
		snprintf(err, n, "out of memory");
		return NULL;
	}
	Cbc_loadProblem(cm, (int)m->ncol, (int)m->nrow, a.start, a.row,
	    a.val, a.clo, a.chi, m->obj, a.rlo, a.rhi);
	csc_free(&a);
	for (c = 0; c < m->ncol; c++)
		if (m->isint[c])
			Cbc_setInteger(cm, (int)c);
	Cbc_setObjSense(cm, 1);
	cbc_params(cm, o);
	if (o->start != NULL && m->nint > 0 &&
	    cbc_start(cm, m, o->start) != 0) {
		Cbc_deleteModel(cm);
		snprintf(err, n, "out of memory");
		return NULL;
	}
	if (o->stop != NULL)
		Cbc_addCutCallback(cm, cbc_cut, "stop", w);
	return cm;
}

/*
 * Without integer columns Cbc_solve() only runs Clp's simplex, and
 * answers from it: a dual infeasible LP that is not primal infeasible
 * is unbounded.
 */
static void
cbc_lp_result(Cbc_Model *cm, const struct milp *m, struct milp_result *res,
    char *err, size_t n)
{
	if (Cbc_isProvenOptimal(cm)) {
		res->status = MILP_OPTIMAL;
		if (m->ncol > 0)
			memcpy(res->x, Cbc_getColSolution(cm), m->ncol *
			    sizeof(*res->x));
		res->objective = res->bound = Cbc_getObjValue(cm);
	} else if (Cbc_isInitialSolveProvenPrimalInfeasible(cm))
		res->status = MILP_INFEASIBLE;
	else if (Cbc_isProvenInfeasible(cm))
		res->status = MILP_UNBOUNDED;
	else {
		res->status = MILP_ERROR;
		snprintf(err, n, "cbc: the simplex gave up");
	}
}

static int
cbc_mip_status(Cbc_Model *cm, const struct watch *w, int have)
{
	if (w->fired)
		return have ? MILP_FEASIBLE : MILP_NOSOLUTION;
	if (Cbc_isProvenOptimal(cm) && have)
		return MILP_OPTIMAL;
	if (Cbc_isContinuousUnbounded(cm))
		return MILP_UNBOUNDED;
	if (Cbc_isProvenInfeasible(cm))
		return MILP_INFEASIBLE;
	if (Cbc_isAbandoned(cm))
		return MILP_ERROR;
	if (Cbc_status(cm) == 1 || Cbc_status(cm) == 5)
		return have ? MILP_FEASIBLE : MILP_NOSOLUTION;
	return MILP_ERROR;
}

static void
cbc_mip_result(Cbc_Model *cm, const struct milp *m, const struct watch *w,
    struct milp_result *res, char *err, size_t n)
{
	const double *x = Cbc_bestSolution(cm);
	double b;

	res->status = cbc_mip_status(cm, w, x != NULL);
	if (res->status == MILP_ERROR)
		snprintf(err, n, "cbc: status %d, secondary status %d",
		    Cbc_status(cm), Cbc_secondaryStatus(cm));
	if (res->status == MILP_OPTIMAL || res->status == MILP_FEASIBLE) {
		memcpy(res->x, x, m->ncol * sizeof(*res->x));
		res->objective = Cbc_getObjValue(cm);
	}
	if (res->status == MILP_OPTIMAL)
		res->bound = res->objective;
	else if ((res->status == MILP_FEASIBLE ||
	    res->status == MILP_NOSOLUTION) && !w->fired) {
		b = Cbc_getBestPossibleObjValue(cm);
		if (b > -MILP_INF && b < MILP_INF)
			res->bound = b;
		if (res->status == MILP_FEASIBLE && res->bound > res->objective)
			res->bound = res->objective;
	}
}

static int
cbc_solve(const struct milp *m, const struct milp_opts *o,
    struct milp_result *res, char *err, size_t n)
{
	struct watch w = { o->stop, 0, 0 };
	Cbc_Model *cm;
	int fd;

	if ((fd = out_hide(err, n)) == -1)
		return -1;
	if ((cm = cbc_build(m, o, &w, err, n)) == NULL) {
		out_restore(fd);
		return -1;
	}
	Cbc_solve(cm);
	if (m->nint == 0)
		cbc_lp_result(cm, m, res, err, n);
	else
		cbc_mip_result(cm, m, &w, res, err, n);
	Cbc_deleteModel(cm);
	out_restore(fd);
	return 0;
}

int
milp_solve(const struct milp *m, const struct milp_opts *o,
    struct milp_result *res, char *err, size_t n)
{
	static const struct milp_opts none;
	int (*fn)(const struct milp *, const struct milp_opts *,
	    struct milp_result *, char *, size_t);
	double t0 = wclock_now();
	const char *b;

	memset(res, 0, sizeof(*res));
	res->status = MILP_ERROR;
	res->bound = -MILP_INF;
	if (o == NULL)
		o = &none;
	b = o->backend != NULL ? o->backend : "lpsolve";
	if (strcmp(b, "lpsolve") == 0)
		fn = lps_solve;
	else if (strcmp(b, "cbc") == 0)
		fn = cbc_solve;
	else {
		snprintf(err, n, "unknown solver \"%s\"", b);
		return -1;
	}
	if ((res->x = calloc(m->ncol + 1, sizeof(*res->x))) == NULL) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	if (m->ncol == 0)	/* lp_solve refuses it: answer here */
		res->status = feasible(m, res->x) ? MILP_OPTIMAL :
		    MILP_INFEASIBLE;
	else if (stopped(o->stop))
		res->status = MILP_NOSOLUTION;
	else if (fn(m, o, res, err, n) != 0) {
		milp_result_free(res);
		return -1;
	}
	if (m->ncol == 0 && res->status == MILP_OPTIMAL)
		res->bound = 0;
	keep_start(m, o->start, res);
	res->seconds = wclock_now() - t0;
	return 0;
}

/* Write the model as an LP or (fixed) MPS file, through lp_solve. */
int
milp_write(const struct milp *m, const char *path, int format, char *err,
    size_t n)
{
	lprec *lp;
	int ok;

	if ((lp = lps_build(m, 0, err, n)) == NULL)
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
