/*
 * milp: mixed-integer linear models, and their solution by a backend.
 *
 * A model is built without a solver: columns (bounds, objective
 * coefficient, integrality) and rows (sparse coefficients, a sense, a
 * right-hand side), always to be minimized (MPS files of maximization
 * models are misread by other solvers).  milp_solve() hands it to a
 * backend, "lpsolve" for now, under a wall-clock time limit; solver
 * logs never reach stdout.  The status is OPTIMAL only when the solver
 * says it proved optimality; a solution found before a time limit is
 * FEASIBLE.  Bounds of +-MILP_INF mean none.  The model and the result
 * own their arrays; functions return 0 or -1 (out of memory, or an
 * error told in the caller's buffer).
 */
#ifndef MILP_H
#define MILP_H

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

struct milp_result {
	int		 status;
	double		 objective;
	double		*x;		/* ncol values, when there is a solution */
	double		 seconds;
};

void	milp_init(struct milp *);
void	milp_free(struct milp *);
long	milp_col(struct milp *, double, double, double, int);
int	milp_row(struct milp *, size_t, const int *, const double *, int,
	    double);
int	milp_solve(const struct milp *, const char *, double,
	    struct milp_result *, char *, size_t);
int	milp_write(const struct milp *, const char *, int, char *, size_t);
void	milp_result_free(struct milp_result *);

#endif
