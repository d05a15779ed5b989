/*
 * taskio: task records (fluxocs(5), "task") to and from a struct dag.
 *
 * taskio_write() packs task i of a dag, with an optional name and op
 * id (NULL for none).  taskio_read() appends one record to a dag and
 * checks the contract: ids dense from 0 in stream order, every
 * dependency an earlier task, GPUs below the net's count, transfers
 * between two distinct GPUs.  Errors go through the record's sticky
 * error; the dag is unchanged on error.
 *
 * Both go straight between the record's bytes and the struct when they
 * can (lib/model/taskfast), through msgpack-c otherwise, with the same bytes
 * and the same results.  taskio_read_tree() is the reader through
 * msgpack-c's tree alone, which the tests compare with the other.
 */
#ifndef TASKIO_H
#define TASKIO_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "model/dag.h"
#include "records/rec.h"

void	taskio_write(msgpack_packer *, const struct dag *, size_t,
	    const char *, const uint64_t *);
int	taskio_read(struct rec *, struct dag *, uint32_t);
int	taskio_read_tree(struct rec *, struct dag *, uint32_t);

#endif
