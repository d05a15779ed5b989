/*
 * fabgreedy: Flux's greedy list scheduler on the planes of a tiered
 * fabric (BRIEF section 2b), a plan that lib/sim/fabsim replays
 * exactly.
 *
 * Tasks are taken in order of the time they can start (ties by id): a
 * GPU's computes run in task order, each as soon as it is ready; a
 * transfer, taken at the time it became ready, is put back at the time
 * it could start if that is later (at most 4 times, then placed), so
 * that transfers that can run now go before those that wait (earliest
 * start first: the ports of a ring step pair up at once, not one after
 * another).  A
 * transfer from g to h goes on the plane joining them (model/planes)
 * where it ends first (ties: the lowest plane), atomic, at the plane's
 * rate (an uplink's no faster than the GPUs' links into their groups;
 * fabcand.h says how a transfer sits on a plane):
 *   - it holds its ports' send and receive sides alone while it runs
 *     (an uplink's: its group's side of the plane, and the GPUs' ports
 *     on their group planes), so no two flows of the plan share a link
 *     and the simulator's max-min sharing gives each the rate planned;
 *   - an oversubscribed eps plane runs at most ports x den / num flows
 *     at once (at least one), so its core never binds;
 *   - on an ocs plane it needs the circuit of its two ports: kept while
 *     it stands, or made anew, the ports' old circuits taken down after
 *     their last transfer and the new one up tau later (the port model;
 *     a port's first circuit is there from time 0); under the switch
 *     model, in the plane's epoch when its circuit is there or both
 *     ports are free in it, else in a new epoch, tau after the last
 *     one's circuits end (fabepoch.h).
 * Eps planes need no circuit and pay no tau.
 *
 * fabgreedy_place() is the same list scheduler guided: tasks are taken
 * in the order of key (per task, ties by id; a task's key no less than
 * its dependencies'), each computes as soon as it is ready, and each
 * transfer is placed at once on the plane given (plane, per task; NULL:
 * where it ends first), as early as the tasks placed before it allow.
 * Given the starts and planes of a valid plan as keys, it moves no task
 * later (fabmodel.h's solutions are placed so).  When start is not
 * NULL, the start of every task is written there.  A NULL guide, or one
 * without key, is the greedy (start still written when asked).
 *
 * fabgreedy_run() appends the circuits and the plans (task, plane,
 * start) to sc, a one-shot direct schedule (the caller's, initialised),
 * and writes the makespan in *makespan.  It refuses what it cannot plan
 * so (an ocs uplink plane with more
 * than one port per group) and returns -1 with a message in the
 * caller's buffer, as out of memory; else 0.  Work is O(t log t + d + t
 * x p) for t tasks, d dependencies and p planes joining a pair (each
 * transfer is looked at 5 times at most).
 */
#ifndef FABGREEDY_H
#define FABGREEDY_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/planes.h"
#include "model/sched.h"

struct fabguide {
	const uint64_t	*key;		/* per task, or NULL: the greedy */
	const uint32_t	*plane;		/* per task (transfers), or NULL */
	uint64_t	*start;		/* per task, written, or NULL */
};

int	fabgreedy_place(const struct dag *, const struct planes *,
	    const struct fabguide *, struct schedule *, uint64_t *, char *,
	    size_t);
int	fabgreedy_run(const struct dag *, const struct planes *,
	    struct schedule *, uint64_t *, char *, size_t);

#endif
