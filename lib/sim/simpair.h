/*
 * simpair: how a pair's bytes are served over its circuits, a part of
 * the simulator in a file of its own; only sim.c and simcirc.c include
 * it.  The pairs, segments, flows and plan
 * queues are the struct sim's (simstate.h); sim.c makes segments and
 * flows (sim_seg_new(), sim_flow_new()) and sets rates; out of memory
 * goes through sim_fail().
 *
 * A pair (src, dst) sends its unplanned bytes one segment at a time, on
 * one flow at B per circuit up and not running a planned flow: the
 * bytes it holds as a relay first, then its own queue in arrival order,
 * then (two-hop, rotorsched -f vlb) bytes of src for another GPU
 * offered to dst as a relay.  Its planned transfers wait in one queue
 * per switch, in plan order, each sent whole at B on that switch once
 * ready and not before its planned start.
 *
 * simpair_queue()  an unplanned transfer t became ready: its amount
 *                  bytes join pair pi's queue, which is served.
 * simpair_relay()  segment sg reached GPU at, a relay: held for its
 *                  destination and served.
 * simpair_serve()  start pair pi's next unplanned segment, if it has a
 *                  circuit free and no flow.
 * sim_plan_try()   the head of pi's plan queue on switch sw starts, or
 *                  waits for its start (an EV_PLAN).
 * sim_pair_update()  after a change of pi's circuits: its unplanned
 *                  flow re-rated, or its queue served.
 */
#ifndef SIMPAIR_H
#define SIMPAIR_H

#include <stdint.h>

struct sim;

void	simpair_queue(struct sim *, uint32_t, uint32_t, uint64_t);
void	simpair_relay(struct sim *, uint32_t, uint32_t);
void	simpair_serve(struct sim *, uint32_t);
void	sim_plan_try(struct sim *, uint32_t, uint32_t);
void	sim_pair_update(struct sim *, uint32_t);

#endif
