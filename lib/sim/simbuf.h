/*
 * simbuf: the two NIC-buffer accountings of a run of sim_run() (BRIEF
 * section 9), kept by sim.c through these calls only.
 *
 *   ready  the bytes at GPU g that are ready to leave it (their
 *          producing task ended) and not yet sent, plus the bytes g
 *          holds for relaying;
 *   nic    the bytes handed to g's NIC and not yet on the wire.  A
 *          transfer the host hands over whole waits there whole; one it
 *          keeps in GPU memory enters the NIC only while it is being
 *          sent, at most one packet (sim_opts.packet bytes) of it per
 *          flow.  Which transfers are handed over whole depends on the
 *          host (enum sim_host): unaware, every one, as soon as it is
 *          ready; plan, those the schedule does not plan (a planned one
 *          is streamed from its planned start); circuit, none (the host
 *          knows when every circuit is up, the periodic ones included).
 *          Relayed bytes are always in the NIC whole.
 *
 * Both rise only when bytes become ready, reach a relay or start a
 * flow, and fall as bytes leave; sim.c calls simbuf_peak() at each of
 * those instants, which updates the peaks of g in sim_out.  Under an
 * unaware host the two accountings are equal.
 *
 * simbuf_handed() says whether a segment of transfer task (relayed or
 * not) sits in the NIC whole.  Neither call fails or allocates.
 */
#ifndef SIMBUF_H
#define SIMBUF_H

#include <stdint.h>

struct sim;

int	simbuf_handed(const struct sim *, uint32_t, int);
void	simbuf_peak(struct sim *, uint32_t);

#endif
