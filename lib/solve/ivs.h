/*
 * ivs: sorted, disjoint intervals [s, e) of time, for the greedy
 * scheduler (a port direction's uses, a circuit's idle gaps, a
 * switch's busy time).  The struct owns v; a zeroed one is empty.
 *
 * ivs_first_after() is the first interval that ends after t (or n); it
 * tries its last answer first (the only state it changes), for the
 * scheduler asks one set about nearly the same time again and again.
 * ivs_fit() the earliest t' >= t with [t', t' + len) clear of them.
 * ivs_put() inserts [s, e) at place i (the caller keeps the order) and
 * ivs_del() removes place i.  ivs_add() adds a use that meets no other,
 * merging it with those it touches end to end; ivs_union() adds one
 * that may overlap others, merging all it meets or touches.  The
 * inserting ones return -1, the set unchanged, when memory runs out.
 */
#ifndef IVS_H
#define IVS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Busy intervals [s, e) of one port direction, sorted and disjoint;
 * also a circuit's idle gaps (s, e) longer than 2 tau between its uses.
 */
struct ivs {
	struct iv { uint64_t s, e; } *v;
	size_t		n, cap;
	size_t		hint;	/* ivs_first_after()'s last answer */
};

size_t	ivs_first_after(struct ivs *, uint64_t);
uint64_t ivs_fit(struct ivs *, uint64_t, uint64_t);
int	ivs_put(struct ivs *, size_t, uint64_t, uint64_t);
void	ivs_del(struct ivs *, size_t);
int	ivs_add(struct ivs *, uint64_t, uint64_t);
int	ivs_union(struct ivs *, uint64_t, uint64_t);

#endif
