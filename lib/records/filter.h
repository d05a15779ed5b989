/*
 * filter: the reading loop of every stage of a pipeline.
 *
 * filter_run() reads a stream, copies its leading headers and appends
 * the tool's own, checks every later header too, and hands each other
 * record to the tool's function, which returns 1 to pass the record
 * through, 0 to consume it, or -1 to stop, having written why into the
 * caller's buffer.  Returns 0 at the end of the stream, or -1 with a
 * message in the caller's buffer.
 *
 * filter_run_quick() is filter_run() with a quicker way for the
 * commonest records: before a record it offers the quick function the
 * bytes buffered from there on (stream_peek()) and the reader's limits
 * (stream_limits()).  The function reads a run of whole records from
 * their start, as many as it takes one after another, checks every
 * byte of each (as stream_accept() asks), does with each what fn would
 * have done, sets *len to their size and returns how many (they are
 * then passed through, as fn's 1 would, in one write); at the first
 * record it does not take it stops, having changed nothing for that
 * one.  It is offered the bytes after its run again, and when it takes
 * none, returning 0, the next record goes the usual way.  It is not
 * offered records once the stream's end record has been seen.
 */
#ifndef FILTER_H
#define FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "records/stream.h"

struct filter_quick {
	size_t	(*fn)(void *, const uint8_t *, size_t,
		    const struct stream_limits *, size_t *);
	void	*arg;
};

int	filter_run_quick(FILE *, const char *, struct stream_writer *,
	    const char *, int, char *const *,
	    int (*)(void *, const struct stream_rec *), void *,
	    const struct filter_quick *, char *, size_t);
int	filter_run(FILE *, const char *, struct stream_writer *,
	    const char *, int, char *const *,
	    int (*)(void *, const struct stream_rec *), void *, char *,
	    size_t);

#endif
