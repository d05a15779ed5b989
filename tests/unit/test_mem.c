/*
 * Unit tests of lib/records/mem: mem_grow()'s doubling and refusals; and that
 * mem_populate(), mem_ahead(), mem_calloc() and mem_array() map exactly
 * the pages they say (mincore(2) on fresh anonymous memory, where the
 * system has MADV_POPULATE_WRITE; skipped where it has not) and never
 * change what memory holds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "records/mem.h"
#include "tap.h"

#define MIB	((size_t)1 << 20)

static size_t pg;

static int
grow(void)
{
	uint64_t *v = NULL;
	size_t cap = 0, i;
	int good;

	good = mem_grow(&v, &cap, 1, sizeof(*v)) == 0 && cap == 64;
	good &= mem_grow(&v, &cap, 64, sizeof(*v)) == 0 && cap == 64;
	for (i = 0; i < 64; i++)
		v[i] = i;
	good &= mem_grow(&v, &cap, 65, sizeof(*v)) == 0 && cap == 128;
	good &= mem_grow(&v, &cap, 1000, sizeof(*v)) == 0 && cap == 1024;
	for (i = 0; i < 64; i++)
		good &= v[i] == i;
	good &= mem_grow(&v, &cap, SIZE_MAX / 4, sizeof(*v)) == -1 &&
	    cap == 1024 && v[63] == 63;
	free(v);
	return good;
}

/* A fresh mapping of n bytes, none of it resident yet. */
static unsigned char *
fresh(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Whether exactly the pages holding [from, to) of p's n are resident. */
static int
resident(unsigned char *p, size_t n, size_t from, size_t to)
{
	unsigned char vec[4096];
	size_t i, np = n / pg;

	if (np > sizeof(vec) || mincore(p, n, vec) != 0)
		return 0;
	for (i = 0; i < np; i++) {
		int want = to > from && i * pg < to && (i + 1) * pg > from;

		if ((vec[i] & 1) != want)
			return 0;
	}
	return 1;
}

/* Whether this system maps ahead at all (Linux 5.14 and later). */
static int
can_populate(void)
{
#ifdef MADV_POPULATE_WRITE
	unsigned char *p = fresh(pg);
	int rc;

	if (p == NULL)
		return 0;
	rc = madvise(p, pg, MADV_POPULATE_WRITE);
	munmap(p, pg);
	return rc == 0;
#else
	return 0;
#endif
}

static int
populate(void)
{
	size_t n = 8 * MIB;
	unsigned char *p = fresh(n);
	int good;

	if (p == NULL)
		return 0;
	mem_populate(p + 100, MIB - 1);		/* below 1 MiB: nothing */
	good = resident(p, n, 0, 0);
	mem_populate(p + MIB + 100, 3 * MIB);
	good &= resident(p, n, MIB + 100, 4 * MIB + 100);
	good &= p[MIB + 100] == 0 && p[4 * MIB + 99] == 0;
	munmap(p, n);
	return good;
}

/* What memory holds is kept, mapped ahead or not. */
static int
keeps(void)
{
	size_t n = 4 * MIB, i;
	unsigned char *p = fresh(n);
	int good = 1;

	if (p == NULL)
		return 0;
	for (i = 0; i < n; i += pg / 2)
		p[i] = (unsigned char)(i / pg + 1);
	mem_populate(p, n);
	for (i = 0; i < n; i += pg / 2)
		good &= p[i] == (unsigned char)(i / pg + 1);
	munmap(p, n);
	return good;
}

/*
 * Items of 32 bytes, 2 MiB stretches of 65536 items: reaching stretch
 * k maps stretch k + 1, within the room (when 1 MiB or more of it).
 */
/* Fresh 16 MiB of 32-byte items: mem_ahead(from, to, cap), then check. */
static int
ahead_case(size_t from, size_t to, size_t cap, size_t lo, size_t hi)
{
	size_t n = 16 * MIB;
	unsigned char *p = fresh(n);
	int good;

	if (p == NULL)
		return 0;
	mem_ahead(p, 32, from, to, cap);
	good = resident(p, n, lo, hi);
	munmap(p, n);
	return good;
}

/*
 * Items of 32 bytes, 2 MiB stretches of 65536 items: reaching stretch
 * k maps stretch k + 1, within the room (when 1 MiB or more of it).
 */
static int
ahead(void)
{
	size_t s = 2 * MIB, k = 65536, cap = 16 * MIB / 32;

	return ahead_case(10, 11, cap, 0, 0) &&
	    ahead_case(k - 2, k - 1, cap, 0, 0) &&
	    ahead_case(k - 1, k, cap, 2 * s, 3 * s) &&
	    ahead_case(k, k + 1, cap, 0, 0) &&
	    /* a jump of stretches: the one after where it lands */
	    ahead_case(5, 3 * k + 7, cap, 4 * s, 5 * s) &&
	    /* room ending inside the next stretch: up to the room */
	    ahead_case(5 * k - 1, 5 * k, (6 * s + 3 * MIB / 2) / 32, 6 * s,
	    6 * s + 3 * MIB / 2) &&
	    /* ... unless less than 1 MiB of it is left */
	    ahead_case(5 * k - 1, 5 * k, (6 * s + 3 * pg) / 32, 0, 0) &&
	    /* room ending where the stretch reached ends: nothing */
	    ahead_case(7 * k - 1, 7 * k, 8 * k, 0, 0);
}

static int
allocs(void)
{
	size_t n = 3 * MIB, i;
	unsigned char *z = mem_calloc(n, 1);
	uint32_t *a = mem_array(n / 4, sizeof(*a));
	int good = z != NULL && a != NULL;

	for (i = 0; good && i < n; i++)
		good &= z[i] == 0;
	for (i = 0; good && i < n / 4; i++)
		a[i] = (uint32_t)i;
	for (i = 0; good && i < n / 4; i++)
		good &= a[i] == i;
	free(z);
	free(a);
	return good;
}

int
main(void)
{
	pg = (size_t)sysconf(_SC_PAGESIZE);
	ok(grow(), "mem_grow doubles from 64, keeps the items, refuses an "
	    "overflowing size and leaves the array as it was");
	ok(allocs(), "mem_calloc zeroes, mem_array holds what is written");
	ok(keeps(), "mapping ahead keeps what memory holds");
	if (!can_populate()) {
		ok(1, "# SKIP no MADV_POPULATE_WRITE here: nothing is mapped "
		    "ahead");
		return tap_done();
	}
	ok(populate(), "mem_populate maps exactly the pages of its block, "
	    "none below 1 MiB");
	ok(ahead(), "mem_ahead maps the stretch after the one reached, "
	    "within the room, and only on reaching a new one");
	return tap_done();
}
