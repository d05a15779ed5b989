/*
 * rotorsched's private parts.  rotorsched.c reads the options and the
 * stream and writes the schedule; rotorsched_rotor.c makes RotorNet's
 * period, rotorsched_tm.c the traffic matrix, BvN's decomposition and
 * the deal of configurations to the switches, and rotorsched_sol.c the
 * Solstice and Eclipse schedules.  Each maker adds one period of
 * circuits to a schedule the caller owns and initialized, sets it
 * periodic with its period, and dies (die()) with a message on input it
 * cannot schedule or when memory runs out.
 * rotorsched_place.c chooses where the ranks sit on RotorNet's ports
 * (-p): it reads the option, draws or searches the placement, and for
 * the search simulates each candidate with lib/sim/sim.
 */
#ifndef ROTORSCHED_H
#define ROTORSCHED_H

#include <stddef.h>
#include <stdint.h>

#include "model/dagin.h"
#include "model/net.h"
#include "model/sched.h"

#define RS_NONE	UINT32_MAX
#define RS_PS	1000000000000ULL

/*
 * A period of K <= NET_MAX_GPUS slots then ends below SCHED_FOREVER:
 * (2^20 - 1) x (2^44 - 1) < 2^64 - 1.
 */
#define SLOT_MAX	(UINT64_MAX / NET_MAX_GPUS)

enum { MODE_ROTOR, MODE_BVN, MODE_SOLSTICE, MODE_ECLIPSE, MODE_STATIC,
	MODE_PHASE };

enum { PLACE_IDENTITY, PLACE_GIVEN, PLACE_RANDOM, PLACE_BEST };

/* The search's default budget: every placement of 8 GPUs (7! = 5040). */
#define PLACE_EVALS	10000

/*
 * -p: the kind; for PLACE_GIVEN the ports, port[i] that of rank i, n
 * of them, a permutation of 0..n-1 (the caller checks n against the
 * net); the seed of random:SEED, or of best's random restarts.  The
 * search stops after evals simulations or seconds (0: no limit) of
 * wall-clock time, keeping the best so far.
 */
struct place {
	int		 kind;
	uint32_t	*port;
	uint32_t	 n;
	uint64_t	 seed;
	uint64_t	 evals;
	double		 seconds;
	int		 evals_set;
};

struct args {
	int		 mode;
	int		 fwd;
	int		 duty_set, slot_set, fwd_set;
	double		 duty;
	uint64_t	 slot;
	uint64_t	 cap;
	int		 cap_set;
	struct place	 place;
	int		 verbose;
	int		 own;		/* --own: not the DAG */
	double		 deadline;	/* -T of the traffic-matrix modes */
};

/*
 * rotorsched_rotor.c: port[g] is rank g's port, NULL for identity.
 * rotor_pairs() adds only the circuits of the np pairs of ranks given
 * (two a pair, each pair once), where the full period has them: what
 * direct forwarding uses of it, in work that follows the pairs (port
 * must not be NULL there).
 */
uint64_t	rotor_slot(const struct net *, const struct args *);
void		rotor(struct schedule *, const struct net *,
		    const struct args *, const uint32_t *);
void		rotor_pairs(struct schedule *, const struct net *,
		    const struct args *, const uint32_t *, const uint32_t *,
		    size_t);

/*
 * rotorsched_planes.c: planes_schedule() adds to sc the mode's schedule
 * on a tiered fabric: for each unit (a rail, an uplink) of ocs planes
 * that carries transfers (as planes_route() sends them), the mode's
 * maker on a net of the unit's ports, its count planes as the switches
 * and, for the traffic-matrix modes, the unit's transfers renamed to
 * its ports; circuits are numbered by plane, and the longest unit's
 * period is the schedule's.  It dies on two-hop forwarding or a
 * placement (-p).
 */
void		planes_schedule(struct schedule *, const struct dagin *,
		    const struct args *);

/*
 * rotorsched_place.c.  place_parse() reads -p's argument into the
 * struct (its port array malloc'd, the caller's to free) and returns
 * 0, or -1 with a message for usage in the caller's buffer.
 * place_schedule() empties the schedule and makes the rotor period of
 * a placement with the forwarding and cap of the
 * args (a->cap already the one written).  place_choose() returns the
 * ports of the ranks the options ask for, malloc'd, or NULL for
 * identity; the search (PLACE_BEST) takes the placement of least
 * simulated makespan, the earliest on a tie, and dies on a simulation
 * that fails other than by its time limit.  With a->verbose it says on
 * stderr what it chose and its makespan; it shows progress there when
 * stderr is a terminal.  The same input and options give the same
 * placement, unless the time limit cut the search.
 */
int		 place_parse(struct place *, const char *, char *, size_t);
void		 place_schedule(struct schedule *, const struct net *,
		    const struct args *, const uint32_t *);
uint32_t	*place_choose(const struct args *, const struct dagin *);

/*
 * rotorsched_tm.c: what the traffic-matrix schedulers share.
 *
 * tm_cmp_edge() orders edges heaviest first, then by (a, b).
 * tm_edges() gathers the pairs a < b of GPUs with a transfer between
 * them, with w = max(D[a][b], D[b][a]), in the order of (a, b), into an
 * array the caller frees; it dies when the DAG has no transfer, or a
 * pair's bytes pass 2^64 - 1 or take 2^64 ps or more at bps.  tm_ps_for() is the time bytes take at
 * bps, rounded up, and dies past 2^64 - 1 ps.
 *
 * A tm_plan is a list of configurations (matchings), each with its
 * duration and its circuits' pairs.  tm_config() opens a new one (or
 * takes over the last if it got no circuit), tm_circuit() adds a pair
 * to the one open.  tm_empty_pairs() gives the pairs of no byte (w 0),
 * whose transfers still wait for a circuit, a place in the first
 * configuration with both their GPUs free, or new ones of 1 ps.
 * tm_deal() deals the configurations that have circuits to the
 * switches, longest first (equal ones in the order made), each to the
 * least-loaded switch (the lowest on a tie) and followed by tau; it
 * sets the schedule periodic with the busiest switch's load as its
 * period and frees the plan.
 *
 * The makers of the traffic-matrix modes (bvn, solstice, eclipse) take
 * a deadline, a wclock_now() time (0: none): past it (tm_late()), they
 * stop their search, say so on stderr, and serve the pairs left with
 * tm_rest(): maximal matchings of the edges, heaviest first, each
 * lasting as long as its heaviest edge needs, until none is left (its
 * work is the edges' times the matchings', and it reorders e).
 */
struct tm_edge {
	uint64_t	w;
	uint32_t	a, b;
	int		pick;
};

struct tm_config {
	uint64_t	dur;
	size_t		off, n;		/* into the plan's pairs */
};

struct tm_plan {
	struct tm_config *cf;
	size_t		 ncf, cfcap;
	struct tm_edge	*p;
	size_t		 np, pcap;
};

int		tm_cmp_edge(const void *, const void *);
size_t		tm_edges(const struct dag *, uint64_t, struct tm_edge **);
uint64_t	tm_ps_for(uint64_t, uint64_t);
void		tm_config(struct tm_plan *, uint64_t);
void		tm_circuit(struct tm_plan *, uint32_t, uint32_t);
void		tm_empty_pairs(struct tm_plan *, const struct tm_edge *,
		    size_t, uint32_t);
void		tm_deal(struct schedule *, const struct net *,
		    struct tm_plan *);
int		tm_late(double);
void		tm_rest(struct tm_edge *, size_t, const struct net *,
		    struct tm_plan *);
void		bvn(struct schedule *, const struct dagin *, double);

/* rotorsched_sol.c */
void		solstice(struct schedule *, const struct dagin *, double);
void		eclipse(struct schedule *, const struct dagin *, double);

#endif
