/*
 * fabsetup: the state of a tiered fabric's simulation (sim/fabsim.h)
 * and the parts that read the fabric and the schedule.
 *
 * fabsetup() allocates the state, orders each GPU's computes, and, in
 * FABSIM_PLAN mode, checks the plans and circuits against the planes
 * (every transfer planned once, on a plane that joins its GPUs; every
 * circuit on an ocs plane, between two of its ports, the circuits of
 * each description valid under its reconfiguration model, sched.h),
 * builds the plan queues and counts reconfigurations; in
 * FABSIM_CIRCUITS mode it checks the circuits and that a periodic
 * schedule serves every pair routed over an ocs plane; it returns 0, or
 * -1 through fabsim_fail().  fabsetup_plans() (fabplans.c), its part
 * for the plans: each checked, the queues made (q, qe), one per (plane,
 * source, destination) in (start, task) order, a GPU's place on a plane
 * its port, or on an uplink plane the GPU itself (a group's GPUs share
 * the ports, not the queues).  fabsetup_links() (fabroute.c) names the
 * links a transfer's flow crosses (fabsim.h), its description and
 * latency.
 * fabsetup_circuit_joins(), for a schedule that says circuits_first
 * (sched.h), gives the ocs description whose circuits join g and h at
 * some time of the schedule, its unit in *unit, or -1 when none does.
 * fabsetup_circuit() brings a circuit up (i: its place in the order
 * of starts, by which circuits are fed to the event queue one at a
 * time; a periodic schedule's feed starts again each period) or down
 * (i: the circuit), and counts in FABSIM_CIRCUITS mode the
 * reconfigurations of those that come up.  fabsetup_peak()
 * notes that a GPU's buffers grew, and fabsetup_peaks() takes the
 * peaks of those noted once every event of the instant is done (so
 * that the order of events at one instant does not matter); fabsetup_deadlock() says what waits
 * when nothing can move; fabsetup_free() releases the state (not the
 * results).
 */
#ifndef FABSETUP_H
#define FABSETUP_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/heap.h"
#include "sim/fablink.h"
#include "sim/fabsim.h"

enum { EV_COMPUTE, EV_FLOW, EV_ARRIVE, EV_START, EV_CUP, EV_CDOWN };

struct fstask {
	uint32_t	 pending;	/* dependencies not done */
	uint32_t	 nextc;		/* next compute of its GPU */
	uint32_t	 queue;		/* plan: its queue */
	uint32_t	 plane;		/* plan: its plane */
	uint32_t	 flow;
	uint32_t	 succ;		/* its successors' start in succ */
	uint8_t		 ready, started;
};

struct fsentry {				/* a plan in its queue */
	uint64_t	 start;		/* not before */
	uint32_t	 task;
	uint32_t	 aux;		/* fabsetup's while it sorts */
};

struct fsflow {
	unsigned __int128 work;		/* bits x 10^12 left */
	uint64_t	 rate, t0, lat;
	uint32_t	 task, desc, ver;
	uint8_t		 live, fresh;
};

struct fsqueue {				/* (plane, source, destination) */
	uint64_t	 start;		/* the head's: its start, its task */
	uint32_t	 task;
	uint32_t	 at, end;	/* the head's place in qe, the end */
	uint8_t		 running, waiting;
};

struct fs {
	const struct dag		*d;
	const struct planes		*pl;
	const struct schedule		*sc;
	const struct fabsim_opts	*opt;
	struct fabsim_out		*out;
	char				*err;
	size_t				 errlen;
	int				 failed;
	uint64_t			 now, seq;
	struct heap			 h;
	size_t				 done;
	struct fstask			*ts;
	uint32_t			*succ;
	uint32_t			*cur;		/* GPU: compute now */
	uint8_t				*gbusy;
	uint64_t			*free_at, *ready, *nic;
	struct fsflow			*fl;
	struct fabflow			*ff;
	uint32_t			*freei;
	size_t				 nfl, flcap, ffcap, nfree, freecap;
	struct fablinks			 ls;
	int				 dirty;
	uint32_t			*moving;	/* per description */
	uint64_t			*since;
	struct fsqueue			*q;
	struct fsentry			*qe;
	size_t				 nq;
	uint32_t			*gdesc;	/* per description: its group
						   description, or UINT32_MAX */
	uint32_t			*corder; /* circuits by start */
	size_t				 cnext;
	uint64_t			 cper;	/* the period being fed */
	size_t				*poff;	/* circuits mode: each plane's */
	uint32_t			*partner; /* ports' last partners */
	uint64_t			*ckeys;	/* circuits_first: the
						   circuits' places, sorted */
	uint32_t			*pk;	/* GPUs whose buffers grew */
	size_t				 npk;
	uint8_t				*pkmark;
};

void	fabsim_fail(struct fs *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	fabsim_push(struct fs *, uint64_t, int, uint32_t, uint32_t);
void	fabsim_queue_try(struct fs *, uint32_t);

int	fabsetup(struct fs *);
int	fabsetup_plans(struct fs *);
int	fabsetup_links(struct fs *, uint32_t, struct fabflow *, uint32_t *,
	    uint64_t *);
int64_t	fabsetup_circuit_joins(const struct fs *, uint32_t, uint32_t,
	    uint32_t *);
void	fabsetup_circuit(struct fs *, int, uint32_t);
void	fabsetup_peak(struct fs *, uint32_t);
void	fabsetup_peaks(struct fs *);
void	fabsetup_deadlock(struct fs *);
void	fabsetup_free(struct fs *);

#endif
