/*
 * mem: growing arrays for library code.
 *
 * mem_grow() makes *p (an array of sz-byte items with room for *cap)
 * hold at least need items, doubling; it returns 0, or -1 when memory
 * runs out or the size overflows, leaving *p and *cap as they were.
 */
#ifndef MEM_H
#define MEM_H

#include <stddef.h>

int	mem_grow(void *, size_t *, size_t, size_t);

#endif
