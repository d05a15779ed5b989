/*
 * ocssim.h: the parts of ocssim(1) in files of their own.
 *
 * ocssim_runs() writes a taskrun record a task; ocssim_progress() is
 * the progress line on stderr.  planes_sim() is ocssim on a tiered fabric (the stream's net has
 * planes): -f ideal, or the one-shot plan of the stream, through
 * lib/sim/fabsim; it writes the result, a gpustat per GPU and, when
 * asked, the taskruns, and exits on what it cannot run (the options
 * of the flat net's simulator alone: -R, -S, -O, -H, -E, -l, -c).
 *
 * online_run() is online Flux (ocssim -O, "Online Flux" in ocssim(1)):
 * the one-shot schedule sc, a plan made for the DAG nom, runs on real
 * (a DAG of the same shape whose amounts differ) by its order, as soon
 * as it can (SIMCTL_ASAP), and is re-planned by the greedy (lib/solve/greedy)
 * whenever the amounts of tasks it assumed turn out otherwise:
 *   - a task's real amount (a transfer's bytes, a compute's duration)
 *     becomes known when the task is ready, every dependency ended;
 *   - at the first instant t at which a task of another amount than
 *     the plan's becomes ready, and no sooner than latency ps after the
 *     last re-plan (the controller is busy that long), the controller
 *     plans the whole step anew on what it knows at t: real amounts for
 *     the tasks ready by t, nominal ones for the rest (with a budget of
 *     seconds > 0, the flux method of lib/solve/fsolve within it: the best
 *     schedule found in that wall-clock time, so runs may differ);
 *   - the new plan takes effect latency ps later, at T = t + latency:
 *     what has started by T stays as it ran (its transfers, and the
 *     circuits up by T, which stay up until T at least), and every other
 *     transfer goes to the new plan's switch and circuit, those circuits
 *     coming up no sooner than T, after the ones kept, in the new plan's
 *     order.
 * Each re-plan simulates the step again from the start: the part before
 * T is the same as before, by construction.  The result, in *out, is
 * the last run's; *replans counts the re-plans.  opt is the caller's
 * (host, packet, time limit); its fabric, replay and per-circuit times
 * are the function's own.  The time limit is for the whole run: each
 * simulation gets what is left of it, and so does the flux method's
 * budget; it is looked at before each re-plan and each simulation.
 * Returns 0, or -1 with a message in the caller's buffer (out of
 * memory, a run that fails, the time limit, times past 2^64-1 ps).
 * The caller owns its inputs and frees *out with sim_out_free().
 */
#ifndef OCSSIM_H
#define OCSSIM_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"
#include "model/dagin.h"
#include "records/stream.h"
#include "sim/sim.h"

struct input {
	struct dagin	 di;
	struct schedule	 sc;
	struct dagin	 nom;		/* -S: the plan's own DAG */
	int		 have_nom;
	uint8_t		*planned;	/* a bit a task read, as plans come */
	size_t		 plannedcap;	/* bytes */
	char		 why[96];	/* plan_check()'s message */
};

struct args {
	int		 fabric;	/* -1: from the stream */
	int		 host;
	uint64_t	 packet;
	int		 verbose;
	const char	*circuits;
	int		 taskruns;
	int		 own;		/* --own: not the DAG */
	const char	*logpath;
	double		 time_limit;
	int		 replay;	/* enum simctl_policy */
	const char	*plan_file;	/* -S: the schedule's stream */
	int		 online;	/* -O */
	uint64_t	 latency;	/* -O: decision latency, ps */
	double		 budget;	/* -B: seconds per re-plan */
	int		 every;		/* -E: every circuit event */
};

int	online_run(const struct dag *, const struct dag *, const struct net *,
	    const struct schedule *, uint64_t, double,
	    const struct sim_opts *, struct sim_out *, uint32_t *, char *,
	    size_t);

void	ocssim_runs(msgpack_packer *, const uint64_t *, const uint64_t *,
	    size_t);
void	ocssim_progress(void *, uint64_t, uint64_t, uint64_t);
void	planes_sim(struct input *, const struct args *, struct stream_writer *);

#endif
