/*
 * fuzz_sched: schedules (lib/sched: schedule, circuit and plan
 * records) as ocssim reads them (sched_take()), then
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

	(void)sched_take(r, sr, &in->sc, in->di.have_net ? &in->di.net :
	    NULL);
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
