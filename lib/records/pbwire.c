/* pbwire: the protobuf wire format, read and written. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records/pbwire.h"

static int
fail(char *err, size_t len, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, len, "byte %llu: ", (unsigned long long)off);
	if (n < 0 || (size_t)n >= len)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
	return -1;
}

int
pb_varint(const struct pbuf *b, size_t *pos, uint64_t *v, char *err,
    size_t len)
{
	uint64_t x = 0;
	size_t i = *pos;
	int shift;

	for (shift = 0; shift < 70; shift += 7) {
		if (i >= b->n)
			return fail(err, len, b->base + *pos,
			    "truncated varint: the message ends at byte %llu",
			    (unsigned long long)(b->base + b->n));
		if (shift == 63 && (b->p[i] & 0x7f) > 1)
			return fail(err, len, b->base + *pos,
			    "varint too large for 64 bits");
		x |= (uint64_t)(b->p[i] & 0x7f) << shift;
		if ((b->p[i++] & 0x80) == 0) {
			*v = x;
			*pos = i;
			return 0;
		}
	}
	return fail(err, len, b->base + *pos, "varint longer than 10 bytes");
}

static int
fixed(const struct pbuf *b, size_t *pos, int nb, uint64_t *v, char *err,
    size_t len)
{
	uint64_t x = 0;
	int k;

	if (b->n - *pos < (size_t)nb)
		return fail(err, len, b->base + *pos, "truncated %d-bit value: "
		    "the message ends at byte %llu", nb * 8,
		    (unsigned long long)(b->base + b->n));
	for (k = nb - 1; k >= 0; k--)
		x = x << 8 | b->p[*pos + k];
	*pos += nb;
	*v = x;
	return 0;
}

int
pb_next(const struct pbuf *b, size_t *pos, struct pb_field *f, char *err,
    size_t len)
{
	uint64_t tag, n;
	size_t start = *pos;

	if (*pos >= b->n)
		return 0;
	memset(f, 0, sizeof(*f));
	f->off = b->base + start;
	if (pb_varint(b, pos, &tag, err, len) != 0)
		return -1;
	if (tag >> 3 == 0 || tag >> 3 > PB_MAX_FIELD)
		return fail(err, len, f->off, "field number %llu is out of "
		    "range", (unsigned long long)(tag >> 3));
	f->num = (uint32_t)(tag >> 3);
	f->wt = (int)(tag & 7);
	switch (f->wt) {
	case PB_VARINT:
		return pb_varint(b, pos, &f->v, err, len) ? -1 : 1;
	case PB_I64:
		return fixed(b, pos, 8, &f->v, err, len) ? -1 : 1;
	case PB_I32:
		return fixed(b, pos, 4, &f->v, err, len) ? -1 : 1;
	case PB_LEN:
		if (pb_varint(b, pos, &n, err, len) != 0)
			return -1;
		if (n > b->n - *pos)
			return fail(err, len, f->off, "field %u holds %llu "
			    "bytes, but the message ends at byte %llu", f->num,
			    (unsigned long long)n,
			    (unsigned long long)(b->base + b->n));
		f->sub.p = b->p + *pos;
		f->sub.n = (size_t)n;
		f->sub.base = b->base + *pos;
		*pos += (size_t)n;
		return 1;
	default:
		return fail(err, len, f->off, "field %u has wire type %d, "
		    "which is a group or no type", f->num, f->wt);
	}
}

int64_t
pb_zigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

double
pb_double(uint64_t v)
{
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

float
pb_float(uint32_t v)
{
	float f;

	memcpy(&f, &v, sizeof(f));
	return f;
}

/* ---- frames ---- */

void
pb_frames_init(struct pb_frames *fr, FILE *fp)
{
	memset(fr, 0, sizeof(*fr));
	fr->fp = fp;
}

void
pb_frames_free(struct pb_frames *fr)
{
	free(fr->buf);
	fr->buf = NULL;
	fr->cap = 0;
}

/* A frame's length: 1 it is read, 0 at a clean end of file, -1 error. */
static int
frame_len(struct pb_frames *fr, uint64_t *n, uint64_t *nb, char *err,
    size_t len)
{
	uint64_t x = 0;
	int c, shift;

	for (shift = 0; shift < 70; shift += 7) {
		if ((c = getc(fr->fp)) == EOF) {
			if (ferror(fr->fp))
				return fail(err, len, fr->off, "%s",
				    strerror(errno));
			if (shift == 0)
				return 0;
			return fail(err, len, fr->off, "truncated frame "
			    "length: the file ends");
		}
		if (shift == 63 && (c & 0x7f) > 1)
			return fail(err, len, fr->off, "frame length too "
			    "large for 64 bits");
		x |= (uint64_t)(c & 0x7f) << shift;
		if ((c & 0x80) == 0) {
			*n = x;
			*nb = (uint64_t)shift / 7 + 1;
			return 1;
		}
	}
	return fail(err, len, fr->off, "frame length longer than 10 bytes");
}

int
pb_frame_next(struct pb_frames *fr, struct pbuf *m, char *err, size_t len)
{
	uint64_t n = 0, at = fr->off, hdr = 0;
	size_t got;
	uint8_t *p;
	int rc;

	if ((rc = frame_len(fr, &n, &hdr, err, len)) <= 0)
		return rc;
	if (n > PB_MAX_FRAME)
		return fail(err, len, at, "a frame of %llu bytes, more than "
		    "the %lu allowed", (unsigned long long)n, PB_MAX_FRAME);
	if (n > fr->cap) {
		if ((p = realloc(fr->buf, n)) == NULL)
			return fail(err, len, at, "out of memory");
		fr->buf = p;
		fr->cap = (size_t)n;
	}
	got = fread(fr->buf, 1, (size_t)n, fr->fp);
	if (got < n) {
		if (ferror(fr->fp))
			return fail(err, len, at, "%s", strerror(errno));
		return fail(err, len, at, "truncated frame of %llu bytes: "
		    "the file ends at byte %llu", (unsigned long long)n,
		    (unsigned long long)(at + hdr + got));
	}
	m->p = fr->buf;
	m->n = (size_t)n;
	m->base = at + hdr;
	fr->off = at + hdr + n;
	return 1;
}

/* ---- writing ---- */

void
pbw_init(struct pbw *w)
{
	memset(w, 0, sizeof(*w));
}

void
pbw_free(struct pbw *w)
{
	free(w->p);
	pbw_init(w);
}

static uint8_t *
room(struct pbw *w, size_t need)
{
	size_t cap;
	uint8_t *p;

	if (w->failed)
		return NULL;
	if (need <= w->cap - w->n)
		return w->p + w->n;
	cap = w->cap ? w->cap : 64;
	while (cap - w->n < need) {
		if (cap > SIZE_MAX / 2) {
			w->failed = 1;
			return NULL;
		}
		cap *= 2;
	}
	if ((p = realloc(w->p, cap)) == NULL) {
		w->failed = 1;
		return NULL;
	}
	w->p = p;
	w->cap = cap;
	return w->p + w->n;
}

static void
raw_varint(struct pbw *w, uint64_t v)
{
	uint8_t *p;

	if ((p = room(w, 10)) == NULL)
		return;
	do {
		*p++ = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		w->n++;
		v >>= 7;
	} while (v != 0);
}

static void
tag(struct pbw *w, uint32_t num, int wt)
{
	raw_varint(w, (uint64_t)num << 3 | (unsigned)wt);
}

static void
raw_fixed(struct pbw *w, uint64_t v, int nb)
{
	uint8_t *p;
	int k;

	if ((p = room(w, (size_t)nb)) == NULL)
		return;
	for (k = 0; k < nb; k++)
		p[k] = (uint8_t)(v >> (8 * k));
	w->n += (size_t)nb;
}

void
pbw_varint(struct pbw *w, uint32_t num, uint64_t v)
{
	tag(w, num, PB_VARINT);
	raw_varint(w, v);
}

void
pbw_sint(struct pbw *w, uint32_t num, int64_t v)
{
	pbw_varint(w, num, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void
pbw_fixed64(struct pbw *w, uint32_t num, uint64_t v)
{
	tag(w, num, PB_I64);
	raw_fixed(w, v, 8);
}

void
pbw_fixed32(struct pbw *w, uint32_t num, uint32_t v)
{
	tag(w, num, PB_I32);
	raw_fixed(w, v, 4);
}

void
pbw_double(struct pbw *w, uint32_t num, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	pbw_fixed64(w, num, v);
}

void
pbw_bytes(struct pbw *w, uint32_t num, const void *b, size_t n)
{
	uint8_t *p;

	tag(w, num, PB_LEN);
	raw_varint(w, n);
	if (n == 0 || (p = room(w, n)) == NULL)
		return;
	memcpy(p, b, n);
	w->n += n;
}

void
pbw_str(struct pbw *w, uint32_t num, const char *s)
{
	pbw_bytes(w, num, s, strlen(s));
}

void
pbw_packed(struct pbw *w, uint32_t num, const uint64_t *v, size_t n)
{
	struct pbw t;
	size_t i;

	pbw_init(&t);
	for (i = 0; i < n; i++)
		raw_varint(&t, v[i]);
	if (t.failed)
		w->failed = 1;
	else
		pbw_bytes(w, num, t.p, t.n);
	pbw_free(&t);
}

int
pbw_failed(const struct pbw *w)
{
	return w->failed;
}

int
pbw_frame(FILE *fp, const struct pbw *w)
{
	uint8_t hdr[10];
	uint64_t v = w->n;
	size_t k = 0;

	if (w->failed) {
		errno = ENOMEM;
		return -1;
	}
	do {
		hdr[k++] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v != 0);
	if (fwrite(hdr, 1, k, fp) != k || (w->n > 0 &&
	    fwrite(w->p, 1, w->n, fp) != w->n))
		return -1;
	return 0;
}
