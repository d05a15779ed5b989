/*
 * fabbound: a lower bound on the makespan of a DAG under every fabric
 * of the net model (BRIEF section 2): every circuit schedule, under
 * either reconfiguration model, with or without relaying, and the
 * ideal (max-min fair electrical) fabric alike.
 *
 * No GPU sends or receives faster than S*B in all, and nothing forces
 * a reconfiguration, so the bound takes every transfer at S*B (its
 * bytes' time, rounded down to a ps, plus the net's latency) and every
 * compute at its duration, with the computes of each GPU in trace
 * order, one at a time.  It is the largest of
 *   - the critical path of that DAG, and
 *   - for each GPU, each direction (sends, receives) and each time T
 *     among the earliest starts of its transfers: T, plus the time at
 *     S*B of all of the GPU's transfers in that direction that start
 *     at T or later, plus the least time that must follow any of them
 *     once its last byte is sent (latency and what depends on it).
 * The first is reached when transfers never share a GPU; the second
 * when one GPU's sending or receiving is the bottleneck.
 *
 * fabbound_planes() is the same bound on a tiered fabric (BRIEF 2b):
 * each transfer at the most its two GPUs have to each other (every
 * plane joining them at full rate, no more than either GPU's ports in
 * all) and the least latency of those planes, each GPU's loads over
 * all its ports (model/planes: planes_pair_bps(), planes_gpu_bps()).
 *
 * fabbound() writes the bound in *out and returns 0, or -1 when memory
 * runs out.  Work is O(t log t + d) for t tasks and d dependencies.  A
 * sum past 2^64 - 1 ps is taken as 2^64 - 1 (no run can end later
 * anyway: the simulator refuses such a run), so the bound stays one.
 */
#ifndef FABBOUND_H
#define FABBOUND_H

#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/planes.h"

int	fabbound(const struct dag *, const struct net *, uint64_t *);
int	fabbound_planes(const struct dag *, const struct planes *,
	    uint64_t *);

#endif
