/*
 * fmodel: Flux's scheduling problem as a mixed-integer model.
 *
 * A problem (struct fprob) is a set of tasks, each with the time it
 * holds its GPU (compute) or its two ports (transfer), the time from
 * its start to its end (latency, or a transfer of no byte that holds
 * its circuit for 1 ps, set the two apart), a release time and a tail
 * of work that must follow it, and precedence arcs with a lag.
 * fprob_whole() makes the problem of a whole DAG; a relaxation
 * (a window of it) is made by the caller.  The fprob_ functions are in
 * fprob.c, the model's in fmodel.c.
 *
 * fmodel_build() writes the paper's per-task model of p->model's
 * reconfiguration: a start time per task, a binary per transfer and
 * switch, big-M disjunctions, and the makespan C to minimize.  Under
 * the port model (NET_PORT), one order binary per pair of transfers
 * that share a GPU and are not ordered by the arcs (tau between them on
 * one switch when their partners differ, none on one directed pair).
 * Under the switch model (NET_SWITCH), the same optimum as wsearch.h's:
 * the transfers of a switch fall into epochs, one matching each, every
 * transfer of an epoch ending tau before the next epoch begins.  Per
 * transfer, the start of its epoch (ep); per pair of transfers, all of
 * them (a change darkens every port), a "same switch" column (q, with
 * two switches or more) and up to two binaries, "one epoch" (z, none
 * when they share exactly one GPU) and "i first" (o, none when the arcs
 * order them); with port states, a binary per transfer (gv): in the
 * epoch the fixed part left, where the ports given a state hold their
 * partners, the next epoch starting tau after the switch's last given
 * use.  As in the search, only the states of GPUs that some task uses
 * count.  n transfers on S switches take n(n-1)/2 pairs of at most 2
 * binaries and S + 6 rows (6 on one switch), whatever their GPUs: the
 * model grows with the square of the transfers.  It takes transfers to
 * hold their ports len >= 1 ps, as fprob_whole() and the windows make
 * them.
 * Time is in nanoseconds inside the model.  Switches are alike and
 * every port's first circuit is free, so without port states the first
 * transfer is put on switch 0 (a symmetry cut that keeps an optimum).
 * horizon is the makespan of a known schedule: starts are bounded by
 * it and big-M derives from it.  lb is a known lower bound on C.  At
 * most FMODEL_MAX_SWITCHES switches.
 *
 * fmodel_decode() reads a solution back: the switch of each transfer
 * and the start of each task (as keys for place_run()), indexed by the
 * tasks' ids in the DAG.  fmodel_encode() does the reverse: a solution
 * (ncol values) from the starts and switches of a schedule, indexed by
 * task id, and its makespan, to start a solver from; under the switch
 * model the epochs come from the times (one opens wherever it may).
 * A start that breaks the model's rules is ignored by the solver
 * (milp.h).  Structures own their arrays; functions return 0, or -1
 * when memory runs out.
 *
 * fmodel_build_capped() builds as fmodel_build() does, but stops and
 * returns 1 once the model holds more than cap binaries, or 2 when
 * late(arg) returns nonzero, which it asks after each transfer's pairs:
 * the work of a model that will not be solved is bounded by the cap and
 * the time.  f then holds part of a model, good for fmodel_free() and
 * its nbin (more than cap on 1) only.
 */
#ifndef FMODEL_H
#define FMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "solve/milp.h"

#define FMODEL_MAX_SWITCHES	64
#define FMODEL_NONE		UINT64_MAX	/* no given epoch */

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

/* The switch model: a pair's columns, or -1 where it has none. */
struct fspair {
	uint32_t	i, j;		/* transfers t[i], t[j], i < j */
	long		q;		/* 1: on one switch */
	long		z;		/* 1: in one epoch */
	long		o;		/* 1: i's epoch first (or i first) */
};

struct fmodel {
	struct milp	 m;
	long		*s;		/* start column of each task */
	long		*x;		/* [i * switches + sw], or -1 */
	long		 c;		/* the makespan */
	size_t		 nbin;
	struct fpair	*pair;		/* the port model's */
	size_t		 npair, pcap;
	/* The switch model's, else NULL. */
	long		*ep;		/* per task: its epoch's start, or -1 */
	long		*gv;		/* per task: in the given epoch, or -1 */
	uint64_t	*given;		/* per switch: its given epoch's last
					   use ends, or FMODEL_NONE */
	struct fspair	*sp;
	size_t		 nsp, spcap;
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
int	fmodel_build_capped(const struct fprob *, struct fmodel *, size_t,
	    int (*)(void *), void *);
void	fmodel_free(struct fmodel *);
uint64_t fmodel_optimum_ps(double);
uint64_t fmodel_bound_ps(double);
void	fmodel_decode(const struct fprob *, const struct fmodel *,
	    const double *, uint32_t *, double *);
void	fmodel_encode(const struct fprob *, const struct fmodel *,
	    const uint64_t *, const uint32_t *, uint64_t, double *);

#endif
