/*
 * horizon: whether every time a scheduler computes for a DAG fits in
 * 64 bits.
 *
 * Every schedule the suite's schedulers make starts each task no later
 * than the sum, over the tasks placed before it, of their lengths plus
 * one reconfiguration each (each placement waits at most for an end
 * and a dark time), and their bounds add at most a few such sums.  So
 * when the series total (every task's length, a transfer's at the
 * full port bandwidth plus its latency, plus one reconfig_ps per
 * task) is at most HORIZON_MAX_PS, no start, end, bound or sum of two
 * of them can wrap.  horizon_total() computes that total exactly (the
 * product bytes x 8 x 10^12 in 128 bits) and returns 0 when it is at
 * most HORIZON_MAX_PS, or -1; *total is the total, or on -1 the
 * partial sum that first passed the limit.  It reads the
 * DAG and the net (whose bandwidth net_read() made positive) and owns
 * nothing.
 */
#ifndef HORIZON_H
#define HORIZON_H

#include "model/dag.h"
#include "model/net.h"

#define HORIZON_MAX_PS	(1ULL << 62)	/* 53 days */

int	horizon_total(const struct dag *, const struct net *,
	    unsigned __int128 *);

#endif
