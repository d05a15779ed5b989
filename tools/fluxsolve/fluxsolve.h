/*
 * fluxsolve.h: the parts of fluxsolve(1) in files of their own.
 *
 * planes_solve() is fluxsolve on a tiered fabric (the stream's net has
 * planes): the greedy of lib/solve/fabgreedy, bounded below by
 * fabbound_planes(); it writes the schedule, its circuits and plans and
 * the solve record (status "optimal" only when the plan's makespan
 * equals the bound) and exits on what it cannot do (-m exact, models
 * to write: the window search and the MILP do not plan planes yet).
 * seconds is wall-clock time since t0.
 */
#ifndef FLUXSOLVE_H
#define FLUXSOLVE_H

#include "model/dagin.h"
#include "records/stream.h"
#include "solve/fsolve.h"

void	planes_solve(struct dagin *, const struct fsolve_opts *,
	    struct stream_writer *, double);

#endif
