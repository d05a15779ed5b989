/*
 * framed: a tool's reading of its input with every record framed by
 * stream_next() and read the usual way (dagin_take(), then, given a
 * schedule, sched_take() as ocssim does): what dagin_read() must match
 * with its quick path.  Returns what dagin_read() would, the message
 * in err.  For tests and fuzz targets: static, header only.
 */
#ifndef FRAMED_H
#define FRAMED_H

#include <stdio.h>

#include "model/dagin.h"
#include "model/sched.h"
#include "records/filter.h"
#include "records/rec.h"
#include "records/stream.h"

struct framed {
	struct dagin	*in;
	struct schedule	*sc;		/* NULL: schedules not read */
	const char	*name;
	char		*err;
	size_t		 n;
};

static int
framed_take(void *p, const struct stream_rec *sr)
{
	struct framed *f = p;
	struct rec r;

	rec_init(&r, sr, f->name);
	if (!dagin_take(f->in, &r, sr) && f->sc != NULL)
		(void)sched_take(&r, sr, f->sc, f->in->have_net ?
		    &f->in->net : NULL);
	if (!rec_failed(&r))
		return 1;
	snprintf(f->err, f->n, "%s", rec_error(&r));
	return -1;
}

static int
framed_read(struct dagin *in, struct schedule *sc, FILE *fp,
    const char *name, struct stream_writer *w, char *err, size_t n)
{
	struct framed f = { in, sc, name, err, n };

	if (filter_run(fp, name, w, "t", 0, NULL, framed_take, &f, err,
	    n) != 0)
		return -1;
	if (dagin_missing(in) != NULL) {
		snprintf(err, n, "%s: %s", name, dagin_missing(in));
		return -1;
	}
	return 0;
}

#endif
