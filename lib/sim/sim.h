/*
 * sim: the discrete-event simulator of GPUs, NICs and optical switches.
 *
 * sim_run() replays a task DAG on a network (fluxocs(5), BRIEF section
 * 2) under one of three fabrics:
 *   schedule  the circuits of a struct schedule, repeated every period
 *             when periodic; a planned transfer runs on its switch only,
 *             in plan order per directed pair; an unplanned one drains
 *             from its sender's per-destination queue over every circuit
 *             up to its destination, at B per circuit;
 *   ideal     a non-blocking electrical fabric: each GPU sends and
 *             receives up to S*B in all, transfers share it max-min
 *             fairly (rates in whole bit/s), nothing reconfigures;
 *   static    like schedule, for circuits that never change.
 * With opts replay (SIMCTL_HOLD or SIMCTL_ASAP) a one-shot schedule is
 * run by its order instead of its clock: circuits come up and go down
 * as lib/sim/simctl.h says, and a planned transfer runs on its own circuit.
 * Time is integer picoseconds; the remaining work of a transfer is kept
 * exactly (bits x 10^12) so that pauses and rate changes lose nothing.
 * Events are ordered by (time, sequence), so runs are deterministic.
 *
 * The caller owns its inputs; sim_run() fills a struct sim_out, which
 * sim_out_free() releases.  It returns 0, or -1 with a message in the
 * caller's buffer (deadlock, time limit, out of memory).
 */
#ifndef SIM_H
#define SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"

enum sim_fabric { SIM_SCHEDULE, SIM_IDEAL, SIM_STATIC };

/* What the host knows when it hands bytes to its NIC (lib/sim/simbuf.h). */
enum sim_host { SIM_HOST_PLAN, SIM_HOST_UNAWARE, SIM_HOST_CIRCUIT };

extern const char *const sim_fabrics[];
extern const char *const sim_hosts[];

struct sim_gpustat {
	uint64_t	busy_ps;	/* computing */
	uint64_t	stall_ps;	/* idle before or between computes */
	uint64_t	peak_buffer;	/* bytes ready but unsent, or relayed */
	uint64_t	peak_nic;	/* bytes in the NIC, not yet sent */
	uint64_t	bytes_sent;
};

struct sim_switchstat {
	uint64_t	reconfigs;	/* circuits set up on a changed port */
	uint64_t	up_ps;		/* circuit-up time within the run */
	uint64_t	bytes;
};

struct sim_out {
	uint64_t		 makespan;
	uint64_t		 peak_buffer;
	uint64_t		 peak_nic;
	uint64_t		 reconfigs;
	uint64_t		 bytes_sent;
	uint64_t		 events;
	uint32_t		 nsteps;
	uint64_t		*step_end;	/* end of each training step */
	struct sim_gpustat	*gpu;
	struct sim_switchstat	*sw;
	uint64_t		*start, *end;	/* per task */
	uint64_t		*cup, *cdown;	/* per circuit: first up,
						   last down, or UINT64_MAX;
						   NULL without circuits */
};

struct sim_opts {
	int		 fabric;
	int		 host;		/* enum sim_host */
	int		 replay;	/* enum simctl_policy (simctl.h) */
	uint64_t	 packet;	/* bytes of a NIC's window, > 0 */
	FILE		*log;		/* event log, or NULL */
	double		 time_limit;	/* wall-clock seconds, 0 for none */
	void		(*progress)(void *, uint64_t, uint64_t, uint64_t);
	void		*arg;
	int		 every_circuit;	/* periodic: every circuit event
					   (simslot.h), for reference */
	const uint64_t	*up_after;	/* replay: per circuit, or NULL */
	const uint64_t	*down_after;
};

int	sim_run(const struct dag *, const struct net *,
	    const struct schedule *, const struct sim_opts *,
	    struct sim_out *, char *, size_t);
void	sim_out_free(struct sim_out *);

#endif
