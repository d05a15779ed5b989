/* heap: a binary min-heap of (key, seq, val) items. */
#include <stdint.h>
#include <stdlib.h>

#include "records/heap.h"

void
heap_init(struct heap *h)
{
	h->a = NULL;
	h->n = h->cap = 0;
}

void
heap_free(struct heap *h)
{
	free(h->a);
	heap_init(h);
}

/* (key, seq) as one number, so that comparing is one 128-bit compare. */
static inline unsigned __int128
rank(const struct heap_item *x)
{
	return (unsigned __int128)x->key << 64 | x->seq;
}

/* Whether x comes before y: by key, then seq, then val (a total order). */
static inline int
less(const struct heap_item *x, const struct heap_item *y)
{
	unsigned __int128 a = rank(x), b = rank(y);

	return a < b || (a == b && x->val < y->val);
}

int
heap_push(struct heap *h, uint64_t key, uint64_t seq, uint64_t val)
{
	struct heap_item it = { key, seq, val }, *na;
	size_t i, p;

	if (h->n == h->cap) {
		size_t c = h->cap ? h->cap * 2 : 64;

		if (c > SIZE_MAX / sizeof(*na) ||
		    (na = realloc(h->a, c * sizeof(*na))) == NULL)
			return -1;
		h->a = na;
		h->cap = c;
	}
	for (i = h->n++; i > 0; i = p) {
		p = (i - 1) / 2;
		if (!less(&it, &h->a[p]))
			break;
		h->a[i] = h->a[p];
	}
	h->a[i] = it;
	return 0;
}

const struct heap_item *
heap_peek(const struct heap *h)
{
	return h->n ? &h->a[0] : NULL;
}

/*
 * Pop: the hole at the root goes down to a leaf along the lesser
 * children, one compare a level; the last item then rises from there,
 * which is seldom far.
 */
int
heap_pop(struct heap *h, struct heap_item *out)
{
	struct heap_item last, *a = h->a;
	size_t i = 0, c, p, n;

	if (h->n == 0)
		return 0;
	*out = a[0];
	n = --h->n;
	if (n == 0)
		return 1;
	last = a[n];
	while ((c = 2 * i + 1) + 1 < n) {
		c += less(&a[c + 1], &a[c]);
		a[i] = a[c];
		i = c;
	}
	if (c < n) {
		a[i] = a[c];
		i = c;
	}
	for (; i > 0; i = p) {
		p = (i - 1) / 2;
		if (!less(&last, &a[p]))
			break;
		a[i] = a[p];
	}
	a[i] = last;
	return 1;
}

/*
 * The root was made later (its key or seq raised): it goes down while
 * a child comes before it, which is seldom far when it stays least.
 */
void
heap_fix_top(struct heap *h)
{
	struct heap_item x, *a = h->a;
	size_t i = 0, c, n = h->n;

	if (n < 2)
		return;
	x = a[0];
	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && less(&a[c + 1], &a[c]))
			c++;
		if (!less(&a[c], &x))
			break;
		a[i] = a[c];
		i = c;
	}
	a[i] = x;
}
