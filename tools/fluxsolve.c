/*
 * fluxsolve: Flux schedules for a task DAG on optical circuit switches.
 *
 * Reads the net and task records, schedules every transfer on one
 * switch with its circuits (--method greedy: the list scheduler of
 * lib/greedy), proves a lower bound, and appends a schedule record,
 * the circuit records, a plan record per transfer and a solve record.
 * Everything read passes through.  See fluxsolve(1).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dag.h"
#include "dagin.h"
#include "die.h"
#include "filter.h"
#include "greedy.h"
#include "header.h"
#include "net.h"
#include "rec.h"
#include "sched.h"
#include "stream.h"
#include "taskio.h"

static const char *const methods[] = { "greedy", NULL };


static void
usage(void)
{
	fprintf(stderr, "usage: fluxsolve [-m greedy]\n");
	exit(2);
}

/* Records besides the net and tasks: a schedule already is refused. */
static void
other(void *arg, struct rec *r, const struct stream_rec *sr)
{
	(void)arg;
	if (stream_rec_is(sr, "schedule") || stream_rec_is(sr, "circuit") ||
	    stream_rec_is(sr, "plan") || stream_rec_is(sr, "solve"))
		rec_fail(r, "the stream holds a schedule already");
	else if (stream_rec_is(sr, "result"))
		rec_fail(r, "the stream has been simulated already");
}

static void
read_input(struct dagin *in, struct stream_writer *w, int argc,
    char **argv)
{
	char err[400];

	if (dagin_read(in, stdin, "stdin", w, "fluxsolve", argc, argv, other,
	    NULL, err, sizeof(err)) != 0)
		die("%s", err);
	if (in->net.model != NET_PORT)
		die("stdin: the greedy method plans for the port "
		    "reconfiguration model only, and the net asks for the "
		    "%s model", net_models[in->net.model]);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The solve record.  Its status is "optimal" only when the schedule's
 * makespan equals the proven bound.  seconds is the one field of the
 * output that is not reproducible.
 */
static void
write_solve(msgpack_packer *pk, const char *method, uint64_t obj,
    uint64_t bound, double secs)
{
	stream_pack_record(pk, "solve", 9);
	stream_pack_kstr(pk, "method", method);
	stream_pack_kstr(pk, "solver", "none");
	stream_pack_kstr(pk, "status", obj == bound ? "optimal" : "feasible");
	stream_pack_ku64(pk, "objective_ps", obj);
	stream_pack_ku64(pk, "bound_ps", bound);
	stream_pack_kdbl(pk, "gap", obj > 0 ? (double)(obj - bound) / obj : 0);
	stream_pack_kdbl(pk, "seconds", secs);
	stream_pack_str(pk, "models");
	msgpack_pack_array(pk, 0);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "method", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 }
	};
	struct stream_writer *w;
	struct greedy g;
	struct dagin in;
	uint64_t bound;
	char err[400];
	double t0;
	size_t i;
	int ch, rc;

	die_init("fluxsolve");
	while ((ch = getopt_long(argc, argv, "m:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			for (i = 0; methods[i] != NULL &&
			    strcmp(optarg, methods[i]) != 0; i++)
				;
			if (methods[i] == NULL) {
				warnmsg("-m %s: unknown method", optarg);
				usage();
			}
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	die_if_tty();
	dagin_init(&in);
	if ((w = stream_writer(stdout)) == NULL)
		die("out of memory");
	read_input(&in, w, argc - 1, argv + 1);
	t0 = now_s();
	if ((rc = greedy_run(&in.dag, &in.net, &g)) != 0)
		die(rc == -1 ? "out of memory" : "internal error: a transfer "
		    "found no place in the schedule");
	if ((bound = greedy_bound(&in.dag, &in.net)) == 0 && g.makespan > 0)
		die("out of memory");
	if (bound > g.makespan)
		die("internal error: bound %llu above the schedule's %llu",
		    (unsigned long long)bound,
		    (unsigned long long)g.makespan);
	if (sched_check(&g.sc, &in.net, err, sizeof(err)) != 0)
		die("internal error: the schedule made is invalid: %s", err);
	sched_write_schedule(stream_packer(w), &g.sc);
	for (i = 0; i < g.sc.nc; i++)
		sched_write_circuit(stream_packer(w), &g.sc.c[i]);
	for (i = 0; i < g.sc.np; i++)
		sched_write_plan(stream_packer(w), &g.sc.p[i]);
	write_solve(stream_packer(w), "greedy", g.makespan, bound,
	    now_s() - t0);
	if ((rc = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(rc));
	greedy_free(&g);
	dagin_free(&in);
	return 0;
}
