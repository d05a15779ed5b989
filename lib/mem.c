/* mem: growing arrays for library code. */
#include <stdint.h>
#include <stdlib.h>

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
