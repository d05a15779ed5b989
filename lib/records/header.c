/* header: the provenance records that open every stream. */
#include <stdio.h>
#include <string.h>

#include "records/header.h"
#include "records/rec.h"
#include "records/stream.h"

/* The least minor version this tool's header says (header_minor()). */
static unsigned minor_floor = STREAM_MINOR;

void
header_minor(unsigned minor)
{
	if (minor > minor_floor)
		minor_floor = minor > STREAM_MINOR_MAX ? STREAM_MINOR_MAX :
		    minor;
}

void
header_write(struct stream_writer *w, const char *tool, int argc,
    char *const *argv)
{
	msgpack_packer *pk = stream_packer(w);
	int i;

	stream_pack_record(pk, "header", 7);
	stream_pack_kstr(pk, "format", STREAM_FORMAT);
	stream_pack_ku64(pk, "version", STREAM_VERSION);
	stream_pack_ku64(pk, "minor", minor_floor);
	stream_pack_kstr(pk, "tool", tool);
	stream_pack_kstr(pk, "release", FLUXOCS_RELEASE);
	stream_pack_str(pk, "args");
	msgpack_pack_array(pk, argc > 0 ? (size_t)argc : 0);
	for (i = 0; i < argc; i++)
		stream_pack_str(pk, argv[i]);
}

/* Check that a header record names our format and major version. */
int
header_check(struct stream_reader *rd, const struct stream_rec *sr,
    char *err, size_t n)
{
	struct rec r;
	const char *fmt;
	size_t len;
	uint64_t v;

	rec_init(&r, sr, stream_name(rd));
	fmt = rec_str(&r, "format", &len);
	if (!r.failed && !rec_streq(fmt, len, STREAM_FORMAT))
		rec_fail(&r, "format is \"%.*s\", not \"%s\"",
		    (int)(len > 32 ? 32 : len), fmt, STREAM_FORMAT);
	v = rec_u64(&r, "version");
	if (!r.failed && v != STREAM_VERSION)
		rec_fail(&r, "stream format version %llu is not supported "
		    "(this is version %d)", (unsigned long long)v,
		    STREAM_VERSION);
	(void)rec_u64_or(&r, "minor", 0);	/* an integer, or refused */
	if (!rec_failed(&r))
		return 0;
	snprintf(err, n, "%s", rec_error(&r));
	return -1;
}

/* A checked header's minor version (0 when it has none). */
static unsigned
minor_of(struct stream_reader *rd, const struct stream_rec *sr)
{
	struct rec r;
	uint64_t v;

	rec_init(&r, sr, stream_name(rd));
	v = rec_u64_or(&r, "minor", 0);
	return v > STREAM_MINOR_MAX ? STREAM_MINOR_MAX : (unsigned)v;
}

/*
 * Copy the leading headers, append ours, and leave the first other
 * record in *sr.  Returns 1 with a record, 0 at the end of the stream,
 * -1 on error.
 */
int
header_pass(struct stream_reader *rd, struct stream_writer *w,
    struct stream_rec *sr, const char *tool, int argc, char *const *argv,
    struct header_end *end, char *err, size_t n)
{
	int rc, seen = 0;

	while ((rc = stream_next(rd, sr)) > 0) {
		if (!stream_rec_is(sr, "header"))
			break;
		if (header_check(rd, sr, err, n) != 0 ||
		    header_follow(end, rd, sr, err, n) != 0)
			return -1;
		stream_write_raw(w, sr->raw, sr->rawlen);
		header_minor(minor_of(rd, sr));
		seen++;
	}
	if (rc < 0) {
		snprintf(err, n, "%s", stream_error(rd));
		return -1;
	}
	if (seen == 0) {
		if (rc == 0)
			snprintf(err, n, "%s: empty input: expected a "
			    "fluxocs stream", stream_name(rd));
		else
			snprintf(err, n, "%s: byte %llu: stream does not "
			    "begin with a header record", stream_name(rd),
			    (unsigned long long)sr->off);
		return -1;
	}
	header_write(w, tool, argc, argv);
	return rc;
}

/* Note one record: the first header says whether an end must come. */
int
header_follow(struct header_end *e, struct stream_reader *rd,
    const struct stream_rec *sr, char *err, size_t n)
{
	struct rec r;

	if (e->seen) {
		snprintf(err, n, "%s: byte %llu: a %.*s record after the end "
		    "record", stream_name(rd), (unsigned long long)sr->off,
		    (int)(sr->typelen > 32 ? 32 : sr->typelen), sr->type);
		return -1;
	}
	if (!e->first && stream_rec_is(sr, "header")) {
		rec_init(&r, sr, stream_name(rd));
		e->need = rec_u64_or(&r, "minor", 0) >= 1;
		if (rec_failed(&r)) {	/* never turn the end check off */
			snprintf(err, n, "%s", rec_error(&r));
			return -1;
		}
	}
	e->first = 1;
	if (stream_rec_is(sr, "end"))
		e->seen = 1;
	return 0;
}

int
header_finish(const struct header_end *e, struct stream_reader *rd,
    char *err, size_t n)
{
	if (!e->need || e->seen)
		return 0;
	snprintf(err, n, "%s: byte %llu: the stream stops without its end "
	    "record: it was cut short, or a tool before failed",
	    stream_name(rd), (unsigned long long)stream_offset(rd));
	return -1;
}
