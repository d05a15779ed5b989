/*
 * fmodel: Flux's scheduling problem as a mixed-integer model.
 *
 * A problem (struct fprob) is a set of tasks, each with the time it
 * holds its GPU (compute) or its two ports (transfer), the time from
 * its start to its end (latency, or a transfer of no byte that holds
 * its circuit for 1 ps, set the two apart), a release time and a tail
 * of work that must follow it, and precedence arcs with a lag.
 * fprob_whole() makes the problem of a whole DAG; a relaxation
 * (a window of it) is made by the caller.
 *
 * fmodel_build() writes the paper's per-task model: a start time per
 * task, a binary per transfer and switch, one order binary per pair of
 * transfers that share a GPU and are not ordered by the arcs (tau
 * between them on one switch when their partners differ, none on one
 * directed pair), big-M disjunctions, and the makespan C to minimize.
 * Time is in nanoseconds inside the model.  Switches are alike and
 * every port's first circuit is free, so the first transfer is put on
 * switch 0 (a symmetry cut that keeps an optimum).  horizon is the
 * makespan of a known schedule: starts are bounded by it and big-M
 * derives from it.  lb is a known lower bound on C.  At most
 * FMODEL_MAX_SWITCHES switches.
 *
 * fmodel_decode() reads a solution back: the switch of each transfer
 * and the start of each task (as keys for place_run()), indexed by the
 * tasks' ids in the DAG.  fmodel_encode() does the reverse: a solution
 * (ncol values) from the starts and switches of a schedule, indexed by
 * task id, and its makespan, to start a solver from.  Structures own
 * their arrays; functions return 0, or -1 when memory runs out.
 */
#ifndef FMODEL_H
#define FMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "dag.h"
#include "milp.h"
#include "net.h"

#define FMODEL_MAX_SWITCHES	64

struct fptask {
	uint32_t	id;		/* the task in the DAG */
	uint8_t		kind;		/* DAG_COMPUTE or DAG_TRANSFER */
	uint32_t	a, b;		/* compute: its GPU; transfer: ends */
	uint64_t	len;		/* ps it holds its GPU or ports */
	uint64_t	span;		/* ps from its start to its end */
	uint64_t	rel;		/* its earliest start */
	uint64_t	tail;		/* ps of work after its end */
};

struct fparc {
	uint32_t	i, j;		/* tasks t[i] before t[j], i < j */
	uint64_t	lag;		/* S_j >= S_i + span_i + lag */
};

/*
 * The state of a port (switch, GPU) when the problem begins, left by a
 * fixed part of the schedule before it: its partner then, and when its
 * sends, its receives and its last use end.  A port without one may
 * take any first circuit for free.
 */
struct fpport {
	uint32_t	sw, gpu, partner;
	uint64_t	txend, rxend, last;
};

struct fprob {
	struct fptask	*t;
	size_t		 n, tcap;
	struct fparc	*arc;
	size_t		 narc, acap;
	struct fpport	*port;
	size_t		 nport, pcap;
	uint32_t	 switches;
	int		 model;		/* net.h: NET_PORT or NET_SWITCH */
	uint64_t	 tau;
	uint64_t	 horizon;
	uint64_t	 lb;
};

struct fpair {
	uint32_t	i, j;		/* transfers t[i], t[j], i < j */
	long		y;		/* 1: i goes first on a shared switch */
};

struct fmodel {
	struct milp	 m;
	long		*s;		/* start column of each task */
	long		*x;		/* [i * switches + sw], or -1 */
	long		 c;		/* the makespan */
	size_t		 nbin;
	struct fpair	*pair;
	size_t		 npair, pcap;
};

void	fprob_init(struct fprob *);
void	fprob_setup(struct fprob *, const struct net *, uint64_t, uint64_t);
void	fprob_free(struct fprob *);
int	fprob_task(struct fprob *, const struct fptask *);
int	fprob_arc(struct fprob *, uint32_t, uint32_t, uint64_t);
int	fprob_port(struct fprob *, const struct fpport *);
int	fprob_whole(const struct dag *, const struct net *, uint64_t,
	    uint64_t, struct fprob *);

int	fmodel_build(const struct fprob *, struct fmodel *);
void	fmodel_free(struct fmodel *);
void	fmodel_decode(const struct fprob *, const struct fmodel *,
	    const double *, uint32_t *, double *);
void	fmodel_encode(const struct fprob *, const struct fmodel *,
	    const uint64_t *, const uint32_t *, uint64_t, double *);

#endif
