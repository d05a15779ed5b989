/*
 * heap: a binary min-heap of (key, seq, val) items.
 *
 * Items come out ordered by key, then by seq, then by val, so a caller
 * that gives every push a fresh sequence number gets ties broken in
 * push order: deterministic event queues and stable topological sorts;
 * equal items may come out in any order, as they are the same.  The heap
 * owns its array; heap_push() returns -1 when memory runs out.
 * heap_fix_top() restores the order after the caller has raised the
 * least item (heap_peek()'s, through h->a[0]) in place.
 */
#ifndef HEAP_H
#define HEAP_H

#include <stddef.h>
#include <stdint.h>

struct heap_item {
	uint64_t	key;
	uint64_t	seq;
	uint64_t	val;
};

struct heap {
	struct heap_item	*a;
	size_t			 n, cap;
};

void	heap_init(struct heap *);
void	heap_free(struct heap *);
int	heap_push(struct heap *, uint64_t, uint64_t, uint64_t);
int	heap_pop(struct heap *, struct heap_item *);
const struct heap_item *heap_peek(const struct heap *);
void	heap_fix_top(struct heap *);

#endif
