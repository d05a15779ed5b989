/*
 * fabcand: how a transfer sits on one plane of a tiered fabric under
 * Flux's atomic model (BRIEF section 2b), shared by the planners on
 * planes (fabgreedy.h, fabmodel.h) so that they agree to the
 * picosecond.
 *
 * A transfer from GPU g to GPU h on plane p holds, alone while it runs:
 * the sending side of its source port x and the receiving side of its
 * destination port y on p (an uplink plane's ports are its groups':
 * group x U, the group's first); on an uplink, also the sending side of
 * g's port on the first plane of its group's fabric (the group:K
 * description of the same K) and the receiving side of h's, when there
 * is one; on an eps plane whose core is oversubscribed, one of its
 * slots (ports x den / num flows at once, at least one, at most its
 * ports).  It runs at the plane's rate (an eps uplink's times U, no
 * more than an oversubscribed core, an uplink's no more than its GPUs'
 * group links), for ceil(bytes x 8 / rate) ps, and ends the plane's
 * latency later.  On an ocs plane it needs the circuit {x, y}.
 *
 * fabcand_init() checks that the planners take the fabric (one port a
 * group on an ocs uplink) and
 * numbers every port of every plane (off[p] + port); it returns 0, or
 * -1 with a message in the caller's buffer (also when memory runs
 * out).  fabcand_on() fills c for the transfer of bytes from g to h on
 * plane p, which must join them (planes_joining()).  fabcand_free()
 * releases what init took, and is safe after a failure.
 */
#ifndef FABCAND_H
#define FABCAND_H

#include <stddef.h>
#include <stdint.h>

#include "model/planes.h"

#define FABCAND_NONE	UINT32_MAX

struct fabcand_ctx {
	const struct planes *pl;	/* not owned */
	size_t		*off;		/* per plane: its first port's number */
	uint32_t	*nslot;		/* per plane: 0 (no limit), or slots */
	uint32_t	*gdesc;		/* per description: an uplink's group
					   description, or FABCAND_NONE */
};

struct fabcand {
	uint32_t	 plane, x, y;	/* the plane and its ports */
	uint32_t	 gp, gq, gx, gy;	/* uplink: group planes, ports;
					   gp FABCAND_NONE: none */
	uint64_t	 dur;		/* ps it holds what it holds */
	uint64_t	 lat;		/* ps from its last byte to its end */
};

int	fabcand_init(struct fabcand_ctx *, const struct planes *, char *,
	    size_t);
void	fabcand_on(const struct fabcand_ctx *, size_t, uint32_t, uint32_t,
	    uint64_t, struct fabcand *);
void	fabcand_free(struct fabcand_ctx *);

#endif
