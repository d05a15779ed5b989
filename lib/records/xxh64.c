/* xxh64: the 64-bit xxHash, from its published algorithm. */
#include <string.h>

#include "records/xxh64.h"

#define P1	0x9E3779B185EBCA87ULL
#define P2	0xC2B2AE3D27D4EB4FULL
#define P3	0x165667B19E3779F9ULL
#define P4	0x85EBCA77C2B2AE63ULL
#define P5	0x27D4EB2F165667C5ULL

static uint64_t
rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* Little-endian loads, whatever the host. */
static uint64_t
le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
round1(uint64_t acc, uint64_t in)
{
	acc += in * P2;
	return rotl(acc, 31) * P1;
}

static uint64_t
merge(uint64_t acc, uint64_t v)
{
	acc ^= round1(0, v);
	return acc * P1 + P4;
}

static void
stripe(uint64_t *v, const uint8_t *p)
{
	v[0] = round1(v[0], le64(p));
	v[1] = round1(v[1], le64(p + 8));
	v[2] = round1(v[2], le64(p + 16));
	v[3] = round1(v[3], le64(p + 24));
}

void
xxh64_init(struct xxh64 *h)
{
	memset(h, 0, sizeof(*h));
	h->v[0] = P1 + P2;
	h->v[1] = P2;
	h->v[2] = 0;
	h->v[3] = -P1;
}

void
xxh64_update(struct xxh64 *h, const void *data, size_t n)
{
	const uint8_t *p = data;
	size_t k;

	h->total += n;
	if (h->nbuf > 0) {
		k = 32 - h->nbuf < n ? 32 - h->nbuf : n;
		memcpy(h->buf + h->nbuf, p, k);
		h->nbuf += k;
		p += k;
		n -= k;
		if (h->nbuf < 32)
			return;
		stripe(h->v, h->buf);
		h->nbuf = 0;
	}
	for (; n >= 32; p += 32, n -= 32)
		stripe(h->v, p);
	memcpy(h->buf, p, n);
	h->nbuf = n;
}

uint64_t
xxh64_digest(const struct xxh64 *h)
{
	const uint8_t *p = h->buf, *end = h->buf + h->nbuf;
	uint64_t acc;
	int i;

	if (h->total >= 32) {
		acc = rotl(h->v[0], 1) + rotl(h->v[1], 7) + rotl(h->v[2], 12) +
		    rotl(h->v[3], 18);
		for (i = 0; i < 4; i++)
			acc = merge(acc, h->v[i]);
	} else
		acc = P5;
	acc += h->total;
	for (; end - p >= 8; p += 8)
		acc = rotl(acc ^ round1(0, le64(p)), 27) * P1 + P4;
	if (end - p >= 4) {
		acc = rotl(acc ^ (uint64_t)le32(p) * P1, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		acc = rotl(acc ^ *p * P5, 11) * P1;
	acc ^= acc >> 33;
	acc *= P2;
	acc ^= acc >> 29;
	acc *= P3;
	return acc ^ acc >> 32;
}
