/*
 * route: the transfers of a DAG that no plane of a tiered fabric
 * carries whole, split into one-plane hops (BRIEF section 2b).
 *
 * route_dag() copies the DAG in into out (initialised by the caller,
 * and owned by it after, whatever is returned).  A transfer from g to h
 * that no plane joins goes first over g's group to its relay, the GPU
 * of g's group on h's rail (fabric_relay()), then over that rail to h
 * (model/relay):
 * two transfers of its bytes and step, the first with its dependencies,
 * the second depending on the first alone; every task that waited for
 * the transfer waits for the second.  Other tasks are copied as they
 * are; ids are renumbered in order, and from[j] is the task of in that
 * task j of out came from (from has room for twice in's tasks).  Returns how many transfers were
 * split, or -1: out of memory or too many tasks (the pair is then
 * UINT32_MAX twice), or a pair that no plane joins and no relay serves,
 * put in the last two arguments (fabric_check() refuses such a fabric
 * before any work).
 */
#ifndef ROUTE_H
#define ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/fabric.h"

int64_t	route_dag(const struct dag *, const struct fabric *, struct dag *,
	    uint32_t *, uint32_t *, uint32_t *);

#endif
