/*
 * Unit tests of lib/milp with the lp_solve backend: integer optima that
 * differ from the LP's, infeasibility, a big-M schedule, and export.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "milp.h"
#include "tap.h"

static void
knapsack(void)
{
	struct milp m;
	struct milp_result r;
	char err[200];
	int c[2], rc;
	double v1[2] = { 2, 1 }, v2[2] = { 1, 2 };

	/* max x + y, 2x + y <= 4, x + 2y <= 4, integers: 2, not 8/3 */
	milp_init(&m);
	c[0] = (int)milp_col(&m, 0, MILP_INF, -1, 1);
	c[1] = (int)milp_col(&m, 0, MILP_INF, -1, 1);
	milp_row(&m, 2, c, v1, MILP_LE, 4);
	milp_row(&m, 2, c, v2, MILP_LE, 4);
	rc = milp_solve(&m, "lpsolve", 10, &r, err, sizeof(err));
	ok(rc == 0 && r.status == MILP_OPTIMAL && fabs(r.objective + 2) < 1e-9,
	    "integer optimum -2, below the LP's -8/3 (%s, %g)",
	    milp_statuses[r.status], r.objective);
	ok(fabs(r.x[0] + r.x[1] - 2) < 1e-9, "the solution is integral and "
	    "feasible (%g, %g)", r.x[0], r.x[1]);
	milp_result_free(&r);
	milp_free(&m);
}

static void
infeasible(void)
{
	struct milp m;
	struct milp_result r;
	char err[200];
	int c = 0, rc;
	double one = 1;

	milp_init(&m);
	milp_col(&m, 3, MILP_INF, 1, 0);
	milp_row(&m, 1, &c, &one, MILP_LE, 1);
	rc = milp_solve(&m, "lpsolve", 10, &r, err, sizeof(err));
	ok(rc == 0 && r.status == MILP_INFEASIBLE, "x >= 3 and x <= 1 is "
	    "infeasible (%s)", milp_statuses[r.status]);
	milp_result_free(&r);
	ok(milp_solve(&m, "gurobi", 10, &r, err, sizeof(err)) == -1 &&
	    strcmp(err, "unknown solver \"gurobi\"") == 0,
	    "an unknown backend is refused");
	milp_result_free(&r);
	milp_free(&m);
}

/* Two jobs of 3 and 5 on one machine, in either order: makespan 8. */
static void
bigm(struct milp *m)
{
	int s1, s2, y, C, c[3];
	double v[3], M = 100;

	milp_init(m);
	s1 = (int)milp_col(m, 0, MILP_INF, 0, 0);
	s2 = (int)milp_col(m, 0, MILP_INF, 0, 0);
	y = (int)milp_col(m, 0, 1, 0, 1);
	C = (int)milp_col(m, 0, MILP_INF, 1, 0);
	/* s1 + 3 <= s2 + M (1 - y)  ->  s1 - s2 + M y <= M - 3 */
	c[0] = s1; c[1] = s2; c[2] = y; v[0] = 1; v[1] = -1; v[2] = M;
	milp_row(m, 3, c, v, MILP_LE, M - 3);
	/* s2 + 5 <= s1 + M y  ->  s2 - s1 - M y <= -5 */
	c[0] = s2; c[1] = s1; c[2] = y; v[0] = 1; v[1] = -1; v[2] = -M;
	milp_row(m, 3, c, v, MILP_LE, -5);
	c[0] = C; c[1] = s1; v[0] = 1; v[1] = -1;
	milp_row(m, 2, c, v, MILP_GE, 3);
	c[0] = C; c[1] = s2;
	milp_row(m, 2, c, v, MILP_GE, 5);
}

static void
schedule(void)
{
	struct milp m;
	struct milp_result r;
	char err[200];
	int rc;

	bigm(&m);
	rc = milp_solve(&m, "lpsolve", 10, &r, err, sizeof(err));
	ok(rc == 0 && r.status == MILP_OPTIMAL && fabs(r.objective - 8) < 1e-9,
	    "two jobs of 3 and 5 on one machine: makespan 8 (%g)",
	    r.objective);
	milp_result_free(&r);
	milp_free(&m);
}

/* The objective the cbc command finds for an MPS file, or -1. */
static double
cbc_objective(const char *mps)
{
	char cmd[128], line[256];
	double v = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "cbc %s solve 2>&1", mps);
	fflush(stdout);
	if ((p = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), p) != NULL)
		if (strncmp(line, "Objective value:", 16) == 0)
			v = strtod(line + 16, NULL);
	pclose(p);
	return v;
}

static void
export(void)
{
	struct milp m;
	struct stat st;
	char err[200], lp[64], mps[64];

	snprintf(lp, sizeof(lp), "/tmp/test_milp.%d.lp", (int)getpid());
	snprintf(mps, sizeof(mps), "/tmp/test_milp.%d.mps", (int)getpid());
	bigm(&m);
	ok(milp_write(&m, lp, MILP_LP, err, sizeof(err)) == 0 &&
	    stat(lp, &st) == 0 && st.st_size > 0, "an LP file is written");
	ok(milp_write(&m, mps, MILP_MPS, err, sizeof(err)) == 0 &&
	    stat(mps, &st) == 0 && st.st_size > 0, "an MPS file is written");
	ok(milp_write(&m, "/nonexistent/dir/x.lp", MILP_LP, err,
	    sizeof(err)) == -1, "an unwritable path is an error: %s", err);
	ok(cbc_objective(mps) == 8, "the cbc command solves the MPS file to "
	    "the same optimum (regression: lp_solve sorted the model's own "
	    "arrays, so a second build was wrong)");
	unlink(lp);
	unlink(mps);
	milp_free(&m);
}

/* Many rows and columns: x_i >= i, minimize their sum. */
static void
growth(void)
{
	struct milp m;
	struct milp_result r;
	char err[200];
	double one = 1;
	int i, rc;

	milp_init(&m);
	for (i = 0; i < 300; i++) {
		milp_col(&m, 0, MILP_INF, 1, i % 2);
		milp_row(&m, 1, &i, &one, MILP_GE, i);
	}
	rc = milp_solve(&m, "lpsolve", 10, &r, err, sizeof(err));
	ok(rc == 0 && r.status == MILP_OPTIMAL && r.objective == 300 * 299 / 2,
	    "300 rows and columns grow and solve (%g)", r.objective);
	milp_result_free(&r);
	milp_free(&m);
}

int
main(void)
{
	growth();
	knapsack();
	infeasible();
	schedule();
	export();
	return tap_done();
}
