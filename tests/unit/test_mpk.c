/*
 * Unit tests of lib/records/mpk: every integer width against msgpack-c's
 * packer, strings, containers, skipping nested items, and truncation
 * at every byte (a cut item fails and leaves the decoder in place).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "records/mpk.h"
#include "tap.h"

static const uint64_t uvals[] = {
	0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0xffffffffULL,
	0x100000000ULL, UINT64_MAX - 1, UINT64_MAX
};

static const int64_t ivals[] = {
	0, -1, -32, -33, -128, -129, -32768, -32769, INT32_MIN,
	(int64_t)INT32_MIN - 1, INT64_MIN + 1, INT64_MIN, 127, INT64_MAX
};

static void
unsigned_widths(void)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct mpk m;
	uint64_t v;
	int64_t iv;
	size_t i;
	int good = 1;

	for (i = 0; i < sizeof(uvals) / sizeof(uvals[0]); i++) {
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_uint64(&pk, uvals[i]);
		mpk_init(&m, sb.data, sb.size);
		if (mpk_u64(&m, &v) != 0 || v != uvals[i] || mpk_left(&m) != 0)
			good = 0;
		mpk_init(&m, sb.data, sb.size);
		if (uvals[i] <= INT64_MAX && (mpk_i64(&m, &iv) != 0 ||
		    iv != (int64_t)uvals[i]))
			good = 0;
		if (uvals[i] > INT64_MAX && (mpk_i64(&m, &iv) != -1 ||
		    mpk_left(&m) != sb.size))
			good = 0;
		msgpack_sbuffer_destroy(&sb);
	}
	ok(good, "unsigned integers of every width read back");
}

static void
signed_widths(void)
{
	/* int8..int64 encodings of values >= 0, as other packers write */
	static const uint8_t pos[][9] = {
		{ 0xd0, 0x05 }, { 0xd1, 0x01, 0x00 },
		{ 0xd2, 0x00, 0x01, 0x00, 0x00 },
		{ 0xd3, 0, 0, 0, 1, 0, 0, 0, 0 }
	};
	static const uint64_t posv[] = { 5, 256, 65536, 1ULL << 32 };
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct mpk m;
	uint64_t v;
	int64_t iv;
	size_t i;
	int good = 1, neg = 1;

	for (i = 0; i < sizeof(ivals) / sizeof(ivals[0]); i++) {
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_int64(&pk, ivals[i]);
		mpk_init(&m, sb.data, sb.size);
		if (mpk_i64(&m, &iv) != 0 || iv != ivals[i])
			good = 0;
		mpk_init(&m, sb.data, sb.size);
		if (ivals[i] < 0 && (mpk_u64(&m, &v) != -1 ||
		    mpk_left(&m) != sb.size || !mpk_failed(&m)))
			neg = 0;
		msgpack_sbuffer_destroy(&sb);
	}
	ok(good, "signed integers of every width read back");
	ok(neg, "a negative integer is not an unsigned one");
	good = 1;
	for (i = 0; i < 4; i++) {
		mpk_init(&m, pos[i], 1 + (1U << i));
		if (mpk_u64(&m, &v) != 0 || v != posv[i])
			good = 0;
	}
	ok(good, "signed encodings of values >= 0 are unsigned integers");
}

static void
strings_and_containers(void)
{
	static const size_t lens[] = { 0, 31, 32, 255, 256, 65535, 65536 };
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct mpk m;
	const char *s;
	char *text;
	uint32_t n, a, k;
	uint64_t v;
	size_t i;
	int good = 1, b1, b2;

	text = malloc(65536);
	memset(text, 'x', 65536);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_str(&pk, lens[i]);
		msgpack_pack_str_body(&pk, text, lens[i]);
		msgpack_pack_map(&pk, lens[i]);
		msgpack_pack_array(&pk, lens[i]);
		mpk_init(&m, sb.data, sb.size);
		if (!mpk_next_is_str(&m) || mpk_str(&m, &s, &n) != 0 ||
		    n != lens[i] || (n > 0 && s[n - 1] != 'x') ||
		    mpk_map(&m, &k) != 0 || k != lens[i] ||
		    mpk_array(&m, &a) != 0 || a != lens[i] ||
		    mpk_left(&m) != 0)
			good = 0;
		msgpack_sbuffer_destroy(&sb);
	}
	free(text);
	ok(good, "strings, maps and arrays of every header width");
	{
		static const uint8_t b[] = { 0xc3, 0xc2, 0xc0, 0x01 };

		mpk_init(&m, b, sizeof(b));
		ok(mpk_bool(&m, &b1) == 0 && b1 == 1 &&
		    mpk_bool(&m, &b2) == 0 && b2 == 0 && mpk_nil(&m) == 0 &&
		    mpk_nil(&m) == -1 && mpk_left(&m) == 1 && mpk_failed(&m),
		    "booleans and nil; a wrong type fails in place");
		ok(mpk_u64(&m, &v) == -1, "errors are sticky");
	}
}

/* A record of every kind of item, nested, packed by msgpack-c. */
static void
pack_nested(msgpack_packer *pk)
{
	static const char bin[3] = { 1, 2, 3 };

	msgpack_pack_map(pk, 3);
	msgpack_pack_str(pk, 1);
	msgpack_pack_str_body(pk, "a", 1);
	msgpack_pack_array(pk, 7);
	msgpack_pack_double(pk, 0.5);
	msgpack_pack_float(pk, 0.25f);
	msgpack_pack_bin(pk, 3);
	msgpack_pack_bin_body(pk, bin, 3);
	msgpack_pack_ext(pk, 3, 7);
	msgpack_pack_ext_body(pk, bin, 3);
	msgpack_pack_ext(pk, 1, 1);
	msgpack_pack_ext_body(pk, bin, 1);
	msgpack_pack_nil(pk);
	msgpack_pack_map(pk, 1);
	msgpack_pack_int64(pk, -300);
	msgpack_pack_array(pk, 1);
	msgpack_pack_uint64(pk, UINT64_MAX);
	msgpack_pack_true(pk);
	msgpack_pack_map(pk, 0);
	msgpack_pack_array(pk, 0);
	msgpack_pack_nil(pk);
}

static void
skip_and_truncate(void)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct mpk m;
	uint64_t v;
	size_t cut;
	int good = 1;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	pack_nested(&pk);
	msgpack_pack_uint8(&pk, 9);
	mpk_init(&m, sb.data, sb.size);
	ok(mpk_skip(&m) == 0 && mpk_u64(&m, &v) == 0 && v == 9 &&
	    mpk_left(&m) == 0, "skip steps over a nested record whole");
	/* the record is all but the last byte, the fixint 9 */
	for (cut = 0; cut < sb.size - 1; cut++) {
		mpk_init(&m, sb.data, cut);
		if (mpk_skip(&m) != -1 || mpk_left(&m) != cut)
			good = 0;
	}
	ok(good, "skip fails in place at every cut inside the record");
	msgpack_sbuffer_destroy(&sb);
}

/* Every read fails in place on every proper prefix of its item. */
static void
truncated_items(void)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct mpk m;
	const char *s;
	uint64_t v;
	int64_t iv;
	uint32_t n;
	size_t i, cut;
	int good = 1;

	for (i = 0; i < sizeof(uvals) / sizeof(uvals[0]); i++) {
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_uint64(&pk, uvals[i]);
		msgpack_pack_int64(&pk, -(int64_t)(uvals[i] >> 1) - 1);
		msgpack_pack_str(&pk, (size_t)(uvals[i] & 0x1ffff));
		msgpack_pack_map(&pk, (size_t)(uvals[i] & 0x1ffff));
		msgpack_pack_array(&pk, (size_t)(uvals[i] & 0x1ffff));
		for (cut = 0; cut < sb.size; cut++) {
			mpk_init(&m, sb.data, cut);
			if (mpk_u64(&m, &v) == 0 && mpk_i64(&m, &iv) == 0 &&
			    mpk_str(&m, &s, &n) == 0 && mpk_map(&m, &n) == 0 &&
			    mpk_array(&m, &n) == 0)
				good = 0;
			else if (!mpk_failed(&m) || m.p > m.end)
				good = 0;
		}
		msgpack_sbuffer_destroy(&sb);
	}
	ok(good, "truncation at every byte of every header width fails");
}

int
main(void)
{
	unsigned_widths();
	signed_widths();
	strings_and_containers();
	skip_and_truncate();
	truncated_items();
	return tap_done();
}
