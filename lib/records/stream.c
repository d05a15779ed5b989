/* stream: reading and writing fluxocs record streams. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "records/mpk.h"
#include "records/stream.h"

#define CHUNK	(64UL << 10)

struct stream_reader {
	FILE		*fp;
	char		*name;
	uint8_t		*buf;
	size_t		 cap, start, end;
	uint64_t	 base;		/* stream offset of buf[0] */
	uint64_t	 count;		/* records read */
	int		 eof, failed;
	size_t		 max_record, max_elems;
	unsigned	 max_depth;
	msgpack_zone	 zone;		/* reused: cleared per record */
	msgpack_object	 obj;
	uint64_t	 tree;		/* 1 + index of the record in obj */
	char		 err[256];
};

enum scan { SCAN_OK, SCAN_MORE, SCAN_ERR };

static enum scan
fail(struct stream_reader *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->failed)
		return SCAN_ERR;
	n = snprintf(r->err, sizeof(r->err), "%s: byte %llu: ", r->name,
	    (unsigned long long)off);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - n, fmt, ap);
	va_end(ap);
	r->failed = 1;
	return SCAN_ERR;
}

struct stream_reader *
stream_open(FILE *fp, const char *name)
{
	struct stream_reader *r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	if ((r->name = strdup(name)) == NULL) {
		free(r);
		return NULL;
	}
	if ((r->buf = malloc(CHUNK)) == NULL) {
		free(r->name);
		free(r);
		return NULL;
	}
	r->cap = CHUNK;
	r->fp = fp;
	r->max_record = STREAM_MAX_RECORD;
	r->max_depth = STREAM_MAX_DEPTH;
	r->max_elems = STREAM_MAX_ELEMS;
	if (!msgpack_zone_init(&r->zone, 64 << 10)) {
		free(r->buf);
		free(r->name);
		free(r);
		return NULL;
	}
	return r;
}

void
stream_set_limits(struct stream_reader *r, size_t rec, unsigned depth,
    size_t elems)
{
	r->max_record = rec;
	r->max_depth = depth < STREAM_MAX_DEPTH ? depth : STREAM_MAX_DEPTH;
	r->max_elems = elems;
}

/*
 * Size of the header of the msgpack item starting with byte c, and
 * what follows it: a payload of fixed length (*fixed), a payload whose
 * length is in the header (*lenbytes), or a container (*cont, with its
 * count in the header or in c).  Returns 0 for bytes fluxocs refuses.
 */
static unsigned
item_header(uint8_t c, unsigned *fixed, unsigned *lenbytes, int *cont,
    uint64_t *count)
{
	*fixed = 0;
	*lenbytes = 0;
	*cont = 0;
	*count = 0;
	if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3)
		return 1;
	if (c >= 0x80 && c <= 0x8f) {
		*cont = 2;
		*count = c & 0x0f;
		return 1;
	}
	if (c >= 0x90 && c <= 0x9f) {
		*cont = 1;
		*count = c & 0x0f;
		return 1;
	}
	if (c >= 0xa0 && c <= 0xbf) {
		*fixed = c & 0x1f;
		return 1;
	}
	switch (c) {
	case 0xc4: case 0xd9: *lenbytes = 1; return 2;
	case 0xc5: case 0xda: *lenbytes = 2; return 3;
	case 0xc6: case 0xdb: *lenbytes = 4; return 5;
	case 0xca: *fixed = 4; return 1;
	case 0xcb: *fixed = 8; return 1;
	case 0xcc: case 0xd0: *fixed = 1; return 1;
	case 0xcd: case 0xd1: *fixed = 2; return 1;
	case 0xce: case 0xd2: *fixed = 4; return 1;
	case 0xcf: case 0xd3: *fixed = 8; return 1;
	case 0xdc: *cont = 1; *lenbytes = 2; return 3;
	case 0xdd: *cont = 1; *lenbytes = 4; return 5;
	case 0xde: *cont = 2; *lenbytes = 2; return 3;
	case 0xdf: *cont = 2; *lenbytes = 4; return 5;
	}
	return 0;	/* 0xc1 (never used) and the ext family */
}

/*
 * The size of each item that is whole in its first bytes, neither a
 * container nor a string or binary with its length after it, and that
 * fluxocs takes (not an extension): 0 for the others.
 */
static const uint8_t fixed_size[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
	1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 5, 9, 2, 3, 5, 9,
	2, 3, 5, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/*
 * Find the end of the record starting at p[0] (stream offset off).
 * SCAN_MORE means the bytes end inside the record.
 */
static enum scan
scan(struct stream_reader *r, const uint8_t *p, size_t n, uint64_t off,
    size_t *len)
{
	uint64_t left[STREAM_MAX_DEPTH + 1], count, need;
	unsigned hdr, fixed, lenbytes, sz;
	size_t i = 0;
	int d = 0, cont;

	left[0] = 1;
	while (d >= 0) {
		if (left[d] == 0) {
			d--;
			continue;
		}
		left[d]--;
		if (i >= n)
			return SCAN_MORE;
		/*
		 * Fast path for runs of the commonest items, numbers and
		 * short strings: nothing in a run can fail but the size,
		 * and i only grows, so that is checked after it.
		 */
		if (i > 0 && (sz = fixed_size[p[i]]) != 0) {
			uint64_t l = left[d];

			i += sz;
			while (l > 0 && i < n && (sz = fixed_size[p[i]]) != 0) {
				l--;
				i += sz;
			}
			left[d] = l;
			if (i > r->max_record)
				return fail(r, off, "record larger than %zu "
				    "bytes", r->max_record);
			if (i > n)
				return SCAN_MORE;
			continue;
		}
		if ((hdr = item_header(p[i], &fixed, &lenbytes, &cont,
		    &count)) == 0)
			return fail(r, off + i, "unsupported msgpack byte "
			    "0x%02x", p[i]);
		if (i == 0 && cont != 2)
			return fail(r, off, "record is not a map (first byte "
			    "0x%02x)", p[0]);
		if (i + hdr > n)
			return i + hdr > r->max_record ? fail(r, off,
			    "record larger than %zu bytes", r->max_record) :
			    SCAN_MORE;
		if (lenbytes != 0 && cont)
			count = mpk_be(p + i + 1, lenbytes);
		need = (lenbytes != 0 && !cont) ? mpk_be(p + i + 1, lenbytes) :
		    fixed;
		if (cont) {
			if (count > r->max_elems)
				return fail(r, off + i, "container of %llu "
				    "items exceeds the limit of %zu",
				    (unsigned long long)count, r->max_elems);
			if (d + 1 > (int)r->max_depth)
				return fail(r, off + i, "nesting deeper than "
				    "%u", r->max_depth);
			left[++d] = count * (uint64_t)cont;
			need = 0;
		}
		if (need > r->max_record || i + hdr + need > r->max_record)
			return fail(r, off, "record larger than %zu bytes",
			    r->max_record);
		i += hdr + need;
		if (i > n)
			return SCAN_MORE;
	}
	*len = i;
	return SCAN_OK;
}

/* Read more input; keeps the unconsumed bytes. Returns -1 on error. */
static int
fill(struct stream_reader *r)
{
	size_t have = r->end - r->start, want, got;
	uint8_t *nb;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, have);
		r->base += r->start;
		r->start = 0;
		r->end = have;
	}
	want = have < CHUNK ? CHUNK : have;	/* double: rescans stay O(n) */
	if (r->cap - r->end < want) {
		if ((nb = realloc(r->buf, r->end + want)) == NULL) {
			fail(r, r->base + r->end, "out of memory");
			return -1;
		}
		r->buf = nb;
		r->cap = r->end + want;
	}
	got = fread(r->buf + r->end, 1, r->cap - r->end, r->fp);
	r->end += got;
	if (got == 0) {
		if (ferror(r->fp)) {
			fail(r, r->base + r->end, "read error: %s",
			    strerror(errno));
			return -1;
		}
		r->eof = 1;
	}
	return 0;
}

/*
 * The value of the record's first key "type", read from its bytes: the
 * scanner has checked their framing, so only the types matter here.
 */
static int
find_type(struct stream_reader *r, struct stream_rec *rec)
{
	const uint8_t *p = rec->raw;
	struct mpk m;
	const char *k;
	uint32_t n, i, kl;

	/* the usual layout: a fixmap, "type" first, a fixstr value */
	if (rec->rawlen > 6 && (p[0] & 0xf0) == 0x80 && p[0] != 0x80 &&
	    memcmp(p + 1, "\xa4type", 5) == 0 && (p[6] & 0xe0) == 0xa0 &&
	    (size_t)(p[6] & 0x1f) < rec->rawlen - 6) {
		rec->type = (const char *)p + 7;
		rec->typelen = p[6] & 0x1f;
		return 0;
	}
	mpk_init(&m, rec->raw, rec->rawlen);
	if (mpk_map(&m, &n) != 0)
		n = 0;
	for (i = 0; i < n && !mpk_failed(&m); i++) {
		if (!mpk_next_is_str(&m))
			mpk_skip(&m);		/* a key of another type */
		else if (mpk_str(&m, &k, &kl) == 0 && kl == 4 &&
		    memcmp(k, "type", 4) == 0)
			break;
		mpk_skip(&m);
	}
	if (i < n && !mpk_failed(&m)) {
		if (mpk_str(&m, &rec->type, &kl) != 0) {
			fail(r, rec->off, "record key \"type\" is not a "
			    "string");
			return -1;
		}
		rec->typelen = kl;
		return 0;
	}
	if (mpk_failed(&m))
		fail(r, rec->off, "malformed record");
	else
		fail(r, rec->off, "record has no key \"type\"");
	return -1;
}

static int
take(struct stream_reader *r, size_t len, struct stream_rec *rec)
{
	rec->src = r;
	rec->raw = r->buf + r->start;
	rec->rawlen = len;
	rec->off = r->base + r->start;
	rec->index = r->count;
	if (find_type(r, rec) != 0)
		return -1;
	r->start += len;
	r->count++;
	return 1;
}

/*
 * The record as a msgpack-c object, decoded at the first call for it:
 * records that a tool passes on, or reads with its own decoder, never
 * build one.  NULL when the decoding fails (the reader's error).
 */
const msgpack_object *
stream_rec_obj(const struct stream_rec *rec)
{
	struct stream_reader *r = rec->src;
	size_t used = 0;
	int rc;

	if (r->tree == rec->index + 1)
		return &r->obj;
	if (r->failed)
		return NULL;
	r->tree = 0;
	msgpack_zone_clear(&r->zone);
	rc = msgpack_unpack((const char *)rec->raw, rec->rawlen, &used,
	    &r->zone, &r->obj);
	if (rc != MSGPACK_UNPACK_SUCCESS || used != rec->rawlen) {
		fail(r, rec->off, rc == MSGPACK_UNPACK_NOMEM_ERROR ?
		    "out of memory decoding record" : "malformed record");
		return NULL;
	}
	r->tree = rec->index + 1;
	return &r->obj;
}

int
stream_failed(const struct stream_reader *r)
{
	return r->failed;
}

int
stream_next(struct stream_reader *r, struct stream_rec *rec)
{
	size_t len = 0;

	if (r->failed)
		return -1;
	for (;;) {
		switch (scan(r, r->buf + r->start, r->end - r->start,
		    r->base + r->start, &len)) {
		case SCAN_OK:
			return take(r, len, rec);
		case SCAN_ERR:
			return -1;
		case SCAN_MORE:
			break;
		}
		if (r->eof) {
			if (r->end == r->start)
				return 0;
			fail(r, r->base + r->start, "truncated record: input "
			    "ends at byte %llu",
			    (unsigned long long)(r->base + r->end));
			return -1;
		}
		if (fill(r) != 0)
			return -1;
	}
}

void
stream_limits(const struct stream_reader *r, struct stream_limits *lim)
{
	lim->record = r->max_record;
	lim->elems = r->max_elems;
	lim->depth = r->max_depth;
}

void
stream_peek(const struct stream_reader *r, const uint8_t **p, size_t *n)
{
	*p = r->buf + r->start;
	*n = r->failed ? 0 : r->end - r->start;
}

int
stream_accept(struct stream_reader *r, size_t len, uint64_t nrec)
{
	if (r->failed || len == 0 || nrec == 0 || nrec > len ||
	    len > r->end - r->start)
		return -1;
	r->start += len;
	r->count += nrec;
	return 1;
}

const char *
stream_error(const struct stream_reader *r)
{
	return r->failed ? r->err : "no error";
}

const char *
stream_name(const struct stream_reader *r)
{
	return r->name;
}

uint64_t
stream_offset(const struct stream_reader *r)
{
	return r->base + r->start;
}

void
stream_close(struct stream_reader *r)
{
	if (r == NULL)
		return;
	msgpack_zone_destroy(&r->zone);
	free(r->buf);
	free(r->name);
	free(r);
}


struct stream_writer {
	FILE		*fp;
	msgpack_packer	 pk;
	int		 err;	/* first errno seen, sticky */
	size_t		 len;	/* bytes in buf */
	uint8_t		 buf[STREAM_WBUF];
};

static void
flush(struct stream_writer *w)
{
	if (w->err == 0 && w->len > 0 &&
	    fwrite(w->buf, 1, w->len, w->fp) != w->len)
		w->err = errno ? errno : EIO;
	w->len = 0;
}

static int
writer_cb(void *data, const char *buf, size_t len)
{
	struct stream_writer *w = data;

	if (w->err != 0)
		return -1;
	/* a large piece (a run of records passed through) goes straight */
	if (len >= sizeof(w->buf) / 2) {
		flush(w);
		if (w->err == 0 && fwrite(buf, 1, len, w->fp) != len)
			w->err = errno ? errno : EIO;
		return w->err != 0 ? -1 : 0;
	}
	if (len > sizeof(w->buf) - w->len)
		flush(w);
	memcpy(w->buf + w->len, buf, len);
	w->len += len;
	return 0;
}

struct stream_writer *
stream_writer(FILE *fp)
{
	struct stream_writer *w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	w->fp = fp;
	msgpack_packer_init(&w->pk, w, writer_cb);
	return w;
}

msgpack_packer *
stream_packer(struct stream_writer *w)
{
	return &w->pk;
}

struct stream_writer *
stream_packer_writer(msgpack_packer *pk)
{
	return pk->callback == writer_cb ? pk->data : NULL;
}

void
stream_write_raw(struct stream_writer *w, const void *p, size_t n)
{
	writer_cb(w, p, n);
}

/*
 * Room for n bytes at the end of the buffer, to be encoded in place
 * and then committed; NULL when n is more than the buffer holds.
 */
uint8_t *
stream_reserve(struct stream_writer *w, size_t n)
{
	if (n > sizeof(w->buf))
		return NULL;
	if (n > sizeof(w->buf) - w->len)
		flush(w);
	return w->buf + w->len;
}

/* The bytes from the reserved room up to end are the stream's. */
void
stream_commit(struct stream_writer *w, const uint8_t *end)
{
	if (w->err == 0)
		w->len = (size_t)(end - w->buf);
}

/*
 * A record of unsigned integers, {"type": type, keys[0]: v[0], ...},
 * encoded in place as msgpack-c packs it; -1, writing nothing, when
 * it would not fit in the buffer.
 */
int
stream_write_u64s(struct stream_writer *w, const char *type,
    const char *const *keys, const uint64_t *v, size_t n)
{
	size_t room = 2 * MPK_MAX_HEADER + 4 + strlen(type), i;
	uint8_t *p;

	for (i = 0; i < n; i++)
		room += MPK_MAX_HEADER + strlen(keys[i]) + MPK_MAX_INT;
	if (n >= UINT32_MAX || room > STREAM_WBUF ||
	    (p = stream_reserve(w, room)) == NULL)
		return -1;
	p = mpk_put_map(p, (uint32_t)n + 1);
	p = mpk_put_str(p, "type", 4);
	p = mpk_put_str(p, type, (uint32_t)strlen(type));
	for (i = 0; i < n; i++) {
		p = mpk_put_str(p, keys[i], (uint32_t)strlen(keys[i]));
		p = mpk_put_u64(p, v[i]);
	}
	stream_commit(w, p);
	return 0;
}

/* Flush and free; returns 0 or the errno of the first write error. */
int
stream_writer_close(struct stream_writer *w)
{
	int err;

	if (w == NULL)
		return ENOMEM;
	stream_pack_record(&w->pk, "end", 1);
	errno = 0;
	flush(w);
	if (fflush(w->fp) != 0 && w->err == 0)
		w->err = errno ? errno : EIO;
	if (ferror(w->fp) && w->err == 0)
		w->err = EIO;
	err = w->err;
	free(w);
	return err;
}

void
stream_pack_str(msgpack_packer *pk, const char *s)
{
	size_t n = strlen(s);

	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

void
stream_pack_kstr(msgpack_packer *pk, const char *k, const char *v)
{
	stream_pack_str(pk, k);
	stream_pack_str(pk, v);
}

void
stream_pack_ku64(msgpack_packer *pk, const char *k, uint64_t v)
{
	stream_pack_str(pk, k);
	msgpack_pack_uint64(pk, v);
}

void
stream_pack_kdbl(msgpack_packer *pk, const char *k, double v)
{
	stream_pack_str(pk, k);
	msgpack_pack_double(pk, v);
}

void
stream_pack_kbool(msgpack_packer *pk, const char *k, int v)
{
	stream_pack_str(pk, k);
	if (v)
		msgpack_pack_true(pk);
	else
		msgpack_pack_false(pk);
}

/* Start a record: a map of n entries in all, the first being its type. */
void
stream_pack_record(msgpack_packer *pk, const char *type, size_t n)
{
	msgpack_pack_map(pk, n);
	stream_pack_kstr(pk, "type", type);
}
