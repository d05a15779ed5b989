/*
 * header: the provenance records that open every stream.
 *
 * Every tool copies the header records it reads (checking that each
 * names the fluxocs format and a major version it knows), then appends
 * its own: format, version, minor, tool, release and the arguments it
 * was given.  The leading headers thus list every tool that made the
 * stream, in order.  Functions return -1 and fill the caller's buffer
 * with a message on error; nothing here exits.
 *
 * A tool's header says the minor version of what the stream holds:
 * STREAM_MINOR (1), or more when a tool before it said more (header_pass()
 * raises it) or the tool asked for more with header_minor() before it
 * writes, as dagbuild does for a tiered fabric (minor 2), so that a
 * paper stream stays byte for byte what it was.  Never above
 * STREAM_MINOR_MAX.
 *
 * A stream whose first header says minor 1 or later ends with an "end"
 * record: header_follow() watches the records go by (refusing any
 * after the end) and header_finish() refuses a stream that stopped
 * without one, that is, one cut short or left by a tool that failed.
 */
#ifndef HEADER_H
#define HEADER_H

#include <stddef.h>

#include "records/stream.h"

#define FLUXOCS_RELEASE	"0.1"

void	 header_minor(unsigned);
void	 header_write(struct stream_writer *, const char *, int,
	    char *const *);
struct header_end {
	int	first;		/* the first record has been seen */
	int	need;		/* the stream must end with an end record */
	int	seen;
};

int	 header_check(struct stream_reader *, const struct stream_rec *,
	    char *, size_t);
int	 header_follow(struct header_end *, struct stream_reader *,
	    const struct stream_rec *, char *, size_t);
int	 header_finish(const struct header_end *, struct stream_reader *,
	    char *, size_t);
int	 header_pass(struct stream_reader *, struct stream_writer *,
	    struct stream_rec *, const char *, int, char *const *,
	    struct header_end *, char *, size_t);

#endif
