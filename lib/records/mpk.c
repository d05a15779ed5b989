/* mpk: a small msgpack decoder over a span of bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "records/mpk.h"

void
mpk_init(struct mpk *m, const void *p, size_t n)
{
	m->p = p;
	m->end = m->p + n;
	m->failed = 0;
}

int
mpk_failed(const struct mpk *m)
{
	return m->failed;
}

size_t
mpk_left(const struct mpk *m)
{
	return (size_t)(m->end - m->p);
}

int
mpk_next_is_str(const struct mpk *m)
{
	return !m->failed && m->p < m->end && ((m->p[0] & 0xe0) == 0xa0 ||
	    (m->p[0] >= 0xd9 && m->p[0] <= 0xdb));
}

static int
fail(struct mpk *m)
{
	m->failed = 1;
	return -1;
}

/* Whether n more bytes are there (and nothing failed before). */
static int
have(const struct mpk *m, uint64_t n)
{
	return !m->failed && n <= (uint64_t)(m->end - m->p);
}

/*
 * A header with its count or length in the next w bytes (w 0: in the
 * low bits of the first byte, under mask).  Moves past the header.
 */
static int
header(struct mpk *m, unsigned w, uint8_t mask, uint32_t *n)
{
	if (!have(m, 1 + w))
		return fail(m);
	*n = w == 0 ? (uint32_t)(m->p[0] & mask) :
	    (uint32_t)mpk_be(m->p + 1, w);
	m->p += 1 + w;
	return 0;
}

int
mpk_map(struct mpk *m, uint32_t *n)
{
	if (!have(m, 1))
		return fail(m);
	if ((m->p[0] & 0xf0) == 0x80)
		return header(m, 0, 0x0f, n);
	if (m->p[0] == 0xde || m->p[0] == 0xdf)
		return header(m, m->p[0] == 0xde ? 2 : 4, 0, n);
	return fail(m);
}

int
mpk_array(struct mpk *m, uint32_t *n)
{
	if (!have(m, 1))
		return fail(m);
	if ((m->p[0] & 0xf0) == 0x90)
		return header(m, 0, 0x0f, n);
	if (m->p[0] == 0xdc || m->p[0] == 0xdd)
		return header(m, m->p[0] == 0xdc ? 2 : 4, 0, n);
	return fail(m);
}

int
mpk_str_any(struct mpk *m, const char **s, uint32_t *n)
{
	const uint8_t *save = m->p;
	uint8_t c;
	int rc;

	if (!have(m, 1))
		return fail(m);
	c = m->p[0];
	if ((c & 0xe0) == 0xa0)
		rc = header(m, 0, 0x1f, n);
	else if (c >= 0xd9 && c <= 0xdb)
		rc = header(m, c == 0xd9 ? 1 : c == 0xda ? 2 : 4, 0, n);
	else
		return fail(m);
	if (rc != 0)
		return -1;
	if (!have(m, *n)) {
		m->p = save;
		return fail(m);
	}
	*s = (const char *)m->p;
	m->p += *n;
	return 0;
}

/*
 * Any integer: its value modulo 2^64 in *u, and whether it is below 0.
 */
static int
integer(struct mpk *m, uint64_t *u, int *neg)
{
	unsigned w;
	uint8_t c;

	if (!have(m, 1))
		return fail(m);
	c = m->p[0];
	*neg = c >= 0xe0;
	if (c <= 0x7f || c >= 0xe0) {
		*u = c <= 0x7f ? c : (uint64_t)c - 256;
		m->p++;
		return 0;
	}
	if (c < 0xcc || c > 0xd3)
		return fail(m);
	w = 1U << ((c - 0xcc) & 3);
	if (!have(m, 1 + w))
		return fail(m);
	*u = mpk_be(m->p + 1, w);
	if (c >= 0xd0 && (*u >> (8 * w - 1)) != 0) {
		*neg = 1;
		if (w < 8)
			*u |= UINT64_MAX << (8 * w);
	}
	m->p += 1 + w;
	return 0;
}

int
mpk_u64_any(struct mpk *m, uint64_t *v)
{
	const uint8_t *save = m->p;
	unsigned w;
	int neg;

	/* the unsigned forms first: the writers use no other */
	if (have(m, 1) && m->p[0] >= 0xcc && m->p[0] <= 0xcf &&
	    have(m, 1 + (w = 1U << (m->p[0] - 0xcc)))) {
		*v = mpk_be(m->p + 1, w);
		m->p += 1 + w;
		return 0;
	}
	if (integer(m, v, &neg) != 0)
		return -1;
	if (neg) {
		m->p = save;
		return fail(m);
	}
	return 0;
}

int
mpk_i64(struct mpk *m, int64_t *v)
{
	const uint8_t *save = m->p;
	uint64_t u;
	int neg;

	if (integer(m, &u, &neg) != 0)
		return -1;
	if (!neg && u > INT64_MAX) {
		m->p = save;
		return fail(m);
	}
	/* ~u is -v - 1, at most INT64_MAX: exact, no overflow */
	*v = neg ? -(int64_t)~u - 1 : (int64_t)u;
	return 0;
}

int
mpk_bool(struct mpk *m, int *b)
{
	if (!have(m, 1) || (m->p[0] != 0xc2 && m->p[0] != 0xc3))
		return fail(m);
	*b = m->p[0] == 0xc3;
	m->p++;
	return 0;
}

int
mpk_nil(struct mpk *m)
{
	if (!have(m, 1) || m->p[0] != 0xc0)
		return fail(m);
	m->p++;
	return 0;
}

/* Fixed sizes of the items 0xc0..0xdf (0: never used). */
static const uint8_t fixed[32] = {
	1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 5, 9, 2, 3, 5, 9,
	2, 3, 5, 9, 3, 4, 6, 10, 18, 0, 0, 0, 0, 0, 0, 0
};

/*
 * The size of the item at p (header and payload, not its elements) and
 * the number of items it holds; -1 when n bytes cannot hold its header.
 */
static int
item(const uint8_t *p, size_t n, uint64_t *size, uint64_t *kids)
{
	static const uint8_t lenw[] = { 1, 2, 4 };
	uint8_t c = p[0];

	*kids = 0;
	*size = 1;
	if (c <= 0x7f || c >= 0xe0)
		return 0;
	if (c <= 0x9f) {
		*kids = (uint64_t)(c & 0x0f) << (c <= 0x8f);
		return 0;
	}
	if (c <= 0xbf) {
		*size = 1 + (uint64_t)(c & 0x1f);
		return 0;
	}
	if ((*size = fixed[c - 0xc0]) != 0)
		return 0;
	if (c >= 0xc4 && c <= 0xc9) {		/* bin, then ext */
		unsigned w = lenw[(c - 0xc4) % 3], ext = c >= 0xc7;

		if (n < 1 + w)
			return -1;
		*size = 1 + w + ext + mpk_be(p + 1, w);
		return 0;
	}
	if (c >= 0xd9 && c <= 0xdb) {		/* str */
		unsigned w = lenw[c - 0xd9];

		if (n < 1 + w)
			return -1;
		*size = 1 + w + mpk_be(p + 1, w);
		return 0;
	}
	if (c >= 0xdc) {			/* array, map 16 and 32 */
		unsigned w = (c & 1) ? 4 : 2;

		if (n < 1 + w)
			return -1;
		*size = 1 + w;
		*kids = mpk_be(p + 1, w) << (c >= 0xde);
		return 0;
	}
	return -1;				/* 0xc1 */
}

int
mpk_skip(struct mpk *m)
{
	const uint8_t *p = m->p;
	uint64_t left = 1, size, kids;

	if (m->failed)
		return -1;
	while (left > 0) {
		left--;
		if (p == m->end || item(p, (size_t)(m->end - p), &size,
		    &kids) != 0 || size > (uint64_t)(m->end - p))
			return fail(m);
		p += size;
		left += kids;
	}
	m->p = p;
	return 0;
}

/* Whether the C string name is the len bytes at s (which may hold NULs). */
static int
name_is(const char *name, const char *s, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (name[i] == '\0' || name[i] != s[i])
			return 0;
	return name[len] == '\0';
}

int
mpk_key(struct mpk *m, const char *const *names, int n)
{
	const char *s;
	uint32_t len;
	int i;

	if (mpk_str(m, &s, &len) != 0)
		return -1;
	for (i = 0; i < n; i++)
		if (name_is(names[i], s, len))
			return i;
	return n;
}

int
mpk_flat_u64(struct mpk *m, const char *const *names, int n, uint64_t *v,
    uint32_t *seen)
{
	uint32_t pairs, i;
	int k;

	*seen = 0;
	if (n > 32 || mpk_map(m, &pairs) != 0)
		return fail(m);
	for (i = 0; i < pairs; i++) {
		if ((k = mpk_key(m, names, n)) < 0)
			return -1;
		if (k == n) {
			if (mpk_skip(m) != 0)
				return -1;
			continue;
		}
		if ((*seen & 1U << k) || mpk_u64(m, &v[k]) != 0)
			return fail(m);
		*seen |= 1U << k;
	}
	return 0;
}

/* Byte c, then v in n bytes, big-endian. */
static uint8_t *
put(uint8_t *p, uint8_t c, uint64_t v, unsigned n)
{
	*p++ = c;
	while (n-- > 0)
		*p++ = (uint8_t)(v >> (8 * n));
	return p;
}

/* A header: fix (with n in its low bits) below lim, else 16 or 32 bits. */
static uint8_t *
put_header(uint8_t *p, uint8_t fix, uint32_t lim, uint8_t c16, uint32_t n)
{
	if (n < lim)
		return put(p, (uint8_t)(fix | n), 0, 0);
	if (n < 65536)
		return put(p, c16, n, 2);
	return put(p, (uint8_t)(c16 + 1), n, 4);
}

uint8_t *
mpk_put_map(uint8_t *p, uint32_t n)
{
	return put_header(p, 0x80, 16, 0xde, n);
}

uint8_t *
mpk_put_array(uint8_t *p, uint32_t n)
{
	return put_header(p, 0x90, 16, 0xdc, n);
}

uint8_t *
mpk_put_str(uint8_t *p, const char *s, uint32_t n)
{
	if (n >= 32 && n < 256)
		p = put(p, 0xd9, n, 1);
	else
		p = put_header(p, 0xa0, 32, 0xda, n);
	memcpy(p, s, n);
	return p + n;
}

uint8_t *
mpk_put_u64(uint8_t *p, uint64_t v)
{
	if (v < 0x80)
		return put(p, (uint8_t)v, 0, 0);
	if (v < 0x100)
		return put(p, 0xcc, v, 1);
	if (v < 0x10000)
		return put(p, 0xcd, v, 2);
	if (v <= UINT32_MAX)
		return put(p, 0xce, v, 4);
	return put(p, 0xcf, v, 8);
}
