/* wsolve: one Flux problem, by the search or by a MILP. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records/wclock.h"
#include "solve/fmodel.h"
#include "solve/milp.h"
#include "solve/wsearch.h"
#include "solve/wsolve.h"

const char *const wsolve_solvers[] = { "search", "milp", NULL };
const char *const wsolve_statuses[] = { "optimal", "above", "cut",
	"too big", "failed", NULL };

/* Absolute optimality tolerance (ns) asked of a MILP solver: 0.1 ps. */
#define GAP_NS		1e-4

static int
arrays(const struct fprob *p, struct wsolve_result *r, char *err,
    size_t len)
{
	r->sw = calloc(p->n + 1, sizeof(*r->sw));
	r->start = calloc(p->n + 1, sizeof(*r->start));
	if (r->sw != NULL && r->start != NULL)
		return 0;
	snprintf(err, len, "out of memory");
	return -1;
}

static int
by_search(const struct fprob *p, const struct wsolve_opts *o,
    struct wsolve_result *r, char *err, size_t len)
{
	struct wsearch_opts so = { o->target, o->max_nodes, o->limit,
	    o->stop, o->flags };
	struct wsearch_result sr;

	if (wsearch_run(p, &so, &sr, err, len) != 0)
		return -1;
	r->status = sr.status == WSEARCH_OPTIMAL ? WSOLVE_OPTIMAL :
	    sr.status == WSEARCH_ABOVE ? WSOLVE_ABOVE : WSOLVE_CUT;
	r->value = sr.value;
	r->bound = sr.bound;
	r->nodes = sr.nodes;
	r->sw = sr.sw;
	r->start = sr.start;
	return 0;
}

/* A MILP solution as switches and starts (ps) per task. */
static void
decode(const struct fprob *p, const struct fmodel *f, const double *x,
    struct wsolve_result *r)
{
	size_t i, s;

	for (i = 0; i < p->n; i++) {
		double v = x[f->s[i]] * 1000.0;

		r->start[i] = v > 0 ? (uint64_t)(v + 0.5) : 0;
		r->sw[i] = 0;
		for (s = 0; p->t[i].kind == DAG_TRANSFER && p->switches >= 2 &&
		    s < p->switches; s++)
			if (x[f->x[i * p->switches + s]] > 0.5)
				r->sw[i] = (uint32_t)s;
	}
}

static void
milp_verdict(const struct fprob *p, const struct wsolve_opts *o,
    const struct fmodel *f, const struct milp_result *mr,
    struct wsolve_result *r)
{
	uint64_t v = fmodel_optimum_ps(mr->objective);
	uint64_t b = fmodel_bound_ps(mr->bound);
	int sol = mr->status == MILP_OPTIMAL || mr->status == MILP_FEASIBLE;

	r->bound = b > p->lb ? b : p->lb;
	switch (mr->status) {
	case MILP_OPTIMAL:
		r->bound = v;
		r->status = o->target > 0 && v >= o->target ? WSOLVE_ABOVE :
		    WSOLVE_OPTIMAL;
		break;
	case MILP_FEASIBLE:
	case MILP_NOSOLUTION:
		r->status = WSOLVE_CUT;
		break;
	default:
		r->status = WSOLVE_FAILED;
		if (r->why[0] == '\0')
			snprintf(r->why, sizeof(r->why), "%s ended %s",
			    o->backend, milp_statuses[mr->status]);
		return;
	}
	if (sol && (o->target == 0 || v < o->target)) {
		r->value = v;
		decode(p, f, mr->x, r);
	}
}

static int
by_milp(const struct fprob *p, const struct wsolve_opts *o,
    struct wsolve_result *r, char *err, size_t len)
{
	struct milp_opts mo = { .backend = o->backend, .limit = o->limit,
	    .stop = o->stop, .verbose = o->verbose, .gap = GAP_NS };
	struct milp_result mr = { 0 };
	struct fmodel f;
	int rc = -1;

	memset(&f, 0, sizeof(f));
	if (fmodel_build(p, &f) != 0) {
		snprintf(err, len, "out of memory");
		goto out;
	}
	r->rows = f.m.nrow;
	r->cols = f.m.ncol;
	r->bins = f.nbin;
	if (o->max_bins > 0 && f.nbin > o->max_bins) {
		r->status = WSOLVE_TOOBIG;
		rc = 0;
		goto out;
	}
	if (o->write != NULL &&
	    milp_write(&f.m, o->write, o->format, err, len) != 0)
		goto out;
	if (arrays(p, r, err, len) != 0)
		goto out;
	if (milp_solve(&f.m, &mo, &mr, r->why, sizeof(r->why)) != 0) {
		/* a solver failure is a result: skipped by the caller */
		r->status = WSOLVE_FAILED;
		r->bound = p->lb;
		rc = 0;
		goto out;
	}
	milp_verdict(p, o, &f, &mr, r);
	rc = 0;
out:
	milp_result_free(&mr);
	fmodel_free(&f);
	return rc;
}

int
wsolve_run(const struct fprob *p, const struct wsolve_opts *o,
    struct wsolve_result *r, char *err, size_t len)
{
	double t0 = wclock_now();
	int rc;

	memset(r, 0, sizeof(*r));
	r->value = UINT64_MAX;
	r->bound = p->lb;
	if (o->fail) {
		r->status = WSOLVE_FAILED;
		snprintf(r->why, sizeof(r->why), "failure injected");
		return 0;
	}
	if (o->solver == WSOLVE_SEARCH)
		rc = by_search(p, o, r, err, len);
	else
		rc = by_milp(p, o, r, err, len);
	r->seconds = wclock_now() - t0;
	if (rc != 0)
		wsolve_result_free(r);
	return rc;
}

void
wsolve_result_free(struct wsolve_result *r)
{
	free(r->sw);
	free(r->start);
	r->sw = NULL;
	r->start = NULL;
}
