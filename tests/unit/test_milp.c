/*
 * Unit tests of lib/solve/milp on both backends, lp_solve and CBC: integer
 * optima that differ from the LP's, infeasibility and unboundedness,
 * big-M schedules checked against enumeration, bounds, time limits,
 * the stop flag, starts, quiet stdout, and export read back by the cbc
 * command.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "solve/milp.h"
#include "tap.h"

static const char *const backends[] = { "lpsolve", "cbc" };
#define NB	2

static int
solve(const struct milp *m, const char *b, double limit,
    struct milp_result *r)
{
	struct milp_opts o = { b, limit, NULL, NULL, 0, 0 };
	char err[200];

	return milp_solve(m, &o, r, err, sizeof(err));
}

/* Whether x meets the bounds, integrality and rows of m, within 1e-6. */
static int
meets(const struct milp *m, const double *x)
{
	size_t c, r, e;
	double a;

	for (c = 0; c < m->ncol; c++)
		if (x[c] < m->lo[c] - 1e-6 || x[c] > m->hi[c] + 1e-6 ||
		    (m->isint[c] && fabs(x[c] - round(x[c])) > 1e-6))
			return 0;
	for (r = 0; r < m->nrow; r++) {
		for (a = 0, e = m->roff[r]; e < m->roff[r + 1]; e++)
			a += m->eval[e] * x[m->ecol[e]];
		if ((m->sense[r] != MILP_GE && a > m->rhs[r] + 1e-6) ||
		    (m->sense[r] != MILP_LE && a < m->rhs[r] - 1e-6))
			return 0;
	}
	return 1;
}

/*
 * Solve m on both backends: both must return 0 with the status want
 * and, when there is one, the objective obj within 1e-9.
 */
static void
agree(const struct milp *m, const char *what, int want, double obj)
{
	struct milp_result r[NB];
	int i, rc[NB];

	for (i = 0; i < NB; i++)
		rc[i] = solve(m, backends[i], 60, &r[i]);
	for (i = 0; i < NB; i++)
		ok(rc[i] == 0 && r[i].status == want && (want != MILP_OPTIMAL ||
		    (fabs(r[i].objective - obj) < 1e-9 && meets(m, r[i].x))),
		    "%s: %s gives %s %g (%s %g)", backends[i], what,
		    milp_statuses[want], obj, milp_statuses[r[i].status],
		    r[i].objective);
	ok(r[0].status == r[1].status && (r[0].status != MILP_OPTIMAL ||
	    fabs(r[0].objective - r[1].objective) < 1e-9),
	    "lpsolve and cbc agree on %s", what);
	for (i = 0; i < NB; i++)
		milp_result_free(&r[i]);
}

static void
knapsack(void)
{
	struct milp m;
	struct milp_result r;
	int c[2], i, rc;
	double v1[2] = { 2, 1 }, v2[2] = { 1, 2 };

	/* max x + y, 2x + y <= 4, x + 2y <= 4, integers: 2, not 8/3 */
	milp_init(&m);
	c[0] = (int)milp_col(&m, 0, MILP_INF, -1, 1);
	c[1] = (int)milp_col(&m, 0, MILP_INF, -1, 1);
	milp_row(&m, 2, c, v1, MILP_LE, 4);
	milp_row(&m, 2, c, v2, MILP_LE, 4);
	agree(&m, "the integer optimum -2, below the LP's -8/3",
	    MILP_OPTIMAL, -2);
	for (i = 0; i < NB; i++) {
		rc = solve(&m, backends[i], 10, &r);
		ok(rc == 0 && r.x != NULL && fabs(r.x[0] + r.x[1] - 2) < 1e-9 &&
		    fabs(r.x[0] - round(r.x[0])) < 1e-9, "%s: the solution "
		    "is integral and feasible (%g, %g)", backends[i], r.x[0],
		    r.x[1]);
		milp_result_free(&r);
	}
	milp_free(&m);
}

static void
empty(void)
{
	struct milp m;

	milp_init(&m);
	agree(&m, "a model without columns", MILP_OPTIMAL, 0);
	milp_row(&m, 0, NULL, NULL, MILP_GE, 1);
	agree(&m, "0 >= 1", MILP_INFEASIBLE, 0);
	milp_free(&m);
	milp_init(&m);
	milp_col(&m, 0, 1, 1, 0);
	agree(&m, "a model without rows", MILP_OPTIMAL, 0);
	milp_free(&m);
}

/* min x + 2y, x + y >= 1.5, x <= 1: 2, without integers. */
static void
lp(void)
{
	struct milp m;
	int c[2];
	double v[2] = { 1, 1 };

	milp_init(&m);
	c[0] = (int)milp_col(&m, 0, 1, 1, 0);
	c[1] = (int)milp_col(&m, 0, MILP_INF, 2, 0);
	milp_row(&m, 2, c, v, MILP_GE, 1.5);
	agree(&m, "a model without integers", MILP_OPTIMAL, 2);
	milp_free(&m);
}

static void
infeasible(void)
{
	struct milp m;
	struct milp_result r;
	struct milp_opts o = { "gurobi", 10, NULL, NULL, 0, 0 };
	char err[200];
	int c = 0;
	double one = 1;

	milp_init(&m);
	milp_col(&m, 3, MILP_INF, 1, 0);
	milp_row(&m, 1, &c, &one, MILP_LE, 1);
	agree(&m, "x >= 3 and x <= 1", MILP_INFEASIBLE, 0);
	ok(milp_solve(&m, &o, &r, err, sizeof(err)) == -1 &&
	    strcmp(err, "unknown solver \"gurobi\"") == 0 && r.x == NULL,
	    "an unknown backend is refused");
	milp_result_free(&r);
	milp_free(&m);

	/* 2x = 1 has no integer solution, though the LP has one */
	milp_init(&m);
	milp_col(&m, 0, 10, 1, 1);
	one = 2;
	milp_row(&m, 1, &c, &one, MILP_EQ, 1);
	agree(&m, "2x = 1 in integers", MILP_INFEASIBLE, 0);
	milp_free(&m);
}

static void
unbounded(void)
{
	struct milp m;
	int c[2];
	double v[2] = { 1, -1 };

	/* min -x, x - y >= 1, x, y >= 0: x grows with y, without end */
	milp_init(&m);
	c[0] = (int)milp_col(&m, 0, MILP_INF, -1, 0);
	c[1] = (int)milp_col(&m, 0, MILP_INF, 0, 0);
	milp_row(&m, 2, c, v, MILP_GE, 1);
	agree(&m, "min -x, x - y >= 1", MILP_UNBOUNDED, 0);
	milp_free(&m);

	milp_init(&m);
	c[0] = (int)milp_col(&m, 0, MILP_INF, -1, 1);
	c[1] = (int)milp_col(&m, 0, MILP_INF, 0, 1);
	milp_row(&m, 2, c, v, MILP_GE, 1);
	agree(&m, "min -x, x - y >= 1 in integers", MILP_UNBOUNDED, 0);
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

	bigm(&m);
	agree(&m, "two jobs of 3 and 5 on one machine: makespan 8",
	    MILP_OPTIMAL, 8);
	milp_free(&m);
}

/*
 * n jobs on one machine with release dates r, durations p and tails q:
 * minimize L >= s_j + p_j + q_j, with a big-M disjunction per pair.
 * Columns: s_0..s_n-1, L, then y_ij (i before j) for i < j.
 */
struct jobs {
	int	 n;
	int	 r[40], p[40], q[40];
};

static void
jobs_make(struct jobs *J, int n, unsigned long seed)
{
	int i, sum = 0;

	J->n = n;
	for (i = 0; i < n; i++) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		J->p[i] = 1 + (int)((seed >> 33) % 10);
		sum += J->p[i];
	}
	for (i = 0; i < n; i++) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		J->r[i] = (int)((seed >> 33) % (unsigned long)(sum / 2));
		J->q[i] = (int)((seed >> 13) % 20);
	}
}

static void
jobs_model(struct milp *m, const struct jobs *J, int relax)
{
	int i, j, y, c[3], L, n = J->n;
	double v[3], M = 0;

	for (i = 0; i < n; i++)
		M += J->p[i] + J->r[i];
	milp_init(m);
	for (i = 0; i < n; i++)
		milp_col(m, J->r[i], MILP_INF, 0, 0);
	L = (int)milp_col(m, 0, MILP_INF, 1, 0);
	for (i = 0; i < n; i++) {
		c[0] = L; c[1] = i; v[0] = 1; v[1] = -1;
		milp_row(m, 2, c, v, MILP_GE, J->p[i] + J->q[i]);
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			y = (int)milp_col(m, 0, 1, 0, !relax);
			c[0] = i; c[1] = j; c[2] = y;
			v[0] = 1; v[1] = -1; v[2] = M;
			milp_row(m, 3, c, v, MILP_LE, M - J->p[i]);
			c[0] = j; c[1] = i; v[2] = -M;
			milp_row(m, 3, c, v, MILP_LE, -J->p[j]);
		}
}

/* The schedule of the jobs in order ord, as columns of jobs_model. */
static double
jobs_order(const struct jobs *J, const int *ord, double *x)
{
	int k, i, j, col, at = 0, pos[40];
	double L = 0;

	for (k = 0; k < J->n; k++) {
		i = ord[k];
		pos[i] = k;
		at = at > J->r[i] ? at : J->r[i];
		if (x != NULL)
			x[i] = at;
		at += J->p[i];
		L = fmax(L, at + J->q[i]);
	}
	if (x == NULL)
		return L;
	x[J->n] = L;
	col = J->n + 1;
	for (i = 0; i < J->n; i++)
		for (j = i + 1; j < J->n; j++)
			x[col++] = pos[i] < pos[j];
	return L;
}

/* The optimum over all orders (a regular objective: no idle needed). */
static double
jobs_best(const struct jobs *J, int *ord, int k)
{
	double best = INFINITY, v;
	int i, t;

	if (k == J->n)
		return jobs_order(J, ord, NULL);
	for (i = k; i < J->n; i++) {
		t = ord[k]; ord[k] = ord[i]; ord[i] = t;
		v = jobs_best(J, ord, k + 1);
		best = fmin(best, v);
		t = ord[k]; ord[k] = ord[i]; ord[i] = t;
	}
	return best;
}

/* Release-date order: a feasible start. */
static double
jobs_fifo(const struct jobs *J, double *x)
{
	int ord[40], i, j, t;

	for (i = 0; i < J->n; i++)
		ord[i] = i;
	for (i = 1; i < J->n; i++)
		for (j = i; j > 0 && J->r[ord[j - 1]] > J->r[ord[j]]; j--) {
			t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t;
		}
	return jobs_order(J, ord, x);
}

static void
branching(void)
{
	struct jobs J;
	struct milp m, rm;
	struct milp_result r;
	char what[120];
	int ord[40], i;
	double best, relaxed;

	jobs_make(&J, 5, 3);
	for (i = 0; i < J.n; i++)
		ord[i] = i;
	best = jobs_best(&J, ord, 0);
	jobs_model(&rm, &J, 1);
	solve(&rm, "lpsolve", 10, &r);
	relaxed = r.objective;
	ok(r.status == MILP_OPTIMAL && relaxed < best - 0.5, "five jobs with "
	    "release dates: the LP relaxation (%g) is below the optimum by "
	    "enumeration (%g), so it takes branching", relaxed, best);
	milp_result_free(&r);
	milp_free(&rm);
	jobs_model(&m, &J, 0);
	snprintf(what, sizeof(what), "five jobs with release dates and "
	    "tails: Lmax %g, as enumeration finds", best);
	agree(&m, what, MILP_OPTIMAL, best);
	milp_free(&m);
}

/* A solve that reports its own bound: the objective once optimal. */
static void
bound(void)
{
	struct jobs J;
	struct milp m;
	struct milp_result r;
	int i;

	jobs_make(&J, 5, 3);
	jobs_model(&m, &J, 0);
	for (i = 0; i < NB; i++) {
		solve(&m, backends[i], 10, &r);
		ok(r.status == MILP_OPTIMAL && r.bound == r.objective,
		    "%s: optimal, the bound is the objective (%g, %g)",
		    backends[i], r.bound, r.objective);
		milp_result_free(&r);
	}
	milp_free(&m);
	milp_init(&m);
	milp_col(&m, 3, MILP_INF, 1, 1);
	for (i = 0; i < NB; i++) {
		struct milp_opts o = { backends[i], 0, NULL, NULL, 0, 0 };
		char err[200];

		milp_solve(&m, &o, &r, err, sizeof(err));
		ok(r.status == MILP_OPTIMAL && r.objective == 3 &&
		    r.bound == 3, "%s: no options but the backend: x >= 3 "
		    "gives 3, bound 3", backends[i]);
		milp_result_free(&r);
	}
	milp_free(&m);
}

/*
 * 32 jobs: lp_solve and CBC both run far past a second on it (CBC
 * takes 13 s for 16 jobs), so a 1 s limit ends the solve unfinished.
 */
static void
limit(void)
{
	struct jobs J;
	struct milp m;
	struct milp_result r;
	int i;

	jobs_make(&J, 32, 11);
	jobs_model(&m, &J, 0);
	for (i = 0; i < NB; i++) {
		solve(&m, backends[i], 1, &r);
		/* how soon it stops is measured by pipelines/bench-limits */
		ok(r.status == MILP_FEASIBLE || r.status == MILP_NOSOLUTION,
		    "%s: 32 jobs under a "
		    "1 s limit end unfinished (%s) in %.2f s", backends[i],
		    milp_statuses[r.status], r.seconds);
		ok(r.status != MILP_FEASIBLE || (r.bound <= r.objective &&
		    meets(&m, r.x)), "%s: the solution is feasible, the "
		    "bound (%g) at most its objective (%g)", backends[i],
		    r.bound, r.objective);
		milp_result_free(&r);
	}
	milp_free(&m);
}

static volatile sig_atomic_t stop_flag;

static void
on_alarm(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* The stop flag, set beforehand, or by a signal handler mid-solve. */
static void
stop(void)
{
	struct jobs J;
	struct milp m;
	struct milp_result r;
	struct milp_opts o = { NULL, 30, NULL, &stop_flag, 0, 0 };
	struct itimerval it = { { 0, 0 }, { 0, 500000 } };
	struct sigaction sa;
	char err[200];
	int i, rc;

	jobs_make(&J, 32, 11);
	jobs_model(&m, &J, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	for (i = 0; i < NB; i++) {
		o.backend = backends[i];
		stop_flag = 1;
		rc = milp_solve(&m, &o, &r, err, sizeof(err));
		ok(rc == 0 && r.status == MILP_NOSOLUTION,
		    "%s: stop set beforehand returns, no solution "
		    "(%s, %.3f s)", backends[i], milp_statuses[r.status],
		    r.seconds);
		milp_result_free(&r);
		stop_flag = 0;
		setitimer(ITIMER_REAL, &it, NULL);
		rc = milp_solve(&m, &o, &r, err, sizeof(err));
		ok(rc == 0 && stop_flag && (r.status == MILP_FEASIBLE ||
		    r.status == MILP_NOSOLUTION),
		    "%s: stop set by a signal after 0.5 s ends the solve in "
		    "%.2f s (%s)", backends[i], r.seconds,
		    milp_statuses[r.status]);
		ok(r.status != MILP_FEASIBLE || (r.bound <= r.objective &&
		    meets(&m, r.x)), "%s: after a stop the solution is "
		    "feasible, the bound (%g) at most its objective (%g)",
		    backends[i], r.bound, r.objective);
		milp_result_free(&r);
	}
	signal(SIGALRM, SIG_DFL);
	milp_free(&m);
}

static void
start(void)
{
	struct jobs J;
	struct milp m;
	struct milp_result r;
	struct milp_opts o = { NULL, 1, NULL, &stop_flag, 0, 0 };
	double x[600], fifo, bad[2] = { 5, 5 };
	char err[200];
	int i;

	jobs_make(&J, 32, 11);
	jobs_model(&m, &J, 0);
	fifo = jobs_fifo(&J, x);
	o.start = x;
	for (i = 0; i < NB; i++) {
		o.backend = backends[i];
		stop_flag = 1;
		milp_solve(&m, &o, &r, err, sizeof(err));
		ok(r.status == MILP_FEASIBLE && r.objective == fifo &&
		    memcmp(r.x, x, m.ncol * sizeof(*x)) == 0, "%s: stopped "
		    "at once, the result is the start (%g)", backends[i],
		    r.objective);
		milp_result_free(&r);
		stop_flag = 0;
		milp_solve(&m, &o, &r, err, sizeof(err));
		ok(r.status == MILP_FEASIBLE && r.objective <= fifo &&
		    meets(&m, r.x), "%s: 32 jobs from a start of %g: %g "
		    "within 1 s%s", backends[i], fifo, r.objective, i == 0 ?
		    "" : " (regression: CBC crashed in Clp's presolve when "
		    "columns had names and rows none)");
		milp_result_free(&r);
	}
	milp_free(&m);

	jobs_make(&J, 5, 3);
	jobs_model(&m, &J, 0);
	fifo = jobs_fifo(&J, x);
	for (i = 0; i < NB; i++) {
		struct milp_result r0;

		o.backend = backends[i];
		o.limit = 60;
		o.start = NULL;
		milp_solve(&m, &o, &r0, err, sizeof(err));
		o.start = x;
		milp_solve(&m, &o, &r, err, sizeof(err));
		ok(r.status == MILP_OPTIMAL && r.objective == r0.objective &&
		    r.objective <= fifo, "%s: five jobs from a start of %g: "
		    "the same optimum %g", backends[i], fifo, r.objective);
		milp_result_free(&r);
		milp_result_free(&r0);
	}
	milp_free(&m);

	milp_init(&m);
	milp_col(&m, 0, MILP_INF, -1, 1);
	milp_col(&m, 0, MILP_INF, -1, 1);
	{
		int c[2] = { 0, 1 };
		double v1[2] = { 2, 1 }, v2[2] = { 1, 2 };

		milp_row(&m, 2, c, v1, MILP_LE, 4);
		milp_row(&m, 2, c, v2, MILP_LE, 4);
	}
	o.start = bad;
	for (i = 0; i < NB; i++) {
		o.backend = backends[i];
		milp_solve(&m, &o, &r, err, sizeof(err));
		ok(r.status == MILP_OPTIMAL && fabs(r.objective + 2) < 1e-9,
		    "%s: an infeasible start is ignored (%s %g)", backends[i],
		    milp_statuses[r.status], r.objective);
		milp_result_free(&r);
		stop_flag = 1;
		milp_solve(&m, &o, &r, err, sizeof(err));
		ok(r.status == MILP_NOSOLUTION, "%s: stopped at once with an "
		    "infeasible start: no solution", backends[i]);
		milp_result_free(&r);
		stop_flag = 0;
	}
	milp_free(&m);
}

/* Point fd at a new temporary file; returns the saved fd. */
static int
capture(int fd, const char *path)
{
	FILE *f;
	int saved;

	fflush(fd == 1 ? stdout : stderr);
	saved = dup(fd);
	if ((f = fopen(path, "w")) != NULL) {
		dup2(fileno(f), fd);
		fclose(f);
	}
	return saved;
}

static void
release(int fd, int saved)
{
	fflush(fd == 1 ? stdout : stderr);
	dup2(saved, fd);
	close(saved);
}

static off_t
size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/*
 * Quiet or verbose, nothing reaches stdout, and verbose logs to
 * stderr, for a model with integers and one without (regression: CBC
 * hands those to Clp, which ignores its log parameter and logged to
 * stdout).
 */
static void
quiet(void)
{
	struct jobs J;
	struct milp m[2];
	struct milp_result r;
	struct milp_opts o = { NULL, 10, NULL, NULL, 0, 0 };
	char err[200], out[64], log[64];
	double v1[2] = { 1, 1 };
	int c[2], i, k, v, o1, o2;
	off_t so, se;

	snprintf(out, sizeof(out), "/tmp/test_milp.%d.out", (int)getpid());
	snprintf(log, sizeof(log), "/tmp/test_milp.%d.err", (int)getpid());
	jobs_make(&J, 5, 3);
	jobs_model(&m[0], &J, 0);
	milp_init(&m[1]);
	c[0] = (int)milp_col(&m[1], 0, 1, 1, 0);
	c[1] = (int)milp_col(&m[1], 0, MILP_INF, 2, 0);
	milp_row(&m[1], 2, c, v1, MILP_GE, 1.5);
	for (k = 0; k < 2; k++)
		for (i = 0; i < NB; i++)
			for (v = 0; v < 2; v++) {
				o.backend = backends[i];
				o.verbose = v;
				o1 = capture(1, out);
				o2 = capture(2, log);
				milp_solve(&m[k], &o, &r, err, sizeof(err));
				release(2, o2);
				release(1, o1);
				so = size_of(out);
				se = size_of(log);
				ok(r.status == MILP_OPTIMAL && so == 0 &&
				    (v ? se > 0 : se == 0),
				    "%s, %s, %s: nothing on stdout, %lld "
				    "bytes of log on stderr", backends[i],
				    k ? "no integers" : "integers",
				    v ? "verbose" : "quiet", (long long)se);
				milp_result_free(&r);
			}
	unlink(out);
	unlink(log);
	milp_free(&m[0]);
	milp_free(&m[1]);
}

/*
 * The objective the cbc command finds for an MPS file, from the
 * solution file it writes, or NAN; its own output is read and dropped.
 */
static double
cbc_objective(const char *mps, const char *solu)
{
	char cmd[256], line[256];
	double v = NAN;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "/usr/bin/cbc %s solve solu %s 2>&1", mps,
	    solu);
	fflush(stdout);
	if ((p = popen(cmd, "r")) == NULL)
		return NAN;
	while (fgets(line, sizeof(line), p) != NULL)
		;
	if (pclose(p) != 0 || (p = fopen(solu, "r")) == NULL)
		return NAN;
	if (fgets(line, sizeof(line), p) != NULL &&
	    strncmp(line, "Optimal - objective value ", 26) == 0)
		v = strtod(line + 26, NULL);
	fclose(p);
	return v;
}

static void
export_cbc(const struct milp *m, const char *what, const char *mps,
    const char *solu)
{
	struct milp_result r;
	char err[200];
	double v;

	if (access("/usr/bin/cbc", X_OK) != 0) {
		tap_n++;
		printf("ok %d # skip /usr/bin/cbc is absent\n", tap_n);
		return;
	}
	v = milp_write(m, mps, MILP_MPS, err, sizeof(err)) == 0 ?
	    cbc_objective(mps, solu) : NAN;
	solve(m, "lpsolve", 10, &r);
	ok(r.status == MILP_OPTIMAL && fabs(v - r.objective) < 1e-9,
	    "the cbc command solves the MPS file of %s to the optimum of "
	    "milp_solve (%g, %g)", what, v, r.objective);
	milp_result_free(&r);
}

static void
export(void)
{
	struct jobs J;
	struct milp m;
	struct stat st;
	char err[200], lp[64], mps[64], solu[64];

	snprintf(lp, sizeof(lp), "/tmp/test_milp.%d.lp", (int)getpid());
	snprintf(mps, sizeof(mps), "/tmp/test_milp.%d.mps", (int)getpid());
	snprintf(solu, sizeof(solu), "/tmp/test_milp.%d.sol", (int)getpid());
	bigm(&m);
	ok(milp_write(&m, lp, MILP_LP, err, sizeof(err)) == 0 &&
	    stat(lp, &st) == 0 && st.st_size > 0, "an LP file is written");
	ok(milp_write(&m, mps, MILP_MPS, err, sizeof(err)) == 0 &&
	    stat(mps, &st) == 0 && st.st_size > 0, "an MPS file is written");
	ok(milp_write(&m, "/nonexistent/dir/x.lp", MILP_LP, err,
	    sizeof(err)) == -1, "an unwritable path is an error: %s", err);
	/*
	 * Regression: lp_solve sorted the model's own arrays, so a second
	 * build was wrong.
	 */
	export_cbc(&m, "two jobs", mps, solu);
	milp_free(&m);
	jobs_make(&J, 5, 3);
	jobs_model(&m, &J, 0);
	export_cbc(&m, "five jobs", mps, solu);
	milp_free(&m);
	unlink(lp);
	unlink(mps);
	unlink(solu);
}

/* Many rows and columns: x_i >= i, minimize their sum. */
static void
growth(void)
{
	struct milp m;
	double one = 1;
	int i;

	milp_init(&m);
	for (i = 0; i < 300; i++) {
		milp_col(&m, 0, MILP_INF, 1, i % 2);
		milp_row(&m, 1, &i, &one, MILP_GE, i);
	}
	agree(&m, "300 rows and columns", MILP_OPTIMAL, 300 * 299 / 2);
	milp_free(&m);
}

int
main(void)
{
	growth();
	empty();
	knapsack();
	lp();
	infeasible();
	unbounded();
	schedule();
	branching();
	bound();
	limit();
	stop();
	start();
	quiet();
	export();
	return tap_done();
}
