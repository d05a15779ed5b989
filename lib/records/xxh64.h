/*
 * xxh64: the 64-bit xxHash of a byte string, fed in pieces.
 *
 * xxh64_init() starts a digest (seed 0); xxh64_update() adds bytes
 * (any split gives the digest of the whole); xxh64_digest() returns
 * it and leaves the state as it was, so more may follow.  The state is
 * the caller's; nothing is allocated and nothing fails.  The digests
 * are those of the reference implementation (xxhsum -H1).
 */
#ifndef XXH64_H
#define XXH64_H

#include <stddef.h>
#include <stdint.h>

struct xxh64 {
	uint64_t	v[4];		/* the four lanes */
	uint64_t	total;		/* bytes fed */
	uint8_t		buf[32];	/* a stripe not yet whole */
	size_t		nbuf;
};

void		xxh64_init(struct xxh64 *);
void		xxh64_update(struct xxh64 *, const void *, size_t);
uint64_t	xxh64_digest(const struct xxh64 *);

#endif
