/*
 * ocssim: replay a task DAG on GPUs, NICs and optical circuit switches.
 *
 * Reads the net and task records and, for --fabric schedule, the
 * schedule, circuit and plan records a scheduler wrote; checks the
 * schedule against the net's reconfiguration model; simulates; passes
 * the whole stream through and appends a result, a gpustat per GPU, a
 * switchstat per switch and, when asked, a taskrun per task.  See
 * ocssim(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/net.h"
#include "records/cli.h"
#include "records/die.h"
#include "records/filter.h"
#include "records/header.h"
#include "records/mem.h"
#include "solve/fabbound.h"
#include "ocssim.h"
#include "model/sched.h"
#include "model/schedfast.h"
#include "model/taskio.h"
#include "records/rec.h"
#include "records/stream.h"
#include "records/units.h"
#include "records/wclock.h"
#include "sim/sim.h"
#include "sim/simctl.h"

#define OPT_OWN	0x7f01	/* getopt_long's value of --own */

static const char USAGE[] =
    "usage: ocssim [-Etv] [-B seconds] [-c circuits]"
    " [-f schedule|ideal|static]\n"
    "              [-H plan|unaware|circuit] [-l logfile]"
    " [-O latency] [--own]\n"
    "              [-p packet] [-R hold|asap] [-S stream]"
    " [-T seconds]\n";

static const char OPTIONS[] =
    "Replay a task DAG on GPUs, NICs and optical switches; append the result.\n"
    "  -B, --budget=SECS       with -O: re-plan with the flux method this"
    " long\n"
    "  -c, --circuits=C        with -f static: ring or a list a-b@s,...\n"
    "  -E, --every-circuit     simulate every periodic circuit, not only"
    " waited ones\n"
    "  -f, --fabric=F          schedule, ideal or static (schedule if there"
    " is one)\n"
    "  -H, --host=H            what the host knows: plan, unaware or circuit"
    " (plan)\n"
    "  -l, --log=FILE          write every event of the simulation to FILE\n"
    "  -O, --online=TIME       online Flux: re-plan -S's plan, in effect"
    " after TIME\n"
    "      --own               write only the run's own records, not the"
    " DAG\n"
    "  -p, --packet=SIZE       bytes a NIC holds of a transfer it streams"
    " (4KiB)\n"
    "  -R, --replay=R          run a one-shot schedule by its order: hold or"
    " asap\n"
    "  -S, --schedule=FILE     take the schedule from FILE's stream\n"
    "  -T, --time-limit=SECS   wall-clock limit, as 60, 60s or 500ms (none)\n"
    "  -t, --taskruns          also write a taskrun record for every task\n"
    "  -v, --verbose           print counts and times on standard error\n"
    "  -h, --help              this help\n"
    "      --version           the version and the commit of the build\n";

static void
usage(void)
{
	fputs(USAGE, stderr);
	exit(2);
}

/* Records besides the net and tasks: the schedule, its circuits and
 * plans; a result means the stream was simulated already. */
static void
other(void *arg, struct rec *r, const struct stream_rec *sr)
{
	struct input *in = arg;

	if (sched_take(r, sr, &in->sc, in->di.have_net ? &in->di.net : NULL))
		return;
	if (stream_rec_is(sr, "result"))
		rec_fail(r, "the stream has been simulated already");
}

/*
 * A plan as it is read, if its task has been read already (a DAG comes
 * before its schedule): a transfer, planned once.  What is left, the
 * simulation's set-up checks, without the record's offset.
 */
static const char *
plan_check(void *arg, const struct plan *p)
{
	struct input *in = arg;
	const struct dag *d = &in->di.dag;
	size_t need = d->n / 8 + 1, old = in->plannedcap;

	if (p->task >= d->n)
		return NULL;
	if (d->t[p->task].kind != DAG_TRANSFER) {
		snprintf(in->why, sizeof(in->why), "plan for task %u, which "
		    "is not a transfer", p->task);
		return in->why;
	}
	if (need > old) {
		if (mem_grow(&in->planned, &in->plannedcap, need, 1) != 0)
			die("out of memory");
		memset(in->planned + old, 0, in->plannedcap - old);
	}
	if (in->planned[p->task / 8] & (1U << p->task % 8)) {
		snprintf(in->why, sizeof(in->why), "task %u is planned twice",
		    p->task);
		return in->why;
	}
	in->planned[p->task / 8] |= (uint8_t)(1U << p->task % 8);
	return NULL;
}

/* Plans and circuits as schedulers write them, as other() takes them. */
static size_t
quick(void *arg, const uint8_t *p, size_t n, const struct stream_limits *lim,
    size_t *len)
{
	struct input *in = arg;

	return schedfast_run(p, n, lim, &in->sc, &in->di.net, len);
}

static void
read_input(struct input *in, struct stream_writer *w, int argc,
    char **argv)
{
	char err[400];

	in->di.quick = (struct filter_quick){ quick, in };
	in->sc.plan_check = plan_check;
	in->sc.plan_arg = in;
	if (dagin_read(&in->di, stdin, "stdin", w, "ocssim", argc, argv,
	    other, in, err, sizeof(err)) != 0)
		die("%s", err);
}

/* "ring": i joins i+1 on switch i mod 2; or "a-b@s,...". */
static void
static_circuits(struct schedule *sc, const struct net *n, const char *spec)
{
	unsigned long a, b, sw;
	const char *p = spec;
	char *end;
	uint32_t i;

	sched_free(sc);
	snprintf(sc->scheduler, sizeof(sc->scheduler), "static");
	if (strcmp(spec, "ring") == 0) {
		if (n->gpus % 2 != 0 || n->switches < 2)
			die("-c ring: needs an even number of GPUs and two "
			    "switches (the net has %u and %u)", n->gpus,
			    n->switches);
		for (i = 0; i < n->gpus && n->gpus > 1; i++)
			if (n->gpus > 2 || i == 0)
				sched_add_circuit(sc, i % 2, i,
				    (i + 1) % n->gpus, 0, SCHED_FOREVER);
		return;
	}
	for (;;) {
		a = strtoul(p, &end, 10);
		if (end == p || *end != '-')
			break;
		b = strtoul(p = end + 1, &end, 10);
		if (end == p || *end != '@')
			break;
		sw = strtoul(p = end + 1, &end, 10);
		if (end == p || a >= n->gpus || b >= n->gpus || a == b ||
		    sw >= n->switches)
			break;
		sched_add_circuit(sc, (uint32_t)sw, (uint32_t)a, (uint32_t)b,
		    0, SCHED_FOREVER);
		if (*end == '\0')
			return;
		if (*end != ',')
			break;
		p = end + 1;
	}
	die("-c %s: expected \"ring\" or a list like 0-1@0,2-3@1 of GPUs "
	    "below %u and switches below %u", spec, n->gpus, n->switches);
}

/* Turn the circuit records of the stream into a static fabric. */
static void
static_from_records(struct schedule *sc)
{
	size_t i;

	if (sc->nc == 0)
		die("--fabric static: no circuit records in the stream and "
		    "no -c");
	for (i = 0; i < sc->nc; i++)
		sc->c[i].to = SCHED_FOREVER;
	sc->periodic = 0;
	sc->forwarding = SCHED_DIRECT;
	snprintf(sc->scheduler, sizeof(sc->scheduler), "static");
}

static int
choose_fabric(struct input *in, const struct args *a)
{
	char err[400];
	int fabric = a->fabric;

	if (fabric < 0) {
		if (!in->sc.present)
			die("stdin: no schedule record: pipe the DAG through "
			    "a scheduler (fluxsolve, rotorsched) or give "
			    "-f ideal or -f static");
		fabric = SIM_SCHEDULE;
	}
	if (fabric == SIM_SCHEDULE && !in->sc.present)
		die("-f schedule: the stream has no schedule record");
	if (fabric == SIM_STATIC) {
		if (a->circuits != NULL)
			static_circuits(&in->sc, &in->di.net, a->circuits);
		else
			static_from_records(&in->sc);
		in->sc.np = 0;
	}
	if (fabric != SIM_IDEAL &&
	    sched_check(&in->sc, &in->di.net, err, sizeof(err)) != 0)
		die("invalid schedule: %s", err);
	return fabric;
}

static int
same_net(const struct net *a, const struct net *b)
{
	return a->gpus == b->gpus && a->switches == b->switches &&
	    a->bandwidth_bps == b->bandwidth_bps &&
	    a->reconfig_ps == b->reconfig_ps &&
	    a->latency_ps == b->latency_ps && a->model == b->model;
}

/*
 * -S: the schedule, circuits and plans of another stream, made for a
 * DAG of the same shape on the same net (the nominal MoE step, say).
 */
static void
plan_from(struct input *in, const char *path, FILE *fp)
{
	struct stream_writer *sink;
	struct input side;
	FILE *null;
	char err[400];
	size_t at;

	if (in->sc.present)
		die("-S %s: stdin holds a schedule already", path);
	if ((null = fopen("/dev/null", "w")) == NULL ||
	    (sink = stream_writer(null)) == NULL)
		die("/dev/null: %s", strerror(errno));
	memset(&side, 0, sizeof(side));
	dagin_init(&side.di);
	sched_init(&side.sc);
	side.di.quick = (struct filter_quick){ quick, &side };
	side.sc.plan_check = plan_check;
	side.sc.plan_arg = &side;
	if (dagin_read(&side.di, fp, path, sink, "ocssim", 0, NULL, other,
	    &side, err, sizeof(err)) != 0)
		die("%s", err);
	free(side.planned);
	fclose(fp);
	stream_writer_close(sink);
	fclose(null);
	if (!side.sc.present)
		die("-S %s: no schedule record: pipe its DAG through a "
		    "scheduler first", path);
	if (!same_net(&side.di.net, &in->di.net))
		die("-S %s: its net differs from stdin's", path);
	if ((at = dag_same_shape(&side.di.dag, &in->di.dag)) != SIZE_MAX)
		die("-S %s: its DAG differs from stdin's in shape at task %zu "
		    "(%zu and %zu tasks): a plan runs only on a DAG of its "
		    "own shape", path, at, side.di.dag.n, in->di.dag.n);
	sched_free(&in->sc);
	in->sc = side.sc;
	in->sc.plan_check = NULL;	/* side's, read */
	in->nom = side.di;
	in->have_nom = 1;
}

void
ocssim_progress(void *arg, uint64_t done, uint64_t total, uint64_t now)
{
	char t[UNITS_BUFSZ];

	(void)arg;
	fprintf(stderr, "\rocssim: %llu of %llu tasks done, at %s   ",
	    (unsigned long long)done, (unsigned long long)total,
	    units_fmt_time(t, sizeof(t), now));
}

static void
write_result(msgpack_packer *pk, const struct sim_out *o, int fabric,
    const struct schedule *sc, const struct args *a, uint64_t bound,
    uint32_t replans)
{
	uint32_t i;
	uint64_t prev = 0;

	stream_pack_record(pk, "result", a->online ? 16 : 14);
	stream_pack_ku64(pk, "makespan_ps", o->makespan);
	stream_pack_str(pk, "step_ps");
	msgpack_pack_array(pk, o->nsteps);
	for (i = 0; i < o->nsteps; i++) {
		uint64_t e = o->step_end[i] > prev ? o->step_end[i] : prev;

		msgpack_pack_uint64(pk, e - prev);
		prev = e;
	}
	stream_pack_ku64(pk, "peak_buffer_bytes", o->peak_buffer);
	stream_pack_ku64(pk, "peak_nic_bytes", o->peak_nic);
	stream_pack_kstr(pk, "nic_host", sim_hosts[a->host]);
	stream_pack_ku64(pk, "packet_bytes", a->packet);
	stream_pack_ku64(pk, "lower_bound_ps", bound);
	stream_pack_ku64(pk, "reconfigs", o->reconfigs);
	stream_pack_ku64(pk, "bytes_sent", o->bytes_sent);
	stream_pack_kstr(pk, "fabric", sim_fabrics[fabric]);
	stream_pack_kstr(pk, "scheduler", fabric == SIM_IDEAL ? "none" :
	    sc->scheduler);
	stream_pack_ku64(pk, "events", o->events);
	stream_pack_kstr(pk, "replay", a->online ? "online" :
	    simctl_policies[fabric == SIM_SCHEDULE ? a->replay : SIMCTL_NONE]);
	if (!a->online)
		return;
	stream_pack_ku64(pk, "replans", replans);
	stream_pack_ku64(pk, "decision_latency_ps", a->latency);
}

static void
write_stats(msgpack_packer *pk, const struct sim_out *o,
    const struct net *n, int fabric)
{
	uint32_t i;

	for (i = 0; i < n->gpus; i++) {
		stream_pack_record(pk, "gpustat", 7);
		stream_pack_ku64(pk, "gpu", i);
		stream_pack_ku64(pk, "busy_ps", o->gpu[i].busy_ps);
		stream_pack_ku64(pk, "stall_ps", o->gpu[i].stall_ps);
		stream_pack_ku64(pk, "peak_buffer_bytes",
		    o->gpu[i].peak_buffer);
		stream_pack_ku64(pk, "peak_nic_bytes", o->gpu[i].peak_nic);
		stream_pack_ku64(pk, "bytes_sent", o->gpu[i].bytes_sent);
	}
	for (i = 0; fabric != SIM_IDEAL && i < n->switches; i++) {
		const struct sim_switchstat *s = &o->sw[i];
		double cap = (double)s->up_ps * 2 * n->bandwidth_bps / 1e12;

		stream_pack_record(pk, "switchstat", 6);
		stream_pack_ku64(pk, "switch", i);
		stream_pack_ku64(pk, "reconfigs", s->reconfigs);
		stream_pack_ku64(pk, "up_ps", s->up_ps);
		stream_pack_ku64(pk, "bytes", s->bytes);
		stream_pack_kdbl(pk, "utilization", cap > 0 ?
		    8.0 * s->bytes / cap : 0);
	}
}

void
ocssim_runs(msgpack_packer *pk, const uint64_t *start, const uint64_t *end,
    size_t n)
{
	static const char *const keys[] = { "id", "start_ps", "end_ps" };
	struct stream_writer *w = stream_packer_writer(pk);
	uint64_t v[3];
	size_t i;

	for (i = 0; i < n; i++) {
		v[0] = i;
		v[1] = start[i];
		v[2] = end[i];
		if (w != NULL && stream_write_u64s(w, "taskrun", keys, v,
		    3) == 0)
			continue;
		stream_pack_record(pk, "taskrun", 4);
		stream_pack_ku64(pk, "id", i);
		stream_pack_ku64(pk, "start_ps", start[i]);
		stream_pack_ku64(pk, "end_ps", end[i]);
	}
}

static void
parse_args(struct args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "budget",	required_argument, NULL, 'B' },
		{ "circuits",	required_argument, NULL, 'c' },
		{ "fabric",	required_argument, NULL, 'f' },
		{ "host",	required_argument, NULL, 'H' },
		{ "log",	required_argument, NULL, 'l' },
		{ "online",	required_argument, NULL, 'O' },
		{ "packet",	required_argument, NULL, 'p' },
		{ "replay",	required_argument, NULL, 'R' },
		{ "every-circuit", no_argument,	   NULL, 'E' },
		{ "own",	no_argument,	   NULL, OPT_OWN },
		{ "schedule",	required_argument, NULL, 'S' },
		{ "taskruns",	no_argument,	   NULL, 't' },
		{ "time-limit",	required_argument, NULL, 'T' },
		{ "verbose",	no_argument,	   NULL, 'v' },
		CLI_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	const char *msg;
	int ch, i;

	*a = (struct args){ .fabric = -1, .packet = 4096 };
	while ((ch = getopt_long(argc, die_argv(argv), "hB:c:Ef:H:l:O:p:R:S:tT:v",
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			a->circuits = optarg;
			break;
		case 'E':
			a->every = 1;
			break;
		case 'f':
			for (i = 0; sim_fabrics[i] != NULL; i++)
				if (strcmp(optarg, sim_fabrics[i]) == 0)
					break;
			if (sim_fabrics[i] == NULL) {
				warnmsg("-f %s: unknown fabric", optarg);
				usage();
			}
			a->fabric = i;
			break;
		case 'H':
			for (i = 0; sim_hosts[i] != NULL &&
			    strcmp(optarg, sim_hosts[i]) != 0; i++)
				;
			if (sim_hosts[i] == NULL) {
				warnmsg("-H %s: the host is plan, unaware or "
				    "circuit", optarg);
				usage();
			}
			a->host = i;
			break;
		case 'l':
			a->logpath = optarg;
			break;
		case 'p':
			if ((msg = units_parse_size(optarg, &a->packet)) !=
			    NULL || a->packet == 0) {
				warnmsg("-p %s: %s", optarg, msg ? msg :
				    "a packet holds at least one byte");
				usage();
			}
			break;
		case 'B':
			if ((msg = units_parse_seconds(optarg,
			    &a->budget)) != NULL) {
				warnmsg("-B %s: %s", optarg, msg);
				usage();
			}
			break;
		case 'O':
			if ((msg = units_parse_time(optarg, &a->latency)) !=
			    NULL) {
				warnmsg("-O %s: %s", optarg, msg);
				usage();
			}
			a->online = 1;
			break;
		case 'R':
			for (i = 1; simctl_policies[i] != NULL &&
			    strcmp(optarg, simctl_policies[i]) != 0; i++)
				;
			if (simctl_policies[i] == NULL) {
				warnmsg("-R %s: the replay is hold or asap",
				    optarg);
				usage();
			}
			a->replay = i;
			break;
		case 'S':
			a->plan_file = optarg;
			break;
		case OPT_OWN:
			a->own = 1;
			break;
		case 't':
			a->taskruns = 1;
			break;
		case 'v':
			a->verbose = 1;
			break;
		case 'T':
			if ((msg = units_parse_seconds(optarg,
			    &a->time_limit)) != NULL) {
				warnmsg("-T %s: %s", optarg, msg);
				usage();
			}
			break;
		case 'h':
			cli_help(USAGE, OPTIONS);
		case CLI_VERSION:
			cli_version();
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (a->circuits != NULL && a->fabric != SIM_STATIC) {
		warnmsg("-c goes with -f static");
		usage();
	}
	if (a->budget > 0 && !a->online) {
		warnmsg("-B goes with -O");
		usage();
	}
	if (a->online && (a->plan_file == NULL || a->replay != SIMCTL_NONE ||
	    a->logpath != NULL)) {
		warnmsg("-O needs -S (the nominal plan), and goes without -R "
		    "and -l");
		usage();
	}
	if ((a->replay != SIMCTL_NONE || a->plan_file != NULL) &&
	    a->fabric >= 0 && a->fabric != SIM_SCHEDULE) {
		warnmsg("-%c goes with -f schedule", a->replay != SIMCTL_NONE ?
		    'R' : 'S');
		usage();
	}
}

int
main(int argc, char **argv)
{
	struct stream_writer *w;
	struct sim_opts opt = { 0 };
	struct sim_out out;
	struct input in;
	struct args a;
	FILE *planfp = NULL;
	char err[400];
	int fabric, rc;
	uint64_t bound;
	uint32_t replans = 0;
	double t0, tb, t1, t2;

	die_init("ocssim");
	parse_args(&a, argc, argv);
	die_if_tty();
	/* opened before the first byte out: a missing file writes nothing */
	if (a.plan_file != NULL && (planfp = fopen(a.plan_file, "r")) == NULL)
		die("-S %s: %s", a.plan_file, strerror(errno));
	memset(&in, 0, sizeof(in));
	dagin_init(&in.di);
	sched_init(&in.sc);
	if ((w = stream_writer(stdout)) == NULL)
		die("out of memory");
	t0 = wclock_now();
	in.di.omit.on = a.own;
	in.di.planes_ok = 1;
	read_input(&in, w, argc - 1, argv + 1);
	free(in.planned);	/* stdin's plans are checked */
	in.planned = NULL;
	in.sc.plan_check = NULL;
	if (in.di.tiered) {
		planes_sim(&in, &a, w);
		return 0;
	}
	if (a.plan_file != NULL)
		plan_from(&in, a.plan_file, planfp);
	fabric = choose_fabric(&in, &a);
	/*
	 * The bound before the simulation: what it frees, the simulation's
	 * arrays reuse (mem_keep()), where fresh pages cost a fault each.
	 */
	mem_keep();
	tb = wclock_now();
	if (fabbound(&in.di.dag, &in.di.net, &bound) != 0)
		die("out of memory");
	t1 = wclock_now();
	opt.fabric = fabric;
	opt.host = a.host;
	opt.replay = fabric == SIM_SCHEDULE ? a.replay : SIMCTL_NONE;
	opt.packet = a.packet;
	opt.time_limit = a.time_limit;
	opt.every_circuit = a.every;
	if (a.logpath != NULL && (opt.log = fopen(a.logpath, "w")) == NULL)
		die("%s: %s", a.logpath, strerror(errno));
	if (isatty(STDERR_FILENO))
		opt.progress = ocssim_progress;
	if (a.online)
		rc = online_run(&in.di.dag, &in.nom.dag, &in.di.net, &in.sc,
		    a.latency, a.budget, &opt, &out, &replans, err,
		    sizeof(err));
	else
		rc = sim_run(&in.di.dag, &in.di.net, &in.sc, &opt, &out, err,
		    sizeof(err));
	t2 = wclock_now();
	if (opt.progress != NULL)
		fputc('\n', stderr);
	if (rc != 0 && opt.log != NULL)
		fclose(opt.log);	/* the log explains the failure: keep it */
	if (rc != 0)
		die("%s", err);
	if (opt.log != NULL && fclose(opt.log) != 0)
		die("%s: %s", a.logpath, strerror(errno));
	if (a.own)
		dagin_write_omitted(&in.di, stream_packer(w));
	write_result(stream_packer(w), &out, fabric, &in.sc, &a, bound,
	    replans);
	write_stats(stream_packer(w), &out, &in.di.net, fabric);
	if (a.taskruns)
		ocssim_runs(stream_packer(w), out.start, out.end, in.di.dag.n);
	if ((rc = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(rc));
	if (a.verbose)
		fprintf(stderr, "ocssim: %zu tasks read in %.3f s; bound in "
		    "%.3f s; %llu events simulated in %.3f s (%.0f events/s); "
		    "output in %.3f s\n", in.di.dag.n, tb - t0, t1 - tb,
		    (unsigned long long)out.events, t2 - t1,
		    t2 > t1 ? out.events / (t2 - t1) : 0.0, wclock_now() - t2);
	sim_out_free(&out);
	dagin_free(&in.di);
	if (in.have_nom)
		dagin_free(&in.nom);
	sched_free(&in.sc);
	return 0;
}
