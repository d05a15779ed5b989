/*
 * fuzz_sched: schedules (lib/model/sched: schedule, circuit and plan
 * records) as ocssim reads them (sched_take()), then
 * sched_check() on what was read whole, and the index of when pairs
 * are next joined (lib/sim/simnext) on a schedule that passes: every
 * circuit is up at its start, and a query of no up time is the next-up
 * one (abort() otherwise, which libFuzzer reports).  A small one-shot
 * schedule is also replayed by its order (lib/sim/simctl, ocssim -R) both
 * ways; when every transfer is planned the replay is a max-plus system
 * and dropping the planned times cannot make it later: asap <= hold.
 * A small periodic schedule is run slot by slot and circuit by circuit
 * (lib/sim/simslot, ocssim -E): both must succeed or fail alike and agree
 * on every result but the events count.
 * Last, record by record, the plan and circuit readers straight from
 * the bytes (lib/model/schedfast, behind sched_read_plan() and
 * sched_read_circuit()) against those through msgpack-c's tree alone:
 * the same return, message and schedule, or abort().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dagin.h"
#include "fuzz.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/rec.h"
#include "sim/sim.h"
#include "sim/simctl.h"
#include "sim/simnext.h"
#include "../unit/same.h"

struct input {
	struct dagin	 di;
	struct schedule	 sc;
};

static void
index_check(const struct schedule *sc)
{
	struct simnext *nx;
	uint64_t at, up;
	size_t i;

	if ((nx = simnext_new(sc)) == NULL)
		return;
	for (i = 0; i < sc->nc && i < 256; i++) {
		const struct circuit *c = &sc->c[i];

		if (simnext_up(nx, c->b, c->a, c->from, &at) != SIMNEXT_AT ||
		    at != c->from)
			abort();
		if (simnext_up(nx, c->a, c->b, c->to, &up) !=
		    simnext_after(nx, c->a, c->b, c->to, 0, &at) || up != at)
			abort();
		(void)simnext_after(nx, c->a, c->b, c->from, c->to, &at);
		(void)simnext_relay_sooner(nx, c->a, c->b, 0, c->from, c->to,
		    c->from, c->to);
	}
	simnext_free(nx);
}

static int
replay(const struct input *in, int policy, uint64_t *makespan)
{
	struct sim_opts opt = { .fabric = SIM_SCHEDULE, .packet = 4096,
	    .time_limit = 1, .replay = policy };
	struct sim_out out;
	char err[400];
	int rc;

	rc = sim_run(&in->di.dag, &in->di.net, &in->sc, &opt, &out, err,
	    sizeof(err));
	*makespan = out.makespan;
	sim_out_free(&out);	/* also after a failure */
	return rc;
}

static void
replay_check(const struct input *in)
{
	uint64_t hold, asap;
	size_t i, nx = 0;

	if (in->sc.periodic || in->di.dag.n == 0 || in->di.dag.n > 64 ||
	    in->sc.nc > 64)
		return;
	for (i = 0; i < in->di.dag.n; i++)
		nx += in->di.dag.t[i].kind == DAG_TRANSFER;
	if (replay(in, SIMCTL_HOLD, &hold) != 0 ||
	    replay(in, SIMCTL_ASAP, &asap) != 0)
		return;
	if (nx == in->sc.np && asap > hold)
		abort();
}

static int
periodic_run(const struct input *in, int every, struct sim_out *out,
    char *err, size_t errlen)
{
	struct sim_opts opt = { .fabric = SIM_SCHEDULE, .packet = 4096,
	    .time_limit = 1, .every_circuit = every };

	return sim_run(&in->di.dag, &in->di.net, &in->sc, &opt, out, err,
	    errlen);
}

/* The results of two runs, but the events count, are equal. */
static int
same_out(const struct sim_out *a, const struct sim_out *b, size_t ntasks,
    uint32_t gpus, uint32_t switches)
{
	if (a->makespan != b->makespan || a->peak_buffer != b->peak_buffer ||
	    a->peak_nic != b->peak_nic || a->reconfigs != b->reconfigs ||
	    a->bytes_sent != b->bytes_sent || a->nsteps != b->nsteps)
		return 0;
	if (memcmp(a->step_end, b->step_end, a->nsteps *
	    sizeof(*a->step_end)) != 0 ||
	    memcmp(a->gpu, b->gpu, gpus * sizeof(*a->gpu)) != 0 ||
	    memcmp(a->sw, b->sw, switches * sizeof(*a->sw)) != 0)
		return 0;
	return memcmp(a->start, b->start, ntasks * sizeof(*a->start)) == 0 &&
	    memcmp(a->end, b->end, ntasks * sizeof(*a->end)) == 0;
}

static void
slot_check(const struct input *in)
{
	struct sim_out a, b;
	char ea[400], eb[400];
	int ra, rb;

	if (!in->sc.periodic || in->di.dag.n > 64 || in->sc.nc > 64)
		return;
	ra = periodic_run(in, 0, &a, ea, sizeof(ea));
	rb = periodic_run(in, 1, &b, eb, sizeof(eb));
	/* a time limit is wall-clock: either may hit it alone */
	if (ra != rb && strstr(ra ? ea : eb, "time limit") == NULL)
		abort();
	if (ra == 0 && rb == 0 && !same_out(&a, &b, in->di.dag.n,
	    in->di.net.gpus, in->di.net.switches))
		abort();
	sim_out_free(&a);
	sim_out_free(&b);
}

static void
other(void *arg, struct rec *r, const struct stream_rec *sr)
{
	struct input *in = arg;

	(void)sched_take(r, sr, &in->sc, in->di.have_net ? &in->di.net :
	    NULL);
}

/* One plan or circuit both ways; 0 to go on, -1 when both refused it. */
static int
both(const struct stream_rec *sr, struct schedule *fast,
    struct schedule *tree, const struct net *net)
{
	int circ = stream_rec_is(sr, "circuit"), ra, rb;
	struct rec a, b;

	rec_init(&a, sr, "fuzz");
	rec_init(&b, sr, "fuzz");
	ra = circ ? sched_read_circuit(&a, fast, net) :
	    sched_read_plan(&a, fast, net);
	rb = circ ? sched_read_circuit_tree(&b, tree, net) :
	    sched_read_plan_tree(&b, tree, net);
	if (ra != rb || rec_failed(&a) != rec_failed(&b) ||
	    strcmp(rec_error(&a), rec_error(&b)) != 0 ||
	    !same_sched(fast, tree)) {
		fprintf(stderr, "fuzz_sched: the readers differ at byte "
		    "%llu: %d \"%s\", %d \"%s\"\n",
		    (unsigned long long)sr->off, ra, rec_error(&a), rb,
		    rec_error(&b));
		abort();
	}
	return ra;
}

static void
differential(const uint8_t *data, size_t size)
{
	struct schedule fast, tree;
	struct stream_reader *rd;
	struct stream_rec sr;
	struct net net;
	struct rec r;
	int have = 0;
	FILE *fp;

	fp = fuzz_open(data, size);
	if ((rd = stream_open(fp, "fuzz")) == NULL)
		abort();
	sched_init(&fast);
	sched_init(&tree);
	while (stream_next(rd, &sr) > 0) {
		if (!have && stream_rec_is(&sr, "net")) {
			rec_init(&r, &sr, "fuzz");
			if (net_read(&r, &net) != 0)
				break;
			have = 1;
		} else if (have && (stream_rec_is(&sr, "plan") ||
		    stream_rec_is(&sr, "circuit")) &&
		    both(&sr, &fast, &tree, &net) != 0)
			break;
	}
	sched_free(&fast);
	sched_free(&tree);
	stream_close(rd);
	fclose(fp);
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
		if (sched_check(&in.sc, &in.di.net, err, sizeof(err)) == 0) {
			index_check(&in.sc);
			if (dagin_missing(&in.di) == NULL) {
				replay_check(&in);
				slot_check(&in);
			}
		}
	sched_free(&in.sc);
	dagin_free(&in.di);
	(void)stream_writer_close(w);
	fclose(fp);
	differential(data, size);
	return 0;
}
