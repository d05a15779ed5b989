/*
 * rotorsched -m static's parts.  rotorsched_static.c chooses a unit's
 * configuration and finds the relays' paths; rotorsched_relay.c makes
 * the units of a net or fabric, the schedule's circuits and the DAG
 * with the relays in it; rotorsched_out.c writes the stream again with
 * that DAG.
 *
 * A unit: owners 0..owners-1 and nv matchings of them, mate[v * owners
 * + o] the partner of o in matching v or UINT32_MAX; nopath when no
 * transfer is relayed (an eps plane carries those without a circuit),
 * so that step 1 is left out.  st_choose()
 * fills mate (allocated, st_free() frees it) from the unit's pairs
 * with traffic, e[0..ne) among owners, which it reorders (heaviest
 * first on return).  st_direct() says whether a and b share a circuit;
 * st_tree() sets parent[o] for a breadth-first tree of the circuits
 * from a (a's is a, UINT32_MAX where it does not reach), queue a
 * scratch of owners entries.  Each dies (die()) when memory runs out.
 *
 * A plan (st_plan(), freed by st_plan_free()) holds the units of the
 * input's net or fabric and the relays found so far; phase, when not
 * NULL, gives each task a phase (any value for a task no unit
 * carries).  st_config() chooses the configuration of phase k (of
 * every transfer when phase is NULL) from the transfers of that phase
 * alone, adds its circuits to sc, up from 0 for ever, finds the relays
 * of those transfers over them, and returns how many need relays.
 * st_uses_ocs() says whether a unit carries transfer t (else an eps
 * plane carries it whole).  st_relay() makes the DAG with every relay
 * found in *out, the input task each task of it came from in *from
 * (malloc'd, the caller's), and returns the number of transfers
 * relayed (0: none, *out and *from untouched).  Each dies with a
 * message when a pair with traffic cannot be joined over circuits.
 * static_schedule() is the whole static schedule so; where an eps
 * plane joins the GPUs of a transfer that an ocs unit joins too, the
 * transfer goes over a circuit of its GPUs if the choice gives it one,
 * else over the eps plane, not relayed, and the schedule says
 * circuits_first (sched.h).
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
	int		 nopath;	/* no relays: no path to build */
};

void	st_choose(struct st_unit *, struct tm_edge *, size_t);
int	st_direct(const struct st_unit *, uint32_t, uint32_t);
void	st_tree(const struct st_unit *, uint32_t, uint32_t, uint32_t *,
	    uint32_t *, uint32_t *);
void	st_free(struct st_unit *);

struct st_plan;

struct st_plan	*st_plan(const struct dagin *, const uint32_t *);
size_t		 st_config(struct st_plan *, uint32_t, struct schedule *);
int		 st_uses_ocs(const struct st_plan *, size_t);
int64_t		 st_relay(struct st_plan *, struct dag *, uint32_t **);
void		 st_plan_free(struct st_plan *);
int64_t		 static_schedule(struct schedule *, const struct dagin *,
		    struct dag *, uint32_t **);
void	static_write(struct stream_writer *, FILE *, const struct dag *,
	    const uint32_t *);

#endif
