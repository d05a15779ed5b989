/*
 * relay: a DAG whose transfers are sent over paths of hops, each hop a
 * transfer of its own (rotorsched -m static's relays over circuits).
 *
 * relay_dag() copies in into out (initialised by the caller, and owned
 * by it after, whatever is returned).  For transfer i of in, path(arg,
 * i, via, max) returns how many GPUs it is relayed through, k, and
 * puts them in via[0..k) in the order the bytes reach them (k <= max;
 * 0: the transfer goes whole).  A transfer relayed through k GPUs
 * becomes k + 1 transfers of its bytes and step, one after the other,
 * the first with its dependencies, each later one depending on the one
 * before it alone; every task that waited for the transfer waits for
 * its last hop.  Other tasks are copied as they are; ids are
 * renumbered in order.  *from (malloc'd, the caller's to free, one per
 * task of out) holds the task of in that each task of out came from.
 * Returns the number of transfers relayed, or -1: out of memory, more
 * than UINT32_MAX - 1 tasks, or a path that is none: longer than max,
 * through a GPU at or past gpus, through its own source or destination,
 * or through one GPU twice in a row; *from is then NULL.
 */
#ifndef RELAY_H
#define RELAY_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"

typedef size_t	(*relay_path_fn)(void *, size_t, uint32_t *, size_t);

int64_t	relay_dag(const struct dag *, uint32_t, relay_path_fn, void *,
	    size_t, struct dag *, uint32_t **);

#endif
