/*
 * wsolve: one Flux problem (fmodel.h's struct fprob: a window or a
 * whole small DAG) solved by the branch and bound of wsearch.h or by a
 * MILP (fmodel.h, milp.h), behind one interface, so that the methods
 * of fsolve.h use either and tests can hold them to each other.
 *
 * wsolve_run() looks for a schedule whose objective, max(p->lb,
 * makespan), is below opts->target (0: none), within the limits, and
 * says:
 *   WSOLVE_OPTIMAL	value is the optimum (below the target);
 *   WSOLVE_ABOVE	there is none below the target: bound is at least
 *			the target;
 *   WSOLVE_CUT		a limit came first: bound is proved (it may be
 *			only p->lb), value the best found or UINT64_MAX;
 *   WSOLVE_TOOBIG	the MILP has more than max_bins binaries: not
 *			solved, nothing known;
 *   WSOLVE_FAILED	the solver failed, or gave a verdict that is not
 *			a solution (lp_solve's accuracy error, an
 *			infeasible or unbounded verdict on a problem that
 *			has schedules): nothing is known; why[] says what.
 * A failure is a result, not an error: the caller skips the problem.
 * sw[] and start[] (per task of the problem) hold the best schedule
 * found, when value is not UINT64_MAX; a MILP's starts are its own,
 * rounded to the picosecond (keys for place.h, not exact times).
 * For the MILP, p->horizon must be the makespan of some schedule; the
 * target bounds it.  With fail set (tests inject failures through it)
 * the problem fails without being solved.  With write, the MILP model
 * goes to that file first (milp.h); a search writes nothing.
 *
 * Returns 0, or -1 with a message in err when memory runs out or the
 * model file cannot be written.  The result owns its arrays:
 * wsolve_result_free().
 */
#ifndef WSOLVE_H
#define WSOLVE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "solve/fmodel.h"

enum wsolve_solver { WSOLVE_SEARCH, WSOLVE_MILP };
enum wsolve_status { WSOLVE_OPTIMAL, WSOLVE_ABOVE, WSOLVE_CUT,
	WSOLVE_TOOBIG, WSOLVE_FAILED };

extern const char *const wsolve_solvers[];
extern const char *const wsolve_statuses[];

struct wsolve_opts {
	int			 solver;
	const char		*backend;	/* MILP: "lpsolve" or "cbc" */
	uint64_t		 target;	/* 0: none */
	double			 limit;		/* seconds, <= 0: none */
	uint64_t		 max_nodes;	/* search: 0 none */
	size_t			 max_bins;	/* MILP: 0 none */
	unsigned		 flags;		/* search: wsearch.h */
	volatile sig_atomic_t	*stop;
	int			 verbose;	/* MILP log to stderr */
	const char		*write;		/* MILP model file, or NULL */
	int			 format;	/* MILP_LP or MILP_MPS */
	int			 fail;		/* fail at once */
};

struct wsolve_result {
	int		 status;
	uint64_t	 value;		/* UINT64_MAX: none found */
	uint64_t	 bound;
	uint64_t	 nodes;		/* search */
	size_t		 rows, cols, bins;	/* MILP */
	double		 seconds;
	uint32_t	*sw;
	uint64_t	*start;
	char		 why[200];	/* FAILED */
};

int	wsolve_run(const struct fprob *, const struct wsolve_opts *,
	    struct wsolve_result *, char *, size_t);
void	wsolve_result_free(struct wsolve_result *);

#endif
