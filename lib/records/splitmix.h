/*
 * splitmix: the splitmix64 generator (Steele, Lea and Flood, 2014), a
 * portable stream of 64-bit words from a 64-bit state: the same on
 * every machine.  splitmix_next() advances *state and returns the next
 * word; any state, 0 too, is a valid seed.  Pure; the caller owns the
 * state.  rotorsched's random placements draw from it, and lib/model/moe
 * seeds its xoshiro256** through it.
 */
#ifndef SPLITMIX_H
#define SPLITMIX_H

#include <stdint.h>

uint64_t	splitmix_next(uint64_t *);

#endif
