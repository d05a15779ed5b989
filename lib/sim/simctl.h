/*
 * simctl: a circuit controller that replays a plan by its order, not
 * by its clock (ocssim -R, "Replay").
 *
 * A one-shot schedule with plans fixes, for every transfer, its switch
 * and its circuit (the circuit of that switch between its two GPUs that
 * is up at its planned start), and for every port of every switch the
 * order of its circuits.  Replayed on a DAG of the same shape whose
 * sizes and durations differ (a realized MoE step run on the plan of
 * the nominal one), the controller keeps all of that and moves only
 * the times:
 *   - a circuit comes up once the circuit before it on each of its two
 *     ports has gone down, reconfig_ps later when that port changes
 *     partner (the port model), and under SIMCTL_HOLD not before its
 *     planned from_ps;
 *   - it goes down once every transfer planned on it has been sent,
 *     and under SIMCTL_HOLD not before its planned to_ps;
 *   - a planned transfer runs on its own circuit only, after the one
 *     before it on the same switch and directed pair (plan order), once
 *     its inputs are ready, and under SIMCTL_HOLD not before its
 *     planned start (sim.c keeps the queues and the starts).
 * Under SIMCTL_HOLD a run on the plan's own DAG is the plan itself; a
 * late transfer delays what follows it and an early one gains nothing.
 * SIMCTL_ASAP drops the planned times and runs the same order as early
 * as it can.  Either way a caller may hold circuit i up no earlier than
 * up_after[i] and down no earlier than down_after[i] (NULL: no such
 * times), as an online controller does with the circuits of a plan it
 * made at a given time (ocssim -O).  Unplanned transfers are sent over whatever circuit of
 * their pair is up, as ocssim runs them without a controller.
 *
 * simctl_new() refuses (NULL, with a message in the caller's buffer) a
 * periodic schedule, two-hop forwarding, the switch model with
 * reconfig_ps > 0, a plan whose switch has no circuit between its GPUs
 * up at its start, and a circuit with to_ps < from_ps; simctl_refusal()
 * says why the first four would be refused (NULL: they would not), for
 * a caller to refuse before it starts.  It owns its
 * arrays and keeps pointers to none of its inputs; simctl_free()
 * releases it (NULL is allowed).
 *
 * The events: simctl_first() lists the circuits that have no
 * predecessor, with the times they may come up; simctl_up() marks a
 * circuit up and says whether, with nothing planned on it left, it may
 * go down and when; simctl_sent() counts a planned transfer sent and
 * says the same of its circuit; simctl_down() marks a circuit down and
 * gives each successor that it released and the time it may come up.
 * Times are picoseconds; a sum past 2^64-1 is held at 2^64-1.
 */
#ifndef SIMCTL_H
#define SIMCTL_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"

enum simctl_policy { SIMCTL_NONE, SIMCTL_HOLD, SIMCTL_ASAP };

extern const char *const simctl_policies[];

struct simctl;

const char	*simctl_refusal(const struct net *, const struct schedule *);
struct simctl	*simctl_new(const struct dag *, const struct net *,
		    const struct schedule *, int, const uint64_t *,
		    const uint64_t *, char *, size_t);
void		 simctl_free(struct simctl *);
size_t		 simctl_first(const struct simctl *, uint32_t *, uint64_t *);
uint32_t	 simctl_circuit(const struct simctl *, uint32_t);
int		 simctl_is_up(const struct simctl *, uint32_t);
int		 simctl_up(struct simctl *, uint32_t, uint64_t, uint64_t *);
int		 simctl_sent(struct simctl *, uint32_t, uint64_t, uint32_t *,
		    uint64_t *);
int		 simctl_down(struct simctl *, uint32_t, uint64_t, uint32_t *,
		    uint64_t *);

#endif
