/*
 * simskip: whole periods of a periodic schedule, skipped in closed form.
 *
 * Under a periodic schedule a run can spend any number of periods in
 * which only circuits come and go: a compute runs, a transfer crawls
 * over circuits that recur every period, or a plan waits for its start.
 * simskip watches windows one period long.  When two windows in a row
 * hold no event but circuits going up and down (no transfer starts or
 * ends, no compute, delivery or plan), the state at the end of the
 * second equals the state at its start except for the work each
 * transfer did, and every later period repeats it; simskip then moves
 * the run on by the most whole periods in which that stays so: until
 * the earliest compute end, delivery or planned start, or until a
 * transfer has at most one period's work left.  Circuit times, circuit
 * statistics and the work of each transfer advance by that many
 * periods exactly, so the run's results are those of simulating every
 * period; the events count adds the circuit events of the periods
 * skipped.  Work and memory then follow the input, not its numbers.
 *
 * simskip_init() is a no-op (and simskip_boundary() returns at once)
 * unless the run has a periodic schedule with circuits.  Errors (out
 * of memory, a statistic past 2^64-1) go through sim_fail().
 */
#ifndef SIMSKIP_H
#define SIMSKIP_H

#include <stdint.h>

struct sim;

int	simskip_init(struct sim *);
int	simskip_boundary(struct sim *, uint64_t);
void	simskip_free(struct sim *);

#endif
