/*
 * netplanes: the net record of a tiered fabric (fluxocs(5), "net").
 *
 * The paper's flat net is written by net_write() as it always was.  A
 * fabric of planes (model/fabric) is written by netplanes_write() as
 * {gpus, fabric, planes: [...]}, one map a plane description, without
 * the flat net's switches, bandwidth_bps and reconfig_ps, so that a
 * reader of the flat net refuses it rather than misread it (net_read()
 * says why).  netplanes_read() reads such a record into the caller's
 * fabric (which it frees first and then owns the descriptions of) and
 * checks it on its GPUs (fabric_check()); problems go through the
 * record's sticky error, and it returns 0 or -1.  netplanes_is() says
 * whether a net record is one.
 */
#ifndef NETPLANES_H
#define NETPLANES_H

#include <stdint.h>

#include <msgpack.h>

#include "model/fabric.h"
#include "records/rec.h"

void	netplanes_write(msgpack_packer *, uint32_t, const struct fabric *);
int	netplanes_read(struct rec *, uint32_t *, struct fabric *);
int	netplanes_is(const struct rec *);

#endif
