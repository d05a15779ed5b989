/*
 * mem: growing arrays for library code.
 *
 * mem_grow() makes *p (an array of sz-byte items with room for *cap)
 * hold at least need items, doubling; it returns 0, or -1 when memory
 * runs out or the size overflows, leaving *p and *cap as they were.
 *
 * mem_keep() asks the C library (glibc's malloc; elsewhere it does
 * nothing) to keep freed memory for the process's later allocations,
 * however large, instead of handing it back to the system: for a tool
 * whose phases each allocate and free arrays of hundreds of MB, so that
 * a phase reuses pages an earlier one touched rather than faulting in
 * and clearing fresh ones.  The peak resident size may grow by what a
 * phase frees and the next does not reuse.  Call it once the arrays
 * that grow (mem_grow(), realloc()) are grown: until then a large one
 * grows best in a block of its own, moved by mremap(2) without a copy.
 */
#ifndef MEM_H
#define MEM_H

#include <stddef.h>

int	mem_grow(void *, size_t *, size_t, size_t);
void	mem_keep(void);

#endif
