/*
 * wbound: relaxed windows of a Flux problem, whose optima bound the
 * makespan of every schedule from below.
 *
 * wbound_window() makes the problem of the tail of a set of GPUs (set[g]
 * nonzero): the transfers to or from them whose earliest start (head,
 * circuits free) is at least T, where T is the head of the k-th last
 * of them.  Every other
 * task is dropped; what it implied stays as release times (the heads),
 * tails (the longest path after a transfer's end) and arcs between the
 * kept transfers with the longest path between them as lag.  Each port
 * may start in any configuration.  Every schedule of the whole DAG,
 * cut to these transfers, is a schedule of the window with the same
 * makespan or more, so the window's optimum is a lower bound.  The
 * data are whole picoseconds, and so is the optimum.
 *
 * wbound_threshold() is that T, or UINT64_MAX when no transfer touches
 * the set.
 *
 * wbound_grow() chooses the GPU to add to the set of a window p made
 * with threshold T, from a schedule of it (st[], sw[] per task, an
 * optimal one): it follows back the chain of constraints that sets the
 * makespan (arcs, ports, the order) and counts, per GPU outside the
 * set, the transfers the window dropped (heads at least T) on the
 * longest paths behind its binding lags, its release and its tail:
 * the GPUs whose relaxed ports let the window end early.  soff and succ
 * are the successors of every task (dag.h's dag_successors()).  Returns
 * the GPU counted most (ties: the smallest), -1 when none is, -2 when
 * memory runs out.
 *
 * When more than cap transfers (0: no cap) qualify, the window is
 * thinned: each directed pair keeps its first and last f (by id, the
 * order of its chain), f as large as fits; the rest are dropped like
 * any other task, their time kept in the lags.  It stays a relaxation,
 * and it keeps when each partner is needed first and last, which is
 * what makes ports change partners.
 *
 * When more than cap transfers (0: no cap) qualify, the window is
 * thinned: each directed pair keeps its first and last f (by id, the
 * order of its chain), f as large as fits; the rest are dropped like
 * any other task, their time kept in the lags.  It stays a relaxation,
 * and it keeps when each partner is needed first and last, which is
 * what makes ports change partners.  wbound_touching() counts the
 * transfers that touch the set: a k beyond it adds nothing.
 *
 * head and bl come from greedy_levels().  horizon is the makespan of a
 * known schedule; lb a known bound.  Returns the number of transfers
 * kept (0: the set has none), or -1 when memory runs out; the caller frees
 * the problem with fprob_free().
 */
#ifndef WBOUND_H
#define WBOUND_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/fmodel.h"

long	wbound_window(const struct dag *, const struct net *,
	    const uint64_t *, const uint64_t *, const uint8_t *, size_t,
	    size_t, uint64_t, uint64_t, struct fprob *);
int	wbound_same(const struct fprob *, const struct fprob *);
uint64_t wbound_threshold(const struct dag *, const uint64_t *,
	    const uint8_t *, size_t);
size_t	wbound_touching(const struct dag *, const uint8_t *);
long	wbound_grow(const struct dag *, const struct net *,
	    const uint64_t *, const uint64_t *, const size_t *,
	    const uint32_t *, const uint8_t *, uint64_t, const struct fprob *,
	    const uint64_t *, const uint32_t *);

#endif
