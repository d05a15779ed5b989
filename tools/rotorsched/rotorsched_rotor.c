/*
 * rotorsched, RotorNet: the N-1 matchings of a 1-factorization of the
 * complete graph on the GPUs, dealt to the switches; every switch steps
 * to its next matching each slot, dark for tau, then up.  The table
 * is made on ports; rank g sits on port port[g] (identity when NULL).
 */
#include <stdint.h>
#include <stdio.h>

#include "model/net.h"
#include "model/sched.h"
#include "records/die.h"

#include "rotorsched.h"

#define NONE	RS_NONE

/*
 * A rotor period holds every pair of GPUs once, N(N-1)/2 circuits
 * whatever the tasks: 4096 GPUs fit (8386560 circuits, 268 MB held
 * and as much again to check them); more are refused up front.
 */
#define ROTOR_MAX_CIRCUITS	(1ULL << 23)

/*
 * Partner of g in matching m (1 <= m < n'), n' = n rounded up to even:
 * XOR matchings when n is a power of two, else the circle method.
 * NONE for an idle port (odd n).
 */
static uint32_t
rr_partner(uint32_t n, uint32_t m, uint32_t g)
{
	uint32_t ne = n + (n & 1), k = ne - 1, r = m - 1, p;

	if ((n & (n - 1)) == 0)
		return g ^ m;
	if (g == k)
		p = r;
	else if (g == r)
		p = k;
	else
		p = (2 * r + k - g) % k;
	return p < n ? p : NONE;
}

/*
 * The matching that switch s shows in slot j, 0 for idle.  Two switches
 * and a power-of-two n give RotorNet's own table: odd XORs ascending on
 * one, even XORs descending then idle on the other.
 */
static uint32_t
rotor_matching(uint32_t n, uint32_t S, uint32_t s, uint32_t j)
{
	uint32_t nm = n - 1 + (n & 1), idx;

	if (S == 2 && (n & (n - 1)) == 0)
		return s == 0 ? 2 * j + 1 : n - 2 - 2 * j;
	idx = j * S + s;
	return idx < nm ? idx + 1 : 0;
}

/*
 * The matching m that pairs ports x != y, and the switch *s and slot
 * *j that show it: the inverses of rr_partner() and rotor_matching().
 */
static uint32_t
rr_matching(uint32_t n, uint32_t x, uint32_t y)
{
	uint32_t k = n + (n & 1) - 1;

	if ((n & (n - 1)) == 0)
		return x ^ y;
	if (x == k)
		return y + 1;
	if (y == k)
		return x + 1;
	/* x + y = 2r (mod k), k odd: r = (x + y)(k + 1)/2 mod k */
	return (uint32_t)(((uint64_t)x + y) * ((k + 1) / 2) % k) + 1;
}

static void
rotor_place_of(uint32_t n, uint32_t S, uint32_t m, uint32_t *s,
    uint32_t *j)
{
	if (S == 2 && (n & (n - 1)) == 0) {
		*s = (m & 1) ? 0 : 1;
		*j = (m & 1) ? (m - 1) / 2 : (n - 2 - m) / 2;
		return;
	}
	*s = (m - 1) % S;
	*j = (m - 1) / S;
}

uint64_t
rotor_slot(const struct net *n, const struct args *a)
{
	double slot;

	if (a->slot_set)
		return a->slot;
	slot = (double)n->reconfig_ps / (1 - a->duty) + 0.5;
	if (slot >= (double)SLOT_MAX)
		die("a reconfiguration delay of %llu ps at a duty cycle of %g "
		    "makes a slot of %.0f ps, more than the %llu ps a slot "
		    "may last", (unsigned long long)n->reconfig_ps, a->duty,
		    slot, (unsigned long long)SLOT_MAX);
	return (uint64_t)slot;
}

/* Refuse up front a period too large to make: it grows as N^2. */
static void
rotor_size(const struct net *n)
{
	uint64_t nc = (uint64_t)n->gpus * (n->gpus - 1) / 2;

	if (nc <= ROTOR_MAX_CIRCUITS)
		return;
	die("a rotor period on %u GPUs holds %llu circuits (%llu bytes in "
	    "memory); at most %llu are made (4096 GPUs)", n->gpus,
	    (unsigned long long)nc,
	    (unsigned long long)(nc * sizeof(struct circuit)),
	    (unsigned long long)ROTOR_MAX_CIRCUITS);
}

/* The checks of a period, and its slot. */
static uint64_t
rotor_check(const struct net *n, const struct args *a)
{
	uint64_t slot;

	if (n->gpus < 2)
		die("rotor needs at least 2 GPUs");
	if (n->reconfig_ps == 0 && !a->slot_set)
		die("the reconfiguration delay is 0: give the slot with -s");
	slot = rotor_slot(n, a);
	if (slot <= n->reconfig_ps)
		die("slot of %llu ps leaves no time after the reconfiguration "
		    "delay of %llu ps", (unsigned long long)slot,
		    (unsigned long long)n->reconfig_ps);
	return slot;
}

void
rotor_pairs(struct schedule *sc, const struct net *n, const struct args *a,
    const uint32_t *port, const uint32_t *pair, size_t np)
{
	uint32_t S = n->switches, nm = n->gpus - 1 + (n->gpus & 1);
	uint32_t K = (nm + S - 1) / S, s, j, m, ra, rb, t;
	uint64_t tau = n->reconfig_ps, slot = rotor_check(n, a);
	size_t i;

	sc->periodic = 1;
	sc->period = K * slot;
	for (i = 0; i < np; i++) {
		ra = pair[2 * i];
		rb = pair[2 * i + 1];
		if (port[ra] > port[rb]) {	/* the lower port first */
			t = ra;
			ra = rb;
			rb = t;
		}
		m = rr_matching(n->gpus, port[ra], port[rb]);
		rotor_place_of(n->gpus, S, m, &s, &j);
		if (sched_add_circuit(sc, s, ra, rb, j * slot + tau,
		    (j + 1) * slot) != 0)
			die("out of memory");
	}
}

void
rotor(struct schedule *sc, const struct net *n, const struct args *a,
    const uint32_t *port)
{
	uint32_t S = n->switches, nm = n->gpus - 1 + (n->gpus & 1);
	uint32_t K = (nm + S - 1) / S, s, j, g, m, p, *rank;
	uint64_t tau = n->reconfig_ps, slot;

	if (n->gpus < 2)
		die("rotor needs at least 2 GPUs");
	rotor_size(n);
	slot = rotor_check(n, a);
	sc->periodic = 1;
	sc->period = K * slot;
	rank = xmalloc((size_t)n->gpus * sizeof(*rank));
	for (g = 0; g < n->gpus; g++)		/* rank[x]: who is on port x */
		rank[port != NULL ? port[g] : g] = g;
	for (s = 0; s < S; s++)
		for (j = 0; j < K; j++) {
			if ((m = rotor_matching(n->gpus, S, s, j)) == 0)
				continue;
			for (g = 0; g < n->gpus; g++) {
				p = rr_partner(n->gpus, m, g);
				if (p == NONE || p < g)
					continue;
				if (sched_add_circuit(sc, s, rank[g], rank[p],
				    j * slot + tau, (j + 1) * slot) != 0)
					die("out of memory");
			}
		}
	free(rank);
}
