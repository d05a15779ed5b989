/*
 * wpolicy: which windows the flux method solves, and for how long; the
 * search for a shorter schedule and a higher bound beyond the greedy.
 *
 * wpolicy_run() works in rounds, each with a budget (search nodes,
 * four times more each round), until the bound meets the schedule, the
 * time runs out (left() returns 0), or every window worth solving is
 * solved:
 *   improve	tails of the best schedule with their boundary fixed
 *		(wfix.h), of 8, 16, ... transfers: a better tail found is
 *		spliced back and the tails start again from the new
 *		schedule;
 *   bound	relaxed windows (wbound.h) of families of GPUs, each
 *		family a set that starts as one GPU: its window grows by
 *		WPOLICY_STEP transfers per GPU of the set while that
 *		raises the bound, and when it stalls the set grows by the
 *		GPU whose dropped transfers make the binding lags
 *		(wbound_grow()), the window starting small again.  A
 *		window alike to one solved already, up to a renaming of
 *		GPUs, is not solved again; its family, a mirror of
 *		another, stops there.  The family with the highest bound
 *		goes first.
 * Every problem goes through solve(), which solves it with the
 * caller's solver and limits and records it; a window it reports
 * failed is skipped (the caller counts it), one it cut short is tried
 * again in the next round with a larger budget.  adopt() takes a
 * schedule shorter than *best.  Only tasks' ids, never pointers, are
 * kept between calls.  Returns 0, or -1 with a message in err when
 * memory runs out or a callback fails.
 */
#ifndef WPOLICY_H
#define WPOLICY_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/fmodel.h"
#include "solve/greedy.h"
#include "solve/wsolve.h"

#define WPOLICY_STEP	4	/* transfers per GPU a window grows by */
#define WPOLICY_NODES	100000	/* the first round's budget */

struct wpolicy {
	const struct dag	*d;
	const struct net	*n;
	const struct greedy	*best;
	uint64_t		*bound;
	size_t			 max_tasks;	/* largest problem */
	int	(*solve)(void *, const struct fprob *, const char *,
		    uint64_t, uint64_t, struct wsolve_result *);
	int	(*adopt)(void *, struct greedy *);
	double	(*left)(void *);
	void	*arg;
};

int	wpolicy_run(struct wpolicy *, char *, size_t);

#endif
