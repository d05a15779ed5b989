/* Unit tests of lib/records/pbwire: encodings of the protobuf guide, by hand. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "records/pbwire.h"
#include "tap.h"

static char err[200];

static struct pbuf
view(const void *p, size_t n, uint64_t base)
{
	return (struct pbuf){ p, n, base };
}

/* The one field of a message, or -1 with err. */
static int
one(const void *p, size_t n, struct pb_field *f)
{
	struct pbuf b = view(p, n, 100);
	size_t pos = 0;

	err[0] = '\0';
	return pb_next(&b, &pos, f, err, sizeof(err));
}

static void
reading(void)
{
	static const uint8_t v150[] = { 0x08, 0x96, 0x01 };
	static const uint8_t str[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i',
	    'n', 'g' };
	static const uint8_t f64[] = { 0x19, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t f32[] = { 0x25, 0xff, 0, 0, 0x80 };
	static const uint8_t max[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0x01 };
	struct pb_field f;

	ok(one(v150, 3, &f) == 1 && f.num == 1 && f.wt == PB_VARINT &&
	    f.v == 150 && f.off == 100, "field 1 = 150 (08 96 01)");
	ok(one(str, 9, &f) == 1 && f.num == 2 && f.wt == PB_LEN &&
	    f.sub.n == 7 && memcmp(f.sub.p, "testing", 7) == 0 &&
	    f.sub.base == 102, "field 2 = \"testing\", its bytes at 102");
	ok(one(f64, 9, &f) == 1 && f.num == 3 && f.wt == PB_I64 &&
	    f.v == 0x0807060504030201ULL, "fixed64 little-endian");
	ok(one(f32, 5, &f) == 1 && f.num == 4 && f.wt == PB_I32 &&
	    f.v == 0x800000ffU, "fixed32 little-endian");
	ok(one(max, 11, &f) == 1 && f.v == UINT64_MAX,
	    "a 10-byte varint holds 2^64 - 1");
	ok(pb_zigzag(0) == 0 && pb_zigzag(1) == -1 && pb_zigzag(2) == 1 &&
	    pb_zigzag(UINT64_MAX) == INT64_MIN &&
	    pb_zigzag(UINT64_MAX - 1) == INT64_MAX, "zigzag");
	ok(pb_double(0x3ff0000000000000ULL) == 1.0 &&
	    pb_float(0x40490fdbU) > 3.14159f && pb_float(0x40490fdbU) <
	    3.1416f, "double and float bits");
}

static void
errors(void)
{
	static const uint8_t cut[] = { 0x08, 0x96 };
	static const uint8_t big[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0x02 };
	static const uint8_t eleven[] = { 0x08, 0x80, 0x80, 0x80, 0x80, 0x80,
	    0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
	static const uint8_t group[] = { 0x0b, 0x0c };
	static const uint8_t zero[] = { 0x00, 0x01 };
	static const uint8_t past[] = { 0x12, 0x05, 'a', 'b' };
	static const uint8_t fcut[] = { 0x19, 1, 2, 3 };
	struct pb_field f;

	ok(one(cut, 2, &f) == -1 && strcmp(err, "byte 101: truncated varint: "
	    "the message ends at byte 102") == 0, "truncated varint: %s", err);
	ok(one(big, 11, &f) == -1 && strcmp(err, "byte 101: varint too large "
	    "for 64 bits") == 0, "varint past 2^64: %s", err);
	ok(one(eleven, 12, &f) == -1 && strcmp(err, "byte 101: varint longer "
	    "than 10 bytes") == 0, "11-byte varint: %s", err);
	ok(one(group, 2, &f) == -1 && strcmp(err, "byte 100: field 1 has wire "
	    "type 3, which is a group or no type") == 0, "group: %s", err);
	ok(one(zero, 2, &f) == -1 && strcmp(err, "byte 100: field number 0 is "
	    "out of range") == 0, "field 0: %s", err);
	ok(one(past, 4, &f) == -1 && strcmp(err, "byte 100: field 2 holds 5 "
	    "bytes, but the message ends at byte 104") == 0, "past the end: %s",
	    err);
	ok(one(fcut, 4, &f) == -1 && strcmp(err, "byte 101: truncated 64-bit "
	    "value: the message ends at byte 104") == 0, "cut fixed64: %s",
	    err);
	ok(one("", 0, &f) == 0, "an empty message has no field");
}

static FILE *
mem(const void *p, size_t n)
{
	FILE *fp = tmpfile();

	if (fp == NULL)
		return NULL;
	if (n > 0)
		fwrite(p, 1, n, fp);
	rewind(fp);
	return fp;
}

static int
frames(const void *p, size_t n, size_t *count, uint64_t *last)
{
	struct pb_frames fr;
	struct pbuf m;
	FILE *fp = mem(p, n);
	int rc;

	*count = 0;
	err[0] = '\0';
	if (fp == NULL)
		return -2;
	pb_frames_init(&fr, fp);
	while ((rc = pb_frame_next(&fr, &m, err, sizeof(err))) == 1) {
		(*count)++;
		*last = m.base;
	}
	pb_frames_free(&fr);
	fclose(fp);
	return rc;
}

static void
framing(void)
{
	static const uint8_t two[] = { 0x02, 0x08, 0x01, 0x03, 0x12, 0x01,
	    'x' };
	static const uint8_t cut[] = { 0x02, 0x08, 0x01, 0x05, 0x12 };
	static const uint8_t cutlen[] = { 0x02, 0x08, 0x01, 0x85 };
	static const uint8_t huge[] = { 0x80, 0x80, 0x80, 0x80, 0x08 };
	static const uint8_t empty[] = { 0x00, 0x80, 0x00 };
	uint64_t last = 0;
	size_t n;

	ok(frames(two, 7, &n, &last) == 0 && n == 2 && last == 4,
	    "two frames, the second's message at byte 4");
	ok(frames(cut, 5, &n, &last) == -1 && n == 1 && strcmp(err, "byte 3: "
	    "truncated frame of 5 bytes: the file ends at byte 5") == 0,
	    "a cut frame: %s", err);
	ok(frames(cutlen, 4, &n, &last) == -1 && n == 1 && strcmp(err,
	    "byte 3: truncated frame length: the file ends") == 0,
	    "a cut length: %s", err);
	ok(frames(huge, 5, &n, &last) == -1 && n == 0 && strcmp(err, "byte 0: "
	    "a frame of 2147483648 bytes, more than the 67108864 allowed") == 0,
	    "a 2 GiB frame is refused before reading: %s", err);
	ok(frames(empty, 3, &n, &last) == 0 && n == 2 && last == 3,
	    "empty messages, one with a 2-byte length");
	ok(frames("", 0, &n, &last) == 0 && n == 0, "an empty file");
}

static void
writing(void)
{
	static const uint64_t deps[] = { 3, 270, 86942 };
	static const uint8_t want[] = { 0x08, 0x96, 0x01, 0x12, 0x07, 't',
	    'e', 's', 't', 'i', 'n', 'g', 0x18, 0x03, 0x22, 0x06, 0x03, 0x8e,
	    0x02, 0x9e, 0xa7, 0x05 };
	struct pb_field f;
	struct pbuf b;
	struct pbw w;
	size_t pos = 0;
	uint64_t v;
	int k = 0;

	pbw_init(&w);
	pbw_varint(&w, 1, 150);
	pbw_str(&w, 2, "testing");
	pbw_sint(&w, 3, -2);
	pbw_packed(&w, 4, deps, 3);
	ok(!pbw_failed(&w) && w.n == sizeof(want) && memcmp(w.p, want,
	    w.n) == 0, "the guide's encodings, packed 3 270 86942 included");
	pbw_fixed64(&w, 5, 42);
	pbw_fixed32(&w, 6, 7);
	pbw_double(&w, 7, 0.5);
	pbw_sint(&w, 8, INT64_MIN);
	b = view(w.p, w.n, 0);
	while (pb_next(&b, &pos, &f, err, sizeof(err)) == 1) {
		k++;
		if (f.num == 4) {
			size_t p = 0, i = 0;

			while (p < f.sub.n && pb_varint(&f.sub, &p, &v, err,
			    sizeof(err)) == 0) {
				ok(v == deps[i], "packed item %zu", i);
				i++;
			}
		}
		if (f.num == 3)
			ok(pb_zigzag(f.v) == -2, "sint -2 reads back");
		if (f.num == 5)
			ok(f.v == 42 && f.wt == PB_I64, "fixed64 reads back");
		if (f.num == 6)
			ok(f.v == 7 && f.wt == PB_I32, "fixed32 reads back");
		if (f.num == 7)
			ok(pb_double(f.v) == 0.5, "double reads back");
		if (f.num == 8)
			ok(pb_zigzag(f.v) == INT64_MIN, "sint INT64_MIN");
	}
	ok(k == 8 && pos == w.n, "eight fields read back");
	pbw_free(&w);
}

int
main(void)
{
	reading();
	errors();
	framing();
	writing();
	return tap_done();
}
