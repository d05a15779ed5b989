/*
 * mem: growing arrays for library code.
 *
 * mem_grow() makes *p (an array of sz-byte items with room for *cap)
 * hold at least need items, doubling; it returns 0, or -1 when memory
 * runs out or the size overflows, leaving *p and *cap as they were.
 * mem_append() makes room so for item n of an array filled in order,
 * and maps ahead of it (mem_ahead() below).
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
 *
 * mem_populate() asks the system (Linux 5.14 and later; elsewhere, or
 * when it refuses, nothing happens) to map the n bytes at p at once,
 * ready to be written, rather than a page at a time as each is first
 * touched: one call in place of a fault a page.  Where faults are slow
 * it pays: on a virtual machine with shadow page tables, such as the
 * one fluxocs is measured on, writing 400 MB of fresh pages took 1.0 s
 * one fault at a time and 0.47 s mapped so.  It is for a block the
 * caller is about to write whole (mapped pages count in the resident
 * size); below 1 MiB it does nothing.  mem_calloc() and mem_array()
 * are calloc(3) and reallocarray(NULL, ...) of a block so written, then
 * mapped so.  mem_ahead() maps ahead of an array filled in order (items
 * of sz bytes, room for cap): when the items in use go from `from` to
 * `to` and so reach a new 2 MiB stretch of its bytes, it maps the
 * stretch after that one, within the room.  None of them changes what
 * memory holds, or whether an allocation succeeds.
 */
#ifndef MEM_H
#define MEM_H

#include <stddef.h>

int	mem_grow(void *, size_t *, size_t, size_t);
int	mem_append(void *, size_t *, size_t, size_t);
void	mem_keep(void);
void	mem_populate(void *, size_t);
void	*mem_calloc(size_t, size_t);
void	*mem_array(size_t, size_t);
void	mem_ahead(void *, size_t, size_t, size_t, size_t);

#endif
