/*
 * Unit tests of lib/sim/simq: the event queue with same-time runs gives the
 * events in exactly the order a plain heap of them all does, on random
 * mixes of pushes numbered in turn (few times, so that runs form, grow
 * while they are being spent, and end; now and then a number is skipped,
 * as if taken by another push), pushes numbered out of turn
 * (below every number in turn, as simstate.h's SEQ_* are), pops, and
 * now and then every run turned back into items (simq_flatten(), as
 * simskip asks before it reads the heap); simq_len() must count what
 * the plain heap holds throughout.  With runs off, nothing is chained.
 */
#include <stdint.h>
#include <string.h>

#include "records/heap.h"
#include "records/splitmix.h"
#include "sim/simq.h"
#include "sim/simstate.h"
#include "tap.h"

static int
same(const struct heap_item *a, const struct heap_item *b)
{
	return a->key == b->key && a->seq == b->seq && a->val == b->val;
}

/*
 * n steps against the reference heap; returns whether every pop agreed
 * and the queue ended empty; *items gets the most events that runs held
 * beyond their items at once.
 */
static int
run(uint64_t seed, size_t n, uint64_t times, int on, size_t *items)
{
	struct sim s;
	struct heap ref;
	struct heap_item a, b;
	uint64_t st = seed, seq = SEQ_FIRST, now = 0;
	size_t i;
	int good = 1;

	memset(&s, 0, sizeof(s));
	heap_init(&s.h);
	heap_init(&ref);
	s.runfree = s.runopen = NONE;
	s.runs_on = on;
	*items = 0;
	for (i = 0; i < n && good; i++) {
		uint64_t r = splitmix_next(&st) % 16, t, q, v;
		int chain = r >= 2;

		if (splitmix_next(&st) % 64 == 0) {	/* as simskip does */
			good = simq_flatten(&s) == 0 && s.h.n == ref.n;
			continue;
		}
		if (r >= 11) {		/* pop */
			if (!simq_pop(&s, &a))
				a = (struct heap_item){ 0, 0, 0 };
			if (!heap_pop(&ref, &b))
				b = (struct heap_item){ 0, 0, 0 };
			good = same(&a, &b) && simq_len(&s) == ref.n;
			now = a.key;
			continue;
		}
		t = now + splitmix_next(&st) % times;
		if (chain && r == 2)	/* a number taken elsewhere */
			seq++;
		q = chain ? seq++ : splitmix_next(&st) % SEQ_FIRST;
		v = splitmix_next(&st) >> 8;	/* below the run tag */
		good = simq_push(&s, t, q, v, chain) == 0 &&
		    heap_push(&ref, t, q, v) == 0 && simq_len(&s) == ref.n;
		if (simq_len(&s) - s.h.n > *items)
			*items = simq_len(&s) - s.h.n;
	}
	while (good && heap_pop(&ref, &b))
		good = simq_pop(&s, &a) && same(&a, &b);
	good = good && !simq_pop(&s, &a) && s.h.n == 0;
	simq_free(&s);
	heap_free(&s.h);
	heap_free(&ref);
	return good;
}

int
main(void)
{
	uint64_t seed;
	size_t on, off, refn = 0;

	for (seed = 1; seed <= 30; seed++) {
		int g = run(seed, 2000 + seed * 97, seed % 3 ? 3 : 40, 1, &on);

		ok(g, "random run %llu: events in the plain heap's order "
		    "(runs held up to %zu events beyond their items)",
		    (unsigned long long)seed, on);
		if (seed % 3)
			refn += on > 0;
	}
	ok(refn == 20, "runs formed in every run where times repeat (%zu "
	    "of 20)", refn);
	for (seed = 31; seed <= 35; seed++)
		ok(run(seed, 3000, 2, 0, &off) && off == 0,
		    "random run %llu, runs off: the plain heap's order, no "
		    "run formed", (unsigned long long)seed);
	return tap_done();
}
