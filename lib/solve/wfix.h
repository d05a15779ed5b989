/*
 * wfix: the tail of a schedule as a problem whose boundary is fixed,
 * to improve the schedule by solving it again.
 *
 * wfix_threshold() is the start of the k-th last transfer of schedule g
 * (by start, ties by id); 0 when g has k transfers or fewer.
 *
 * wfix_tail() makes the problem of the tasks of g (a schedule of DAG d
 * on net n) that start at or after T: every one of them, transfers and
 * computes, in id order (fptask.id is the task in d).  The tasks before
 * T are fixed: they give releases (the latest end of a task's fixed
 * predecessors, and for a compute the end of its GPU's last fixed
 * compute), the problem's lb (the latest end of a fixed task), and the
 * state of every port a kept transfer uses (fmodel.h's struct fpport:
 * the partner of its latest use, the ends of its sends, its receives
 * and its uses, none earlier than the start of its latest use).  Arcs
 * are the dependencies among kept tasks and each GPU's compute order,
 * all with lag 0; tails are 0, so the problem's objective is the
 * makespan of the whole schedule.  horizon is g's makespan.  Returns
 * the number of tasks kept, or -1 when memory runs out.
 *
 * wfix_splice() puts the kept tasks at a solution's switches and starts
 * (sw[], start[], per task of p) and the fixed ones where g has them,
 * and replays the whole DAG in that order (place.h) into out: a valid
 * schedule, whose makespan is at most the solution's objective when
 * the solution keeps the rules with the fixed part.  Under the switch
 * model the times are taken as they are (place_fixed()), and the
 * caller checks the schedule.  Returns 0, -1 when memory runs out, -2
 * when the times break the switch model; free out with greedy_free().
 */
#ifndef WFIX_H
#define WFIX_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/fmodel.h"
#include "solve/greedy.h"

uint64_t	wfix_threshold(const struct dag *, const struct greedy *,
		    size_t);
long		wfix_tail(const struct dag *, const struct net *,
		    const struct greedy *, uint64_t, struct fprob *);
int		wfix_splice(const struct dag *, const struct net *,
		    const struct greedy *, const struct fprob *,
		    const uint32_t *, const uint64_t *, struct greedy *);

#endif
