/* net: the network description record. */
#include <stdint.h>

#include "model/net.h"
#include "records/rec.h"
#include "records/stream.h"

const char *const net_models[] = { "port", "switch", NULL };

void
net_write(msgpack_packer *pk, const struct net *n)
{
	stream_pack_record(pk, "net", 7);
	stream_pack_ku64(pk, "gpus", n->gpus);
	stream_pack_ku64(pk, "switches", n->switches);
	stream_pack_ku64(pk, "bandwidth_bps", n->bandwidth_bps);
	stream_pack_ku64(pk, "reconfig_ps", n->reconfig_ps);
	stream_pack_kstr(pk, "reconfig_model", net_models[n->model]);
	stream_pack_ku64(pk, "latency_ps", n->latency_ps);
}

int
net_read(struct rec *r, struct net *n)
{
	if (rec_has(r, "planes")) {
		rec_fail(r, "the net is a tiered fabric (planes): this tool "
		    "takes the paper's flat net only, so far");
		return -1;
	}
	n->gpus = (uint32_t)rec_u64_max(r, "gpus", NET_MAX_GPUS);
	n->switches = (uint32_t)rec_u64_max(r, "switches", NET_MAX_SWITCHES);
	n->bandwidth_bps = rec_u64(r, "bandwidth_bps");
	n->reconfig_ps = rec_u64(r, "reconfig_ps");
	n->model = rec_enum_or(r, "reconfig_model", net_models, NET_PORT);
	n->latency_ps = rec_u64_or(r, "latency_ps", 0);
	if (!rec_failed(r) && n->gpus == 0)
		rec_fail(r, "key \"gpus\": must be at least 1");
	if (!rec_failed(r) && n->switches == 0)
		rec_fail(r, "key \"switches\": must be at least 1");
	if (!rec_failed(r) && n->bandwidth_bps == 0)
		rec_fail(r, "key \"bandwidth_bps\": must be positive");
	return rec_failed(r) ? -1 : 0;
}
