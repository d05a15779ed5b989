/*
 * simcirc: the circuits of a schedule in a run of sim_run(): up and
 * down, with what each change does to the pairs it joins (their plan
 * queues tried, their unplanned flows re-rated or served), and the
 * events that bring them.  One of sim.c's parts: it works on the run's
 * state (simstate.h) and nothing outside the simulator calls it.
 *
 * simcirc_event() handles an EV_UP or EV_DOWN of circuit ci at s->now:
 * slot by slot (simslot.h) an up goes to simslot_fire(); under replay
 * (simctl.h) the controller says what comes next; otherwise the
 * schedule does, a periodic one queueing the circuit's next instance.
 * A circuit event past 2^64-1 ps is not queued and marks the run as
 * clipped, for the deadlock report.
 *
 * sim_circuit_up() brings circuit ci up now, to go down at until, and
 * serves its pairs; sim_circuit_on() counts it as up since at, a time
 * not after now, without serving anything (the caller does).  Errors
 * go through sim_fail(); none of these returns one.
 */
#ifndef SIMCIRC_H
#define SIMCIRC_H

#include <stdint.h>

struct sim;

void	simcirc_event(struct sim *, int, uint32_t);
void	sim_circuit_up(struct sim *, uint32_t, uint64_t);
void	sim_circuit_on(struct sim *, uint32_t, uint64_t, uint64_t);

#endif
