/* dagin: the network and the task DAG, as a tool reads them. */
#include <string.h>

#include "dag.h"
#include "dagin.h"
#include "net.h"
#include "rec.h"
#include "stream.h"
#include "taskio.h"

void
dagin_init(struct dagin *in)
{
	memset(in, 0, sizeof(*in));
	dag_init(&in->dag);
}

void
dagin_free(struct dagin *in)
{
	dag_free(&in->dag);
}

int
dagin_take(struct dagin *in, struct rec *r, const struct stream_rec *sr)
{
	if (stream_rec_is(sr, "net")) {
		if (in->have_net)
			rec_fail(r, "a second net record");
		else if (net_read(r, &in->net) == 0)
			in->have_net = 1;
		return 1;
	}
	if (!stream_rec_is(sr, "task"))
		return 0;
	if (!in->have_net)
		rec_fail(r, "comes before the net record");
	else
		taskio_read(r, &in->dag, in->net.gpus);
	return 1;
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
