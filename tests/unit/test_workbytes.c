/*
 * Unit tests of simstate.h's sim_work_bytes(): work in bytes, rounded
 * up, equals the plain 128-bit division (w + WORK_BYTE - 1) / WORK_BYTE
 * on the edges of each path (multiples of a byte and one unit either
 * side, the 2^79 limit of the 64-bit path, the largest work a transfer
 * of 2^64-1 bytes holds) and on random work of every magnitude.
 */
#include <stdint.h>

#include "records/splitmix.h"
#include "sim/simstate.h"
#include "tap.h"

static uint64_t
plain(u128 w)
{
	return (uint64_t)((w + WORK_BYTE - 1) / WORK_BYTE);
}

/* w, w - 1 and w + 1 (those that exist) agree; returns whether so. */
static int
near(u128 w)
{
	int good = sim_work_bytes(w) == plain(w);

	if (w > 0)
		good &= sim_work_bytes(w - 1) == plain(w - 1);
	return good && sim_work_bytes(w + 1) == plain(w + 1);
}

static int
edges(void)
{
	u128 top = (u128)UINT64_MAX * WORK_BYTE;
	int good = near(0) && near(top) && near((u128)1 << 79) &&
	    near(((u128)1 << 79) - 32768) && near((u128)1 << 64);
	uint64_t b;

	for (b = 1; b < 1000000; b = b * 3 + 1)
		good &= near((u128)b * WORK_BYTE);
	return good && sim_work_bytes(top) == UINT64_MAX &&
	    sim_work_bytes(WORK_BYTE) == 1 && sim_work_bytes(1) == 1;
}

static int
random_work(uint64_t seed, long n)
{
	uint64_t st = seed;
	u128 w, top = (u128)UINT64_MAX * WORK_BYTE;
	long i;

	for (i = 0; i < n; i++) {
		w = (u128)splitmix_next(&st) << 64 | splitmix_next(&st);
		w >>= splitmix_next(&st) % 128;
		if (w > top)
			w %= top;
		if (sim_work_bytes(w) != plain(w))
			return 0;
	}
	return 1;
}

int
main(void)
{
	ok(edges(), "byte multiples, the 2^79 limit and 2^64-1 bytes");
	ok(random_work(1, 1000000), "random work of every magnitude");
	ok(random_work(0x5eed, 1000000), "another seed");
	return tap_done();
}
