/*
 * recget: the scalar values of some keys of the records of one type of
 * a fluxocs stream, for the tests, where `report --dump | jq -r` costs
 * two processes and jq's start-up (some 25 ms) each time.
 *
 *	recget TYPE KEY ... < stream
 *
 * One line per record of TYPE, in stream order: the values of the KEYs
 * separated by one space, as jq -r '"\(.KEY) ..."' prints them: an
 * integer in decimal, a string raw, true, false, and null for nil or a
 * key the record lacks; a float as the shortest decimal that reads
 * back to it.  A key whose value is an array or a map is an error
 * (exit 2: that is jq's work); bad input exits 1 with its byte offset.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "recscan.h"

/*
 * The fewest significant digits that read back to v, without an
 * exponent between 1e-5 and 1e17 (10, not 1e+01), as jq prints them.
 */
static void
print_float(double v)
{
	char buf[48];
	int p, e;

	for (p = 1; p < DBL_DECIMAL_DIG; p++) {
		snprintf(buf, sizeof(buf), "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (v != 0 && fabs(v) >= 1e-5 && fabs(v) < 1e17 &&
	    (e = (int)floor(log10(fabs(v))) + 1) > p)
		p = e;
	printf("%.*g", p, v);
}

static void
print_value(const struct rec *r, const char *key)
{
	const msgpack_object *o = get(r, key);

	if (o == NULL) {
		fputs("null", stdout);
		return;
	}
	switch (o->type) {
	case MSGPACK_OBJECT_NIL:
		fputs("null", stdout);
		break;
	case MSGPACK_OBJECT_BOOLEAN:
		fputs(o->via.boolean ? "true" : "false", stdout);
		break;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		printf("%" PRIu64, o->via.u64);
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		printf("%" PRId64, o->via.i64);
		break;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		print_float(o->via.f64);
		break;
	case MSGPACK_OBJECT_STR:
		fwrite(o->via.str.ptr, 1, o->via.str.size, stdout);
		break;
	default:
		warnx("byte %" PRIu64 ": %s record: key \"%s\": not a scalar "
		    "(use report --dump and jq)", r->off, r->type, key);
		exit(2);
	}
}

int
main(int argc, char **argv)
{
	const uint8_t *type;
	size_t off, len, typelen, o, tl;
	struct rec r;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: recget TYPE KEY ... < stream\n");
		return 2;
	}
	slurp();
	tl = strlen(argv[1]);
	msgpack_unpacked_init(&up);
	for (off = 0; off < inlen; off += len) {
		len = frame(off, &type, &typelen);
		if (typelen != tl || memcmp(type, argv[1], tl) != 0)
			continue;
		o = 0;
		if (msgpack_unpack_next(&up, (const char *)in + off, len,
		    &o) != MSGPACK_UNPACK_SUCCESS || o != len)
			errx(1, "byte %zu: msgpack-c cannot decode the record",
			    off);
		r.off = off;
		r.type = argv[1];
		r.map = &up.data;
		for (i = 2; i < argc; i++) {
			if (i > 2)
				putchar(' ');
			print_value(&r, argv[i]);
		}
		putchar('\n');
	}
	msgpack_unpacked_destroy(&up);
	free(in);
	if (fflush(stdout) != 0 || ferror(stdout))
		err(1, "stdout");
	return 0;
}
