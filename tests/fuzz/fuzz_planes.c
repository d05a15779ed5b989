/*
 * fuzz_planes: streams of a tiered fabric as ocssim and fluxsolve read
 * them (dagin with planes_ok: the net record with planes, the tasks,
 * the schedule, circuits and plans), then, when the DAG is small,
 * lib/sim/fabsim on the ideal fabric and on the stream's schedule (its
 * plans, or its circuits alone: RotorNet's), never below the bound, and
 * lib/solve/fabgreedy's plan replayed by fabsim: it must run, and end
 * at the greedy's makespan, no sooner than fabbound_planes() (abort()
 * otherwise, which libFuzzer reports).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dagin.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/rec.h"
#include "sim/fabsim.h"
#include "solve/fabbound.h"
#include "solve/fabgreedy.h"
#include "fuzz.h"

#define SMALL_TASKS	512
#define SMALL_PLANES	64

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

/* The makespan; UINT64_MAX when the run fails, UINT64_MAX - 1 when it
 * reaches its time limit (not a finding). */
static uint64_t
simulate(const struct dag *d, const struct planes *pl,
    const struct schedule *sc, int mode)
{
	struct fabsim_opts o = { .mode = mode, .time_limit = 5 };
	struct fabsim_out out;
	char err[400];
	uint64_t m = UINT64_MAX;

	if (fabsim_run(d, pl, sc, &o, &out, err, sizeof(err)) == 0)
		m = out.makespan;
	else if (strncmp(err, "time limit", 10) == 0)
		m = UINT64_MAX - 1;
	fabsim_out_free(&out);
	return m;
}

static void
check(struct input *in)
{
	struct planes pl;
	struct schedule g;
	uint64_t bound, obj, m;
	char err[400];

	if (in->di.dag.n > SMALL_TASKS || dagin_missing(&in->di) != NULL ||
	    fabric_planes(&in->di.fab, in->di.net.gpus) > SMALL_PLANES ||
	    planes_expand(&pl, &in->di.fab, in->di.net.gpus) != 0)
		return;
	if (fabbound_planes(&in->di.dag, &pl, &bound) == 0) {
		m = simulate(&in->di.dag, &pl, NULL, FABSIM_IDEAL);
		if (m < bound)
			abort();
		if (in->sc.present) {
			m = simulate(&in->di.dag, &pl, &in->sc, in->sc.np > 0 ?
			    FABSIM_PLAN : FABSIM_CIRCUITS);
			if (m < bound)
				abort();
		}
		sched_init(&g);
		if (fabgreedy_run(&in->di.dag, &pl, &g, &obj, err,
		    sizeof(err)) == 0 && obj < UINT64_MAX / 2) {
			m = simulate(&in->di.dag, &pl, &g, FABSIM_PLAN);
			if ((m != obj && m != UINT64_MAX - 1) || obj < bound)
				abort();
		}
		sched_free(&g);
	}
	planes_free(&pl);
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
	in.di.planes_ok = 1;
	sched_init(&in.sc);
	if (dagin_read(&in.di, fp, "fuzz", w, "fuzz", 0, NULL, other, &in,
	    err, sizeof(err)) == 0 && in.di.tiered)
		check(&in);
	sched_free(&in.sc);
	dagin_free(&in.di);
	(void)stream_writer_close(w);
	fclose(fp);
	return 0;
}
