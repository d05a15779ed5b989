/*
 * net: the network description record (fluxocs(5), "net").
 *
 * N GPUs, S optical switches, one duplex port per GPU on every switch
 * at bandwidth_bps per direction; reconfig_ps of dark time per change
 * under the port or the switch model; latency_ps per transfer.
 * net_read() reports problems through the record's sticky error; it
 * refuses the net of a tiered fabric (model/netplanes), which has
 * planes instead.
 */
#ifndef NET_H
#define NET_H

#include <stdint.h>

#include <msgpack.h>

#include "records/rec.h"

enum net_model { NET_PORT, NET_SWITCH };

#define NET_MAX_GPUS		(1U << 20)
#define NET_MAX_SWITCHES	1024U

struct net {
	uint32_t	gpus;
	uint32_t	switches;
	uint64_t	bandwidth_bps;
	uint64_t	reconfig_ps;
	uint64_t	latency_ps;
	int		model;
};

extern const char *const net_models[];

void	net_write(msgpack_packer *, const struct net *);
int	net_read(struct rec *, struct net *);

#endif
