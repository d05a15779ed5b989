/*
 * lbound: a lower bound on the makespan of every Flux schedule from
 * the ports of each GPU, over every tail of its transfers.
 *
 * For a GPU g and a time T, take the transfers touching g whose
 * earliest start (head, circuits free) is at least T.  They all start
 * at T or later and go through g's S ports, one per switch.  A port is
 * busy with a circuit for at least the larger of what it sends and
 * receives over it, so a partner q weighs max(bytes' time to q, bytes'
 * time from q); a port's second circuit needs a change of partner, tau
 * of dark time after its first, so p partners need p - S changes at
 * least (a port's first circuit may be one it already had).  The last
 * of them to leave the ports does so at T + (work + changes * tau) / S
 * at the earliest, and the shortest path after any of them follows.
 * The same holds for the sends alone and the receives alone.  The
 * bound is the largest over every GPU, direction and T (the heads of
 * its transfers); it holds under both reconfiguration models, as the
 * switch model only adds constraints.
 *
 * lbound_ports() takes head and bl from greedy_levels() and returns
 * the bound (0 for a DAG without transfers) in *out, or -1 when memory
 * runs out.  Work is O(t log t) for t transfers; sums are exact (they
 * are below the DAG's total time, which greedy_levels() keeps below
 * 2^64).
 */
#ifndef LBOUND_H
#define LBOUND_H

#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"

int	lbound_ports(const struct dag *, const struct net *, const uint64_t *,
	    const uint64_t *, uint64_t *);

#endif
