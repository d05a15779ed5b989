/*
 * fabsim: the simulator of a tiered fabric (BRIEF section 2b).
 *
 * fabsim_run() replays a task DAG on the planes of a fabric (model/
 * planes).  Computes run as in sim.h: one at a time per GPU, in task
 * order.  Every transfer is a fluid flow through links, and the flows
 * share each link max-min fairly, in whole bit/s; a link is
 *   - a port's send or receive side, at the port's rate;
 *   - an eps plane's core, at ports x rate x den / num when it is
 *     oversubscribed;
 *   - a circuit's direction, at the plane's rate for each circuit up
 *     between the two ports (an uplink plane's: between any port of
 *     the one group and any of the other);
 * and a flow over an uplink plane crosses its GPUs' links into their
 * groups' fabric too (the first group:K description of the same K).
 *
 * Two modes:
 *   FABSIM_IDEAL  every plane a non-blocking switch: transfer g->h goes
 *                 over the first eps description joining g and h, else
 *                 the first ocs one, its count planes as one (links
 *                 count x rate), nothing reconfigures;
 *   FABSIM_PLAN   every transfer has a plan (its plane, its start); it
 *                 runs in plan order per (plane, source, destination),
 *                 not before its planned start, and on an ocs plane
 *                 only while a circuit of the schedule joins its ports
 *                 (it waits, or pauses, otherwise).  Circuits are the
 *                 schedule's, switch = plane, a and b ports of it.
 *   FABSIM_CIRCUITS a schedule of circuits alone (rotorsched), one-shot
 *                 or periodic, direct: transfer g->h goes as soon as it
 *                 is ready over planes_route()'s description: an eps
 *                 one as on the ideal fabric, an ocs one over every
 *                 circuit up between its ports on the planes of its
 *                 unit, shared max-min with the pair's other flows.  A
 *                 periodic schedule repeats until the last task ends;
 *                 each such transfer's ports must have a circuit in the
 *                 period, which is checked before the run.  A
 *                 schedule that says circuits_first (sched.h) sends
 *                 a transfer over the first ocs description whose
 *                 circuits join its ports at some time, if any.
 * A transfer's last byte arrives after its plane's latency.
 *
 * Statistics are kept per GPU (as sim.h's) and per description of the
 * fabric: bytes carried, time with a flow moving, reconfigurations (a
 * circuit set up on a port whose previous circuit on that plane had
 * another partner; with FABSIM_CIRCUITS, those set up until the run
 * ends, period after period).  A GPU's buffer holds a transfer's bytes from the
 * moment it is ready until its last byte is sent (whole transfers: no
 * packets); its NIC holds them from the flow's start (the host hands
 * them over as its plan starts them).
 *
 * Time is integer picoseconds; a flow's remaining work is kept exactly
 * (bits x 10^12).  Events are ordered by (time, sequence): runs are
 * deterministic.  The caller owns its inputs; fabsim_run() fills *out,
 * which fabsim_out_free() releases, and returns 0, or -1 with a message
 * in the caller's buffer (a transfer without a plan, a plane or port
 * out of range, a pair that no circuit of a period joins, a two-hop
 * schedule, deadlock, time limit, out of memory).
 */
#ifndef FABSIM_H
#define FABSIM_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/planes.h"
#include "model/sched.h"
#include "sim/sim.h"

enum fabsim_mode { FABSIM_IDEAL, FABSIM_PLAN, FABSIM_CIRCUITS };

struct fabsim_descstat {
	uint64_t	bytes;
	uint64_t	busy_ps;	/* a flow of it moving */
	uint64_t	reconfigs;
};

struct fabsim_out {
	uint64_t		 makespan;
	uint64_t		 peak_buffer;
	uint64_t		 peak_nic;
	uint64_t		 reconfigs;
	uint64_t		 bytes_sent;
	uint64_t		 events;
	uint32_t		 nsteps;
	uint64_t		*step_end;
	struct sim_gpustat	*gpu;
	struct fabsim_descstat	*desc;	/* one a description */
	size_t			 ndesc;
	uint64_t		*start, *end;	/* per task */
};

struct fabsim_opts {
	int		 mode;		/* enum fabsim_mode */
	double		 time_limit;	/* wall-clock seconds, 0 for none */
	void		(*progress)(void *, uint64_t, uint64_t, uint64_t);
	void		*arg;
};

int	fabsim_run(const struct dag *, const struct planes *,
	    const struct schedule *, const struct fabsim_opts *,
	    struct fabsim_out *, char *, size_t);
void	fabsim_out_free(struct fabsim_out *);

#endif
