/*
 * Unit tests of lib/records/heap: items come out by (key, seq, val), checked
 * against qsort on random runs of pushes and pops, with many equal
 * keys, equal (key, seq) pairs and keys at 0 and 2^64 - 1.
 */
#include <stdint.h>
#include <stdlib.h>

#include "records/heap.h"
#include "records/splitmix.h"
#include "tap.h"

static int
cmp_item(const void *x, const void *y)
{
	const struct heap_item *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->val < b->val ? -1 : a->val > b->val;
}

/* A key from a few values, so that ties are common. */
static uint64_t
pick(uint64_t *st, uint64_t range)
{
	uint64_t r = splitmix_next(st);

	if (r % 16 == 0)
		return r % 2 ? UINT64_MAX : 0;
	return (r >> 8) % range;
}

/*
 * Pop the least item, which must be ref[0] of the sorted reference, and
 * take it off the reference.
 */
static int
pop_least(struct heap *h, struct heap_item *ref, size_t *nref)
{
	struct heap_item it;
	size_t j;
	int good = heap_pop(h, &it) && cmp_item(&it, &ref[0]) == 0;

	for (j = 1; j < *nref; j++)
		ref[j - 1] = ref[j];
	(*nref)--;
	return good;
}

/* Pop the rest: the reference's items in order, then nothing. */
static int
drain(struct heap *h, struct heap_item *ref, size_t nref)
{
	struct heap_item it;
	size_t j;
	int good = 1;

	qsort(ref, nref, sizeof(*ref), cmp_item);
	for (j = 0; j < nref && good; j++)
		good = heap_pop(h, &it) && cmp_item(&it, &ref[j]) == 0;
	return good && !heap_pop(h, &it);
}

/*
 * n pushes, each followed by a pop with probability 1/3, then pops to
 * the end; every pop must give the least item of the reference.
 */
static int
run(uint64_t seed, size_t n, uint64_t range)
{
	struct heap h;
	struct heap_item *ref = calloc(n, sizeof(*ref));
	size_t nref = 0, i;
	uint64_t st = seed;
	int good = 1;

	heap_init(&h);
	for (i = 0; i < n && good; i++) {
		struct heap_item x = { pick(&st, range), pick(&st, range),
		    pick(&st, 4) };

		good = heap_push(&h, x.key, x.seq, x.val) == 0;
		ref[nref++] = x;
		if (splitmix_next(&st) % 3 != 0)
			continue;
		qsort(ref, nref, sizeof(*ref), cmp_item);
		good = pop_least(&h, ref, &nref) && good;
	}
	good = good && drain(&h, ref, nref) && heap_peek(&h) == NULL;
	heap_free(&h);
	free(ref);
	return good;
}

/*
 * Pushes, pops and raises of the least item in place (heap_fix_top()),
 * against the reference: the raised item must come out in its new place.
 */
static int
run_fix(uint64_t seed, size_t n, uint64_t range)
{
	struct heap h;
	struct heap_item *ref = calloc(n, sizeof(*ref));
	size_t nref = 0, i;
	uint64_t st = seed;
	int good = 1;

	heap_init(&h);
	for (i = 0; i < n && good; i++) {
		struct heap_item x = { pick(&st, range), pick(&st, range),
		    pick(&st, 4) };
		uint64_t r = splitmix_next(&st) % 4;

		good = heap_push(&h, x.key, x.seq, x.val) == 0;
		ref[nref++] = x;
		qsort(ref, nref, sizeof(*ref), cmp_item);
		if (r == 0) {		/* raise the least: seq, or key */
			struct heap_item *top = &h.a[0];

			if (splitmix_next(&st) % 2 && top->seq < UINT64_MAX)
				top->seq += 1 + splitmix_next(&st) % 3;
			else if (top->key < UINT64_MAX)
				top->key += splitmix_next(&st) % range;
			ref[0] = *top;
			heap_fix_top(&h);
			qsort(ref, nref, sizeof(*ref), cmp_item);
		} else if (r == 1)
			good = pop_least(&h, ref, &nref) && good;
	}
	good = good && drain(&h, ref, nref);
	heap_free(&h);
	free(ref);
	return good;
}

int
main(void)
{
	struct heap h;
	struct heap_item it;
	uint64_t seed;

	heap_init(&h);
	ok(!heap_pop(&h, &it) && heap_peek(&h) == NULL,
	    "an empty heap pops nothing");
	heap_push(&h, 5, 1, 9);
	ok(heap_pop(&h, &it) && it.key == 5 && it.seq == 1 && it.val == 9 &&
	    h.n == 0, "one item comes back whole");
	heap_push(&h, 7, 2, 1);
	heap_push(&h, 7, 1, 3);
	heap_push(&h, 7, 1, 2);
	heap_push(&h, 6, 9, 0);
	ok(heap_pop(&h, &it) && it.key == 6, "the least key first");
	ok(heap_pop(&h, &it) && it.seq == 1 && it.val == 2,
	    "equal keys by seq, then equal seqs by val");
	ok(heap_pop(&h, &it) && it.seq == 1 && it.val == 3, "then val 3");
	ok(heap_pop(&h, &it) && it.seq == 2, "then seq 2");
	heap_free(&h);
	for (seed = 1; seed <= 40; seed++)
		ok(run(seed, seed * 37, seed % 4 == 0 ? 2 : 1000),
		    "random run %llu: %llu pushes, pops in (key, seq, val) "
		    "order", (unsigned long long)seed,
		    (unsigned long long)seed * 37);
	for (seed = 1; seed <= 20; seed++)
		ok(run_fix(seed, seed * 53, seed % 4 == 0 ? 3 : 1000),
		    "random run %llu with the least raised in place: in "
		    "(key, seq, val) order", (unsigned long long)seed);
	heap_init(&h);
	heap_fix_top(&h);
	heap_push(&h, 4, 1, 0);
	heap_fix_top(&h);
	ok(heap_pop(&h, &it) && it.key == 4 && h.n == 0,
	    "raising in place on an empty or one-item heap changes nothing");
	heap_free(&h);
	return tap_done();
}
