/* fsolve: the methods of fluxsolve(1). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/mem.h"
#include "records/wclock.h"
#include "solve/fmodel.h"
#include "solve/fsolve.h"
#include "solve/greedy.h"
#include "solve/lbound.h"
#include "solve/milp.h"
#include "solve/place.h"
#include "solve/wpolicy.h"
#include "solve/wsearch.h"
#include "solve/wsolve.h"

const char *const fsolve_methods[] = { "flux", "greedy", "exact", NULL };

/* A window model of more binaries is not tried. */
#define WIN_MAXBIN	2000
/* No MILP window may take more than this share of the time limit. */
#define WIN_SHARE	0.25
/* Flux solves the whole DAG's model when it has this many binaries at
 * most, at first. */
#define FLUX_EXACT	400
/* The exact model of more tasks is not built: its reachability alone
 * takes tasks^2 / 8 bytes. */
#define EXACT_MAXTASKS	20000
/* ... nor that of more pairs of transfers sharing a GPU: each may take
 * a binary and two rows per switch. */
#define EXACT_MAXPAIRS	2000000
/* Absolute optimality tolerance (ns) asked of the solver: 0.1 ps. */
#define GAP_NS		1e-4

struct ctx {
	const struct dag	*d;
	const struct net	*n;
	const struct fsolve_opts *o;
	struct fsolve		*fs;
	double			 t0;
	int			 nwritten;
};

/* Seconds left, or -1 for no limit; 0 when stopped or out of time. */
static double
left(const struct ctx *c)
{
	double r;

	if (c->o->stop != NULL && *c->o->stop)
		return 0;
	if (c->o->limit <= 0)
		return -1;
	r = c->o->limit - (wclock_now() - c->t0);
	return r > 0 ? r : 0;
}

/* The export file of the k-th model: the path itself, or k before the
 * extension when the method solves many models. */
static void
model_path(char *buf, size_t len, const char *path, int k, int many)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');

	if (!many)
		snprintf(buf, len, "%s", path);
	else if (dot == NULL || (slash != NULL && dot < slash))
		snprintf(buf, len, "%s.%d", path, k);
	else
		snprintf(buf, len, "%.*s.%d%s", (int)(dot - path), path, k,
		    dot);
}

static int
nomem(struct ctx *c)
{
	snprintf(c->fs->err, sizeof(c->fs->err), "out of memory");
	return -1;
}

struct fsolve_model *
fsolve_add_model(struct fsolve *fs, const char *name, const char *solver,
    size_t tasks)
{
	struct fsolve_model *e;

	if (mem_grow(&fs->m, &fs->mcap, fs->nm + 1, sizeof(*fs->m)) != 0)
		return NULL;
	e = &fs->m[fs->nm++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->solver = solver;
	e->tasks = tasks;
	e->status = WSOLVE_CUT;
	e->value = UINT64_MAX;
	return e;
}

static struct fsolve_model *
model_entry(struct ctx *c, const char *name, const char *solver,
    size_t tasks)
{
	struct fsolve_model *e;

	if ((e = fsolve_add_model(c->fs, name, solver, tasks)) == NULL)
		nomem(c);
	return e;
}

/*
 * One problem by the window solver (wsolve.h), recorded; a failure is
 * counted, a result all the same.
 */
static int
record_solve(struct ctx *c, const struct fprob *p, const char *name,
    const struct wsolve_opts *wo, struct wsolve_result *r)
{
	struct fsolve_model *e;
	size_t k;

	e = model_entry(c, name, wo->solver == WSOLVE_SEARCH ? "search" :
	    c->o->solver, p->n);
	if (e == NULL)
		return -1;
	k = c->fs->nm - 1;
	if (c->o->progress != NULL)
		c->o->progress(c->o->arg, c->fs, 0);
	if (wsolve_run(p, wo, r, c->fs->err, sizeof(c->fs->err)) != 0)
		return -1;
	e = &c->fs->m[k];
	e->status = r->status;
	e->seconds = r->seconds;
	e->nodes = r->nodes;
	e->rows = r->rows;
	e->cols = r->cols;
	e->bins = r->bins;
	e->value = r->value;
	e->bound = r->bound;
	c->fs->windows++;
	if (r->status == WSOLVE_FAILED)
		c->fs->windows_failed++;
	if (c->o->progress != NULL)
		c->o->progress(c->o->arg, c->fs, 1);
	return 0;
}

static int
export(struct ctx *c, const struct fmodel *f)
{
	char path[1024];

	if (c->o->write == NULL)
		return 0;
	model_path(path, sizeof(path), c->o->write, ++c->nwritten,
	    c->o->method != FSOLVE_EXACT);
	return milp_write(&f->m, path, c->o->format, c->fs->err,
	    sizeof(c->fs->err));
}

/*
 * Solve one model within limit seconds (< 0: none), from start when
 * given; a solver failure is an error, as is a model the solver calls
 * infeasible or unbounded: every model here has a solution.
 */
static int
solve(struct ctx *c, const struct fmodel *f, const char *name,
    const double *start, double limit, struct milp_result *r)
{
	struct milp_opts mo = { .backend = c->o->solver, .limit = limit,
	    .start = start, .stop = c->o->stop, .verbose = c->o->verbose,
	    .gap = GAP_NS };
	struct fsolve_model *e;

	if (export(c, f) != 0 ||
	    (e = model_entry(c, name, c->o->solver, c->d->n)) == NULL)
		return -1;
	e->rows = f->m.nrow;
	e->cols = f->m.ncol;
	e->bins = f->nbin;
	if (c->o->progress != NULL)
		c->o->progress(c->o->arg, c->fs, 0);
	if (milp_solve(&f->m, &mo, r, c->fs->err, sizeof(c->fs->err)) != 0)
		return -1;
	e->status = r->status == MILP_OPTIMAL ? WSOLVE_OPTIMAL :
	    r->status == MILP_FEASIBLE || r->status == MILP_NOSOLUTION ?
	    WSOLVE_CUT : WSOLVE_FAILED;
	e->seconds = r->seconds;
	e->bound = r->status == MILP_OPTIMAL ? fmodel_optimum_ps(r->objective) :
	    fmodel_bound_ps(r->bound);
	if (r->status == MILP_OPTIMAL || r->status == MILP_FEASIBLE)
		e->value = fmodel_optimum_ps(r->objective);
	if (r->status == MILP_ERROR || r->status == MILP_INFEASIBLE ||
	    r->status == MILP_UNBOUNDED) {
		c->fs->windows_failed++;
		if (c->o->method != FSOLVE_EXACT) {
			/* optional: skipped, and the run goes on */
			r->status = MILP_NOSOLUTION;
			c->fs->err[0] = '\0';
		} else {
			snprintf(c->fs->err, sizeof(c->fs->err), "%s: the %s "
			    "model of %zu binaries ended %s", c->o->solver,
			    name, f->nbin, milp_statuses[r->status]);
			milp_result_free(r);
			return -1;
		}
	}
	if (c->o->progress != NULL)
		c->o->progress(c->o->arg, c->fs, 1);
	return 0;
}

static void
raise_bound(struct fsolve *fs, uint64_t b)
{
	if (b > fs->bound)
		fs->bound = b;
}

static int policy_adopt(void *, struct greedy *);

/*
 * Switch model: the MILP's own times (ns, rounded to the picosecond),
 * not a replay, which knows the port model only; a solution that the
 * rounding breaks is not taken.  Frees sw and key.
 */
static int
adopt_times(struct ctx *c, uint32_t *sw, double *key)
{
	struct greedy g;
	uint64_t *st;
	size_t i;
	int rc;

	if ((st = malloc((c->d->n + 1) * sizeof(*st))) == NULL) {
		free(sw);
		free(key);
		return nomem(c);
	}
	for (i = 0; i < c->d->n; i++)
		st[i] = key[i] > 0 ? (uint64_t)(key[i] * 1000.0 + 0.5) : 0;
	rc = place_fixed(c->d, c->n, sw, st, &g);
	free(st);
	free(sw);
	free(key);
	if (rc == -1)
		return nomem(c);
	if (rc == 0)
		policy_adopt(c, &g);
	return 0;
}

/* Take the solution of the whole DAG's model if it is shorter. */
static int
adopt(struct ctx *c, const struct fprob *p, const struct fmodel *f,
    const double *x)
{
	struct greedy g;
	uint32_t *sw;
	double *key;
	int rc = -1;

	sw = calloc(c->d->n + 1, sizeof(*sw));
	key = calloc(c->d->n + 1, sizeof(*key));
	if (sw == NULL || key == NULL)
		goto out;
	fmodel_decode(p, f, x, sw, key);
	if (c->n->model == NET_SWITCH)
		return adopt_times(c, sw, key);
	if (place_run(c->d, c->n, sw, key, &g) != 0)
		goto out;
	if (g.makespan < c->fs->best.makespan) {
		greedy_free(&c->fs->best);
		c->fs->best = g;
	} else
		greedy_free(&g);
	rc = 0;
out:
	if (rc != 0)
		snprintf(c->fs->err, sizeof(c->fs->err), "out of memory");
	free(sw);
	free(key);
	return rc;
}

static int
too_big(struct ctx *c, size_t bins, size_t rows, size_t cols)
{
	snprintf(c->fs->err, sizeof(c->fs->err), "the exact model has %zu "
	    "binaries, %zu rows and %zu columns, above the %zu binaries "
	    "allowed (--max-binaries): beyond what a MILP solver proves; "
	    "--method flux schedules it", bins, rows, cols, c->o->max_bin);
	return -1;
}

/* The exact model's cap was passed while it was being built. */
static void
too_big_partial(struct ctx *c, size_t max_bin)
{
	snprintf(c->fs->err, sizeof(c->fs->err), "the exact model has more "
	    "than the %zu binaries allowed (--max-binaries; it was built "
	    "that far): beyond what a MILP solver proves; --method flux "
	    "schedules it", max_bin);
}

/* The exact model's building stops with the time limit or a signal. */
static int
build_late(void *arg)
{
	return left(arg) == 0;
}

static size_t
transfers(const struct dag *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->n; i++)
		n += d->t[i].kind == DAG_TRANSFER;
	return n;
}

/* Pairs of transfers that share a GPU, at most: rows to come. */
static uint64_t
pairs(const struct dag *d, const struct net *n)
{
	uint64_t *deg, sum = 0;
	size_t i;

	if ((deg = calloc(n->gpus + 1, sizeof(*deg))) == NULL)
		return UINT64_MAX;
	for (i = 0; i < d->n; i++)
		if (d->t[i].kind == DAG_TRANSFER) {
			deg[d->t[i].gpu]++;
			deg[d->t[i].dst]++;
		}
	for (i = 0; i < n->gpus; i++)
		sum += deg[i] * (deg[i] - (deg[i] > 0)) / 2;
	free(deg);
	if (n->model == NET_SWITCH)	/* every pair on a switch: darkness */
		sum = (uint64_t)transfers(d) * (transfers(d) - 1) / 2;
	return sum;
}

static int
too_big_to_build(struct ctx *c, size_t bins)
{
	if (c->d->n > EXACT_MAXTASKS || pairs(c->d, c->n) > EXACT_MAXPAIRS)
		snprintf(c->fs->err, sizeof(c->fs->err), "the exact model of "
		    "%zu tasks and %llu pairs of transfers that share a GPU "
		    "is too big to build (at most %d tasks and %d pairs); "
		    "--method flux schedules it", c->d->n,
		    (unsigned long long)pairs(c->d, c->n), EXACT_MAXTASKS,
		    EXACT_MAXPAIRS);
	else
		snprintf(c->fs->err, sizeof(c->fs->err), "the exact model has "
		    "at least %zu binaries (one per transfer and switch), "
		    "above "
		    "the %zu allowed (--max-binaries): too big to build or "
		    "solve; --method flux schedules it", bins, c->o->max_bin);
	return -1;
}

static int
exact(struct ctx *c, size_t max_bin)
{
	struct fsolve *fs = c->fs;
	struct milp_result r = { 0 };
	struct fprob p;
	struct fmodel f;
	uint32_t *sw = NULL;
	double *x0 = NULL;
	size_t ntr = transfers(c->d), cap;
	double lim;
	int rc = -1, built;

	/* Too big to build: a binary per transfer and switch already. */
	if ((c->n->switches > 1 && ntr * c->n->switches > max_bin) ||
	    c->d->n > EXACT_MAXTASKS || pairs(c->d, c->n) > EXACT_MAXPAIRS)
		return too_big_to_build(c, ntr * c->n->switches);
	memset(&f, 0, sizeof(f));
	/* the whole model only when it is to be written (-M) */
	cap = c->o->write != NULL && c->o->method == FSOLVE_EXACT ?
	    SIZE_MAX : max_bin;
	if (fprob_whole(c->d, c->n, fs->best.makespan, fs->bound, &p) != 0 ||
	    (built = fmodel_build_capped(&p, &f, cap, build_late, c)) < 0) {
		snprintf(fs->err, sizeof(fs->err), "out of memory");
		goto out;
	}
	if (built == 2) {	/* the time limit: the greedy's plan stands */
		rc = 0;
		goto out;
	}
	if (f.nbin > max_bin) {
		if (c->o->method != FSOLVE_EXACT)
			rc = 0;		/* flux: on to the windows */
		else if (built == 1)
			too_big_partial(c, max_bin);
		else if (export(c, &f) == 0)
			too_big(c, f.nbin, f.m.nrow, f.m.ncol);
		goto out;
	}
	if ((sw = greedy_switches(c->d, &fs->best)) == NULL ||
	    (x0 = malloc((f.m.ncol + 1) * sizeof(*x0))) == NULL) {
		snprintf(fs->err, sizeof(fs->err), "out of memory");
		goto out;
	}
	fmodel_encode(&p, &f, fs->best.start, sw, fs->best.makespan, x0);
	lim = left(c);
	if (c->o->method != FSOLVE_EXACT && lim > c->o->limit / 2)
		lim = c->o->limit / 2;	/* flux: leave time for windows */
	if (solve(c, &f, "exact", x0, lim, &r) != 0)
		goto out;
	if ((r.status == MILP_OPTIMAL || r.status == MILP_FEASIBLE) &&
	    adopt(c, &p, &f, r.x) != 0)
		goto out;
	if (r.status == MILP_OPTIMAL)
		raise_bound(fs, fmodel_optimum_ps(r.objective));
	else
		raise_bound(fs, fmodel_bound_ps(r.bound));
	rc = 0;
out:
	milp_result_free(&r);
	fmodel_free(&f);
	fprob_free(&p);
	free(sw);
	free(x0);
	return rc;
}

/*
 * The solve() of the window policy: one problem by the window solver,
 * within the time left and the budget, recorded in models[].  A
 * failure is counted and skipped.
 */
static int
policy_solve(void *arg, const struct fprob *p, const char *name,
    uint64_t target, uint64_t nodes, struct wsolve_result *r)
{
	struct ctx *c = arg;
	const struct fsolve_opts *o = c->o;
	struct wsolve_opts wo = { .solver = o->wsolver, .backend = o->solver,
	    .target = target, .max_nodes = nodes, .max_bins = WIN_MAXBIN,
	    .stop = o->stop, .verbose = o->verbose, .format = o->format };
	char path[1024];
	double lim = left(c), share;

	if (o->wsolver == WSOLVE_MILP) {	/* no node budget */
		share = o->limit > 0 ? o->limit * WIN_SHARE : -1;
		lim = lim < 0 || (share >= 0 && share < lim) ? share : lim;
		wo.max_nodes = 0;
	}
	wo.limit = lim;
	wo.fail = c->fs->windows < o->fail_windows;
	if (o->write != NULL && o->wsolver == WSOLVE_MILP) {
		model_path(path, sizeof(path), o->write, ++c->nwritten, 1);
		wo.write = path;
	}
	return record_solve(c, p, name, &wo, r);
}

/*
 * Take a shorter schedule, once the schedule check (sched.h) passes: a
 * window's solution that fails it is a bug of ours, skipped, counted
 * as a failed window rather than written.
 */
static int
policy_adopt(void *arg, struct greedy *g)
{
	struct ctx *c = arg;
	char err[200];

	if (g->makespan >= c->fs->best.makespan ||
	    sched_check(&g->sc, c->n, err, sizeof(err)) != 0) {
		if (g->makespan < c->fs->best.makespan)
			c->fs->windows_failed++;
		greedy_free(g);
		return 0;
	}
	greedy_free(&c->fs->best);
	c->fs->best = *g;
	c->fs->improved++;
	return 0;
}

static double
policy_left(void *arg)
{
	return left(arg);
}

/* The whole DAG by the search, when it is small enough. */
static int
whole(struct ctx *c)
{
	struct fsolve *fs = c->fs;
	struct wsolve_result r;
	struct wsolve_opts wo = { .solver = WSOLVE_SEARCH,
	    .target = fs->best.makespan, .stop = c->o->stop };
	struct greedy g;
	struct fprob p;
	double *key = NULL;
	uint32_t *sw = NULL;
	size_t i;
	int rc = -1;

	if (fprob_whole(c->d, c->n, fs->best.makespan, 0, &p) != 0)
		return nomem(c);
	wo.limit = left(c);
	if (c->o->limit > 0 && wo.limit > c->o->limit / 2)
		wo.limit = c->o->limit / 2;	/* leave time for windows */
	wo.fail = c->fs->windows < c->o->fail_windows;
	if (record_solve(c, &p, "whole dag", &wo, &r) != 0)
		goto out;
	raise_bound(fs, r.status == WSOLVE_OPTIMAL ? r.value : r.bound);
	if (r.value < fs->best.makespan) {
		sw = calloc(c->d->n + 1, sizeof(*sw));
		key = calloc(c->d->n + 1, sizeof(*key));
		if (sw == NULL || key == NULL) {
			nomem(c);
			goto done;
		}
		for (i = 0; i < p.n; i++) {
			sw[p.t[i].id] = r.sw[i];
			key[p.t[i].id] = (double)r.start[i];
		}
		/* the port model replays; the switch model takes the
		 * search's times */
		if (c->n->model == NET_SWITCH)
			rc = place_fixed(c->d, c->n, sw, r.start, &g);
		else
			rc = place_run(c->d, c->n, sw, key, &g);
		if (rc == -1) {
			nomem(c);
			goto done;
		}
		if (rc == 0)
			policy_adopt(c, &g);
	}
	rc = 0;
done:
	wsolve_result_free(&r);
out:
	fprob_free(&p);
	free(sw);
	free(key);
	return rc;
}

static int
flux(struct ctx *c)
{
	struct wpolicy w = { c->d, c->n, &c->fs->best, &c->fs->bound,
	    WSEARCH_MAX, policy_solve, policy_adopt, policy_left, c };
	size_t ntr = transfers(c->d);
	int rc;

	if (c->o->wsolver == WSOLVE_SEARCH && c->d->n <= WSEARCH_MAX)
		rc = whole(c);
	else if (c->o->wsolver == WSOLVE_MILP &&
	    ntr * c->n->switches <= FLUX_EXACT &&
	    c->d->n <= EXACT_MAXTASKS && pairs(c->d, c->n) <= FLUX_EXACT * 50)
		rc = exact(c, FLUX_EXACT);
	else
		rc = 0;
	if (rc != 0)
		return -1;
	if (c->fs->bound >= c->fs->best.makespan || left(c) == 0)
		return 0;
	if (wpolicy_run(&w, c->fs->err, sizeof(c->fs->err)) != 0)
		return -1;
	return 0;
}

/* The ports' bound over every tail (lbound.h), beside the greedy's. */
static int
port_bound(struct ctx *c)
{
	uint64_t *head, *bl, b;
	int rc;

	if (greedy_levels(c->d, c->n, &head, &bl) != 0)
		return nomem(c);
	rc = lbound_ports(c->d, c->n, head, bl, &b);
	free(head);
	free(bl);
	if (rc != 0)
		return nomem(c);
	raise_bound(c->fs, b);
	return 0;
}

int
fsolve_run(const struct dag *d, const struct net *n,
    const struct fsolve_opts *o, struct fsolve *fs)
{
	struct ctx c = { d, n, o, fs, wclock_now(), 0 };
	int rc;

	memset(fs, 0, sizeof(*fs));
	if ((rc = greedy_run(d, n, &fs->best)) != 0) {
		snprintf(fs->err, sizeof(fs->err), rc == -1 ? "out of memory" :
		    "internal error: a transfer found no place");
		return -1;
	}
	fs->greedy_ps = fs->best.makespan;
	if ((fs->bound = greedy_bound(d, n)) == 0 && fs->best.makespan > 0) {
		snprintf(fs->err, sizeof(fs->err), "out of memory");
		return -1;
	}
	if (port_bound(&c) != 0)
		return -1;
	rc = 0;
	if (o->method != FSOLVE_GREEDY && n->switches > FMODEL_MAX_SWITCHES) {
		if (o->method == FSOLVE_EXACT) {
			snprintf(fs->err, sizeof(fs->err), "the exact model "
			    "takes at most %u switches, and the net has %u",
			    FMODEL_MAX_SWITCHES, n->switches);
			return -1;
		}
	} else if (o->method == FSOLVE_EXACT)
		rc = exact(&c, o->max_bin);
	else if (o->method == FSOLVE_FLUX && fs->bound < fs->best.makespan)
		rc = flux(&c);
	fs->seconds = wclock_now() - c.t0;
	return rc;
}

void
fsolve_free(struct fsolve *fs)
{
	greedy_free(&fs->best);
	free(fs->m);
	memset(fs, 0, sizeof(*fs));
}
