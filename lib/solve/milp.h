/*
 * milp: mixed-integer linear models, and their solution by a backend.
 *
 * A model is built without a solver: columns (bounds, objective
 * coefficient, integrality) and rows (sparse coefficients, a sense, a
 * right-hand side), always to be minimized (MPS files of maximization
 * models are misread by other solvers).  Bounds of +-MILP_INF mean
 * none.  The model and the result own their arrays: milp_free() and
 * milp_result_free() release them, and are safe after a failure.
 *
 * milp_solve() hands the model to the backend the options name (NULL
 * options: lp_solve, no limit, no start, no stop, quiet) and says:
 *   OPTIMAL	the solver proved optimality: within gap of the optimum
 *		when gap > 0, else within the backend's default gaps;
 *   FEASIBLE	a solution, found before the time limit or the stop;
 *   INFEASIBLE, UNBOUNDED	proven so;
 *   NOSOLUTION	the limit or the stop came before any solution;
 *   ERROR	the solver failed; err says how.
 * x (ncol values, allocated whenever milp_solve() returns 0) and
 * objective hold the solution when OPTIMAL or FEASIBLE.  bound is a
 * proven lower bound on the objective: the objective when OPTIMAL, the
 * backend's best bound when it has one, else -MILP_INF.  seconds is
 * the wall-clock time of the call.  With *stop already set, nothing is
 * solved.  A feasible start is never lost: when the solver ends with
 * nothing better, the result is the start, FEASIBLE (a start off a
 * bound, a row or integrality by more than 1e-6 is ignored).  A model
 * without columns is answered without a solver.
 *
 * The backends:
 *   "lpsolve"	lp_solve 5.5.  The limit and stop are checked in its
 *		abort callback, which it polls often: it ends within
 *		milliseconds.  It has no MIP start: start only serves
 *		as the fallback above.  No bound unless OPTIMAL.
 *   "cbc"	CBC 2.10 without its preprocessing (CglPreProcess
 *		crashed now and then, SEGV, on Flux window models under
 *		a time limit): one thread, limit in wall-clock time, start
 *		as its MIP start (the integer columns; it recomputes the
 *		others), bound its best possible value.  Its C interface
 *		cannot be interrupted: stop is checked where it calls
 *		cut generators, in the root's cut loop and at each
 *		node, and a cut no point meets then prunes each open
 *		node as CBC comes to it.  A long heuristic pass is not
 *		cut short, and a large tree takes a while (1.5 s after
 *		15 s on 32 jobs); the bound is then unknown.  A model
 *		without integer columns is solved by Clp alone, which
 *		ignores the limit and a stop during its solve.
 * Solver logs never reach stdout (a binary stream): lp_solve writes to
 * stderr, and around a CBC solve fd 1 is pointed at fd 2, so no other
 * thread may write to stdout meanwhile.  With verbose, the solver's own
 * log goes to stderr.
 *
 * milp_write() writes LP or fixed MPS files through lp_solve.
 * Functions return 0, or -1 (out of memory, or an error told in the
 * caller's buffer err of n bytes).
 */
#ifndef MILP_H
#define MILP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define MILP_INF	1e30

enum milp_sense { MILP_LE, MILP_GE, MILP_EQ };
enum milp_status { MILP_OPTIMAL, MILP_FEASIBLE, MILP_INFEASIBLE,
	MILP_UNBOUNDED, MILP_NOSOLUTION, MILP_ERROR };
enum milp_format { MILP_LP, MILP_MPS };

extern const char *const milp_statuses[];

struct milp {
	size_t		 ncol, ccap;
	double		*lo, *hi, *obj;
	uint8_t		*isint;
	size_t		 nrow, rcap;
	size_t		*roff;		/* row r: entries roff[r]..roff[r+1] */
	size_t		 ocap;
	uint8_t		*sense;
	double		*rhs;
	int		*ecol;
	double		*eval;
	size_t		 nent, ecap;
	size_t		 nint;
};

struct milp_opts {
	const char		*backend;	/* "lpsolve" (NULL) or "cbc" */
	double			 limit;		/* wall-clock s, <= 0: none */
	const double		*start;		/* ncol values, or NULL */
	volatile sig_atomic_t	*stop;		/* nonzero: stop, or NULL */
	int			 verbose;	/* solver log to stderr */
	double			 gap;		/* > 0: absolute optimality
						   tolerance, relative 0 */
};

struct milp_result {
	int		 status;
	double		 objective;
	double		 bound;		/* proven lower bound, or -MILP_INF */
	double		*x;		/* ncol values */
	double		 seconds;
};

void	milp_init(struct milp *);
void	milp_free(struct milp *);
long	milp_col(struct milp *, double, double, double, int);
int	milp_row(struct milp *, size_t, const int *, const double *, int,
	    double);
int	milp_solve(const struct milp *, const struct milp_opts *,
	    struct milp_result *, char *, size_t);
int	milp_write(const struct milp *, const char *, int, char *, size_t);
void	milp_result_free(struct milp_result *);

#endif
