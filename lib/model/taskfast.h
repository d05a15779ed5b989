/*
 * taskfast: task records (fluxocs(5), "task") read from and written to
 * their bytes directly, without msgpack-c's object tree or its packer.
 *
 * taskfast_read() reads the record behind r from its raw bytes into
 * the dag when every key it knows has the type taskio_read() wants,
 * appears once, and the task passes every check of taskio_read(); it
 * returns 0 then, with the same task and dependencies as that reader.
 * For anything else (a key of another type or twice, a value out of
 * range, a check that fails) it returns 1 with the dag unchanged, and
 * taskio_read() reads the record through the tree as it always did, so
 * that results and messages are the same.  Unknown keys are skipped.
 *
 * taskfast_run() reads the task records laid out as taskfast_write()
 * lays them out from the start of the n bytes at p (a stream's buffer,
 * stream_peek()), one after another, checking every byte of each, the
 * stream's limits and every check of taskio_read(), and adds each task
 * as taskio_read() would.  It stops at the first record it does not
 * take so (any other record or layout, one cut short by the end of the
 * bytes, a check that fails), which leaves the dag as it was, sets *len
 * to the size of the records it took and returns how many: 0, *len 0,
 * when it took none.  The caller vouches for them to the stream with
 * stream_accept().
 *
 * taskfast_write() encodes in the writer's buffer the bytes that
 * taskio_write() packs through msgpack-c (same keys, same order, same
 * encodings); it returns -1, writing nothing, when the record could
 * not fit in the buffer (STREAM_WBUF).
 */
#ifndef TASKFAST_H
#define TASKFAST_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "records/rec.h"
#include "records/stream.h"

int	taskfast_read(const struct rec *, struct dag *, uint32_t);
size_t	taskfast_run(const uint8_t *, size_t, const struct stream_limits *,
	    struct dag *, uint32_t, size_t *);
int	taskfast_write(struct stream_writer *, const struct dag *, size_t,
	    const char *, const uint64_t *);

#endif
