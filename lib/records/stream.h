/*
 * stream: reading and writing fluxocs record streams.
 *
 * A stream is a sequence of msgpack maps, one record each, every one
 * with a string key "type" (see fluxocs(5)).
 *
 * Reading.  stream_next() frames one record with its own scanner
 * and finds its "type" in its bytes (lib/records/mpk), so that size, nesting and
 * element-count limits hold before anything is allocated, and every
 * error names a byte offset.  End of input between records is the end
 * of the stream; end of input inside a record is an error.  The record
 * and its raw bytes stay valid until the next call.  msgpack-c decodes
 * it into an object only when stream_rec_obj() first asks for it, so a
 * record passed on, or read by a decoder of its own over the raw
 * bytes, costs no tree; that object too lives until the next call.
 * Errors are sticky: after one, stream_next() keeps failing and
 * stream_error() says "name: byte N: what" (stream_rec_obj() returns
 * NULL after one, and stream_failed() says so).
 *
 * Records read straight from the buffer.  A decoder that checks every
 * byte of a record of its own kind may skip the scanner: stream_peek()
 * gives the bytes buffered from the next record on (none, part of a
 * record or many records; it reads nothing), stream_limits() the
 * reader's limits; stream_accept() then takes the first len of them as
 * the next nrec records, as if stream_next() had returned them one by
 * one, and returns none of them: their bytes stay where stream_peek()
 * showed them until the next stream_next().  The caller vouches that
 * they are nrec whole maps that the scanner would take, each in the
 * limits (size, nesting, items) and with a string "type" key; for
 * anything else it calls stream_next(), which reads more, frames and
 * reports as always.  stream_accept() returns 1, or -1 (with nothing
 * taken) when len or nrec is 0, nrec is more than len, len is past the
 * bytes buffered or the reader has failed.
 *
 * Writing.  A writer packs through msgpack-c into a buffer of its own
 * (STREAM_WBUF bytes), written to its FILE when full and at the close.
 * A record may also be encoded in place (lib/records/mpk): stream_reserve()
 * gives room for n bytes (NULL when n exceeds the buffer: then pack),
 * stream_commit() takes the bytes up to the end of what was encoded.
 * stream_packer_writer() finds the writer behind a packer of
 * stream_packer(), NULL for any other packer.  stream_write_u64s()
 * writes a record of unsigned integers that way (-1 when too big).
 * Write errors are sticky and reported by stream_writer_close(), which
 * ends the stream with an "end" record (since version 1.1) and flushes;
 * callers must check it before exiting 0.  A writer that fails before
 * never writes the end record, so readers can tell a whole stream
 * from one cut short at a record boundary.
 */
#ifndef STREAM_H
#define STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <msgpack.h>

#define STREAM_FORMAT		"fluxocs"
#define STREAM_VERSION		1	/* major: readers refuse others */
#define STREAM_MINOR		1	/* minor: only adds keys/records */
#define STREAM_MINOR_MAX	2	/* 2: the net may be tiered */

#define STREAM_MAX_RECORD	(16UL << 20)	/* bytes in one record */
#define STREAM_MAX_DEPTH	16		/* nested containers */
#define STREAM_MAX_ELEMS	(1UL << 20)	/* items in one container */
#define STREAM_WBUF		(64UL << 10)	/* a writer's buffer */

struct stream_reader;

struct stream_rec {
	struct stream_reader	*src;	/* the reader it came from */
	const char		*type;	/* value of "type", not NUL-ended */
	size_t			 typelen;
	const uint8_t		*raw;	/* the record's bytes */
	size_t			 rawlen;
	uint64_t		 off;	/* byte offset of the record */
	uint64_t		 index;	/* 0 for the first record */
};

struct stream_limits {
	size_t		record;		/* bytes */
	size_t		elems;		/* items in a container */
	unsigned	depth;		/* nesting */
};

struct stream_reader *stream_open(FILE *, const char *);
void	 stream_set_limits(struct stream_reader *, size_t, unsigned, size_t);
int	 stream_next(struct stream_reader *, struct stream_rec *);
void	 stream_limits(const struct stream_reader *, struct stream_limits *);
void	 stream_peek(const struct stream_reader *, const uint8_t **,
	    size_t *);
int	 stream_accept(struct stream_reader *, size_t, uint64_t);
const char *stream_error(const struct stream_reader *);
int	 stream_failed(const struct stream_reader *);
const char *stream_name(const struct stream_reader *);
uint64_t stream_offset(const struct stream_reader *);
void	 stream_close(struct stream_reader *);

/* Whether the record is of the type given (inline: strlen of a literal). */
static inline int
stream_rec_is(const struct stream_rec *rec, const char *type)
{
	size_t n = strlen(type);

	return rec->typelen == n && memcmp(rec->type, type, n) == 0;
}
const msgpack_object *stream_rec_obj(const struct stream_rec *);

struct stream_writer;

struct stream_writer *stream_writer(FILE *);
msgpack_packer *stream_packer(struct stream_writer *);
struct stream_writer *stream_packer_writer(msgpack_packer *);
uint8_t	*stream_reserve(struct stream_writer *, size_t);
void	 stream_commit(struct stream_writer *, const uint8_t *);
int	 stream_write_u64s(struct stream_writer *, const char *,
	    const char *const *, const uint64_t *, size_t);
void	 stream_write_raw(struct stream_writer *, const void *, size_t);
int	 stream_writer_close(struct stream_writer *);

/* Packing helpers for map entries: key then value. */
void	 stream_pack_str(msgpack_packer *, const char *);
void	 stream_pack_kstr(msgpack_packer *, const char *, const char *);
void	 stream_pack_ku64(msgpack_packer *, const char *, uint64_t);
void	 stream_pack_kdbl(msgpack_packer *, const char *, double);
void	 stream_pack_kbool(msgpack_packer *, const char *, int);
void	 stream_pack_record(msgpack_packer *, const char *, size_t);

#endif
