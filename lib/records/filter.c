/* filter: the reading loop of every stage of a pipeline. */
#include <stdio.h>

#include "records/filter.h"
#include "records/header.h"
#include "records/stream.h"

/*
 * The runs of records the quick function takes, straight from the
 * buffer, passed through in one write; 0 when it declines the next one
 * (or none is buffered), -1 when the stream refuses what it took.  Not
 * once the end record has been seen: a record after it is an error.
 */
static const char *const bulk[] = { "op", "task", "circuit", "plan",
	"taskrun" };

int
filter_bulk(const struct stream_rec *sr)
{
	size_t i;

	for (i = 0; i < sizeof(bulk) / sizeof(bulk[0]); i++)
		if (stream_rec_is(sr, bulk[i]))
			return 1;
	return 0;
}

/* Write n bytes of k records, or count them when they are left out. */
static void
pass(struct stream_writer *w, struct filter_omit *o, int omit,
    const uint8_t *p, size_t n, uint64_t k)
{
	if (!omit) {
		stream_write_raw(w, p, n);
		return;
	}
	o->records += k;
	o->bytes += n;
}

static int
quick_run(struct stream_reader *rd, struct stream_writer *w,
    const struct header_end *end, const struct filter_quick *q,
    struct filter_omit *o)
{
	struct stream_limits lim;
	const uint8_t *p;
	size_t n, len, run = 0, took;
	uint64_t k = 0;

	if (q == NULL || end->seen)
		return 0;
	stream_limits(rd, &lim);
	stream_peek(rd, &p, &n);
	while (run < n &&
	    (took = q->fn(q->arg, p + run, n - run, &lim, &len)) > 0) {
		if (len < took || len > n - run)
			return -1;
		run += len;
		k += took;
	}
	if (k == 0)
		return 0;
	if (stream_accept(rd, run, k) != 1)
		return -1;
	pass(w, o, o != NULL && o->on, p, run, k);
	return 0;
}

int
filter_run(FILE *fp, const char *name, struct stream_writer *w,
    const char *tool, int argc, char *const *argv,
    int (*fn)(void *, const struct stream_rec *), void *arg, char *err,
    size_t n)
{
	return filter_run_quick(fp, name, w, tool, argc, argv, fn, arg, NULL,
	    NULL, err, n);
}

int
filter_run_quick(FILE *fp, const char *name, struct stream_writer *w,
    const char *tool, int argc, char *const *argv,
    int (*fn)(void *, const struct stream_rec *), void *arg,
    const struct filter_quick *q, struct filter_omit *o, char *err,
    size_t n)
{
	struct header_end end = { 0, 0, 0 };
	struct stream_reader *rd;
	struct stream_rec sr;
	int rc;

	if ((rd = stream_open(fp, name)) == NULL) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	if ((rc = header_pass(rd, w, &sr, tool, argc, argv, &end, err,
	    n)) < 0)
		goto out;
	for (; rc > 0; rc = quick_run(rd, w, &end, q, o) < 0 ? -1 :
	    stream_next(rd, &sr)) {
		if (header_follow(&end, rd, &sr, err, n) != 0 ||
		    (stream_rec_is(&sr, "header") &&
		    header_check(rd, &sr, err, n) != 0)) {
			rc = -1;
			goto out;
		}
		/* the end is ours to write again, when we are done */
		if (stream_rec_is(&sr, "end"))
			continue;
		if (!stream_rec_is(&sr, "header")) {
			int take = fn(arg, &sr);

			if (take < 0) {
				rc = -1;
				goto out;
			}
			if (take == 0)
				continue;
		}
		pass(w, o, o != NULL && o->on && filter_bulk(&sr), sr.raw,
		    sr.rawlen, 1);
	}
	if (rc < 0)
		snprintf(err, n, "%s", stream_error(rd));
	else
		rc = header_finish(&end, rd, err, n);
out:
	stream_close(rd);
	return rc;
}
