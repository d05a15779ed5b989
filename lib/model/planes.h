/*
 * planes: a fabric's descriptions expanded into numbered planes on N
 * GPUs, what the simulator and the schedulers work on.
 *
 * planes_expand() numbers the planes as fabric.h says (descriptions in
 * order; within one, its units, groups or local ranks, in order, then
 * its count) and fills one struct plane each: kind, rate, latency, an
 * OCS's delay, model and radix, an EPS's oversubscription, and its
 * ports.  Ports are numbered within a plane: all, g; group:K, g mod K;
 * rail:K, g / K; gpus, g's place in the list; uplink:K:U, group x U + j
 * for the group's j-th uplink, which every GPU of the group reaches.
 * The fabric must have passed fabric_check() on the same N.  Returns
 * 0, or -1 out of memory; the struct owns its array (planes_free()).
 *
 * planes_unit() gives the unit (group, rank, else 0) of description d
 * whose planes join GPUs g and h, or -1 when none does (an uplink
 * description joins GPUs of different groups only: within one, the
 * group's own fabric carries them).  planes_joining() writes the planes that join GPUs g and h, in order,
 * into out (at most max) and returns how many there are (which may be
 * more than max); planes_route() gives the description that carries a
 * transfer from g to h when no plan chooses its plane (the ideal fabric,
 * a schedule of circuits alone): the first eps description joining
 * them, else the first ocs one, and its unit in *unit; -1 when none
 * joins them.  planes_port() gives g's port on plane p, or -1 when g
 * has none (an uplink plane: the first of its group's ports).  Both
 * cost the number of descriptions, not of planes.
 */
#ifndef PLANES_H
#define PLANES_H

#include <stddef.h>
#include <stdint.h>

#include "model/fabric.h"

struct plane {
	int		 kind;		/* enum plane_kind */
	uint32_t	 desc;		/* its description in the fabric */
	uint32_t	 unit;		/* group or local rank, else 0 */
	uint32_t	 ports;
	uint64_t	 rate_bps;
	uint64_t	 latency_ps;
	uint64_t	 reconfig_ps;	/* ocs */
	int		 model;		/* ocs: enum net_model */
	uint32_t	 over_num;	/* eps */
	uint32_t	 over_den;
};

struct planes {
	const struct fabric *fab;	/* not owned */
	uint32_t	 gpus;
	struct plane	*p;
	size_t		 n;
	size_t		*base;		/* first plane of each description */
};

int	planes_expand(struct planes *, const struct fabric *, uint32_t);
void	planes_free(struct planes *);
int64_t	planes_unit(const struct plane_desc *, uint32_t, uint32_t);
int64_t	planes_route(const struct fabric *, uint32_t, uint32_t, uint32_t *);
size_t	planes_joining(const struct planes *, uint32_t, uint32_t,
	    uint32_t *, size_t);
uint64_t planes_pair_bps(const struct planes *, uint32_t, uint32_t,
	    uint64_t *);
uint64_t planes_gpu_bps(const struct planes *, uint32_t);
int64_t	planes_port(const struct planes *, size_t, uint32_t);

#endif
