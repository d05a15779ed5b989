/* heap: a binary min-heap of (key, seq, val) items. */
#include <stdint.h>
#include <stdlib.h>

#include "heap.h"

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

static int
less(const struct heap_item *x, const struct heap_item *y)
{
	if (x->key != y->key)
		return x->key < y->key;
	return x->seq < y->seq;
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

int
heap_pop(struct heap *h, struct heap_item *out)
{
	struct heap_item last;
	size_t i, c;

	if (h->n == 0)
		return 0;
	*out = h->a[0];
	last = h->a[--h->n];
	for (i = 0; (c = 2 * i + 1) < h->n; i = c) {
		if (c + 1 < h->n && less(&h->a[c + 1], &h->a[c]))
			c++;
		if (!less(&h->a[c], &last))
			break;
		h->a[i] = h->a[c];
	}
	if (h->n > 0)
		h->a[i] = last;
	return 1;
}
