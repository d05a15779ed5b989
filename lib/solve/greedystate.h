/*
 * greedystate: the state of one run of greedy_run(), shared by greedy.c
 * (the list scheduler and the port model's placement) and greedystop.c
 * (the switch model's) only; nothing else includes it.  greedy_run()
 * owns every array.
 *
 * greedystop_place() places transfer t under the switch model (0, or
 * -1 when memory runs out); greedystop_up() sets each circuit's set-up
 * time from its epoch once all are placed; greedystop_free() frees a
 * switch's epochs.
 */
#ifndef GREEDYSTATE_H
#define GREEDYSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/greedy.h"
#include "solve/ivs.h"

/* A circuit as one of its ports sees it, usable from up. */
struct epoch {
	uint32_t	partner;
	uint32_t	circ;
	uint64_t	up;
};

/* Per switch and GPU port: its circuits in time order, its uses. */
struct port {
	struct epoch	*ep;
	size_t		 nep, epcap;
	size_t		 hint;		/* epoch_at()'s last answer */
	struct ivs	 tx, rx;
};

/*
 * Switch model: the epochs of a switch, one matching each, and its
 * uses.  The uses of an epoch lie in [first, last); in time order each
 * epoch's first comes at least tau after the last of the one before,
 * so the whole switch is dark for tau before every epoch but the
 * first.  Epochs are kept by id, for the slots of the ports to name
 * them as new ones come between, and listed in time order in ord[];
 * their firsts strictly grow along ord[].
 */
struct swep {
	uint64_t	 first, last;
	uint32_t	*circ;		/* its circuits */
	size_t		 nc, cap;
};

struct sweps {
	struct swep	*ep;		/* by id */
	size_t		 nep, epcap;
	uint32_t	*ord;		/* ids in time order */
	size_t		 nord, ordcap;
	struct ivs	 busy;		/* the union of its uses */
};

/* A port's circuits under the switch model: one per epoch it is in. */
struct slot {
	uint32_t	id, partner, circ;
};

struct slots {
	struct slot	*v;		/* in time order */
	size_t		 n, cap;
};

struct state {
	const struct dag	*d;
	const struct net	*n;
	struct greedy		*g;
	struct port		*pt;		/* [sw * gpus + gpu] */
	uint64_t		*gpu_free;
	uint64_t		*ready;		/* data ready, per task */
	struct ivs		*gap;		/* per circuit */
	size_t			 gapcap;
	struct sweps		*se;		/* epochs per switch */
	struct slots		*sl;		/* slots, as pt */
};

static inline struct port *
port(struct state *s, uint32_t sw, uint32_t g)
{
	return &s->pt[(size_t)sw * s->n->gpus + g];
}

/* t less tau, or 0. */
static inline uint64_t
sub_tau(uint64_t t, uint64_t tau)
{
	return t >= tau ? t - tau : 0;
}

/* Earliest start >= t clear on a's sending and b's receiving side. */
static inline uint64_t
fit2(struct port *a, struct port *b, uint64_t t, uint64_t len)
{
	uint64_t u;

	for (;;) {
		t = ivs_fit(&a->tx, t, len);
		if ((u = ivs_fit(&b->rx, t, len)) == t)
			return t;
		t = u;
	}
}

int	greedystop_place(struct state *, uint32_t);
void	greedystop_up(struct state *);
void	greedystop_free(struct sweps *);

#endif
