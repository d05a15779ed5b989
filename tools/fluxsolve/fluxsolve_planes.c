/* fluxsolve on a tiered fabric: the greedy on planes, its bound, and
 * the exact model of the whole DAG. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dagin.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/die.h"
#include "records/mem.h"
#include "records/stream.h"
#include "records/wclock.h"
#include "solve/fabbound.h"
#include "solve/fabgreedy.h"
#include "solve/fabmodel.h"
#include "solve/fmodel.h"
#include "solve/fsolve.h"
#include "solve/milp.h"
#include "solve/wsolve.h"
#include "fluxsolve.h"

/* Flux's default solves the whole DAG exactly up to so many binaries. */
#define FLUX_EXACT	400
/* Absolute optimality tolerance (ns) asked of the solver: 0.1 ps. */
#define GAP_NS		1e-4
/* A window frees so many transfers (and the computes among them), the
 * next one starts half of them earlier, and none is solved longer. */
#define WIN_XFERS	12
#define WIN_STEP	6
#define WIN_BINS	1000
#define WIN_LIMIT	1.0

struct pctx {
	struct dagin		*in;
	const struct fsolve_opts *o;
	struct planes		 pl;
	struct fsolve		*fs;	/* its best.makespan, bound, models */
	struct schedule		 sc;	/* the best plan */
	uint64_t		*start;	/* of the best plan, per task */
	uint32_t		*plane;	/* of its transfers, per task */
	double			 t0;
};

/* The plane of every transfer of plan sc, by task. */
static void
planes_of(const struct schedule *sc, uint32_t *plane)
{
	size_t i;

	for (i = 0; i < sc->np; i++)
		plane[sc->p[i].task] = sc->p[i].sw;
}

static struct fsolve_model *
entry(struct fsolve *fs, const char *name, const char *solver, size_t tasks)
{
	struct fsolve_model *e;

	if ((e = fsolve_add_model(fs, name, solver, tasks)) == NULL)
		die("out of memory (the models)");
	return e;
}

/* A solution placed by the guided list scheduler: adopted if shorter. */
static void
adopt(struct pctx *c, const struct fabmodel *f, const double *x)
{
	const struct dag *d = &c->in->dag;
	struct fabguide g;
	struct schedule sc;
	uint64_t *key, *start, ms;
	uint32_t *plane;
	char err[400];

	key = mem_array(d->n + 1, sizeof(*key));
	start = mem_array(d->n + 1, sizeof(*start));
	plane = mem_array(d->n + 1, sizeof(*plane));
	if (key == NULL || start == NULL || plane == NULL)
		die("out of memory (%zu tasks)", d->n);
	memcpy(key, c->start, d->n * sizeof(*key));
	memcpy(plane, c->plane, d->n * sizeof(*plane));
	fabmodel_decode(f, x, plane, key);
	g = (struct fabguide){ key, plane, start };
	sched_init(&sc);
	if (fabgreedy_place(d, &c->pl, &g, &sc, &ms, err, sizeof(err)) != 0)
		die("%s", err);
	free(key);
	if (ms >= c->fs->best.makespan) {
		sched_free(&sc);
		free(start);
		free(plane);
		return;
	}
	sched_free(&c->sc);
	free(c->start);
	free(c->plane);
	c->sc = sc;
	c->start = start;
	c->plane = plane;
	planes_of(&c->sc, c->plane);
	c->fs->best.makespan = ms;
	c->fs->improved++;
}

static void
bound_by(struct fsolve *fs, uint64_t b)
{
	if (b > fs->bound)
		fs->bound = b > fs->best.makespan ? fs->best.makespan : b;
}

static void
export(struct pctx *c, const struct fabmodel *f)
{
	char err[400];

	if (c->o->write == NULL)
		return;
	if (milp_write(&f->m, c->o->write, c->o->format, err,
	    sizeof(err)) != 0)
		die("%s", err);
}

/* A time of the model in ns (a bound of -MILP_INF stays one). */
static double
ns(const struct fabmodel *f, double v)
{
	return v <= -MILP_INF || v >= MILP_INF ? v : v * (double)f->unit /
	    1000.0;
}

/* What a solve gave: its entry, its plan if shorter, its bound when it
 * is the whole DAG's. */
static void
record(struct pctx *c, struct fsolve_model *e, const struct fabmodel *f,
    const struct milp_result *r, int whole)
{
	e->status = r->status == MILP_OPTIMAL ? WSOLVE_OPTIMAL : WSOLVE_CUT;
	e->seconds = r->seconds;
	e->bound = r->status == MILP_OPTIMAL ? fmodel_optimum_ps(ns(f,
	    r->objective)) : fmodel_bound_ps(ns(f, r->bound));
	if (r->status == MILP_OPTIMAL || r->status == MILP_FEASIBLE) {
		e->value = fmodel_optimum_ps(ns(f, r->objective));
		adopt(c, f, r->x);
	}
	if (whole)
		bound_by(c->fs, e->bound);
}

/*
 * A model of the best plan's DAG (a window w of it, or the whole when
 * NULL) solved from that plan within limit seconds; its solution placed
 * and kept when shorter.  A model too big, or one the solver fails, is
 * an error for -m exact, and skipped (a failure counted) otherwise; the
 * first FLUXSOLVE_FAIL_WINDOWS fail so for tests.  The whole DAG's proof
 * bounds the makespan.
 */
static void
solve_model(struct pctx *c, const struct fabwin *w, const char *name,
    size_t max_bin, double limit)
{
	const struct fsolve_opts *o = c->o;
	struct milp_opts mo = { .backend = o->solver, .limit = limit,
	    .stop = o->stop, .verbose = o->verbose };
	struct milp_result r;
	struct fsolve_model *e;
	struct fabmodel f;
	char err[400];
	double *x0;

	if (fabmodel_build(&c->in->dag, &c->pl, w, c->fs->best.makespan,
	    w == NULL ? c->fs->bound : 0, max_bin, &f, err, sizeof(err)) != 0) {
		if (o->method == FSOLVE_EXACT)
			die("%s", err);
		return;
	}
	if (w == NULL)
		export(c, &f);
	mo.gap = GAP_NS * 1000.0 / (double)f.unit;
	if ((x0 = mem_array(f.m.ncol + 1, sizeof(*x0))) == NULL ||
	    fabmodel_encode(&f, c->start, c->plane, c->fs->best.makespan,
	    x0) != 0)
		die("out of memory (the exact model's start)");
	mo.start = x0;
	e = entry(c->fs, name, o->solver, c->in->dag.n);
	e->rows = f.m.nrow;
	e->cols = f.m.ncol;
	e->bins = f.nbin;
	if (o->progress != NULL)
		o->progress(o->arg, c->fs, 0);
	memset(&r, 0, sizeof(r));
	if (o->method != FSOLVE_EXACT && c->fs->windows < o->fail_windows)
		r.status = MILP_ERROR;	/* tests: this one fails */
	else if (milp_solve(&f.m, &mo, &r, err, sizeof(err)) != 0)
		die("%s", err);
	if (r.status == MILP_ERROR || r.status == MILP_INFEASIBLE ||
	    r.status == MILP_UNBOUNDED) {
		if (o->method == FSOLVE_EXACT)
			die("%s: the exact model on planes of %zu binaries "
			    "ended %s", o->solver, f.nbin,
			    milp_statuses[r.status]);
		c->fs->windows_failed++;	/* skipped: the run goes on */
		e->status = WSOLVE_FAILED;
	} else
		record(c, e, &f, &r, w == NULL);
	c->fs->windows++;
	if (o->progress != NULL) {
		o->progress(o->arg, c->fs, 1);
		fputc('\n', stderr);
	}
	milp_result_free(&r);
	free(x0);
	fabmodel_free(&f);
}

static void
greedy(struct pctx *c)
{
	const struct dag *d = &c->in->dag;
	struct fabguide g = { NULL, NULL, NULL };
	uint64_t bound;
	char err[400];

	if (planes_expand(&c->pl, &c->in->fab, c->in->net.gpus) != 0 ||
	    fabbound_planes(d, &c->pl, &bound) != 0 ||
	    (c->start = mem_calloc(d->n + 1, sizeof(*c->start))) == NULL ||
	    (c->plane = mem_calloc(d->n + 1, sizeof(*c->plane))) == NULL)
		die("out of memory (the planes of %s on %u GPUs)",
		    c->in->fab.name, c->in->net.gpus);
	g.start = c->start;
	if (fabgreedy_place(d, &c->pl, &g, &c->sc, &c->fs->best.makespan, err,
	    sizeof(err)) != 0)
		die("%s", err);
	planes_of(&c->sc, c->plane);
	c->fs->greedy_ps = c->fs->best.makespan;
	if (bound > c->fs->best.makespan)
		die("internal error: bound %llu above the plan's %llu",
		    (unsigned long long)bound,
		    (unsigned long long)c->fs->best.makespan);
	c->fs->bound = bound;
}

static void
write_out(struct pctx *c, struct stream_writer *w)
{
	const struct schedule *sc = &c->sc;
	size_t i;
	int rc;

	if (c->in->omit.on)
		dagin_write_omitted(c->in, stream_packer(w));
	sched_write_schedule(stream_packer(w), sc);
	for (i = 0; i < sc->nc; i++)
		sched_write_circuit(stream_packer(w), &sc->c[i]);
	for (i = 0; i < sc->np; i++)
		sched_write_plan(stream_packer(w), &sc->p[i]);
	c->fs->seconds = wclock_now() - c->t0;
	fluxsolve_write_solve(stream_packer(w), c->o, c->fs);
	if ((rc = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(rc));
}

static const uint64_t *order_start;

static int
by_start(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (order_start[a] != order_start[b])
		return order_start[a] < order_start[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The best plan's transfers in start order; their count. */
static size_t
transfers_by_start(const struct pctx *c, uint32_t *ord)
{
	const struct dag *d = &c->in->dag;
	size_t t, n = 0;

	for (t = 0; t < d->n; t++)
		if (d->t[t].kind != DAG_COMPUTE)
			ord[n++] = (uint32_t)t;
	order_start = c->start;
	qsort(ord, n, sizeof(*ord), by_start);
	return n;
}

static int
time_left(const struct pctx *c, double deadline, double *lim)
{
	double now = wclock_now();

	if ((c->o->stop != NULL && *c->o->stop) || now >= deadline)
		return 0;
	*lim = deadline - now < WIN_LIMIT ? deadline - now : WIN_LIMIT;
	return 1;
}

/*
 * Windows of the best plan, from its end back to its start: the tasks
 * that start from the first of WIN_XFERS transfers (in start order) to
 * the next one's start, solved again with the rest fixed; passes while
 * one adopts a shorter plan and time is left.
 */
static void
windows(struct pctx *c, double deadline)
{
	const struct dag *d = &c->in->dag;
	struct fabwin w;
	uint32_t *ord;
	uint8_t *fr;
	size_t n, hi, lo, t, before;
	uint64_t from, to;
	double lim;

	ord = mem_array(d->n + 1, sizeof(*ord));
	fr = mem_array(d->n + 1, sizeof(*fr));
	if (ord == NULL || fr == NULL)
		die("out of memory (%zu tasks)", d->n);
	do {
		before = c->fs->improved;
		n = transfers_by_start(c, ord);
		for (hi = n; hi > 0 && time_left(c, deadline, &lim);
		    hi = hi > WIN_STEP ? hi - WIN_STEP : 0) {
			lo = hi > WIN_XFERS ? hi - WIN_XFERS : 0;
			from = c->start[ord[lo]];
			to = hi < n ? c->start[ord[hi]] : UINT64_MAX;
			for (t = 0; t < d->n; t++)
				fr[t] = c->start[t] >= from && c->start[t] < to;
			w = (struct fabwin){ fr, c->start, c->plane, from };
			solve_model(c, &w, "window on planes", WIN_BINS, lim);
			if (c->fs->improved != before)
				n = transfers_by_start(c, ord);
		}
	} while (c->fs->improved != before && c->fs->bound <
	    c->fs->best.makespan && time_left(c, deadline, &lim));
	free(ord);
	free(fr);
}

void
planes_solve(struct dagin *in, const struct fsolve_opts *o,
    struct stream_writer *w, double t0)
{
	struct fsolve fs;
	struct pctx c = { .in = in, .o = o, .fs = &fs, .t0 = t0 };
	double limit = o->limit, deadline = limit > 0 ? t0 + limit : 1e300;

	if (o->method == FSOLVE_EXACT && in->dag.n > FABMODEL_MAX_TASKS)
		die("the exact model on planes takes %u tasks at most; the DAG "
		    "has %zu", FABMODEL_MAX_TASKS, in->dag.n);
	memset(&fs, 0, sizeof(fs));
	sched_init(&c.sc);
	greedy(&c);
	if (o->method == FSOLVE_EXACT)
		solve_model(&c, NULL, "exact on planes", o->max_bin, limit);
	if (o->method == FSOLVE_FLUX && fs.bound < fs.best.makespan)
		solve_model(&c, NULL, "exact on planes", FLUX_EXACT,
		    limit > 0 ? limit / 2 : limit);
	if (o->method == FSOLVE_FLUX && fs.bound < fs.best.makespan)
		windows(&c, deadline);
	snprintf(c.sc.scheduler, sizeof(c.sc.scheduler), "%s",
	    fsolve_methods[o->method]);
	write_out(&c, w);
	sched_free(&c.sc);
	free(c.start);
	free(c.plane);
	planes_free(&c.pl);
	fsolve_free(&fs);
}
