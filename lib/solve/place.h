/*
 * place: a Flux schedule in exact integer time from decisions.
 *
 * Given a switch for every transfer and a key per task (smaller goes
 * first: a solver's start times, say), place_run() takes the tasks in
 * key order among those whose dependencies are placed (ties by id) and
 * starts each as early as it can: after its dependencies, after its
 * GPU's previous compute task, and on its switch after every transfer
 * already placed there that shares a GPU with it: tau after one with
 * another partner, right after one on the same directed pair, and
 * beside one in the other direction (a circuit is duplex).  Then it
 * derives the circuits: a circuit per run of uses of one pair with no
 * other use of either port in between.
 *
 * With the decisions and order of any feasible schedule, every task
 * starts no later than there: the makespan is at most that schedule's.
 * The result goes into a struct greedy (greedy.h); free it with
 * greedy_free().  sw[] is indexed by task (compute tasks: ignored) and
 * must name existing switches.  Returns 0, or -1 when memory runs out.
 *
 * place_fixed() takes the times too: start[] per task, a schedule
 * already feasible (the search's, say), and derives its plans and
 * circuits as they are, for either reconfiguration model; under the
 * switch model the circuits come in epochs, each change dark for tau
 * on its whole switch, split wherever the times allow one (if any
 * split of the uses into epochs fits the times, one is found).
 * Returns 0, -1 when memory runs out, -2 when no split fits the
 * times; the caller checks the rest
 * (sched.h's sched_check()).
 */
#ifndef PLACE_H
#define PLACE_H

#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/greedy.h"

int	place_run(const struct dag *, const struct net *, const uint32_t *,
	    const double *, struct greedy *);
int	place_fixed(const struct dag *, const struct net *, const uint32_t *,
	    const uint64_t *, struct greedy *);

#endif
