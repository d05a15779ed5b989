/*
 * filter: the reading loop of every stage of a pipeline.
 *
 * filter_run() reads a stream, copies its leading headers and appends
 * the tool's own, checks every later header too, and hands each other
 * record to the tool's function, which returns 1 to pass the record
 * through, 0 to consume it, or -1 to stop, having written why into the
 * caller's buffer.  Returns 0 at the end of the stream, or -1 with a
 * message in the caller's buffer.
 */
#ifndef FILTER_H
#define FILTER_H

#include <stddef.h>
#include <stdio.h>

#include "stream.h"

int	filter_run(FILE *, const char *, struct stream_writer *,
	    const char *, int, char *const *,
	    int (*)(void *, const struct stream_rec *), void *, char *,
	    size_t);

#endif
