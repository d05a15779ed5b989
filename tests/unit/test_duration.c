/*
 * Unit tests of greedy_duration(): the time bytes take at the port
 * rate, rounded up to a picosecond, equals the plain 128-bit division
 * ceil(bytes * 8 * 10^12 / B), clamped to 2^64-1, at rates that divide
 * 8 * 10^12 bit/s (a multiply) and rates that do not (the division),
 * on the edges (0, 1 and 2^64-1 bytes) and on random sizes.
 */
#include <stdint.h>

#include "model/net.h"
#include "records/splitmix.h"
#include "solve/greedy.h"
#include "tap.h"

typedef unsigned __int128 u128;

static uint64_t
plain(uint64_t bw, uint64_t bytes)
{
	u128 t = ((u128)bytes * 8 * 1000000000000ULL + bw - 1) / bw;

	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

static int
rate(uint64_t bw, uint64_t seed)
{
	struct net n = { .gpus = 2, .switches = 1, .bandwidth_bps = bw };
	uint64_t st = seed, b;
	int i, good = 1;

	good &= greedy_duration(&n, 0) == 0;
	good &= greedy_duration(&n, 1) == plain(bw, 1);
	good &= greedy_duration(&n, UINT64_MAX) == plain(bw, UINT64_MAX);
	for (i = 0; i < 100000 && good; i++) {
		b = splitmix_next(&st) >> (splitmix_next(&st) % 64);
		good = greedy_duration(&n, b) == plain(bw, b);
	}
	return good;
}

int
main(void)
{
	static const uint64_t whole[] = { 100000000000ULL, 200000000000ULL,
	    400000000000ULL, 800000000000ULL, 1600000000000ULL, 1, 8,
	    8000000000000ULL };
	static const uint64_t other[] = { 750000000000ULL, 333333333333ULL,
	    7, 3, 16000000000000ULL, UINT64_MAX };
	size_t i;

	for (i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
		ok(rate(whole[i], i + 1), "%llu bit/s, which divides 8e12",
		    (unsigned long long)whole[i]);
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		ok(rate(other[i], i + 100), "%llu bit/s, which does not",
		    (unsigned long long)other[i]);
	return tap_done();
}
