/*
 * simnext: when a schedule next joins two GPUs by a circuit, and the
 * look-ahead of two-hop forwarding (SCHED_ROTORLB) built on it.
 *
 * simnext_new() indexes the circuits of a schedule once: per unordered
 * pair of GPUs, the times its circuits are up on any switch, intervals
 * [from_ps, to_ps) sorted by start, those that overlap or touch merged
 * into one (a pair joined on two switches at once counts once).
 * simnext_up() answers the first instant at or after t at which some
 * circuit joins x and y: t itself when one is up at t, else the start
 * of the next one.  simnext_after() answers the first instant at which
 * a circuit joins them once they have been joined for ps picoseconds
 * from t on: where a hop of ps picoseconds' worth of bytes, sent over
 * the pair's circuits from t, ends, moved on to the next circuit when
 * it ends as one goes down (ps 0 is simnext_up()).  A periodic schedule
 * of period P repeats its circuits at from_ps + kP for every k >= 0, as
 * ocssim(1) runs it: the search starts at t mod P by binary search on
 * the pair's intervals and their up time so far, whole periods of up
 * time are counted in closed form.  A non-periodic schedule's circuits
 * are taken as given, once; one without to_ps (SCHED_FOREVER) stays up
 * for ever.  Circuits with from_ps >= to_ps are never up.
 *
 * Ownership: the index owns its arrays and keeps no pointer into the
 * schedule, which the caller may change or free afterwards;
 * simnext_free() releases the index (NULL is allowed).
 *
 * Errors: simnext_new() returns NULL with errno ENOMEM when memory runs
 * out, and EINVAL for a periodic schedule with no period or with a
 * circuit that does not end within it (sched_check() refuses both).
 * simnext_up() and simnext_after() return SIMNEXT_AT with the instant
 * in *at; SIMNEXT_NEVER when there is none (no circuit joins x and y,
 * x == y, or a non-periodic schedule's circuits end first); or
 * SIMNEXT_LATE when it would come after 2^64-1 ps, which no run
 * reaches.  *at is UINT64_MAX for both.  Times are integer picoseconds,
 * kP + from_ps and every sum of up time exact in 128 bits.
 *
 * Complexity: simnext_new() O(n log n) time and O(n) memory for n
 * circuits; each query O(log n), with no allocation.
 */
#ifndef SIMNEXT_H
#define SIMNEXT_H

#include <stdint.h>

#include "model/sched.h"

enum { SIMNEXT_AT, SIMNEXT_NEVER, SIMNEXT_LATE };

struct simnext;

struct simnext	*simnext_new(const struct schedule *);
void		 simnext_free(struct simnext *);
int		 simnext_up(const struct simnext *, uint32_t, uint32_t,
		    uint64_t, uint64_t *);
int		 simnext_after(const struct simnext *, uint32_t, uint32_t,
		    uint64_t, uint64_t, uint64_t *);

/*
 * The look-ahead rule of SCHED_ROTORLB.  Bytes for d that a could hand
 * at time now to the relay b it has a circuit to would reach b at t1,
 * when that hop ends; direct_ps and relay_ps are what the bytes ahead
 * of them take at one circuit's rate, at a and at b.  Returns 1 when b
 * starts them towards d strictly before a would: simnext_after(b, d,
 * t1, relay_ps) < simnext_after(a, d, now, direct_ps), an instant never
 * reached (SIMNEXT_NEVER or SIMNEXT_LATE) counting as later than any
 * other; else 0, so that a tie, or no circuit b-d either, keeps the
 * bytes on the direct route.
 */
int		 simnext_relay_sooner(const struct simnext *, uint32_t,
		    uint32_t, uint32_t, uint64_t, uint64_t, uint64_t,
		    uint64_t);

#endif
