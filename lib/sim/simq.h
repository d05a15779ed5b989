/*
 * simq: the event queue of a run of sim_run() (s->h, a heap of
 * (time, seq, event)), where events pushed one right after another for
 * the same time share one item of the heap; a part of sim.c, on struct
 * sim (simstate.h).
 *
 * On the ideal fabric a re-sharing gives hundreds of flows the same end
 * time at once, pushed with consecutive sequence numbers.  No other item
 * can fall between two consecutive numbers of s->seq (the numbers given
 * out of turn, simstate.h's SEQ_*, and simfeed's, are skipped by it),
 * so such a run can wait in the heap as its first item, and give its
 * events one by one when it comes to the top: items come out exactly as
 * if each had been pushed alone, at a fraction of the heap's work.
 *
 * Runs form under Flux's schedules and periodic ones too.
 *
 * simq_push() queues (t, seq, val); chain says that seq is the next of
 * s->seq, so the item may join the run of the push just before it.  Runs
 * are kept only when s->runs_on is set.  It returns 0, or -1 when
 * memory runs out.  simq_pop() takes the least event into *out and
 * returns 1, or 0 when the queue is empty.  heap_peek(&s->h) gives the
 * time and sequence number of the least event (a run's item carries its
 * next event's), not its val.  simq_flatten() turns every run back into
 * items of their own, for a reader of the heap's items (simskip, under
 * a periodic schedule, reads and rewrites them); it returns 0, or -1
 * when memory runs out.  simq_len() is the number of events queued, as
 * many as the heap would hold without runs.  simq_free() frees the runs;
 * heap_free() the heap.
 */
#ifndef SIMQ_H
#define SIMQ_H

#include <stddef.h>
#include <stdint.h>

#include "records/heap.h"

struct sim;

int	simq_push(struct sim *, uint64_t, uint64_t, uint64_t, int);
int	simq_pop(struct sim *, struct heap_item *);
int	simq_flatten(struct sim *);
size_t	simq_len(const struct sim *);
void	simq_free(struct sim *);

#endif
