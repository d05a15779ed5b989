/*
 * fuzz_sched: schedules (lib/sched: schedule, circuit and plan
 * records) as ocssim reads them after the net and the tasks, then
 * sched_check() on what was read whole.
 */
#include <stdint.h>
#include <stdio.h>

#include "dagin.h"
#include "fuzz.h"
#include "sched.h"

struct input {
	struct dagin	 di;
	struct schedule	 sc;
};

static void
other(void *arg, struct rec *r, const struct stream_rec *sr)
{
	struct input *in = arg;
	int after_net = stream_rec_is(sr, "circuit") ||
	    stream_rec_is(sr, "plan");

	if (after_net && !in->di.have_net)
		rec_fail(r, "comes before the net record");
	else if (stream_rec_is(sr, "schedule"))
		sched_read_schedule(r, &in->sc);
	else if (stream_rec_is(sr, "circuit"))
		sched_read_circuit(r, &in->sc, &in->di.net);
	else if (stream_rec_is(sr, "plan"))
		sched_read_plan(r, &in->sc, &in->di.net);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stream_writer *w = fuzz_writer();
	struct input in;
	char err[400];
	FILE *fp;

	fp = fuzz_open(data, size);
	dagin_init(&in.di);
	sched_init(&in.sc);
	if (dagin_read(&in.di, fp, "fuzz", w, "fuzz", 0, NULL, other, &in,
	    err, sizeof(err)) == 0 && in.sc.present)
		(void)sched_check(&in.sc, &in.di.net, err, sizeof(err));
	sched_free(&in.sc);
	dagin_free(&in.di);
	(void)stream_writer_close(w);
	fclose(fp);
	return 0;
}
