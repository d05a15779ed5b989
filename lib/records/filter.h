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
 *
 * With a filter_omit whose "on" is set (a tool's --own), the records of
 * the bulk kinds (filter_bulk(): the DAG's op and task records, a
 * schedule's circuit and plan records, a simulation's taskrun records)
 * are still handed to the tool's function, but those it passes through
 * are counted in the struct instead of written; headers and every
 * other record pass as always.  The quick function must then take only
 * records of those kinds: its runs are counted, not written.
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

struct filter_omit {
	int		on;
	uint64_t	records;	/* left out */
	uint64_t	bytes;
};

int	filter_bulk(const struct stream_rec *);
int	filter_run_quick(FILE *, const char *, struct stream_writer *,
	    const char *, int, char *const *,
	    int (*)(void *, const struct stream_rec *), void *,
	    const struct filter_quick *, struct filter_omit *, char *,
	    size_t);
int	filter_run(FILE *, const char *, struct stream_writer *,
	    const char *, int, char *const *,
	    int (*)(void *, const struct stream_rec *), void *, char *,
	    size_t);

#endif
