/*
 * schedfast: plan and circuit records (fluxocs(5)) read from and
 * written to their bytes directly, without msgpack-c's object tree or
 * its packer.
 *
 * schedfast_read_plan() and schedfast_read_circuit() read the record
 * behind r into the schedule when each key they know is an unsigned
 * integer, there once, and the record passes every check of
 * sched_read_plan() or sched_read_circuit(); they return 0 then, with
 * the same plan or circuit as those readers.  For anything else they
 * return 1 with the schedule unchanged, and the callers read the
 * record through the tree, with the usual results and messages.
 *
 * schedfast_quick() reads a plan or circuit record laid out as
 * schedfast_write_plan() or schedfast_write_circuit() lays it out from
 * the start of the n bytes at p (a stream's buffer, stream_peek()),
 * checking every byte, the stream's limits and every check of those
 * readers: then it adds the plan or circuit as they would, sets *len to
 * the record's size and returns 0.  For anything else, a record cut
 * short by the end of the bytes too, it returns -1 with the schedule
 * unchanged.  The caller vouches for the record with stream_accept().
 *
 * schedfast_write_plan() and schedfast_write_circuit() encode in the
 * writer's buffer the bytes sched_write_plan() and sched_write_circuit()
 * pack through msgpack-c (same keys, order and encodings).
 */
#ifndef SCHEDFAST_H
#define SCHEDFAST_H

#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "rec.h"
#include "sched.h"
#include "stream.h"

int	schedfast_read_plan(const struct rec *, struct schedule *,
	    const struct net *);
int	schedfast_read_circuit(const struct rec *, struct schedule *,
	    const struct net *);
int	schedfast_quick(const uint8_t *, size_t,
	    const struct stream_limits *, struct schedule *,
	    const struct net *, size_t *);
void	schedfast_write_plan(struct stream_writer *, const struct plan *);
void	schedfast_write_circuit(struct stream_writer *,
	    const struct circuit *);

#endif
