/*
 * fabepoch: the circuits of ocs planes under the switch model for a
 * list scheduler on planes (fabgreedy.h): a plane's time is cut into
 * epochs, each one matching of its ports, a new one up tau after every
 * circuit of the last has gone down (BRIEF section 2; a change darkens
 * the whole plane).
 *
 * fabepoch_init() keeps a state for the n planes whose first ports are
 * numbered off[p] (fabcand.h), of nports ports in all; every plane
 * starts in an empty epoch at time 0 (a port's first circuit is free).
 * fabepoch_at() says when the circuit {x, y} of plane p can carry a
 * transfer placed now and how: FABEPOCH_UP, it is in the epoch;
 * FABEPOCH_ADD, both ports are free in the epoch, which takes it from
 * its start; FABEPOCH_NEW, a new epoch, tau after the last one's
 * circuits end.  fabepoch_commit() makes it so for a transfer that ends
 * at end: on FABEPOCH_NEW it ends the epoch's circuits in schedule sc
 * (each after its last transfer) and opens the next at up; it adds a
 * new circuit to sc, from the epoch's start, open ended.  Transfers
 * must be committed in the order they are placed, each starting no
 * earlier than what fabepoch_at() said.  Functions returning int give
 * 0, or -1 out of memory; fabepoch_free() releases the state.
 */
#ifndef FABEPOCH_H
#define FABEPOCH_H

#include <stddef.h>
#include <stdint.h>

#include "model/planes.h"
#include "model/sched.h"

enum { FABEPOCH_UP, FABEPOCH_ADD, FABEPOCH_NEW };

struct fabepoch_plane {
	uint64_t	 start;		/* the epoch's circuits up from */
	uint64_t	 last;		/* its circuits' latest end so far */
	uint32_t	 ep;		/* its number */
	uint32_t	*open;		/* its circuits in the schedule */
	uint64_t	*lend;		/* and their last transfers' ends */
	size_t		 nopen, cap;
};

struct fabepochs {
	const struct planes	*pl;	/* not owned */
	const size_t		*off;	/* not owned */
	struct fabepoch_plane	*p;
	uint32_t		*partner;	/* per port, in epoch pep */
	uint32_t		*pep;
	uint32_t		*circ;		/* its circuit's open index */
};

int	fabepoch_init(struct fabepochs *, const struct planes *,
	    const size_t *, size_t);
uint64_t fabepoch_at(const struct fabepochs *, size_t, uint32_t, uint32_t,
	    int *);
int	fabepoch_commit(struct fabepochs *, struct schedule *, size_t,
	    uint32_t, uint32_t, int, uint64_t, uint64_t);
void	fabepoch_free(struct fabepochs *);

#endif
