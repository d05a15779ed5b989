/* simbuf: the two NIC-buffer accountings of a run. */
#include <stdint.h>

#include "model/dag.h"
#include "sim/sim.h"
#include "sim/simbuf.h"
#include "sim/simstate.h"

int
simbuf_handed(const struct sim *s, uint32_t task, int relayed)
{
	if (relayed)
		return 1;
	switch (s->opt->host) {
	case SIM_HOST_UNAWARE:
		return 1;
	case SIM_HOST_CIRCUIT:
		return 0;
	default:
		return s->ideal || s->ts[task].plan == NONE;
	}
}

void
simbuf_peak(struct sim *s, uint32_t g)
{
	struct sim_gpustat *o = &s->out->gpu[g];
	uint64_t ready = s->g[g].ready_bytes - s->g[g].sent_bytes;
	uint64_t nic = s->g[g].nic_bytes - s->g[g].nic_sent;
	uint64_t pkt = s->opt->packet, rem, done;
	uint32_t i;

	/*
	 * The flows only take their bytes sent off both counts, and each
	 * streamed one adds at most a packet to nic: when neither bound
	 * passes its peak, no peak can rise, and the walk is spared.
	 */
	if (ready <= o->peak_buffer &&
	    (unsigned __int128)s->g[g].nstream * pkt + nic <= o->peak_nic)
		return;
	for (i = s->g[g].flows; i != NONE; i = s->fl[i].gnext) {
		const struct flow *f = &s->fl[i];
		const struct seg *sg = &s->seg[f->seg];

		rem = sim_unsent(s, f);
		done = sg->bytes - rem;
		ready -= done;
		if (!f->streamed)	/* simbuf_handed(), at its start */
			nic -= done;
		else
			nic += rem < pkt ? rem : pkt;
	}
	if (ready > o->peak_buffer)
		o->peak_buffer = ready;
	if (nic > o->peak_nic)
		o->peak_nic = nic;
}
