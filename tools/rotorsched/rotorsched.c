/*
 * rotorsched: periodic, demand-oblivious circuit schedules.
 *
 * --mode rotor: RotorNet.  The N-1 matchings of a 1-factorization of
 * the complete graph on the GPUs are dealt to the switches, and every
 * switch steps to its next matching each slot: dark for tau, then up.
 * --mode bvn: traffic-aware periodic.  The iteration's traffic matrix,
 * made symmetric for duplex circuits, is decomposed into weighted
 * matchings (Birkhoff-von Neumann style), which are dealt to the
 * switches longest first, each followed by tau of reconfiguration.
 * --mode solstice and --mode eclipse: the same matrix scheduled as
 * Solstice (stuffed, then sliced by halving thresholds) and Eclipse
 * (greedy, the most bytes per unit of time and tau) do, dealt alike.
 * Either way one period of circuits is written, and ocssim repeats it
 * until the DAG is done.  In rotor mode -p places the ranks on the
 * rotors' ports: given, drawn, or the fastest a search simulates
 * (rotorsched_place.c).  See rotorsched(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/cli.h"
#include "records/die.h"
#include "records/rec.h"
#include "records/stream.h"
#include "records/units.h"
#include "records/wclock.h"

#include "rotorsched.h"
#include "rotorsched_phase.h"
#include "rotorsched_static.h"

static const char *const modes[] = { "rotor", "bvn", "solstice", "eclipse",
	"static", "phase", NULL };

/* --place-evals has no short form. */
#define OPT_EVALS	256
#define OPT_OWN		257
#define EVALS_MAX	1000000000000ULL

static const char USAGE[] =
    "usage: rotorsched [-v] [-c vlb-cap] [-d duty]"
    " [-f direct|vlb|rotorlb]\n"
    "                  [-m rotor|bvn|solstice|eclipse|static|phase]"
    " [-p placement]\n"
    "                  [-s slot] [-T seconds] [--own]"
    " [--place-evals=n]\n";

static const char OPTIONS[] =
    "Read a task DAG, write a baseline circuit schedule (a stream).\n"
    "  -c, --vlb-cap=SIZE      two-hop: bytes relayed per destination (a"
    " slot's)\n"
    "  -d, --duty=F            duty cycle of a slot, in (0, 1) (0.9)\n"
    "  -f, --forwarding=F      direct, vlb or rotorlb (direct)\n"
    "  -m, --mode=M            rotor, bvn, solstice, eclipse, static or"
    " phase\n"
    "                          (rotor)\n"
    "  -p, --placement=P       identity, a list of ports, random:SEED,"
    " best[:SEED]\n"
    "      --own               write only the schedule's records, not the"
    " DAG\n"
    "      --place-evals=N     placements -p best simulates at most (10000)\n"
    "  -s, --slot=TIME         length of a slot, instead of the duty cycle's\n"
    "  -T, --time-limit=SECS   wall-clock limit of -p best and of bvn,"
    " solstice\n"
    "                          and eclipse's search (none)\n"
    "  -v, --verbose           print the placement and its makespan, or"
    " static's\n"
    "                          and phase's circuits, relays and phases\n"
    "  -h, --help              this help\n"
    "      --version           the version and the commit of the build\n";

static void
usage(void)
{
	die_usage(USAGE);	/* drops what the stream writer holds */
}

/* ---- stream ---- */

static void
read_input(struct dagin *in, struct stream_writer *w, int argc,
    char **argv)
{
	char err[400];

	if (dagin_read(in, stdin, "stdin", w, "rotorsched", argc, argv,
	    dagin_unscheduled, NULL, err, sizeof(err)) != 0)
		die("%s", err);
}

/* What one slot's circuit carries at the port rate, in whole bytes. */
static uint64_t
default_cap(const struct net *n, const struct args *a)
{
	unsigned __int128 c = (unsigned __int128)(rotor_slot(n, a) -
	    n->reconfig_ps) * n->bandwidth_bps / (8 * RS_PS);

	if (c > UINT64_MAX)
		die("a slot carries more than 2^64 - 1 bytes: give -c");
	return (uint64_t)c;
}

/* A whole number of simulations, 1 to EVALS_MAX, digits only. */
static int
parse_evals(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > EVALS_MAX)
			return -1;
	}
	if (x == 0)
		return -1;
	*v = x;
	return 0;
}

/* Options that do not go together. */
static void
check_args(const struct args *a, int place_set)
{
	if (a->slot_set && a->duty_set) {
		warnmsg("-d and -s exclude each other");
		usage();
	}
	if (a->mode != MODE_ROTOR && (a->slot_set || a->duty_set ||
	    a->fwd_set || a->cap_set)) {
		warnmsg("-c, -d, -f and -s go with -m rotor");
		usage();
	}
	if (a->cap_set && !SCHED_TWO_HOP(a->fwd)) {
		warnmsg("-c goes with -f vlb or -f rotorlb");
		usage();
	}
	if (a->mode != MODE_ROTOR && place_set) {
		warnmsg("-p goes with -m rotor");
		usage();
	}
	if (a->verbose && a->mode != MODE_ROTOR && a->mode != MODE_STATIC &&
	    a->mode != MODE_PHASE) {
		warnmsg("-v goes with -m rotor, -m static and -m phase");
		usage();
	}
	if (a->own && a->mode == MODE_PHASE) {
		warnmsg("--own does not go with -m phase, which reads the "
		    "DAG's task names");
		usage();
	}
	if (a->place.kind != PLACE_BEST && a->place.evals_set) {
		warnmsg("--place-evals goes with -p best");
		usage();
	}
	if (((a->mode == MODE_ROTOR && a->place.kind != PLACE_BEST) ||
	    a->mode >= MODE_STATIC) && a->place.seconds > 0) {
		warnmsg("-T goes with -p best, -m bvn, -m solstice and "
		    "-m eclipse");
		usage();
	}
}

static void
parse_args(struct args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "vlb-cap",	required_argument, NULL, 'c' },
		{ "duty",	required_argument, NULL, 'd' },
		{ "forwarding",	required_argument, NULL, 'f' },
		{ "mode",	required_argument, NULL, 'm' },
		{ "placement",	required_argument, NULL, 'p' },
		{ "own",	no_argument,	   NULL, OPT_OWN },
		{ "place-evals", required_argument, NULL, OPT_EVALS },
		{ "slot",	required_argument, NULL, 's' },
		{ "time-limit",	required_argument, NULL, 'T' },
		{ "verbose",	no_argument,	   NULL, 'v' },
		CLI_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	const char *e;
	char *end, msg[200];
	int ch, i, place_set = 0;

	*a = (struct args){ .mode = MODE_ROTOR, .duty = 0.9,
	    .place = { .kind = PLACE_IDENTITY, .evals = PLACE_EVALS } };
	while ((ch = getopt_long(argc, die_argv(argv), "hc:d:f:m:p:s:T:v",
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			if ((e = units_parse_size(optarg, &a->cap)) != NULL ||
			    a->cap == 0) {
				warnmsg("-c %s: %s", optarg, e ? e :
				    "must be positive");
				usage();
			}
			a->cap_set = 1;
			break;
		case 'd':
			a->duty = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' ||
			    !(a->duty > 0 && a->duty < 1)) {
				warnmsg("-d %s: duty cycle must be in (0, 1)",
				    optarg);
				usage();
			}
			a->duty_set = 1;
			break;
		case 'f':
			for (i = 0; sched_fwds[i] != NULL &&
			    strcmp(optarg, sched_fwds[i]) != 0; i++)
				;
			if (sched_fwds[i] == NULL) {
				warnmsg("-f %s: forwarding is direct, vlb or "
				    "rotorlb", optarg);
				usage();
			}
			a->fwd = i;
			a->fwd_set = 1;
			break;
		case 'm':
			for (i = 0; modes[i] != NULL &&
			    strcmp(optarg, modes[i]) != 0; i++)
				;
			if (modes[i] == NULL) {
				warnmsg("-m %s: mode is rotor, bvn, solstice, "
				    "eclipse, static or phase", optarg);
				usage();
			}
			a->mode = i;
			break;
		case 'p':
			if (place_parse(&a->place, optarg, msg,
			    sizeof(msg)) != 0) {
				warnmsg("-p %s: %s", optarg, msg);
				usage();
			}
			place_set = 1;
			break;
		case OPT_OWN:
			a->own = 1;
			break;
		case OPT_EVALS:
			if (parse_evals(optarg, &a->place.evals) != 0) {
				warnmsg("--place-evals %s: a whole number "
				    "from 1 to %llu", optarg,
				    (unsigned long long)EVALS_MAX);
				usage();
			}
			a->place.evals_set = 1;
			break;
		case 's':
			if ((e = units_parse_time(optarg, &a->slot)) != NULL ||
			    a->slot == 0 || a->slot > SLOT_MAX) {
				if (e == NULL && a->slot != 0)
					warnmsg("-s %s: a slot lasts at most "
					    "%llups", optarg,
					    (unsigned long long)SLOT_MAX);
				else
					warnmsg("-s %s: %s", optarg, e ? e :
					    "must be positive");
				usage();
			}
			a->slot_set = 1;
			break;
		case 'T':
			if ((e = units_parse_seconds(optarg,
			    &a->place.seconds)) != NULL) {
				warnmsg("-T %s: %s", optarg, e);
				usage();
			}
			break;
		case 'v':
			a->verbose = 1;
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
	check_args(a, place_set);
}

/*
 * A given placement must hold one port for every GPU of the net:
 * checked once the net is read (dagin's on_net), before any output.
 */
static void
check_placement(const struct dagin *in, void *arg)
{
	const struct args *a = arg;

	if (a->place.kind != PLACE_GIVEN || in->tiered ||
	    a->place.n == in->net.gpus)
		return;
	warnmsg("-p: %u ports given for a net of %u GPUs", a->place.n,
	    in->net.gpus);
	usage();
}

static int
is_identity(const uint32_t *port, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && port[i] == i; i++)
		;
	return i == n;
}

/*
 * RotorNet with the ranks placed as -p says.  The identity table comes
 * first: its checks (the net, the slot) hold for every placement, and
 * the default cap is taken from its slot.
 */
static void
rotor_placed(struct schedule *sc, const struct dagin *in, struct args *a)
{
	uint32_t *port;

	rotor(sc, &in->net, a, NULL);
	if (SCHED_TWO_HOP(a->fwd) && !a->cap_set)
		a->cap = default_cap(&in->net, a);
	port = place_choose(a, in);
	place_schedule(sc, &in->net, a, port);
	if (port != NULL && !is_identity(port, in->net.gpus)) {
		sc->place = port;	/* the schedule's now */
		sc->nplace = in->net.gpus;
	} else
		free(port);
}

/* The schedule and its circuits after the records read; all freed. */
static void
write_schedule(struct stream_writer *w, struct dagin *in, struct args *a,
    struct schedule *sc)
{
	size_t i;
	int rc;

	if (a->own)
		dagin_write_omitted(in, stream_packer(w));
	sched_write_schedule(stream_packer(w), sc);
	for (i = 0; i < sc->nc; i++)
		sched_write_circuit(stream_packer(w), &sc->c[i]);
	if ((rc = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(rc));
	sched_free(sc);
	dagin_free(in);
	free(a->place.port);
}

/* What -v says of a static or per-phase schedule. */
static void
say(const struct args *a, const struct phase_out *po, size_t nc,
    int64_t n, size_t before, size_t after)
{
	if (a->mode == MODE_PHASE)
		warnmsg("phase: %u phase%s of %u class%s; %zu circuits, %llu "
		    "set up after time 0; %lld transfer%s relayed over "
		    "circuits (%zu tasks become %zu); predicted makespan "
		    "%llu ps", po->phases, po->phases == 1 ? "" : "s",
		    po->classes, po->classes == 1 ? "" : "es", nc,
		    (unsigned long long)po->changed, (long long)n,
		    n == 1 ? "" : "s", before, after,
		    (unsigned long long)po->predicted);
	else
		warnmsg("static: %zu circuits, up from 0 for ever; %lld "
		    "transfer%s relayed over circuits (%zu tasks become %zu)",
		    nc, (long long)n, n == 1 ? "" : "s", before, after);
}

/*
 * -m static and -m phase: the input is kept as read, in a temporary
 * file, to be written again with the relays in its DAG when there are
 * any.
 */
static void
static_run(struct args *a, int argc, char **argv)
{
	struct stream_writer *w, *kept;
	struct phase_out po = { 0 };
	struct schedule sc;
	struct dagin in;
	struct dag out;
	uint32_t *from = NULL;
	char err[400];
	size_t nc;
	int64_t n;
	FILE *fp;

	if ((fp = tmpfile()) == NULL)
		die("a temporary file for the stream read: %s",
		    strerror(errno));
	if ((kept = stream_writer(fp)) == NULL)
		die("out of memory");
	dagin_init(&in);
	sched_init(&sc);
	dag_init(&out);
	in.omit.on = a->own;
	in.planes_ok = 1;
	read_input(&in, kept, argc, argv);
	if ((errno = stream_writer_close(kept)) != 0 || fseek(fp, 0,
	    SEEK_SET) != 0)
		die("the temporary file of the stream read: %s",
		    strerror(errno));
	snprintf(sc.scheduler, sizeof(sc.scheduler), "%s", modes[a->mode]);
	if (a->mode == MODE_PHASE)
		n = phase_schedule(&sc, &in, fp, &out, &from, &po);
	else
		n = static_schedule(&sc, &in, &out, &from);
	if (n > 0 && a->own)
		die("-m static relays %lld transfer%s over circuits, which "
		    "changes the DAG: --own cannot leave it out",
		    (long long)n, n == 1 ? "" : "s");
	if (!in.tiered && sched_check(&sc, &in.net, err, sizeof(err)) != 0)
		die("internal error: the schedule made is invalid: %s", err);
	nc = sc.nc;
	if ((w = stream_writer(stdout)) == NULL)
		die("out of memory");
	static_write(w, fp, n > 0 ? &out : NULL, from);
	fclose(fp);
	if (a->verbose)
		say(a, &po, nc, n, in.dag.n, n > 0 ? out.n : in.dag.n);
	free(from);
	dag_free(&out);
	write_schedule(w, &in, a, &sc);
}

int
main(int argc, char **argv)
{
	struct stream_writer *w;
	struct schedule sc;
	struct dagin in;
	struct args a;
	char err[400];

	die_init("rotorsched");
	parse_args(&a, argc, argv);
	if (a.mode != MODE_ROTOR && a.place.seconds > 0)
		a.deadline = wclock_now() + a.place.seconds;
	die_if_tty();
	if (a.mode >= MODE_STATIC) {
		static_run(&a, argc - 1, argv + 1);
		return 0;
	}
	dagin_init(&in);
	sched_init(&sc);
	if ((w = stream_writer(stdout)) == NULL)
		die("out of memory");
	in.omit.on = a.own;
	in.planes_ok = 1;
	in.on_net = check_placement;
	in.on_net_arg = &a;
	read_input(&in, w, argc - 1, argv + 1);
	snprintf(sc.scheduler, sizeof(sc.scheduler), "%s", modes[a.mode]);
	if (in.tiered) {
		planes_schedule(&sc, &in, &a);
		if (a.mode != MODE_ROTOR)
			sc.forwarding = a.fwd;
		write_schedule(w, &in, &a, &sc);
		return 0;
	}
	switch (a.mode) {
	case MODE_ROTOR:
		rotor_placed(&sc, &in, &a);
		break;
	case MODE_BVN:
		bvn(&sc, &in, a.deadline);
		break;
	case MODE_SOLSTICE:
		solstice(&sc, &in, a.deadline);
		break;
	default:
		eclipse(&sc, &in, a.deadline);
	}
	if (a.mode != MODE_ROTOR)
		sc.forwarding = a.fwd;
	if (sched_check(&sc, &in.net, err, sizeof(err)) != 0)
		die("internal error: the schedule made is invalid: %s", err);
	write_schedule(w, &in, &a, &sc);
	return 0;
}
