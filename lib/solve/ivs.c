/* ivs: sorted, disjoint intervals of time. */
#include <stdint.h>
#include <string.h>

#include "records/mem.h"
#include "solve/ivs.h"

/* The first interval of x that ends after t, or x->n. */
size_t
ivs_first_after(struct ivs *x, uint64_t t)
{
	size_t lo = 0, hi = x->n, mid, h = x->hint;

	if (h <= hi && (h == 0 || x->v[h - 1].e <= t) &&
	    (h == hi || x->v[h].e > t))
		return h;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (x->v[mid].e <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return x->hint = lo;
}

/* The earliest t' >= t with [t', t' + len) clear of the intervals. */
uint64_t
ivs_fit(struct ivs *x, uint64_t t, uint64_t len)
{
	size_t lo;

	for (lo = ivs_first_after(x, t); lo < x->n; lo++) {
		if (t + len <= x->v[lo].s)
			break;
		if (x->v[lo].e > t)
			t = x->v[lo].e;
	}
	return t;
}

int
ivs_put(struct ivs *x, size_t i, uint64_t s, uint64_t e)
{
	if (mem_grow(&x->v, &x->cap, x->n + 1, sizeof(*x->v)) != 0)
		return -1;
	memmove(x->v + i + 1, x->v + i, (x->n - i) * sizeof(*x->v));
	x->v[i] = (struct iv){ s, e };
	x->n++;
	return 0;
}

void
ivs_del(struct ivs *x, size_t i)
{
	memmove(x->v + i, x->v + i + 1, (x->n - i - 1) * sizeof(*x->v));
	x->n--;
}

/*
 * A use [s, e) of a port direction.  ivs_fit() sees only the time they
 * cover, so uses back to back (the chunks of a collective on one
 * circuit, most often) become one interval: fewer to step over.
 */
int
ivs_add(struct ivs *x, uint64_t s, uint64_t e)
{
	size_t lo = 0, hi = x->n, mid;

	while (lo < hi) {	/* the first interval after s */
		mid = lo + (hi - lo) / 2;
		if (x->v[mid].s <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && x->v[lo - 1].e == s) {
		x->v[lo - 1].e = e;
		if (lo < x->n && x->v[lo].s == e) {
			x->v[lo - 1].e = x->v[lo].e;
			ivs_del(x, lo);
		}
		return 0;
	}
	if (lo < x->n && x->v[lo].s == e) {
		x->v[lo].s = s;
		return 0;
	}
	return ivs_put(x, lo, s, e);
}

/* Use [s, e) of a switch: the intervals it meets or touches become one. */
int
ivs_union(struct ivs *x, uint64_t s, uint64_t e)
{
	size_t lo = 0, hi = x->n, mid, j;

	while (lo < hi) {	/* the first interval that ends at s or later */
		mid = lo + (hi - lo) / 2;
		if (x->v[mid].e < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (j = lo; j < x->n && x->v[j].s <= e; j++)
		;
	if (j == lo)
		return ivs_put(x, lo, s, e);
	x->v[lo].s = x->v[lo].s < s ? x->v[lo].s : s;
	x->v[lo].e = x->v[j - 1].e > e ? x->v[j - 1].e : e;
	memmove(x->v + lo + 1, x->v + j, (x->n - j) * sizeof(*x->v));
	x->n -= j - lo - 1;
	return 0;
}
