/*
 * radix: LSD radix sort of records by an unsigned 64-bit key.
 *
 * RADIX_GENERATE(name, type, key) defines
 *	static type *name(type *r, type *w, size_t n)
 * which sorts the n records at r by their member key, least first and
 * stable, a byte a pass, skipping the bytes every record shares (the
 * counts of every byte are taken in one read of the records); w is
 * scratch room for n records.  It returns the sorted array: r or w,
 * whichever the last pass wrote.  Nothing is allocated; it cannot fail.
 * (A macro, as OpenBSD's <sys/tree.h> makes its trees, so that every
 * record type gets its own copy with the copies of whole records
 * inlined.)
 */
#ifndef RADIX_H
#define RADIX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RADIX_GENERATE(name, type, key)					\
static type *								\
name(type *r, type *w, size_t n)					\
{									\
	size_t cnt[8][256], i, b, sum;					\
	type *t;							\
	int k;								\
									\
	if (n < 2)							\
		return r;						\
	memset(cnt, 0, sizeof(cnt));					\
	for (i = 0; i < n; i++)						\
		for (k = 0; k < 8; k++)					\
			cnt[k][r[i].key >> 8 * k & 0xff]++;		\
	for (k = 0; k < 8; k++) {					\
		if (cnt[k][r[0].key >> 8 * k & 0xff] == n)		\
			continue;					\
		for (b = sum = 0; b < 256; b++) {			\
			size_t c = cnt[k][b];				\
									\
			cnt[k][b] = sum;				\
			sum += c;					\
		}							\
		for (i = 0; i < n; i++)					\
			w[cnt[k][r[i].key >> 8 * k & 0xff]++] = r[i];	\
		t = r, r = w, w = t;					\
	}								\
	return r;							\
}

#endif
