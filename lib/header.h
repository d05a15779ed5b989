/*
 * header: the provenance records that open every stream.
 *
 * Every tool copies the header records it reads (checking that each
 * names the fluxocs format and a major version it knows), then appends
 * its own: format, version, minor, tool, release and the arguments it
 * was given.  The leading headers thus list every tool that made the
 * stream, in order.  Functions return -1 and fill the caller's buffer
 * with a message on error; nothing here exits.
 */
#ifndef HEADER_H
#define HEADER_H

#include <stddef.h>

#include "stream.h"

#define FLUXOCS_RELEASE	"0.1"

void	 header_write(struct stream_writer *, const char *, int,
	    char *const *);
int	 header_check(struct stream_reader *, const struct stream_rec *,
	    char *, size_t);
int	 header_pass(struct stream_reader *, struct stream_writer *,
	    struct stream_rec *, const char *, int, char *const *, char *,
	    size_t);

#endif
