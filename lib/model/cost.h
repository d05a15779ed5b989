/*
 * cost: what a fabric's scale-out costs and draws, and the EPS-only
 * fabric the same money buys (BRIEF section 11).
 *
 * Figures are per Gbit/s of a port for what scales with its rate (a
 * transceiver, an EPS port) and per port for an OCS (a mirror does not
 * care about the rate).  cost_defaults holds assumed figures, stated
 * in dagbuild(1), Cost, with the published numbers they were set
 * against; cost_parse() sets figures from
 * "key=value,..." (the keys of cost_keys[]), and returns 0, or -1 with
 * a message in the caller's buffer.
 *
 * cost_fabric() sums the fabric's scale-out on gpus GPUs: every plane
 * but those of an eps group:K description (the scale-up domain, NVLink,
 * the same whichever fabric is compared, not counted).  An ocs port
 * costs an OCS port and one transceiver (the one at its far end, a GPU
 * NIC's or an uplink's); an eps plane of P ports at rate R is a switch
 * and 2P transceivers when P is at most what one switch holds at R
 * (eps_tbps / R), else a leaf-spine of P leaf ports down, P/o up and
 * P/o spine ports, o its oversubscription, and 2P + 2P/o transceivers.
 *
 * cost_eps_equal() writes into out (initialised by the caller, freed
 * with fabric_free()) the fabric in with every ocs description an eps
 * one of the same attachment, count and latency, the least
 * oversubscription o (a fraction in thousandths, one for all) whose
 * cost is at most in's: o = T / (C - B), C in's cost, B the EPS
 * fabric's without its spines and T its spines' at o = 1.  When a
 * non-blocking EPS fits the money (B + T <= C), o is 1; when no
 * oversubscription does (C <= B, or no plane needs a spine), the money
 * buys the non-blocking EPS at a lower rate, every replaced plane's
 * rate times C / (B + T), rounded down to a bit/s.  It returns 0 and
 * the two costs in *ocs and *eps, or -1 with a message (out of memory,
 * a fabric with no ocs plane to replace, a rate that comes to 0).
 */
#ifndef COST_H
#define COST_H

#include <stddef.h>
#include <stdint.h>

#include "model/fabric.h"

struct cost_figures {
	double	xcvr_usd;	/* a transceiver, per Gbit/s */
	double	xcvr_w;
	double	eps_usd;	/* an EPS port, per Gbit/s */
	double	eps_w;
	double	ocs_usd;	/* an OCS port */
	double	ocs_w;
	double	eps_tbps;	/* what one EPS switch switches */
};

struct cost_sum {
	double	usd, w;
	double	ports;		/* switch ports */
	double	xcvrs;		/* transceivers */
};

extern const struct cost_figures cost_defaults;
extern const char *const cost_keys[];

int	cost_parse(struct cost_figures *, const char *, char *, size_t);
void	cost_fabric(const struct fabric *, uint32_t,
	    const struct cost_figures *, struct cost_sum *);
int	cost_eps_equal(const struct fabric *, uint32_t,
	    const struct cost_figures *, struct fabric *, struct cost_sum *,
	    struct cost_sum *, char *, size_t);

#endif
