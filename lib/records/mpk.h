/*
 * mpk: a small msgpack decoder over a span of bytes.
 *
 * It reads the items the record streams use (maps and arrays by their
 * headers, integers of every width, strings, booleans, nil) in place:
 * nothing is allocated, and strings point into the span.  Every read
 * checks the bytes left first.  Errors are sticky, as in MPack: a read
 * that meets the end of the span or an item of another type marks the
 * decoder failed and returns -1 without moving; every later read fails
 * too, so a caller may check once, with mpk_failed(), after a run of
 * reads.  Floats, binaries and extensions are only skipped.
 *
 * mpk_u64() takes any integer encoding of a value >= 0 (also the
 * signed ones), as msgpack-c reads them as positive integers.
 * mpk_skip() steps over one item of any type, containers and all,
 * without recursion.  mpk_next_is_str() says whether the next item is a
 * string, without reading it.  mpk_key() reads a string and returns its
 * index among the n names given, n for another string, -1 on failure.
 * mpk_flat_u64() reads a map whose values for the n names (n <= 32)
 * are unsigned integers, each into v[i] and bit i of *seen, skipping
 * any other key; -1 when a key is no string, or one of the names is
 * there twice or holds anything else.
 *
 * Writing: mpk_put_*() encode one item at p, which must have room for
 * it, and return the end of what they wrote.  They choose the encodings
 * msgpack-c's packer does (the shortest for each value and size), so
 * that a record encoded here is the same, byte for byte.
 */
#ifndef MPK_H
#define MPK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct mpk {
	const uint8_t	*p, *end;
	int		 failed;
};

void	mpk_init(struct mpk *, const void *, size_t);
int	mpk_failed(const struct mpk *);
size_t	mpk_left(const struct mpk *);
int	mpk_next_is_str(const struct mpk *);
int	mpk_map(struct mpk *, uint32_t *);
int	mpk_array(struct mpk *, uint32_t *);
int	mpk_u64_any(struct mpk *, uint64_t *);
int	mpk_i64(struct mpk *, int64_t *);
int	mpk_str_any(struct mpk *, const char **, uint32_t *);
int	mpk_bool(struct mpk *, int *);
int	mpk_nil(struct mpk *);
int	mpk_skip(struct mpk *);
int	mpk_key(struct mpk *, const char *const *, int);
int	mpk_flat_u64(struct mpk *, const char *const *, int, uint64_t *,
	    uint32_t *);

/*
 * The big-endian unsigned integer in the n (<= 8) bytes at p: inline,
 * the widths msgpack uses read whole.
 */
static inline uint64_t
mpk_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	switch (n) {
	case 1:
		return p[0];
	case 2:
		return (uint64_t)p[0] << 8 | p[1];
	case 4:
		return (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 |
		    (uint64_t)p[2] << 8 | p[3];
	case 8:
		return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 |
		    (uint64_t)p[2] << 40 | (uint64_t)p[3] << 32 |
		    (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
		    (uint64_t)p[6] << 8 | p[7];
	}
	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

/*
 * mpk_u64() and mpk_str() are mpk_u64_any() and mpk_str_any() with the
 * commonest items, a fixint and a fixstr, read inline: the readers of
 * records call them for nearly every key and value.
 */
static inline int
mpk_u64(struct mpk *m, uint64_t *v)
{
	if (!m->failed && m->p < m->end && m->p[0] <= 0x7f) {
		*v = *m->p++;
		return 0;
	}
	return mpk_u64_any(m, v);
}

static inline int
mpk_str(struct mpk *m, const char **s, uint32_t *n)
{
	uint32_t len;

	if (!m->failed && m->p < m->end && (m->p[0] & 0xe0) == 0xa0 &&
	    (len = m->p[0] & 0x1fU) < (size_t)(m->end - m->p)) {
		*n = len;
		*s = (const char *)m->p + 1;
		m->p += 1 + len;
		return 0;
	}
	return mpk_str_any(m, s, n);
}

/* A string of n < 32 bytes, n known when compiling (memcpy inlined). */
static inline uint8_t *
mpk_put_fixstr(uint8_t *p, const char *s, size_t n)
{
	*p = (uint8_t)(0xa0 | n);
	memcpy(p + 1, s, n);
	return p + 1 + n;
}

#define MPK_MAX_HEADER	5	/* bytes of a map, array or str header */
#define MPK_MAX_INT	9	/* bytes of an integer */

uint8_t	*mpk_put_map(uint8_t *, uint32_t);
uint8_t	*mpk_put_array(uint8_t *, uint32_t);
uint8_t	*mpk_put_str(uint8_t *, const char *, uint32_t);
uint8_t	*mpk_put_u64(uint8_t *, uint64_t);

#endif
