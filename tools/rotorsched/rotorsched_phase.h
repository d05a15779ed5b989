/*
 * rotorsched -m phase's parts.  rotorsched_class.c reads each
 * transfer's class, the parallelism its op serves; rotorsched_phase.c
 * splits the step into phases and schedules one configuration a phase.
 *
 * classes_read() reads the stream kept in fp (from where it stands)
 * again for the "name" of each task record, and sets of[t] to the
 * class of task t (0, "unlabelled", for a compute or a transfer of no
 * name), name[c] to class c's name; it dies on a stream it cannot read
 * again.  classes_free() frees them.
 *
 * phase_schedule() makes the per-phase schedule of the input: its
 * circuits in sc, one-shot; when some transfer is relayed, the DAG with
 * its hops in *out and the input task each came from in *from (as
 * st_relay(), rotorsched_static.h), returning the number relayed; the
 * number of phases, the reconfigured circuits and the makespan that
 * lib/sim (or fabsim, on a tiered fabric) predicts for the schedule in
 * *po.  fp is the stream kept, left where it stood.  It dies with a
 * message on what it cannot schedule.
 */
#ifndef ROTORSCHED_PHASE_H
#define ROTORSCHED_PHASE_H

#include <stdint.h>
#include <stdio.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/sched.h"

#define CLASS_NAME	256	/* longer names are cut there */

struct classes {
	uint32_t	 *of;
	char		**name;
	uint32_t	  n;
};

struct phase_out {
	uint32_t	phases;
	uint32_t	classes;	/* that cross the OCS */
	uint64_t	changed;	/* circuits set up after time 0 */
	uint64_t	predicted;	/* makespan, ps */
};

void	classes_read(struct classes *, FILE *, const struct dag *);
void	classes_free(struct classes *);
int64_t	phase_schedule(struct schedule *, const struct dagin *, FILE *,
	    struct dag *, uint32_t **, struct phase_out *);

#endif
