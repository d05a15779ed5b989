/* json: print a decoded msgpack object as one line of JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <msgpack.h>

#include "records/json.h"

void
json_print_str(FILE *fp, const char *s, size_t n)
{
	size_t i;

	putc('"', fp);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		case '\r':
			fputs("\\r", fp);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(fp, "\\u%04x", c);
			else
				putc(c, fp);
		}
	}
	putc('"', fp);
}

static void
print_double(FILE *fp, double d)
{
	if (isnan(d) || isinf(d)) {
		fputs("null", fp);
		return;
	}
	fprintf(fp, "%.17g", d);
}

static void
print_key(FILE *fp, const msgpack_object *k)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (k->type == MSGPACK_OBJECT_STR) {
		json_print_str(fp, k->via.str.ptr, k->via.str.size);
		return;
	}
	if ((mem = open_memstream(&buf, &len)) == NULL) {
		fputs("\"?\"", fp);
		return;
	}
	json_print(mem, k);
	fclose(mem);
	json_print_str(fp, buf, len);
	free(buf);
}

void
json_print(FILE *fp, const msgpack_object *o)
{
	uint32_t i;

	switch (o->type) {
	case MSGPACK_OBJECT_NIL:
		fputs("null", fp);
		break;
	case MSGPACK_OBJECT_BOOLEAN:
		fputs(o->via.boolean ? "true" : "false", fp);
		break;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		fprintf(fp, "%llu", (unsigned long long)o->via.u64);
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		fprintf(fp, "%lld", (long long)o->via.i64);
		break;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		print_double(fp, o->via.f64);
		break;
	case MSGPACK_OBJECT_STR:
		json_print_str(fp, o->via.str.ptr, o->via.str.size);
		break;
	case MSGPACK_OBJECT_BIN:
		putc('"', fp);
		for (i = 0; i < o->via.bin.size; i++)
			fprintf(fp, "%02x", (unsigned char)o->via.bin.ptr[i]);
		putc('"', fp);
		break;
	case MSGPACK_OBJECT_ARRAY:
		putc('[', fp);
		for (i = 0; i < o->via.array.size; i++) {
			if (i > 0)
				putc(',', fp);
			json_print(fp, &o->via.array.ptr[i]);
		}
		putc(']', fp);
		break;
	case MSGPACK_OBJECT_MAP:
		putc('{', fp);
		for (i = 0; i < o->via.map.size; i++) {
			if (i > 0)
				putc(',', fp);
			print_key(fp, &o->via.map.ptr[i].key);
			putc(':', fp);
			json_print(fp, &o->via.map.ptr[i].val);
		}
		putc('}', fp);
		break;
	default:
		fputs("null", fp);
	}
}
