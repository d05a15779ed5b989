/*
 * simideal: the ideal fabric of sim_run() (sim.h, SIM_IDEAL), a part of
 * the simulator in a file of its own; only sim.c includes it.
 *
 * Each GPU sends and receives up to S*B in all, and the live flows
 * share it max-min fairly by progressive filling, rates in whole bit/s.
 * simideal_add() takes a new flow onto its two ports (its source's
 * sending side and its destination's receiving side): alone on both it
 * gets S*B at once, else both ports are marked for re-sharing.
 * simideal_remove() takes an ended flow off its ports and marks them.
 * simideal_rebalance() re-shares, all at once, every group of flows
 * joined through the ports marked at this instant (sim.c calls it
 * before time moves on), and sets the rates that changed through
 * sim_flow_rate().  The arrays are the struct sim's (simstate.h); out of
 * memory goes through sim_fail().
 */
#ifndef SIMIDEAL_H
#define SIMIDEAL_H

#include <stdint.h>

struct sim;

void	simideal_add(struct sim *, uint32_t);
void	simideal_remove(struct sim *, uint32_t);
void	simideal_rebalance(struct sim *);

#endif
