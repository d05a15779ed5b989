/*
 * fuzz_stream: the stream reader (lib/records/stream), the headers
 * (lib/records/header) and typed access to records (lib/records/rec).
 *
 * Twice over the input: through filter_run(), the reading loop of
 * every tool, with the default limits; then record by record with
 * small limits, reading every key of every record with each getter.
 */
#include <stdint.h>
#include <stdio.h>

#include "records/filter.h"
#include "fuzz.h"
#include "records/header.h"
#include "records/rec.h"
#include "records/stream.h"

/* Every key of the record, through each getter of lib/records/rec. */
static void
keys(const struct stream_rec *sr)
{
	const msgpack_object *o = stream_rec_obj(sr);
	const msgpack_object_map *m;
	static const char *const any[] = { "a", "b", NULL };
	char key[64], pr[32];
	struct rec r;
	uint32_t i;
	size_t len;

	if (o == NULL)
		return;
	m = &o->via.map;
	for (i = 0; i < m->size; i++) {
		const msgpack_object *k = &m->ptr[i].key;
		const msgpack_object_array *a;
		const msgpack_object *v;

		if (k->type != MSGPACK_OBJECT_STR || k->via.str.size >=
		    sizeof(key))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)k->via.str.size,
		    k->via.str.ptr);
		rec_init(&r, sr, "fuzz");
		(void)rec_u64(&r, key);
		(void)rec_u64_max(&r, key, 1000);
		(void)rec_dbl(&r, key);
		(void)rec_bool_or(&r, key, 0);
		(void)rec_str(&r, key, &len);
		(void)rec_enum_or(&r, key, any, 0);
		a = rec_array_or_empty(&r, key);
		if (a->size > 0)
			(void)rec_elem_u64(&r, key, a, a->size - 1);
		if ((v = rec_get(&r, key)) != NULL)	/* NUL in a key */
			(void)rec_typename(v);
		(void)rec_printable(key, len < sizeof(key) ? len : 0, pr,
		    sizeof(pr));
		(void)rec_error(&r);
	}
}

static int
take(void *arg, const struct stream_rec *sr)
{
	(void)arg;
	keys(sr);
	return 1;
}

static void
records(const uint8_t *data, size_t size)
{
	struct header_end end = { 0, 0, 0 };
	struct stream_reader *rd;
	struct stream_rec sr;
	char err[400];
	FILE *fp;
	int rc;

	fp = fuzz_open(data, size);
	if ((rd = stream_open(fp, "fuzz")) == NULL)
		abort();
	stream_set_limits(rd, 4096, 4, 64);
	while ((rc = stream_next(rd, &sr)) > 0) {
		if (header_follow(&end, rd, &sr, err, sizeof(err)) != 0)
			break;
		if (stream_rec_is(&sr, "header") &&
		    header_check(rd, &sr, err, sizeof(err)) != 0)
			break;
		keys(&sr);
	}
	if (rc == 0)
		(void)header_finish(&end, rd, err, sizeof(err));
	else
		(void)stream_error(rd);
	(void)stream_offset(rd);
	stream_close(rd);
	fclose(fp);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stream_writer *w = fuzz_writer();
	char err[400];
	FILE *fp;

	fp = fuzz_open(data, size);
	(void)filter_run(fp, "fuzz", w, "fuzz", 0, NULL, take, NULL, err,
	    sizeof(err));
	(void)stream_writer_close(w);
	fclose(fp);
	records(data, size);
	return 0;
}
