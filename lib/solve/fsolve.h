/*
 * fsolve: the methods of fluxsolve(1), from a DAG to a Flux schedule
 * with a proven lower bound.
 *
 * fsolve_run() starts from the greedy schedule and its bounds
 * (greedy.h), then by method:
 *   FSOLVE_GREEDY	nothing more;
 *   FSOLVE_EXACT	the paper's model of the whole DAG (fmodel.h),
 *			refused above max_bin binaries; its solution,
 *			placed in integer time (place.h), replaces the
 *			greedy schedule when it is shorter;
 *   FSOLVE_FLUX	the whole DAG when it is small (the search of
 *			wsearch.h up to WSEARCH_MAX tasks, or the MILP),
 *			then windows (wpolicy.h): tails of the schedule
 *			solved again to shorten it, relaxed windows to
 *			raise the bound, until the two meet.  wsolver
 *			says what solves them (wsolve.h).
 * A model proved optimal with value V (ns) bounds the makespan by
 * V rounded to the nearest picosecond: its data are whole picoseconds
 * and the solver's optimality tolerance is below half of one.
 *
 * The whole run honours limit (seconds) and *stop; when either ends it,
 * the best schedule so far stands.  Every problem solved is listed in
 * models[]; a window whose solver fails is skipped and counted in
 * windows_failed (the first fail_windows problems fail on purpose, for
 * tests).  progress, when set, is called before (0) and after (1)
 * solving each model, which is the last of models[].  Returns
 * 0; -1 with a message in err when memory runs out, a solver fails, or
 * the exact model is too big (its size in the message).  The caller
 * frees the result with fsolve_free().  fsolve_add_model() appends an
 * entry to models[] (not yet solved: status cut, no value), or returns
 * NULL when memory runs out.
 */
#ifndef FSOLVE_H
#define FSOLVE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/greedy.h"

enum fsolve_method { FSOLVE_FLUX, FSOLVE_GREEDY, FSOLVE_EXACT };

extern const char *const fsolve_methods[];

struct fsolve_model {
	char		 name[96];
	const char	*solver;	/* "search", "lpsolve" or "cbc" */
	size_t		 tasks, rows, cols, bins;	/* MILP: rows.. */
	int		 status;	/* enum wsolve_status */
	double		 seconds;
	uint64_t	 nodes;		/* search */
	uint64_t	 value;		/* ps; UINT64_MAX: none found */
	uint64_t	 bound;		/* ps, proved */
};

struct fsolve;

struct fsolve_opts {
	int		 method;
	const char	*solver;	/* milp backend */
	int		 wsolver;	/* windows: enum wsolve_solver */
	size_t		 fail_windows;	/* tests: these first ones fail */
	double		 limit;		/* seconds, <= 0: none */
	size_t		 max_bin;	/* exact: refused above */
	const char	*write;		/* export each model here, or NULL */
	int		 format;	/* MILP_LP or MILP_MPS */
	volatile sig_atomic_t *stop;
	void		(*progress)(void *, const struct fsolve *, int);
	void		*arg;
	int		 verbose;	/* solver logs to stderr */
};

struct fsolve {
	struct greedy		 best;
	uint64_t		 greedy_ps;	/* the greedy's makespan */
	uint64_t		 bound;
	struct fsolve_model	*m;
	size_t			 nm, mcap;
	size_t			 windows;	/* problems solved */
	size_t			 windows_failed;
	size_t			 improved;	/* schedules adopted */
	double			 seconds;
	char			 err[400];
};

int	fsolve_run(const struct dag *, const struct net *,
	    const struct fsolve_opts *, struct fsolve *);
void	fsolve_free(struct fsolve *);
struct fsolve_model *fsolve_add_model(struct fsolve *, const char *,
	    const char *, size_t);

#endif
