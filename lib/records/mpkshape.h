/*
 * mpkshape: records of a known layout read at one go from their bytes.
 *
 * The readers of the commonest records (lib/model/taskfast, lib/model/schedfast)
 * first try the layout their own writers give: a map whose keys come
 * in a fixed order, each a fixstr, with values in the encodings the
 * writer picks.  A shape walks such bytes from p to end (a record, or
 * a stream's buffer from a record on), every read checked against end:
 * shape_block() steps over the n encoded bytes at k (n a constant: the
 * compare is a load or two), all the fixed items between two values (a
 * key, or a type, a key and the next key) at once, or returns 0
 * without moving; shape_uint() reads an unsigned integer in any of its
 * unsigned encodings, or returns -1 (for any other item too: a signed
 * encoding, say) without moving.  SHAPE_FIELD() is a block then an
 * integer.
 * Anything a shape does not take, the reader then reads key by key as
 * before, so results and messages do not depend on the layout.
 */
#ifndef MPKSHAPE_H
#define MPKSHAPE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "records/mpk.h"
#include "records/stream.h"

struct shape {
	const uint8_t	*p, *end;
	uint32_t	 pairs;		/* of the map, once read */
};

/* The n bytes at k, with at least a byte after them; 0 else. */
static inline int
shape_block(struct shape *sh, const char *k, size_t n)
{
	if ((size_t)(sh->end - sh->p) <= n || memcmp(sh->p, k, n) != 0)
		return 0;
	sh->p += n;
	return 1;
}

#define SHAPE_BLOCK(sh, k)	shape_block((sh), (k), sizeof(k) - 1)

/* The block k, then an unsigned integer into *v. */
#define SHAPE_FIELD(sh, k, v)	(SHAPE_BLOCK((sh), k) && \
				    shape_uint((sh), (v)) == 0)

static inline int
shape_uint(struct shape *sh, uint64_t *v)
{
	const uint8_t *p = sh->p;
	size_t left = (size_t)(sh->end - p);

	if (left == 0)
		return -1;
	if (p[0] <= 0x7f) {
		*v = p[0];
		sh->p = p + 1;
		return 0;
	}
	/*
	 * Each width in a case of its own, read whole: one switch to a
	 * width, then mpk_be(), reads the 64-GPU DAG in 4.6% more
	 * instructions (callgrind).
	 */
	switch (p[0]) {
	case 0xcc:
		if (left <= 1)
			return -1;
		*v = p[1];
		sh->p = p + 2;
		return 0;
	case 0xcd:
		if (left <= 2)
			return -1;
		*v = mpk_be(p + 1, 2);
		sh->p = p + 3;
		return 0;
	case 0xce:
		if (left <= 4)
			return -1;
		*v = mpk_be(p + 1, 4);
		sh->p = p + 5;
		return 0;
	case 0xcf:
		if (left <= 8)
			return -1;
		*v = mpk_be(p + 1, 8);
		sh->p = p + 9;
		return 0;
	}
	return -1;
}

/*
 * Whether the record read from start up to sh->p, with containers
 * nested depth deep of at most most items, is within the stream's
 * limits (what stream_accept() asks of its caller).
 */
static inline int
shape_fits(const struct shape *sh, const uint8_t *start,
    const struct stream_limits *lim, unsigned depth, size_t most)
{
	return depth <= lim->depth && (size_t)(sh->p - start) <= lim->record &&
	    most <= lim->elems;
}

/* A fixmap header of at least min pairs, into sh->pairs; 0 else. */
static inline int
shape_map(struct shape *sh, uint32_t min)
{
	if (sh->p >= sh->end || (sh->p[0] & 0xf0) != 0x80 ||
	    (uint32_t)(sh->p[0] & 0x0f) < min)
		return 0;
	sh->pairs = *sh->p++ & 0x0f;
	return 1;
}

#endif
