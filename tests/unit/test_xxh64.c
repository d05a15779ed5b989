/*
 * Unit tests of lib/records/xxh64: the digests of the reference
 * implementation (xxhsum -H1, xxHash 0.8.1) of "", "abc" and of
 * byte (131 i + 7) mod 256 at i = 0, 1, ... for lengths on both sides
 * of every boundary of the algorithm (4, 8, 32 bytes); each fed whole,
 * a byte at a time and in pieces of random sizes.
 */
#include <stdint.h>
#include <string.h>

#include "records/splitmix.h"
#include "records/xxh64.h"
#include "tap.h"

static const struct {
	size_t		n;
	uint64_t	want;
} vec[] = {
	{ 0, 0xef46db3751d8e999ULL },
	{ 1, 0xa96c7f0ce858bbb7ULL },
	{ 3, 0xbed43740ee6332bbULL },
	{ 4, 0xfa212ae44b3bb23dULL },
	{ 5, 0xd339dcc9ac8e6776ULL },
	{ 7, 0x2744460dd675d2c0ULL },
	{ 8, 0x994b676b71ce94ddULL },
	{ 9, 0x572b84c18b983af8ULL },
	{ 12, 0xb92f588ce720786eULL },
	{ 31, 0x6711d55e306b5d8fULL },
	{ 32, 0x07f7b8e3bc5d6e25ULL },
	{ 33, 0x09f85eeb4e1cbe9fULL },
	{ 63, 0xb7c9968c066cb6a5ULL },
	{ 64, 0x50d4159a0411632eULL },
	{ 65, 0xd277176bff863efcULL },
	{ 100, 0x9ddada11d3dc2d8fULL },
	{ 1000, 0x0bf0bdbcc82eb373ULL },
	{ 4097, 0x00811ab3925b884aULL },
};

static uint64_t
whole(const uint8_t *p, size_t n)
{
	struct xxh64 h;

	xxh64_init(&h);
	xxh64_update(&h, p, n);
	return xxh64_digest(&h);
}

static uint64_t
bytewise(const uint8_t *p, size_t n)
{
	struct xxh64 h;
	size_t i;

	xxh64_init(&h);
	for (i = 0; i < n; i++)
		xxh64_update(&h, p + i, 1);
	return xxh64_digest(&h);
}

static uint64_t
pieces(const uint8_t *p, size_t n, uint64_t *st)
{
	struct xxh64 h;
	size_t i, k;

	xxh64_init(&h);
	for (i = 0; i < n; i += k) {
		k = splitmix_next(st) % 70;
		if (k > n - i)
			k = n - i;
		xxh64_update(&h, p + i, k);
	}
	return xxh64_digest(&h);
}

int
main(void)
{
	static uint8_t buf[4097];
	struct xxh64 h;
	uint64_t st = 42, mid;
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)((i * 131 + 7) % 256);
	ok(whole((const uint8_t *)"abc", 3) == 0x44bc2cf5ad770999ULL,
	    "xxh64(\"abc\")");
	for (i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		ok(whole(buf, vec[i].n) == vec[i].want, "%zu bytes whole",
		    vec[i].n);
		ok(bytewise(buf, vec[i].n) == vec[i].want,
		    "%zu bytes one at a time", vec[i].n);
		ok(pieces(buf, vec[i].n, &st) == vec[i].want,
		    "%zu bytes in random pieces", vec[i].n);
	}
	/* a digest leaves the state as it was */
	xxh64_init(&h);
	xxh64_update(&h, buf, 40);
	mid = xxh64_digest(&h);
	xxh64_update(&h, buf + 40, 60);
	ok(mid == whole(buf, 40) && xxh64_digest(&h) == vec[15].want,
	    "a digest midway leaves the state to go on");
	return tap_done();
}
