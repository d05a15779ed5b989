/*
 * rotorsched -m static's parts.  rotorsched_static.c chooses a unit's
 * configuration and finds the relays' paths; rotorsched_relay.c makes
 * the units of a net or fabric, the schedule's circuits and the DAG
 * with the relays in it; rotorsched_out.c writes the stream again with
 * that DAG.
 *
 * A unit: owners 0..owners-1 and nv matchings of them, mate[v * owners
 * + o] the partner of o in matching v or UINT32_MAX.  st_choose()
 * fills mate (allocated, st_free() frees it) from the unit's pairs
 * with traffic, e[0..ne) among owners, which it reorders (heaviest
 * first on return).  st_direct() says whether a and b share a circuit;
 * st_tree() sets parent[o] for a breadth-first tree of the circuits
 * from a (a's is a, UINT32_MAX where it does not reach), queue a
 * scratch of owners entries.  Each dies (die()) when memory runs out.
 *
 * static_schedule() makes the whole static schedule of the input: its
 * circuits, up from 0 for ever, in sc, and, when some transfer is
 * relayed, the DAG with its hops in *out and the input task each task
 * of it came from in *from (malloc'd, the caller's); it returns the
 * number of transfers relayed (0: *out and *from untouched).  It dies
 * with a message when a pair with traffic cannot be joined over
 * circuits at all.
 *
 * static_write() writes the stream read (the records kept in fp, from
 * where it stands, as the reader passed them) to w with the DAG
 * replaced by out, or as it was when out is NULL:
 * every other record as it was, each task record with its keys kept
 * but for id, deps, src and dst, a relayed one once per hop.  It dies
 * on a record it cannot read again.
 */
#ifndef ROTORSCHED_STATIC_H
#define ROTORSCHED_STATIC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/sched.h"
#include "records/stream.h"
#include "rotorsched.h"

struct st_unit {
	uint32_t	 owners;
	uint32_t	 nv;
	uint32_t	*mate;
};

void	st_choose(struct st_unit *, struct tm_edge *, size_t);
int	st_direct(const struct st_unit *, uint32_t, uint32_t);
void	st_tree(const struct st_unit *, uint32_t, uint32_t, uint32_t *,
	    uint32_t *, uint32_t *);
void	st_free(struct st_unit *);

int64_t	static_schedule(struct schedule *, const struct dagin *,
	    struct dag *, uint32_t **);
void	static_write(struct stream_writer *, FILE *, const struct dag *,
	    const uint32_t *);

#endif
