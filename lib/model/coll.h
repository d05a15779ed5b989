/*
 * coll: collectives as point-to-point transfers.
 *
 * coll_expand() turns one collective over a group of n ranks and a
 * size into a plan: transfers between group positions, each with the
 * step it belongs to, its bytes, the earlier transfers of the plan it
 * waits for (receives at its source, and in a broadcast also its
 * source's previous send; none means it waits only for the
 * collective's own start on the source rank), and final: the bits
 * COLL_FINAL_DST, a final receive of its destination, and
 * COLL_FINAL_SRC, a final send of its source (what work after the
 * collective on that rank waits for; only a position that receives
 * nothing, a broadcast's root or one in coll_alltoallv(), has final
 * sends).  Sizes follow nccl-tests: size
 * is the buffer of an all-reduce, the whole output of an all-gather,
 * the whole input of a reduce-scatter, the send buffer of an
 * all-to-all, the bytes a broadcast copies from its root, the group
 * position root (ignored by the other kinds).  Chunks of size/n are
 * exact: the first size%n chunks get one byte more.
 *
 * Ring: 2(n-1) steps to the next rank (n-1 for all-gather and
 * reduce-scatter).  Halving-doubling (n a power of two): partners
 * r^1, r^2, ... with messages size/2, size/4, ..., then back; an
 * all-reduce on n = 2^L + r (0 < r < 2^L) first folds each odd
 * position 2i+1 below 2r into 2i (its whole buffer), runs that on the
 * 2^L positions left with chunks of size/2^L, then sends 2i's result
 * back to 2i+1.  Direct:
 * everyone to everyone, one phase per half.  All-to-all is always
 * direct.  Broadcast: ring is a pipeline of the n chunks along the
 * group from the root, 2n-2 steps, a rank sending one chunk a step, in
 * order, each once it has it; halving-doubling is a binomial tree, at
 * step k the positions p with p^root < 2^k sending all of it to
 * p^2^k, each after its previous transfer; direct is the root sending
 * all of it to every other position at once.  The plan owns its
 * arrays; coll_expand() returns 0, -1 when memory runs out, -2 for
 * halving-doubling on a group whose size is not a power of two (but
 * for an all-reduce), -3 for
 * a broadcast whose root is not below n.
 *
 * coll_alltoallv() plans an all-to-all whose pairs carry unequal
 * sizes: rows[i][j] bytes from position i to j, rows[i] an array of n
 * that the caller owns (rows[i][i] stays local and is ignored).  It is
 * direct, one step, in the order of coll_expand()'s all-to-all, every
 * transfer a final receive; a pair of 0 bytes makes no transfer, and
 * the sends of a position that receives nothing are its final sends (a
 * position that neither sends nor receives has no transfer at all).
 * Rows of size/n > 0 everywhere give coll_expand()'s plan.  Returns 0,
 * or -1 when memory runs out.
 */
#ifndef COLL_H
#define COLL_H

#include <stddef.h>
#include <stdint.h>

enum coll_kind { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER,
	COLL_ALLTOALL, COLL_BROADCAST };
enum coll_algo { COLL_RING, COLL_HD, COLL_DIRECT };

extern const char *const coll_algos[];

#define COLL_FINAL_DST	1
#define COLL_FINAL_SRC	2

struct coll_xfer {
	uint32_t	src, dst;	/* positions in the group */
	uint64_t	bytes;
	uint32_t	step;
	int		final;
	size_t		dep_off;
	uint32_t	ndep;
};

struct coll_plan {
	struct coll_xfer	*x;
	size_t			 n, cap;
	uint32_t		*dep;
	size_t			 ndep, depcap;
};

void	coll_init(struct coll_plan *);
void	coll_free(struct coll_plan *);
int	coll_expand(struct coll_plan *, int, int, uint32_t, uint64_t,
	    uint32_t);
int	coll_alltoallv(struct coll_plan *, uint32_t,
	    const uint64_t *const *);
uint64_t coll_chunk(uint64_t, uint32_t, uint32_t);

#endif
