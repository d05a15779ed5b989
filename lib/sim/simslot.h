/*
 * simslot: a periodic schedule simulated slot by slot, bringing up only
 * the circuits that traffic waits for.
 *
 * Under a periodic schedule most circuits, most periods, carry nothing:
 * a circuit matters only while one of its ends has bytes for the other
 * (queued, relayed, planned and ready, or under way) or, under two-hop
 * forwarding, has queued bytes for anyone (it may offer them to a
 * relay).  simslot keeps one "want" per such pair of GPUs (and, two-hop,
 * per GPU): while it holds, a cursor walks the want's circuits in time
 * order, period after period, with one pending circuit-up event; when a
 * want starts in the middle of a slot, the circuits of its list up at
 * that instant come up at once, as they would have been all along.
 * Idle circuits, pairs and slots cost nothing.  The switch statistics
 * (reconfigurations, circuit-up time) and each circuit's first up and
 * last down do not depend on the traffic: simslot_stats() computes them
 * in closed form, counting every circuit instance that comes up at or
 * before the makespan, as simulating every circuit does.  With the
 * canonical order of circuit events (simstate.h) the run's results
 * equal those of simulating every circuit (sim_opts every_circuit)
 * except the events count, which counts the events handled.
 *
 * simslot_init() builds the lists (the caller has checked the schedule:
 * periodic, every circuit within the period); it and simslot_stats()
 * fail through sim_fail() (out of memory, a statistic past 2^64-1).
 * simslot_pair() and simslot_gpu() are called whenever a pair or GPU may
 * have started to want circuits, after the bytes are queued;
 * simslot_fire() handles a want's circuit-up event; simslot_shift()
 * moves the pending wants on by whole periods (simskip.h).
 */
#ifndef SIMSLOT_H
#define SIMSLOT_H

#include <stdint.h>

struct sim;

int	simslot_init(struct sim *);
void	simslot_pair(struct sim *, uint32_t);
void	simslot_gpu(struct sim *, uint32_t);
void	simslot_fire(struct sim *, uint32_t);
void	simslot_shift(struct sim *, uint64_t);
void	simslot_stats(struct sim *);
void	simslot_free(struct sim *);

#endif
