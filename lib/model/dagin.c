/* dagin: the network and the task DAG, as a tool reads them. */
#include <stdio.h>
#include <string.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/fabric.h"
#include "model/net.h"
#include "model/netplanes.h"
#include "model/taskfast.h"
#include "model/taskio.h"
#include "records/filter.h"
#include "records/rec.h"
#include "records/stream.h"
#include "records/xxh64.h"

void
dagin_init(struct dagin *in)
{
	memset(in, 0, sizeof(*in));
	dag_init(&in->dag);
	fabric_init(&in->fab);
	xxh64_init(&in->tasks);
}

void
dagin_free(struct dagin *in)
{
	dag_free(&in->dag);
	fabric_free(&in->fab);
}

/* A tiered net, for a tool that takes one: the net holds its GPUs and,
 * for the schedule's readers, its planes as switches. */
static int
read_planes(struct dagin *in, struct rec *r)
{
	uint32_t gpus;
	uint64_t n;

	if (netplanes_read(r, &gpus, &in->fab) != 0)
		return -1;
	n = fabric_planes(&in->fab, gpus);
	memset(&in->net, 0, sizeof(in->net));
	in->net.gpus = gpus;
	in->net.switches = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	in->tiered = 1;
	return 0;
}

int
dagin_take(struct dagin *in, struct rec *r, const struct stream_rec *sr)
{
	if (stream_rec_is(sr, "net")) {
		if (in->have_net)
			rec_fail(r, "a second net record");
		else if (in->planes_ok && netplanes_is(r)) {
			if (read_planes(in, r) == 0)
				in->have_net = 1;
		} else if (net_read(r, &in->net) == 0)
			in->have_net = 1;
		if (in->have_net && in->on_net != NULL)
			in->on_net(in, in->on_net_arg);
		return 1;
	}
	if (stream_rec_is(sr, "omitted")) {
		rec_fail(r, "the DAG was left out of this stream (--own): "
		    "give the tool the whole stream");
		return 1;
	}
	if (!stream_rec_is(sr, "task"))
		return 0;
	if (!in->have_net)
		rec_fail(r, "comes before the net record");
	else
		taskio_read(r, &in->dag, in->net.gpus);
	if (in->omit.on)
		xxh64_update(&in->tasks, sr->raw, sr->rawlen);
	return 1;
}

void
dagin_write_omitted(const struct dagin *in, msgpack_packer *pk)
{
	stream_pack_record(pk, "omitted", 5);
	stream_pack_ku64(pk, "records", in->omit.records);
	stream_pack_ku64(pk, "bytes", in->omit.bytes);
	stream_pack_ku64(pk, "tasks", in->dag.n);
	stream_pack_ku64(pk, "tasks_xxh64", xxh64_digest(&in->tasks));
}

const char *
dagin_missing(const struct dagin *in)
{
	if (!in->have_net)
		return "no net record: make the DAG with dagbuild";
	if (in->dag.n == 0)
		return "no task records: make the DAG with dagbuild";
	return NULL;
}

struct reading {
	struct dagin	*in;
	const char	*name;
	void		(*fn)(void *, struct rec *, const struct stream_rec *);
	void		*arg;
	char		*err;
	size_t		 n;
};

static int
take(void *p, const struct stream_rec *sr)
{
	struct reading *rd = p;
	struct rec r;

	rec_init(&r, sr, rd->name);
	if (!dagin_take(rd->in, &r, sr) && rd->fn != NULL)
		rd->fn(rd->arg, &r, sr);
	if (!rec_failed(&r))
		return 1;
	snprintf(rd->err, rd->n, "%s", rec_error(&r));
	return -1;
}

/*
 * A run of task records as dagbuild writes them, straight from the
 * buffer; else the tool's quick function's run.
 */
static size_t
quick(void *p, const uint8_t *b, size_t n, const struct stream_limits *lim,
    size_t *len)
{
	struct reading *rd = p;
	struct dagin *in = rd->in;
	size_t k;

	if (!in->have_net)
		return 0;
	if ((k = taskfast_run(b, n, lim, &in->dag, in->net.gpus, len)) > 0) {
		if (in->omit.on)
			xxh64_update(&in->tasks, b, *len);
		return k;
	}
	return in->quick.fn != NULL ? in->quick.fn(in->quick.arg, b, n, lim,
	    len) : 0;
}

int
dagin_read(struct dagin *in, FILE *fp, const char *name,
    struct stream_writer *w, const char *tool, int argc, char *const *argv,
    void (*fn)(void *, struct rec *, const struct stream_rec *), void *arg,
    char *err, size_t n)
{
	struct reading rd = { in, name, fn, arg, err, n };
	struct filter_quick q = { quick, &rd };
	const char *miss;

	if (filter_run_quick(fp, name, w, tool, argc, argv, take, &rd, &q,
	    &in->omit, err, n) != 0)
		return -1;
	if ((miss = dagin_missing(in)) != NULL) {
		snprintf(err, n, "%s: %s", name, miss);
		return -1;
	}
	return 0;
}

void
dagin_unscheduled(void *arg, struct rec *r, const struct stream_rec *sr)
{
	(void)arg;
	if (stream_rec_is(sr, "schedule") || stream_rec_is(sr, "circuit") ||
	    stream_rec_is(sr, "plan") || stream_rec_is(sr, "solve"))
		rec_fail(r, "the stream holds a schedule already");
	else if (stream_rec_is(sr, "result"))
		rec_fail(r, "the stream has been simulated already");
}
