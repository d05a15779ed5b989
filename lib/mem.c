/* mem: growing arrays for library code. */
#include <stdint.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "mem.h"

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

void
mem_keep(void)
{
#ifdef __GLIBC__
	/* no block of its own from mmap(2); never trim the heap's top */
	(void)mallopt(M_MMAP_MAX, 0);
	(void)mallopt(M_TRIM_THRESHOLD, -1);
#endif
}
