/*
 * fluxsolve.h: the parts of fluxsolve(1) in files of their own.
 *
 * planes_solve() is fluxsolve on a tiered fabric (the stream's net has
 * planes): the greedy of lib/solve/fabgreedy, bounded below by
 * fabbound_planes(); then, with -m exact, the exact model of the whole
 * DAG on planes (lib/solve/fabmodel, refused above --max-binaries),
 * and with -m flux the same when it has at most 400 binaries (no
 * windows on planes yet), within the time limit; a solution is placed
 * by fabgreedy_place() and kept when shorter, a proven bound raises
 * the bound.  It writes the schedule, its circuits and plans and the
 * solve record (status "optimal" only when the plan's makespan equals
 * the bound) and exits on what it cannot do.  seconds is wall-clock
 * time since t0.
 *
 * fluxsolve_write_solve() writes the solve record of fs.
 */
#ifndef FLUXSOLVE_H
#define FLUXSOLVE_H

#include "model/dagin.h"
#include "records/stream.h"
#include "solve/fsolve.h"

void	fluxsolve_write_solve(msgpack_packer *, const struct fsolve_opts *,
	    const struct fsolve *);
void	planes_solve(struct dagin *, const struct fsolve_opts *,
	    struct stream_writer *, double);

#endif
