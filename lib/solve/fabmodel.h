/*
 * fabmodel: Flux's scheduling problem on a tiered fabric's planes
 * (BRIEF section 2b) as a mixed-integer model, for a proven optimum.
 *
 * The model is the atomic one of fabcand.h and fabgreedy.h, whole DAG,
 * the port model on every ocs plane: a start time per task (ns), a
 * binary per transfer and plane joining its GPUs (one column fixed to 1
 * when one plane does), the makespan C to minimize.  Rows: each
 * transfer on one plane; a task starts after its dependencies end (a
 * transfer's end: its duration and latency on the plane it is on); a
 * GPU's computes in id order; C after every task.  Two transfers that
 * would hold one resource (a port's side, a group link's side, the one
 * slot of an eps plane whose oversubscribed core runs so many flows at
 * once: a transfer there has a column per plane and slot) on the planes
 * they are on run one after the other; two on one ocs plane that share
 * exactly one port run tau apart (a circuit changes between them; on
 * one circuit the opposite direction is free).  Where the DAG orders
 * the two, that order; else one binary per pair, "i first", and big-M
 * rows, one pair per resource shared, whatever the planes (a sum of the
 * plane columns holding it), so an uplink plane's count does not
 * multiply the rows.  Each start lies between its earliest (its
 * dependencies' chain, each transfer where it is fastest) and the
 * horizon less the least time after it, the makespan follows every
 * task by that least time, and each M is just enough to free its row
 * from the two starts' bounds.
 * Identical planes (a description's count) are one plane to the
 * model: the first transfer that may take such a unit goes on its
 * first plane.
 *
 * Time is in units of unit ps: a nanosecond, or ten, a hundred... as
 * long as the horizon would be more than FABMODEL_SPAN units (so that
 * a long transfer's coefficient stays within a solver's reach of the
 * others').
 *
 * fabmodel_build() builds it for DAG d on planes pl, starts bounded by
 * horizon (ps: the makespan of a known plan), C no less than lb (ps: a
 * known bound).  It refuses, with the figures in the caller's buffer:
 * what fabcand_init() refuses, more than FABMODEL_MAX_TASKS tasks or
 * FABMODEL_MAX_PAIRS
 * pairs of transfers sharing a resource, and more than max_bin
 * binaries; -1 then, as when memory runs out; else 0.
 *
 * With a window w (else NULL), only the tasks w->free marks are columns,
 * and the rest of plan w (start, plane per task) is fixed: a window
 * task starts no earlier than from, after its fixed dependencies' ends
 * and after what the fixed transfers that started before from hold (a
 * side until their end, a port tau longer for another partner, the
 * latest ends on an oversubscribed plane's slots); fixed tasks that
 * start at from or later are left out (the caller places them again),
 * and C follows each window task by the least time after it, so the
 * model shortens the window's critical paths.  There is no symmetry
 * cut in a window, and its planes' units are not alike.
 *
 * fabmodel_encode() writes a solution (m.ncol values) from a plan:
 * the start of every task and the plane of every transfer (by task id;
 * a window's columns only), and its makespan, all in ps; a start for
 * the solver (slots given in
 * start order, each the one free longest, as fabgreedy gives them).
 * It returns 0, or -1 out of memory.
 * fabmodel_decode() reads one back: the plane of each transfer and the
 * start of each task in ps (a window's columns only; the rest left as
 * they are), as keys for fabgreedy_place(), which turns
 * them into a valid plan no longer than the solution.
 * The struct owns its arrays (fabmodel_free(), safe after a failure).
 * The builder is in fabmodel.c, fabpair.c and fabwin.c (fabbuild.h),
 * the solutions in fabmodel_io.c.
 */
#ifndef FABMODEL_H
#define FABMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/planes.h"
#include "solve/milp.h"

#define FABMODEL_MAX_TASKS	20000
#define FABMODEL_MAX_PAIRS	2000000
#define FABMODEL_SPAN		1000000	/* the horizon, in units */

struct fabcut {			/* a symmetry cut */
	uint32_t	 t;		/* this task goes on */
	uint32_t	 first;		/* this plane of its unit, if on it */
	uint32_t	 count;		/* the unit's planes */
};

struct fabmodel {
	struct milp	 m;
	uint64_t	 unit;		/* ps a unit of time in the model */
	size_t		 n;		/* tasks */
	int		*s;		/* per task: its start's column */
	int		 c;		/* the makespan's */
	size_t		*yoff;		/* per task: y[yoff[t] .. yoff[t+1]) */
	int		*y;		/* a transfer's plane columns */
	uint32_t	*yplane;	/* and their planes */
	uint32_t	*yslot;		/* slots, or UINT32_MAX */
	uint64_t	*ydur;		/* ps the transfer holds it */
	size_t		 npair;		/* pairs with an order binary */
	uint32_t	*pi, *pj;	/* their tasks */
	int		*po;		/* their columns: 1 when pi first */
	size_t		 nbin;
	struct fabcut	*cut;
	size_t		 ncut;
	size_t		 np;		/* planes */
	uint64_t	*sbase;		/* per plane: its first slot */
	uint64_t	 nslots;
	uint64_t	*slot0;		/* window: slots' fixed ends, or NULL */
};

struct fabwin {			/* a window of a plan */
	const uint8_t	*free;		/* per task: 1, a column */
	const uint64_t	*start;		/* per task: the plan's start */
	const uint32_t	*plane;		/* per task: a transfer's plane */
	uint64_t	 from;		/* the window's tasks start so late */
};

int	fabmodel_build(const struct dag *, const struct planes *,
	    const struct fabwin *, uint64_t, uint64_t, size_t,
	    struct fabmodel *, char *, size_t);
int	fabmodel_encode(const struct fabmodel *, const uint64_t *,
	    const uint32_t *, uint64_t, double *);
void	fabmodel_decode(const struct fabmodel *, const double *, uint32_t *,
	    uint64_t *);
void	fabmodel_free(struct fabmodel *);

#endif
