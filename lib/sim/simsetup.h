/*
 * simsetup: the state of one run of sim_run() (struct sim, simstate.h)
 * built from its inputs, and freed; part of sim.c.
 *
 * The caller zeroes the struct sim and fills its inputs (d, net, sc,
 * opt, out, err, the fabric flags, seq) and an empty heap.  simsetup()
 * allocates and fills the rest: out's arrays (start and circuit times
 * all-ones, "never"), the replay controller, the slot lists of a
 * periodic schedule, the fabric, the first circuit events, each task's
 * dependencies, successors and pair, and the plan queues, in (start,
 * task) order.  It returns 0, or -1 with sim_fail() called (out of
 * memory, a total past 2^64-1, a plan for a task that is not a transfer
 * or planned twice).
 *
 * simsetup_free() frees all that simsetup() and the run allocated in
 * the struct sim, whether simsetup() failed or not, but not out: that
 * is the caller's (sim_out_free()).
 */
#ifndef SIMSETUP_H
#define SIMSETUP_H

struct sim;

int	simsetup(struct sim *);
void	simsetup_free(struct sim *);

#endif
