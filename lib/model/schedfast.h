/*
 * schedfast: plan and circuit records (fluxocs(5)) read from and
 * written to their bytes directly, without msgpack-c's object tree or
 * its packer.
 *
 * schedfast_read_plan() and schedfast_read_circuit() read the record
 * behind r into the schedule when each key they know is an unsigned
 * integer, there once, and the record passes every check of
 * sched_read_plan() (the schedule's plan_check too) or
 * sched_read_circuit(); they return 0 then, with
 * the same plan or circuit as those readers.  For anything else they
 * return 1 with the schedule unchanged, and the callers read the
 * record through the tree, with the usual results and messages.
 *
 * schedfast_run() reads the plan and circuit records laid out as
 * schedfast_write_plan() and schedfast_write_circuit() lay them out
 * from the start of the n bytes at p (a stream's buffer,
 * stream_peek()), one after another, checking every byte of each, the
 * stream's limits and every check of those readers, and adds each plan
 * or circuit as they would.  It stops at the first record it does not
 * take so (any other record or layout, one cut short by the end of the
 * bytes, a check that fails), which leaves the schedule as it was, sets
 * *len to the size of the records it took and returns how many: 0, *len
 * 0, when it took none.  The caller vouches for them to the stream
 * with stream_accept().
 *
 * schedfast_write_plan() and schedfast_write_circuit() encode in the
 * writer's buffer the bytes sched_write_plan() and sched_write_circuit()
 * pack through msgpack-c (same keys, order and encodings).
 */
#ifndef SCHEDFAST_H
#define SCHEDFAST_H

#include <stddef.h>
#include <stdint.h>

#include "model/net.h"
#include "model/sched.h"
#include "records/rec.h"
#include "records/stream.h"

int	schedfast_read_plan(const struct rec *, struct schedule *,
	    const struct net *);
int	schedfast_read_circuit(const struct rec *, struct schedule *,
	    const struct net *);
size_t	schedfast_run(const uint8_t *, size_t,
	    const struct stream_limits *, struct schedule *,
	    const struct net *, size_t *);
void	schedfast_write_plan(struct stream_writer *, const struct plan *);
void	schedfast_write_circuit(struct stream_writer *,
	    const struct circuit *);

#endif
