/* mem: growing arrays for library code. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "records/mem.h"

int
mem_grow(void *pp, size_t *cap, size_t need, size_t sz)
{
	void **p = pp, *np;
	size_t c = *cap ? *cap : 64;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -1;
		c *= 2;
	}
	if (c > SIZE_MAX / sz || (np = realloc(*p, c * sz)) == NULL)
		return -1;
	*p = np;
	*cap = c;
	return 0;
}

int
mem_append(void *pp, size_t *cap, size_t n, size_t sz)
{
	if (mem_grow(pp, cap, n + 1, sz) != 0)
		return -1;
	mem_ahead(*(void **)pp, sz, n, n + 1, *cap);
	return 0;
}

void
mem_keep(void)
{
#ifdef __GLIBC__
	/* no block of its own from mmap(2); never trim the heap's top */
	(void)mallopt(M_MMAP_MAX, 0);
	(void)mallopt(M_TRIM_THRESHOLD, -1);
#endif
}

/* Below this, a block's pages are left to fault in one by one. */
#define POPULATE_MIN	((size_t)1 << 20)
/* From this size, a block asks for huge pages (fewer faults and TLB
 * misses), where the kernel gives them on request. */
#define HUGE_MIN	((size_t)4 << 20)
/* The stretch of an array mem_ahead() maps at a time. */
#define AHEAD		((size_t)2 << 20)

void
mem_populate(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
	static long pg;
	uintptr_t a, e;

	if (p == NULL || n < POPULATE_MIN)
		return;
	if (pg == 0)
		pg = sysconf(_SC_PAGESIZE);
	if (pg <= 0 || (pg & (pg - 1)) != 0)
		return;
	/* every page holding a byte of the block is the block's to map */
	a = (uintptr_t)p & ~((uintptr_t)pg - 1);
	e = ((uintptr_t)p + n + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
#ifdef MADV_HUGEPAGE
	if (e - a >= HUGE_MIN)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#endif
	(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

void *
mem_calloc(size_t n, size_t sz)
{
	void *p;

	if ((p = calloc(n, sz)) != NULL)
		mem_populate(p, n * sz);
	return p;
}

void *
mem_array(size_t n, size_t sz)
{
	void *p;

	if ((p = reallocarray(NULL, n, sz)) != NULL)
		mem_populate(p, n * sz);
	return p;
}

void
mem_ahead(void *base, size_t sz, size_t from, size_t to, size_t cap)
{
	size_t k = to * sz / AHEAD, start, end;

	if (from * sz / AHEAD == k)
		return;
	start = (k + 1) * AHEAD;
	end = cap * sz < start + AHEAD ? cap * sz : start + AHEAD;
	if (start < end)
		mem_populate((char *)base + start, end - start);
}
