/*
 * greedy: a list scheduler for Flux's model, and lower bounds.
 *
 * greedy_run() schedules a DAG on the net's switches: tasks are taken
 * by longest path to the end (ties by id) once their dependencies are
 * placed, a transfer that waits for another transfer taking that one's
 * priority when it is higher (the steps of a collective go with its
 * first, not interleaved with a shorter collective's on the same
 * ports); a compute task runs on its GPU after the GPU's previous one;
 * a transfer goes whole on the switch where it ends earliest.  On that
 * switch it reuses the circuit between its endpoints if one is set up
 * (back to back per directed pair), or else sets one up: both ports
 * finish their current use, go dark for reconfig_ps (not for a port's
 * first circuit), and the transfer starts when its data is ready and
 * the circuit is up, so reconfiguration hides behind compute.  A new
 * circuit may also go into an idle gap inside another circuit, which
 * is torn down before it and comes up again when next used.  The
 * result is a plan (switch and start per transfer) and the circuits it
 * implies, which ocssim replays to the same makespan.
 *
 * Under the switch model (net reconfig_model "switch", reconfig_ps > 0)
 * a switch's time is a sequence of epochs, each one matching: the uses
 * of an epoch lie between its first and its last, and each epoch's
 * first use comes at least reconfig_ps after the last use of the epoch
 * before (the first epoch is free).  A transfer goes on the switch and
 * epoch where it starts earliest, back to back per directed pair: into
 * an epoch whose matching holds its circuit or can take it (both ports
 * unused in the epoch, or with each other), starting reconfig_ps or
 * more after the last use of the epoch before and ending reconfig_ps
 * or more before the first use of the epoch after; or else, if that
 * starts it earlier, into a new epoch where the whole switch is idle
 * from reconfig_ps before the transfer to reconfig_ps after it (after
 * the last use, before the first, between two epochs, or inside one,
 * which the new epoch splits in two with the same matching).  On a tie
 * an existing epoch wins, then the lower switch.  Every circuit of an
 * epoch comes up at the epoch's first use and goes down at its pair's
 * last use there, so a circuit that changes a port's partner starts
 * only when every circuit of the switch that started before has been
 * down for reconfig_ps, as sched_check() asks.  With reconfig_ps 0 the
 * two models are the same and the port model's placement is used.
 *
 * greedy_bound() is a lower bound valid for every Flux schedule: the
 * critical path with each transfer at the port rate B, and for every
 * GPU the earliest release of its sends (receives) plus their total
 * time shared over S ports plus the shortest tail after them.  It
 * holds under both models: it ignores reconfiguration, and every
 * schedule valid under the switch model is valid under the port model.
 *
 * greedy_switches() is the switch of every transfer of a schedule, by
 * task (0 for computes): an array the caller frees, or NULL when memory
 * runs out.
 *
 * greedy_length() is the time from a task's start to its end: its
 * duration, or a transfer's bytes at the port rate plus the latency.
 *
 * greedy_list() is the list scheduler under both greedy_run() and the
 * replay of a MILP's decisions (lib/solve/place): it takes the tasks whose
 * dependencies, and previous task in prev[] (NULL: none), have ended,
 * smallest key[] first (ties by id).  A compute task starts when its
 * data is ready (ready[], which it fills) and its GPU is free
 * (gpu_free[], which it advances); a transfer goes to transfer(arg, t),
 * which sets its start and end in the struct greedy.  Returns 0, -1
 * when memory runs out, or what a failed transfer() returned.
 *
 * greedy_levels() gives every task's earliest start (head) and the
 * longest path from its start to the end (bottom level, its own length
 * included), both with circuits free: arrays the caller frees.
 *
 * Pure functions; the caller owns inputs and frees outputs with
 * greedy_free().  greedy_run() returns 0, -1 when memory runs out, -2
 * if a transfer found no place (a bug: the end of time is always free).
 */
#ifndef GREEDY_H
#define GREEDY_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"

struct greedy {
	uint64_t	 makespan;
	uint64_t	*start, *end;		/* per task */
	struct schedule	 sc;			/* plans and circuits */
};

int		greedy_run(const struct dag *, const struct net *,
		    struct greedy *);
void		greedy_free(struct greedy *);
uint32_t	*greedy_switches(const struct dag *, const struct greedy *);
uint64_t	greedy_duration(const struct net *, uint64_t);
uint64_t	greedy_length(const struct dag *, const struct net *, size_t);
uint64_t	greedy_bound(const struct dag *, const struct net *);
int		greedy_levels(const struct dag *, const struct net *,
		    uint64_t **, uint64_t **);
int		greedy_list(const struct dag *, const uint32_t *,
		    const uint64_t *, int (*)(void *, uint32_t), void *,
		    uint64_t *, uint64_t *, struct greedy *);

#endif
