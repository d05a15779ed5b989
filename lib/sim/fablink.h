/*
 * fablink: the links of a tiered fabric's simulation (sim/fabsim.h),
 * and their max-min fair sharing.
 *
 * A link is named by a key (fablink_key(): its kind, a plane or a
 * description, and two numbers: a port, a GPU, a group, a unit); its
 * capacity is unit_cap x units bit/s (units: the circuits up on a
 * circuit's direction, else 1).  fablinks_get() finds a link by its key
 * or makes it with the figures given, and returns its index, or -1 out
 * of memory.  A flow crosses at most FABLINK_MAX links; fablinks_add()
 * and fablinks_del() enter it into and take it out of their lists
 * (add returns -1 out of memory).  fablinks_share() gives every flow
 * entered its max-min fair rate in whole bit/s (progressive filling:
 * the links of least fair share, in turn, fix the rates of their
 * flows), in newrate.  Work is the links that hold flows and the
 * flows' links, for each distinct level of share.  The struct owns its
 * arrays; fablinks_free() releases them.
 */
#ifndef FABLINK_H
#define FABLINK_H

#include <stddef.h>
#include <stdint.h>

#define FABLINK_MAX	6

enum fablink_kind { FL_SEND, FL_RECV, FL_CORE, FL_CIRC, FL_DSEND, FL_DRECV,
	FL_DCORE };

struct fabflow {
	uint32_t	 link[FABLINK_MAX];
	uint32_t	 pos[FABLINK_MAX];	/* its place in each list */
	uint32_t	 nl;
	int		 frozen;
	uint64_t	 seen;		/* sharing: epoch collected in */
	uint64_t	 newrate;
};

struct fablink {
	uint64_t	 key;
	uint64_t	 unit_cap;
	uint32_t	 units;
	uint32_t	 n, cap;	/* flows entered */
	uint32_t	*f;
	uint32_t	 act;		/* its place among active links */
	uint64_t	 rem;		/* sharing: capacity left */
	uint32_t	 left;		/* sharing: flows not yet fixed */
	uint64_t	 seen;		/* sharing: epoch collected in */
	uint8_t		 dirty;
};

struct fablinks {
	struct fablink	*l;
	size_t		 n, cap;
	uint32_t	*slot;		/* hash: link + 1, or 0 */
	size_t		 nslot;
	uint32_t	*act;		/* links that hold flows */
	size_t		 nact, actcap;
	uint32_t	*dirty;		/* links whose sharing changed */
	size_t		 ndirty, dirtycap;
	uint64_t	 epoch;
	uint32_t	*cl, *cf;	/* sharing: a component's links, flows */
	size_t		 ncl, nclcap, ncf, ncfcap;
};

uint64_t fablink_key(int, uint32_t, uint32_t, uint32_t);
void	fablinks_init(struct fablinks *);
void	fablinks_free(struct fablinks *);
int64_t	fablinks_get(struct fablinks *, uint64_t, uint64_t, uint32_t);
int	fablinks_add(struct fablinks *, struct fabflow *, uint32_t);
int	fablinks_del(struct fablinks *, struct fabflow *, uint32_t);
int	fablinks_touch(struct fablinks *, uint32_t);
int	fablinks_share(struct fablinks *, struct fabflow *);

#endif
