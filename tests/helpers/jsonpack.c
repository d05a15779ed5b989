/*
 * jsonpack: test helper that turns JSON lines into msgpack, one value
 * per line, so that tests can write any stream by hand, good or bad.
 * Integers stay integers (negative ones signed), numbers with a point
 * or exponent become float64, object keys keep their order.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

static msgpack_packer pk;
static const char *p;
static int line;

static void
bad(const char *what)
{
	fprintf(stderr, "jsonpack: line %d: %s near \"%.20s\"\n", line, what,
	    p);
	exit(1);
}

static int
cb(void *data, const char *buf, size_t len)
{
	(void)data;
	return fwrite(buf, 1, len, stdout) == len ? 0 : -1;
}

static void
ws(void)
{
	while (isspace((unsigned char)*p))
		p++;
}

static void value(void);

static size_t
string(char *out, size_t cap)
{
	size_t n = 0;

	if (*p++ != '"')
		bad("expected string");
	while (*p != '"') {
		char c = *p++;

		if (c == '\0')
			bad("unterminated string");
		if (c == '\\') {
			c = *p++;
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c == 'u') {
				c = (char)strtol((char[]){ p[0], p[1], p[2],
				    p[3], 0 }, NULL, 16);
				p += 4;
			}
		}
		if (n == cap)
			bad("string too long");
		out[n++] = c;
	}
	p++;
	return n;
}

static void
number(void)
{
	const char *s = p;
	char *end;

	if (*p == '-')
		p++;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.' || *p == 'e' || *p == 'E') {
		msgpack_pack_double(&pk, strtod(s, &end));
		p = end;
	} else if (*s == '-')
		msgpack_pack_int64(&pk, strtoll(s, NULL, 10));
	else
		msgpack_pack_uint64(&pk, strtoull(s, NULL, 10));
}

/* Count the items of the array or object at p without packing. */
static size_t
count(char open, char close)
{
	const char *save = p;
	size_t n = 0;
	int depth = 0, instr = 0;

	for (p++; *p != '\0'; p++) {
		if (instr) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				instr = 0;
			continue;
		}
		if (*p == '"')
			instr = 1;
		if (depth == 0 && n == 0 && !isspace((unsigned char)*p) &&
		    *p != close)
			n = 1;
		if (*p == '[' || *p == '{')
			depth++;
		else if (*p == ']' || *p == '}') {
			if (depth-- == 0)
				break;
		} else if (*p == ',' && depth == 0)
			n++;
	}
	(void)open;
	p = save;
	return n;
}

static void
array(void)
{
	size_t n = count('[', ']'), i;

	msgpack_pack_array(&pk, n);
	p++;
	for (i = 0; i < n; i++) {
		ws();
		value();
		ws();
		if (*p == ',')
			p++;
	}
	ws();
	if (*p++ != ']')
		bad("expected ]");
}

static void
object(void)
{
	size_t n = count('{', '}'), i, len;
	char key[4096];

	msgpack_pack_map(&pk, n);
	p++;
	for (i = 0; i < n; i++) {
		ws();
		len = string(key, sizeof(key));
		msgpack_pack_str(&pk, len);
		msgpack_pack_str_body(&pk, key, len);
		ws();
		if (*p++ != ':')
			bad("expected :");
		ws();
		value();
		ws();
		if (*p == ',')
			p++;
	}
	ws();
	if (*p++ != '}')
		bad("expected }");
}

static void
value(void)
{
	char buf[16384];
	size_t n;

	ws();
	if (*p == '{')
		object();
	else if (*p == '[')
		array();
	else if (*p == '"') {
		n = string(buf, sizeof(buf));
		msgpack_pack_str(&pk, n);
		msgpack_pack_str_body(&pk, buf, n);
	} else if (strncmp(p, "true", 4) == 0) {
		msgpack_pack_true(&pk);
		p += 4;
	} else if (strncmp(p, "false", 5) == 0) {
		msgpack_pack_false(&pk);
		p += 5;
	} else if (strncmp(p, "null", 4) == 0) {
		msgpack_pack_nil(&pk);
		p += 4;
	} else if (*p == '-' || isdigit((unsigned char)*p))
		number();
	else
		bad("unexpected character");
}

int
main(void)
{
	static char buf[1 << 20];

	msgpack_packer_init(&pk, NULL, cb);
	while (fgets(buf, sizeof(buf), stdin) != NULL) {
		line++;
		p = buf;
		ws();
		if (*p == '\0' || *p == '#')
			continue;
		value();
		ws();
		if (*p != '\0')
			bad("trailing text");
	}
	return fflush(stdout) != 0 || ferror(stdout);
}
