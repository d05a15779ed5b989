/*
 * Unit tests of lib/records/stream and lib/records/rec: round trips, framing across
 * reads, limits, truncation, sticky errors and typed access.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records/rec.h"
#include "records/stream.h"
#include "tap.h"

/* Write n small records into a memory file; return it rewound. */
static FILE *
records(int n, size_t *len)
{
	struct stream_writer *w;
	FILE *fp = tmpfile();
	int i;

	w = stream_writer(fp);
	for (i = 0; i < n; i++) {
		msgpack_packer *pk = stream_packer(w);

		stream_pack_record(pk, "item", 4);
		stream_pack_ku64(pk, "i", (uint64_t)i);
		stream_pack_kstr(pk, "s", "text");
		stream_pack_kdbl(pk, "x", 0.5 * i);
	}
	ok(stream_writer_close(w) == 0, "writer closes cleanly");
	*len = (size_t)ftell(fp);
	rewind(fp);
	return fp;
}

static void
round_trip(void)
{
	struct stream_reader *rd;
	struct stream_rec sr;
	struct rec r;
	size_t len, n = 0;
	uint64_t last_off = 0;
	int rc, good = 1;
	FILE *fp;

	/* 20000 records: the reader refills its buffer many times. */
	fp = records(20000, &len);
	rd = stream_open(fp, "mem");
	while ((rc = stream_next(rd, &sr)) > 0) {
		if (n == 20000) {	/* the writer ends the stream */
			good &= stream_rec_is(&sr, "end");
			n++;
			continue;
		}
		rec_init(&r, &sr, "mem");
		if (rec_u64(&r, "i") != n || rec_dbl(&r, "x") != 0.5 * n ||
		    !stream_rec_is(&sr, "item") || rec_failed(&r) ||
		    (n > 0 && sr.off <= last_off))
			good = 0;
		last_off = sr.off;
		n++;
	}
	ok(rc == 0 && n == 20001 && good, "20000 records read back in "
	    "order with their values, then the end record (%zu)", n);
	ok(stream_offset(rd) == len, "the reader ends at the last byte");
	stream_close(rd);
	fclose(fp);
}

static int
first_error(const unsigned char *b, size_t n, const char *want)
{
	struct stream_reader *rd;
	struct stream_rec sr;
	FILE *fp = tmpfile();
	int rc, got;

	fwrite(b, 1, n, fp);
	rewind(fp);
	rd = stream_open(fp, "t");
	while ((rc = stream_next(rd, &sr)) > 0)
		;
	got = rc < 0 && strcmp(stream_error(rd), want) == 0;
	if (!got)
		printf("# got: %s\n", rc < 0 ? stream_error(rd) : "success");
	ok(stream_next(rd, &sr) == rc, "errors are sticky");
	stream_close(rd);
	fclose(fp);
	return got;
}

static void
bad_input(void)
{
	static const unsigned char map_no_type[] = { 0x81, 0xa1, 'a', 0x01 };
	static const unsigned char type_int[] = { 0x81, 0xa4, 't', 'y', 'p',
	    'e', 0x05 };
	static const unsigned char cut[] = { 0x82, 0xa4, 't', 'y', 'p',
	    'e', 0xa1, 'x', 0xa1 };
	static const unsigned char fixint[] = { 0x05 };
	static const unsigned char big[] = { 0x81, 0xa4, 't', 'y', 'p', 'e',
	    0xc6, 0x7f, 0xff, 0xff, 0xff };
	size_t len;
	FILE *fp;
	unsigned char *buf;
	char want[80];

	ok(first_error(map_no_type, sizeof(map_no_type),
	    "t: byte 0: record has no key \"type\""), "a record needs a type");
	ok(first_error(type_int, sizeof(type_int),
	    "t: byte 0: record key \"type\" is not a string"),
	    "type must be a string");
	ok(first_error(cut, sizeof(cut), "t: byte 0: truncated record: "
	    "input ends at byte 9"), "truncation inside a record");
	ok(first_error(fixint, sizeof(fixint), "t: byte 0: record is not a "
	    "map (first byte 0x05)"), "plain integers are not records");
	ok(first_error(big, sizeof(big), "t: byte 0: record larger than "
	    "16777216 bytes"), "a 2 GiB binary is refused before reading");

	/* a good record then the same cut short: offset of the second */
	fp = records(2, &len);
	buf = malloc(len);
	if (fread(buf, 1, len, fp) != len)
		len = 0;
	/* two 32-byte records, then the 10-byte end record */
	snprintf(want, sizeof(want), "t: byte 32: truncated record: input "
	    "ends at byte 61");
	ok(len == 74 && first_error(buf, 61, want), "truncation names "
	    "the record's offset and the end of input");
	free(buf);
	fclose(fp);
}

static void
typed_access(void)
{
	struct stream_reader *rd;
	struct stream_rec sr;
	struct rec r;
	size_t len;
	FILE *fp;
	const char *s;

	fp = records(1, &len);
	rd = stream_open(fp, "mem");
	stream_next(rd, &sr);
	rec_init(&r, &sr, "mem");
	s = rec_str(&r, "s", &len);
	ok(len == 4 && memcmp(s, "text", 4) == 0 && !rec_failed(&r),
	    "strings are read in place");
	ok(rec_u64_or(&r, "absent", 42) == 42 && !rec_failed(&r),
	    "absent optional keys give their default");
	ok(rec_u64(&r, "s") == 0 && rec_failed(&r), "a string is not an "
	    "integer");
	ok(strcmp(rec_error(&r), "mem: byte 0: item record: key \"s\": "
	    "expected unsigned integer, got string") == 0, "the message "
	    "names offset, record and key: %s", rec_error(&r));
	rec_u64(&r, "nothere");
	ok(strstr(rec_error(&r), "\"s\"") != NULL, "the first error sticks");
	stream_close(rd);
	fclose(fp);
}

static int
sbuf_cb(void *data, const char *buf, size_t len)
{
	return msgpack_sbuffer_write(data, buf, len);
}

/*
 * Records of integers written in place by stream_write_u64s() are the
 * bytes msgpack-c packs, across many refills of the writer's buffer.
 */
static void
in_place(void)
{
	static const char *const keys[] = { "id", "start_ps", "end_ps",
	    "a_key_of_more_than_31_bytes_long" };
	static const uint64_t tops[] = { 0x80, 0x100, 0x10000, 1ULL << 32,
	    UINT64_MAX };
	struct stream_writer *w;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	uint64_t v[4], x = 1;
	size_t i, j, len;
	char *out;
	int good = 1;
	FILE *fp = tmpfile();

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, sbuf_cb);
	w = stream_writer(fp);
	for (i = 0; i < 30000; i++) {
		for (j = 0; j < 4; j++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			v[j] = (x >> 7) % tops[(x >> 3) % 5];
		}
		stream_pack_record(&pk, "taskrun", 1 + 1 + i % 4);
		for (j = 0; j < 1 + i % 4; j++)
			stream_pack_ku64(&pk, keys[j], v[j]);
		good &= stream_write_u64s(w, "taskrun", keys, v,
		    1 + i % 4) == 0;
	}
	good &= stream_writer_close(w) == 0;
	len = (size_t)ftell(fp);
	rewind(fp);
	out = malloc(len);
	ok(good && len == sb.size + 10 && fread(out, 1, len, fp) == len &&
	    memcmp(out, sb.data, sb.size) == 0, "records of integers "
	    "encoded in place are msgpack-c's bytes (%zu bytes)", len);
	free(out);
	fclose(fp);
	msgpack_sbuffer_destroy(&sb);
}

int
main(void)
{
	round_trip();
	bad_input();
	typed_access();
	in_place();
	return tap_done();
}
