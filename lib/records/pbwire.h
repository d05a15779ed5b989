/*
 * pbwire: the protobuf wire format, read and written, knowing no schema
 * (https://protobuf.dev/programming-guides/encoding/).
 *
 * Reading.  A struct pbuf is a view of bytes the caller owns, with the
 * offset of its first byte in the file it came from, so that every
 * error names a byte offset of the file.  pb_next() reads the next
 * field of a message: its number, wire type, value (varint, 32-bit or
 * 64-bit) or, for a length-delimited field, a view of its bytes, which
 * pb_next() reads again as a message and pb_varint() as packed varints.
 * Groups (wire types 3 and 4) are refused; field numbers must be from 1
 * to 2^29 - 1; a varint has at most 10 bytes.
 *
 * A file of frames, [varint length][message] again and again, as Chakra
 * writes one rank's trace, is read by pb_frame_next() with a buffer of
 * its own that it grows to the longest frame, at most PB_MAX_FRAME
 * bytes (refused, with the length, before any allocation); the view it
 * returns stays valid until the next call.  End of file between frames
 * is the end; inside one it is an error.
 *
 * Writing.  A struct pbw is a growing buffer: the pbw_ calls append a
 * field; a nested message is written in a pbw of its own and appended
 * with pbw_bytes().  Out of memory is sticky: pbw_failed() says so once
 * at the end.  pbw_frame() writes [length][message] to a FILE.
 *
 * Errors return -1 with "byte N: what" in the caller's buffer (N in the
 * file), or with the file's error; nothing here exits.
 */
#ifndef PBWIRE_H
#define PBWIRE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PB_MAX_FRAME	(64UL << 20)	/* bytes in one frame's message */
#define PB_MAX_FIELD	((1U << 29) - 1)

enum pb_wt { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

struct pbuf {
	const uint8_t	*p;
	size_t		 n;
	uint64_t	 base;		/* file offset of p[0] */
};

struct pb_field {
	uint32_t	 num;
	int		 wt;		/* enum pb_wt */
	uint64_t	 v;		/* PB_VARINT, PB_I64, PB_I32 */
	struct pbuf	 sub;		/* PB_LEN */
	uint64_t	 off;		/* file offset of its tag */
};

int	 pb_next(const struct pbuf *, size_t *, struct pb_field *, char *,
	    size_t);
int	 pb_varint(const struct pbuf *, size_t *, uint64_t *, char *, size_t);
int64_t	 pb_zigzag(uint64_t);
double	 pb_double(uint64_t);
float	 pb_float(uint32_t);

struct pb_frames {
	FILE		*fp;
	uint64_t	 off;		/* of the next frame */
	uint8_t		*buf;
	size_t		 cap;
};

void	 pb_frames_init(struct pb_frames *, FILE *);
int	 pb_frame_next(struct pb_frames *, struct pbuf *, char *, size_t);
void	 pb_frames_free(struct pb_frames *);

struct pbw {
	uint8_t		*p;
	size_t		 n, cap;
	int		 failed;
};

void	 pbw_init(struct pbw *);
void	 pbw_free(struct pbw *);
void	 pbw_varint(struct pbw *, uint32_t, uint64_t);
void	 pbw_sint(struct pbw *, uint32_t, int64_t);
void	 pbw_fixed64(struct pbw *, uint32_t, uint64_t);
void	 pbw_fixed32(struct pbw *, uint32_t, uint32_t);
void	 pbw_double(struct pbw *, uint32_t, double);
void	 pbw_bytes(struct pbw *, uint32_t, const void *, size_t);
void	 pbw_str(struct pbw *, uint32_t, const char *);
void	 pbw_packed(struct pbw *, uint32_t, const uint64_t *, size_t);
int	 pbw_failed(const struct pbw *);
int	 pbw_frame(FILE *, const struct pbw *);

#endif
