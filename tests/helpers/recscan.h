/*
 * recscan.h: the record reader that the test helpers fluxenum and
 * idealsim share, and share with nothing in lib/: the whole of stdin
 * read at once (slurp), each record framed by a bounded walk over its
 * raw msgpack (frame, skip) that checks every length before msgpack-c
 * allocates for it, then decoded with msgpack-c, and keys read with
 * messages that name the record's byte offset (get, need_key, getu,
 * getstr_is, bad).  Each helper includes it once; errors exit 1
 * through err(3), named after the helper.
 */
#ifndef RECSCAN_H
#define RECSCAN_H

#include <err.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#define MAX_STDIN	((size_t)64 << 20)
#define MAX_RECORD	((size_t)16 << 20)	/* fluxocs(5) limits */
#define MAX_DEPTH	16
#define MAX_ITEMS	((uint64_t)1 << 20)

/* One record being read, for error messages. */
struct rec {
	const msgpack_object	*map;
	uint64_t		 off;
	const char		*type;
};

/* A bounded walk over raw msgpack. */
struct scan {
	const uint8_t	*p;
	size_t		 len;
	size_t		 pos;
	const char	*err;
};

static uint8_t		*in;
static size_t		 inlen;
static msgpack_unpacked	 up;

static void
slurp(void)
{
	size_t cap = 0, n;
	uint8_t *p;

	for (;;) {
		if (inlen == cap) {
			if (cap >= MAX_STDIN)
				errx(1, "stdin: input larger than 64 MiB");
			cap = cap == 0 ? 65536 : cap * 2;
			if ((p = realloc(in, cap)) == NULL)
				err(1, NULL);
			in = p;
		}
		n = fread(in + inlen, 1, cap - inlen, stdin);
		inlen += n;
		if (n == 0)
			break;
	}
	if (ferror(stdin))
		err(1, "stdin");
}

static int
fail(struct scan *s, const char *what)
{
	if (s->err == NULL)
		s->err = what;
	return -1;
}

static int
need(struct scan *s, uint64_t n)
{
	if (n > s->len - s->pos)
		return fail(s, "truncated");
	return 0;
}

static uint64_t
be(struct scan *s, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | s->p[s->pos++];
	return v;
}

static int
fixed(struct scan *s, uint64_t n)
{
	if (need(s, n) == -1)
		return -1;
	s->pos += n;
	return 0;
}

/* A string, binary or container whose length takes w bytes. */
static int
sized(struct scan *s, int w, uint64_t *n)
{
	if (need(s, w) == -1)
		return -1;
	*n = be(s, w);
	return 0;
}

static int skip(struct scan *, int);

static int
items(struct scan *s, uint64_t n, int map, int depth)
{
	uint64_t i;

	if (depth > MAX_DEPTH)
		return fail(s, "containers nested more than 16 deep");
	if (n > MAX_ITEMS)
		return fail(s, "container of more than 1048576 items");
	if (map)
		n *= 2;
	for (i = 0; i < n; i++)
		if (skip(s, depth + 1) == -1)
			return -1;
	return 0;
}

/* Skip one object, checking every tag and length on the way. */
static int
skip(struct scan *s, int depth)
{
	uint64_t n;
	uint8_t c;

	if (need(s, 1) == -1)
		return -1;
	c = s->p[s->pos++];
	if (c <= 0x7f || c >= 0xe0)
		return 0;
	if (c <= 0x8f)
		return items(s, c & 0x0f, 1, depth);
	if (c <= 0x9f)
		return items(s, c & 0x0f, 0, depth);
	if (c <= 0xbf)
		return fixed(s, c & 0x1f);
	switch (c) {
	case 0xc0: case 0xc2: case 0xc3:
		return 0;
	case 0xc1:
		return fail(s, "byte 0xc1");
	case 0xc4: case 0xd9:
		return sized(s, 1, &n) == -1 ? -1 : fixed(s, n);
	case 0xc5: case 0xda:
		return sized(s, 2, &n) == -1 ? -1 : fixed(s, n);
	case 0xc6: case 0xdb:
		return sized(s, 4, &n) == -1 ? -1 : fixed(s, n);
	case 0xca:
		return fixed(s, 4);
	case 0xcb:
		return fixed(s, 8);
	case 0xcc: case 0xd0:
		return fixed(s, 1);
	case 0xcd: case 0xd1:
		return fixed(s, 2);
	case 0xce: case 0xd2:
		return fixed(s, 4);
	case 0xcf: case 0xd3:
		return fixed(s, 8);
	case 0xdc:
		return sized(s, 2, &n) == -1 ? -1 : items(s, n, 0, depth);
	case 0xdd:
		return sized(s, 4, &n) == -1 ? -1 : items(s, n, 0, depth);
	case 0xde:
		return sized(s, 2, &n) == -1 ? -1 : items(s, n, 1, depth);
	case 0xdf:
		return sized(s, 4, &n) == -1 ? -1 : items(s, n, 1, depth);
	default:
		return fail(s, "extension type");
	}
}

/* The string held by the n bytes at p, which skip() has checked. */
static int
strobj(const uint8_t *p, size_t n, const uint8_t **str, size_t *len)
{
	size_t h;

	if (*p >= 0xa0 && *p <= 0xbf)
		h = 1;
	else if (*p == 0xd9)
		h = 2;
	else if (*p == 0xda)
		h = 3;
	else if (*p == 0xdb)
		h = 5;
	else
		return -1;
	*str = p + h;
	*len = n - h;
	return 0;
}

/*
 * Check the record at off, find its first "type" key and return its
 * length, so that nothing is decoded, or allocated, before the limits
 * of fluxocs(5) hold.
 */
static size_t
frame(size_t off, const uint8_t **type, size_t *typelen)
{
	struct scan s = { in + off, inlen - off, 0, NULL };
	const uint8_t *key;
	size_t k, v, keylen;
	uint64_t n, i;
	uint8_t c;

	if (s.len > MAX_RECORD)
		s.len = MAX_RECORD;
	c = s.p[s.pos++];
	if (c >= 0x80 && c <= 0x8f)
		n = c & 0x0f;
	else if (c == 0xde || c == 0xdf) {
		if (sized(&s, c == 0xde ? 2 : 4, &n) == -1)
			goto bad;
	} else
		errx(1, "byte %zu: record is not a map", off);
	if (n > MAX_ITEMS)
		errx(1, "byte %zu: container of more than 1048576 items",
		    off);
	*type = NULL;
	for (i = 0; i < n; i++) {
		k = s.pos;
		if (skip(&s, 2) == -1)
			goto bad;
		v = s.pos;
		if (skip(&s, 2) == -1)
			goto bad;
		if (*type != NULL || strobj(s.p + k, v - k, &key, &keylen) ||
		    keylen != 4 || memcmp(key, "type", 4) != 0)
			continue;
		if (strobj(s.p + v, s.pos - v, type, typelen) == -1)
			errx(1, "byte %zu: key \"type\": not a string", off);
	}
	if (*type == NULL)
		errx(1, "byte %zu: record without a type", off);
	return s.pos;
bad:
	if (strcmp(s.err, "truncated") == 0 && s.len < inlen - off)
		errx(1, "byte %zu: record larger than 16 MiB", off);
	if (strcmp(s.err, "truncated") == 0)
		errx(1, "byte %zu: end of input inside a record", off);
	errx(1, "byte %zu: %s", off, s.err);
}

static const msgpack_object *
get(const struct rec *r, const char *key)
{
	const msgpack_object_kv *kv = r->map->via.map.ptr;
	size_t i, n = strlen(key);

	for (i = 0; i < r->map->via.map.size; i++)
		if (kv[i].key.type == MSGPACK_OBJECT_STR &&
		    kv[i].key.via.str.size == n &&
		    memcmp(kv[i].key.via.str.ptr, key, n) == 0)
			return &kv[i].val;
	return NULL;
}

static _Noreturn void
bad(const struct rec *r, const char *key, const char *what)
{
	errx(1, "byte %" PRIu64 ": %s record: key \"%s\": %s", r->off,
	    r->type, key, what);
}

static const msgpack_object *
need_key(const struct rec *r, const char *key)
{
	const msgpack_object *o;

	if ((o = get(r, key)) == NULL)
		errx(1, "byte %" PRIu64 ": %s record: missing key \"%s\"",
		    r->off, r->type, key);
	return o;
}

static uint64_t
uint_of(const struct rec *r, const char *key, const msgpack_object *o)
{
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		bad(r, key, "not an unsigned integer");
	return o->via.u64;
}

static inline uint64_t
getu(const struct rec *r, const char *key)
{
	return uint_of(r, key, need_key(r, key));
}

/* Whether the string value of key is s. */
static inline int
getstr_is(const struct rec *r, const char *key, const msgpack_object *o,
    const char *s)
{
	if (o->type != MSGPACK_OBJECT_STR)
		bad(r, key, "not a string");
	return o->via.str.size == strlen(s) &&
	    memcmp(o->via.str.ptr, s, o->via.str.size) == 0;
}

/*
 * Each net and task record of the input, decoded, to net() or task(),
 * in order; other records are skipped unread.  A record to decode of
 * more than maxlen bytes is refused.
 */
static inline void
scan_records(size_t maxlen, void (*net)(const struct rec *),
    void (*task)(const struct rec *))
{
	const uint8_t *type;
	size_t off = 0, len, typelen, o;
	struct rec r;

	msgpack_unpacked_init(&up);
	for (; off < inlen; off += len) {
		len = frame(off, &type, &typelen);
		r.off = off;
		if (typelen == 3 && memcmp(type, "net", 3) == 0)
			r.type = "net";
		else if (typelen == 4 && memcmp(type, "task", 4) == 0)
			r.type = "task";
		else
			continue;
		if (len > maxlen)
			errx(1, "byte %zu: %s record larger than %zu bytes",
			    off, r.type, maxlen);
		o = 0;
		if (msgpack_unpack_next(&up, (const char *)in + off, len,
		    &o) != MSGPACK_UNPACK_SUCCESS || o != len)
			errx(1, "byte %zu: msgpack-c cannot decode the record",
			    off);
		r.map = &up.data;
		(r.type[0] == 'n' ? net : task)(&r);
		msgpack_unpacked_destroy(&up);
	}
}

#endif
