/* rec: typed access to the keys of one decoded record. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <msgpack.h>

#include "records/rec.h"
#include "records/stream.h"

static const msgpack_object_array empty_array = { 0, NULL };
static const msgpack_object_map empty_map = { 0, NULL };

/* The record's map, decoded at the first need; empty on failure. */
static const msgpack_object_map *
rec_map(const struct rec *r)
{
	const msgpack_object *o;

	if ((o = stream_rec_obj(&r->src)) == NULL)
		return &empty_map;
	return &o->via.map;
}

void
rec_init(struct rec *r, const struct stream_rec *sr, const char *name)
{
	size_t n;

	/* err is written only on failure: not cleared, a record a time */
	r->src = *sr;
	r->failed = 0;
	r->err[0] = '\0';
	r->name = name;
	r->off = sr->off;
	n = sr->typelen < sizeof(r->type) - 1 ? sr->typelen :
	    sizeof(r->type) - 1;
	memcpy(r->type, sr->type, n);
	r->type[n] = '\0';
}

void
rec_fail(struct rec *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->failed)
		return;
	r->failed = 1;
	n = snprintf(r->err, sizeof(r->err), "%s: byte %llu: %s record: ",
	    r->name, (unsigned long long)r->off, r->type);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - n, fmt, ap);
	va_end(ap);
}

int
rec_failed(const struct rec *r)
{
	return r->failed || stream_failed(r->src.src);
}

const char *
rec_error(const struct rec *r)
{
	/* the tree could not be decoded: that comes first */
	if (stream_failed(r->src.src))
		return stream_error(r->src.src);
	return r->failed ? r->err : "no error";
}

const char *
rec_typename(const msgpack_object *o)
{
	switch (o->type) {
	case MSGPACK_OBJECT_NIL:
		return "nil";
	case MSGPACK_OBJECT_BOOLEAN:
		return "boolean";
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		return "integer";
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		return "negative integer";
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		return "float";
	case MSGPACK_OBJECT_STR:
		return "string";
	case MSGPACK_OBJECT_ARRAY:
		return "array";
	case MSGPACK_OBJECT_MAP:
		return "map";
	case MSGPACK_OBJECT_BIN:
		return "binary";
	default:
		return "extension";
	}
}

const msgpack_object *
rec_get(const struct rec *r, const char *key)
{
	const msgpack_object_map *m = rec_map(r);
	size_t n = strlen(key);
	uint32_t i;

	for (i = 0; i < m->size; i++) {
		const msgpack_object *k = &m->ptr[i].key;

		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
		    memcmp(k->via.str.ptr, key, n) == 0)
			return &m->ptr[i].val;
	}
	return NULL;
}

int
rec_has(const struct rec *r, const char *key)
{
	return rec_get(r, key) != NULL;
}

static const msgpack_object *
need(struct rec *r, const char *key)
{
	const msgpack_object *o;

	if ((o = rec_get(r, key)) == NULL)
		rec_fail(r, "missing key \"%s\"", key);
	return o;
}

static uint64_t
as_u64(struct rec *r, const char *key, const msgpack_object *o)
{
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		return o->via.u64;
	rec_fail(r, "key \"%s\": expected unsigned integer, got %s", key,
	    rec_typename(o));
	return 0;
}

uint64_t
rec_u64(struct rec *r, const char *key)
{
	const msgpack_object *o;

	if ((o = need(r, key)) == NULL)
		return 0;
	return as_u64(r, key, o);
}

uint64_t
rec_u64_or(struct rec *r, const char *key, uint64_t dflt)
{
	const msgpack_object *o;

	if ((o = rec_get(r, key)) == NULL)
		return dflt;
	return as_u64(r, key, o);
}

uint64_t
rec_u64_max(struct rec *r, const char *key, uint64_t max)
{
	uint64_t v;

	v = rec_u64(r, key);
	if (v > max) {
		rec_fail(r, "key \"%s\": %llu exceeds %llu", key,
		    (unsigned long long)v, (unsigned long long)max);
		return 0;
	}
	return v;
}

static double
as_dbl(struct rec *r, const char *key, const msgpack_object *o)
{
	switch (o->type) {
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		return o->via.f64;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		return (double)o->via.u64;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		return (double)o->via.i64;
	default:
		rec_fail(r, "key \"%s\": expected number, got %s", key,
		    rec_typename(o));
		return 0;
	}
}

double
rec_dbl(struct rec *r, const char *key)
{
	const msgpack_object *o;

	if ((o = need(r, key)) == NULL)
		return 0;
	return as_dbl(r, key, o);
}

double
rec_dbl_or(struct rec *r, const char *key, double dflt)
{
	const msgpack_object *o;

	if ((o = rec_get(r, key)) == NULL)
		return dflt;
	return as_dbl(r, key, o);
}

int
rec_bool_or(struct rec *r, const char *key, int dflt)
{
	const msgpack_object *o;

	if ((o = rec_get(r, key)) == NULL)
		return dflt;
	if (o->type == MSGPACK_OBJECT_BOOLEAN)
		return o->via.boolean;
	rec_fail(r, "key \"%s\": expected boolean, got %s", key,
	    rec_typename(o));
	return dflt;
}

const char *
rec_str(struct rec *r, const char *key, size_t *len)
{
	const msgpack_object *o;

	*len = 0;
	if ((o = need(r, key)) == NULL)
		return "";
	if (o->type != MSGPACK_OBJECT_STR) {
		rec_fail(r, "key \"%s\": expected string, got %s", key,
		    rec_typename(o));
		return "";
	}
	*len = o->via.str.size;
	return o->via.str.ptr;
}

int
rec_streq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* Index of the string value of key in the NULL-ended names. */
int
rec_enum(struct rec *r, const char *key, const char *const *names)
{
	const char *s;
	char buf[48];
	size_t n;
	int i;

	s = rec_str(r, key, &n);
	if (rec_failed(r))
		return 0;
	for (i = 0; names[i] != NULL; i++)
		if (rec_streq(s, n, names[i]))
			return i;
	rec_fail(r, "key \"%s\": unknown value \"%s\"", key,
	    rec_printable(s, n, buf, sizeof(buf)));
	return 0;
}

int
rec_enum_or(struct rec *r, const char *key, const char *const *names,
    int dflt)
{
	if (!rec_has(r, key))
		return dflt;
	return rec_enum(r, key, names);
}

static const msgpack_object_array *
as_array(struct rec *r, const char *key, const msgpack_object *o)
{
	if (o->type == MSGPACK_OBJECT_ARRAY)
		return &o->via.array;
	rec_fail(r, "key \"%s\": expected array, got %s", key,
	    rec_typename(o));
	return &empty_array;
}

const msgpack_object_array *
rec_array(struct rec *r, const char *key)
{
	const msgpack_object *o;

	if ((o = need(r, key)) == NULL)
		return &empty_array;
	return as_array(r, key, o);
}

const msgpack_object_array *
rec_array_or_empty(struct rec *r, const char *key)
{
	const msgpack_object *o;

	if ((o = rec_get(r, key)) == NULL)
		return &empty_array;
	return as_array(r, key, o);
}

uint64_t
rec_elem_u64(struct rec *r, const char *key, const msgpack_object_array *a,
    size_t i)
{
	const msgpack_object *o;

	if (i >= a->size)
		return 0;
	o = &a->ptr[i];
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		return o->via.u64;
	rec_fail(r, "key \"%s\": item %zu: expected unsigned integer, got %s",
	    key, i, rec_typename(o));
	return 0;
}

static int
key_is(const msgpack_object *k, const char *key, size_t len)
{
	return k->type == MSGPACK_OBJECT_STR && k->via.str.size == len &&
	    memcmp(k->via.str.ptr, key, len) == 0;
}

/*
 * Find many keys in one pass.  hint[j] (kept by the caller between
 * records, zero at first) is where key j was last time: writers keep
 * their key order, so the common case costs one compare per key.
 */
void
rec_lookup(const struct rec *r, const char *const *keys, size_t n,
    const msgpack_object **out, uint32_t *hint)
{
	const msgpack_object_map *m = rec_map(r);
	size_t j, len;
	uint32_t i;

	for (j = 0; j < n; j++) {
		len = strlen(keys[j]);
		out[j] = NULL;
		if (hint[j] < m->size && key_is(&m->ptr[hint[j]].key, keys[j],
		    len)) {
			out[j] = &m->ptr[hint[j]].val;
			continue;
		}
		for (i = 0; i < m->size; i++)
			if (key_is(&m->ptr[i].key, keys[j], len)) {
				out[j] = &m->ptr[i].val;
				hint[j] = i;
				break;
			}
	}
}

uint64_t
rec_val_u64(struct rec *r, const char *key, const msgpack_object *o)
{
	if (o == NULL) {
		rec_fail(r, "missing key \"%s\"", key);
		return 0;
	}
	return as_u64(r, key, o);
}

uint64_t
rec_val_u64_or(struct rec *r, const char *key, const msgpack_object *o,
    uint64_t dflt)
{
	return o == NULL ? dflt : as_u64(r, key, o);
}

const msgpack_object_array *
rec_val_array(struct rec *r, const char *key, const msgpack_object *o)
{
	if (o == NULL) {
		rec_fail(r, "missing key \"%s\"", key);
		return &empty_array;
	}
	return as_array(r, key, o);
}

int
rec_val_enum(struct rec *r, const char *key, const msgpack_object *o,
    const char *const *names)
{
	char buf[48];
	int i;

	if (o == NULL) {
		rec_fail(r, "missing key \"%s\"", key);
		return 0;
	}
	if (o->type != MSGPACK_OBJECT_STR) {
		rec_fail(r, "key \"%s\": expected string, got %s", key,
		    rec_typename(o));
		return 0;
	}
	for (i = 0; names[i] != NULL; i++)
		if (rec_streq(o->via.str.ptr, o->via.str.size, names[i]))
			return i;
	rec_fail(r, "key \"%s\": unknown value \"%s\"", key,
	    rec_printable(o->via.str.ptr, o->via.str.size, buf, sizeof(buf)));
	return 0;
}

/*
 * A string from the input made safe for a message: printable ASCII
 * kept, anything else as \xNN, cut with "..." to fit the buffer.
 */
const char *
rec_printable(const char *s, size_t n, char *out, size_t outn)
{
	size_t i, k = 0;

	for (i = 0; i < n && k + 8 < outn; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f)
			out[k++] = (char)c;
		else
			k += (size_t)snprintf(out + k, outn - k, "\\x%02x", c);
	}
	if (i < n && k + 4 <= outn) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k < outn ? k : outn - 1] = '\0';
	return out;
}
