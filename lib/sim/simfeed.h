/*
 * simfeed: the circuits of a schedule without a period, fed to the
 * event queue of a run of sim_run() as time reaches them, instead of
 * all at its start; part of sim.c, on struct sim (simstate.h).
 *
 * A Flux schedule has about a circuit per planned transfer: queued
 * whole, they made the queue millions of events deep, and every pop
 * paid for that depth.  simfeed keeps them in an array by (from,
 * circuit index) and pushes each, with the sequence number it would have
 * had if pushed at the start (first + its index), just before the queue
 * could give an event after it.  Items come out of the queue in exactly
 * the order they did when all were pushed at the start.
 *
 * simfeed_init() takes the schedule's circuits (s->sc) and numbers them
 * from s->seq on, which it moves past them; it returns 0, or -1 with
 * sim_fail() called when memory runs out.  simfeed_top() pushes what
 * must be in the queue by now and returns its least item, or NULL when
 * the queue and the feed are both empty.  simfeed_free() frees it all;
 * a sim without a feed (s->feed NULL) is left alone by all three but
 * simfeed_top(), which then only peeks.
 */
#ifndef SIMFEED_H
#define SIMFEED_H

#include "records/heap.h"

struct sim;

int	simfeed_init(struct sim *);
const struct heap_item *simfeed_top(struct sim *);
void	simfeed_free(struct sim *);

#endif
