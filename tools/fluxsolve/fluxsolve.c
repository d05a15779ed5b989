/*
 * fluxsolve: Flux schedules for a task DAG on optical circuit switches.
 *
 * Reads the net and task records, schedules every transfer whole on
 * one switch with its circuits (lib/solve/fsolve: the greedy list scheduler,
 * the paper's exact MILP, or Flux's windows that prove a bound), and
 * appends a schedule record, the circuit records, a plan record per
 * transfer and a solve record.  Everything read passes through.  See
 * fluxsolve(1).
 */
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/horizon.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/cli.h"
#include "records/die.h"
#include "records/rec.h"
#include "records/stream.h"
#include "records/wclock.h"
#include "records/units.h"
#include "solve/fsolve.h"
#include "fluxsolve.h"
#include "solve/greedy.h"
#include "solve/milp.h"
#include "solve/wsolve.h"

#define DEFAULT_LIMIT	10.0
#define DEFAULT_MAXBIN	2000

static volatile sig_atomic_t stop;

#define OPT_OWN	0x7f01	/* getopt_long's value of --own */

static const char USAGE[] =
    "usage: fluxsolve [-v] [-m flux | greedy | exact]"
    " [-s lpsolve | cbc]\n"
    "                 [-T seconds] [-w search | milp]"
    " [--max-binaries=n]\n"
    "                 [--own] [--write-lp=file | --write-mps=file]\n";

static const char OPTIONS[] =
    "Read a task DAG, write the Flux circuit schedule with its proof (a"
    " stream).\n"
    "  -m, --method=M          flux, greedy or exact (flux)\n"
    "  -s, --solver=S          MILP solver: lpsolve or cbc (lpsolve)\n"
    "  -T, --time-limit=SECS   wall-clock limit, as 10, 10s or 500ms (10)\n"
    "  -v, --verbose           let the MILP solver log to standard error\n"
    "  -w, --window-solver=W   flux's windows: search or milp (search)\n"
    "      --max-binaries=N    largest exact model, in binaries (2000)\n"
    "      --own               write only the schedule's records, not the"
    " DAG\n"
    "      --write-lp=FILE     write every MILP model built, LP format\n"
    "      --write-mps=FILE    write every MILP model built, fixed MPS\n"
    "  -h, --help              this help\n"
    "      --version           the version and the commit of the build\n";

static void
usage(void)
{
	fputs(USAGE, stderr);
	exit(2);
}

static void
on_int(int sig)
{
	(void)sig;
	stop = 1;
}

static void
read_input(struct dagin *in, struct stream_writer *w, int argc,
    char **argv)
{
	unsigned __int128 total;
	char err[400], num[48];

	if (dagin_read(in, stdin, "stdin", w, "fluxsolve", argc, argv,
	    dagin_unscheduled, NULL, err, sizeof(err)) != 0)
		die("%s", err);
	if (in->tiered)
		return;
	if (horizon_total(&in->dag, &in->net, &total) == 0)
		return;
	die("stdin: the tasks in series take at least %s ps with a "
	    "reconfiguration each, over the %llu ps (2^62) that the times of "
	    "a schedule are kept within", units_fmt_u128(num, sizeof(num),
	    total),
	    (unsigned long long)HORIZON_MAX_PS);
}

static int
pick(const char *arg, const char *const *names, const char *what)
{
	int i;

	for (i = 0; names[i] != NULL && strcmp(arg, names[i]) != 0; i++)
		;
	if (names[i] == NULL) {
		warnmsg("%s: unknown %s", arg, what);
		usage();
	}
	return i;
}

static double
seconds_arg(const char *arg)
{
	const char *e;
	double v;

	if ((e = units_parse_seconds(arg, &v)) != NULL) {
		warnmsg("-T %s: %s", arg, e);
		usage();
	}
	if (v > 1e9) {
		warnmsg("-T %s: not a positive number of seconds", arg);
		usage();
	}
	return v;
}

static const char *const solvers[] = { "lpsolve", "cbc", NULL };

/*
 * FLUXSOLVE_FAIL_WINDOWS=n makes the first n windows fail as a solver
 * failure would, so that tests can see a failed window skipped.
 */
static void
fail_env(struct fsolve_opts *o)
{
	const char *v = getenv("FLUXSOLVE_FAIL_WINDOWS");
	uint64_t n;

	if (v == NULL || *v == '\0')
		return;
	if (units_parse_count(v, 0, 1000000000, &n) != NULL) {
		warnmsg("FLUXSOLVE_FAIL_WINDOWS=%s: not a count", v);
		usage();
	}
	o->fail_windows = (size_t)n;
}

static void
parse(int argc, char **argv, struct fsolve_opts *o, int *own)
{
	static const struct option longopts[] = {
		{ "method",	  required_argument, NULL, 'm' },
		{ "solver",	  required_argument, NULL, 's' },
		{ "time-limit",	  required_argument, NULL, 'T' },
		{ "verbose",	  no_argument,	     NULL, 'v' },
		{ "max-binaries", required_argument, NULL, 'B' },
		{ "window-solver", required_argument, NULL, 'w' },
		{ "write-lp",	  required_argument, NULL, 'L' },
		{ "write-mps",	  required_argument, NULL, 'M' },
		{ "own",	  no_argument,	     NULL, OPT_OWN },
		CLI_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	uint64_t v;
	int ch;

	while ((ch = getopt_long(argc, die_argv(argv), "hm:s:T:vw:",
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			o->method = pick(optarg, fsolve_methods, "method");
			break;
		case 's':
			o->solver = solvers[pick(optarg, solvers, "solver")];
			break;
		case 'T':
			o->limit = seconds_arg(optarg);
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'w':
			o->wsolver = pick(optarg, wsolve_solvers,
			    "window solver");
			break;
		case 'B':
			if (units_parse_count(optarg, 1, 100000000, &v) !=
			    NULL) {
				warnmsg("--max-binaries %s: not a count from 1 "
				    "to 100000000", optarg);
				usage();
			}
			o->max_bin = (size_t)v;
			break;
		case 'L':
		case 'M':
			if (o->write != NULL) {
				warnmsg("--write-lp and --write-mps: one model "
				    "format at a time");
				usage();
			}
			o->write = optarg;
			o->format = ch == 'L' ? MILP_LP : MILP_MPS;
			break;
		case OPT_OWN:
			*own = 1;
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
	if (o->write != NULL && (o->method == FSOLVE_GREEDY ||
	    (o->method == FSOLVE_FLUX && o->wsolver == WSOLVE_SEARCH))) {
		warnmsg("%s builds no model to write", o->method ==
		    FSOLVE_GREEDY ? "the greedy method" : "the search");
		usage();
	}
}

/* One line per model on a terminal: what is solved, then how it went. */
static void
progress(void *arg, const struct fsolve *fs, int done)
{
	char a[UNITS_BUFSZ], b[UNITS_BUFSZ];
	const struct fsolve_model *m = &fs->m[fs->nm - 1];

	(void)arg;
	if (!done) {
		fprintf(stderr, "%sfluxsolve: model %zu (%s): %zu tasks, "
		    "%s: solving... ", fs->nm > 1 ? "\n" : "", fs->nm,
		    m->name, m->tasks, m->solver);
		return;
	}
	fprintf(stderr, "%s in %.1fs; makespan %s, bound %s",
	    wsolve_statuses[m->status], m->seconds,
	    units_fmt_time(a, sizeof(a), fs->best.makespan),
	    units_fmt_time(b, sizeof(b), fs->bound));
}

/*
 * The first MAX_MODELS problems solved: at most about 300 bytes each,
 * the record stays far below what a reader accepts (stream.h).
 */
#define MAX_MODELS	16384

static void
write_models(msgpack_packer *pk, const struct fsolve *fs)
{
	size_t i, n = fs->nm < MAX_MODELS ? fs->nm : MAX_MODELS;

	stream_pack_ku64(pk, "models_omitted", fs->nm - n);
	stream_pack_str(pk, "models");
	msgpack_pack_array(pk, n);
	for (i = 0; i < n; i++) {
		const struct fsolve_model *m = &fs->m[i];
		int val = m->value != UINT64_MAX;
		int milp = strcmp(m->solver, "search") != 0;

		msgpack_pack_map(pk, 6 + val + (milp ? 3 : 1));
		stream_pack_kstr(pk, "name", m->name);
		stream_pack_kstr(pk, "solver", m->solver);
		stream_pack_ku64(pk, "tasks", m->tasks);
		if (milp) {
			stream_pack_ku64(pk, "rows", m->rows);
			stream_pack_ku64(pk, "cols", m->cols);
			stream_pack_ku64(pk, "binaries", m->bins);
		} else
			stream_pack_ku64(pk, "nodes", m->nodes);
		stream_pack_kstr(pk, "status", wsolve_statuses[m->status]);
		stream_pack_kdbl(pk, "seconds", m->seconds);
		stream_pack_ku64(pk, "bound_ps", m->bound);
		if (val)
			stream_pack_ku64(pk, "objective_ps", m->value);
	}
}

static int
milp_used(const struct fsolve *fs)
{
	size_t i;

	for (i = 0; i < fs->nm; i++)
		if (strcmp(fs->m[i].solver, "search") != 0)
			return 1;
	return 0;
}

/*
 * The solve record.  Its status is "optimal" only when the schedule's
 * makespan equals the proven bound.  seconds is the one field of the
 * output that is not reproducible.
 */
void
fluxsolve_write_solve(msgpack_packer *pk, const struct fsolve_opts *o,
    const struct fsolve *fs)
{
	uint64_t obj = fs->best.makespan, bound = fs->bound;

	stream_pack_record(pk, "solve", 17);
	stream_pack_kstr(pk, "method", fsolve_methods[o->method]);
	stream_pack_kstr(pk, "solver", milp_used(fs) ? o->solver : "none");
	stream_pack_kstr(pk, "window_solver", wsolve_solvers[o->wsolver]);
	stream_pack_kstr(pk, "status", obj == bound ? "optimal" : "feasible");
	stream_pack_ku64(pk, "objective_ps", obj);
	stream_pack_ku64(pk, "bound_ps", bound);
	stream_pack_kdbl(pk, "gap", obj > 0 ? (double)(obj - bound) / obj : 0);
	stream_pack_ku64(pk, "greedy_ps", fs->greedy_ps);
	stream_pack_str(pk, "interrupted");
	if (stop)
		msgpack_pack_true(pk);
	else
		msgpack_pack_false(pk);
	stream_pack_kdbl(pk, "seconds", fs->seconds);
	stream_pack_kdbl(pk, "time_limit", o->limit);
	stream_pack_ku64(pk, "windows", fs->windows);
	stream_pack_ku64(pk, "windows_failed", fs->windows_failed);
	stream_pack_ku64(pk, "improved", fs->improved);
	write_models(pk, fs);
}

static void
write_output(struct stream_writer *w, const struct dagin *in,
    const struct fsolve_opts *o, struct fsolve *fs)
{
	char err[400];
	size_t i;
	int rc;

	if (fs->bound > fs->best.makespan)
		die("internal error: bound %llu above the schedule's %llu",
		    (unsigned long long)fs->bound,
		    (unsigned long long)fs->best.makespan);
	if (sched_check(&fs->best.sc, &in->net, err, sizeof(err)) != 0)
		die("internal error: the schedule made is invalid: %s", err);
	snprintf(fs->best.sc.scheduler, sizeof(fs->best.sc.scheduler), "%s",
	    fsolve_methods[o->method]);
	if (in->omit.on)
		dagin_write_omitted(in, stream_packer(w));
	sched_write_schedule(stream_packer(w), &fs->best.sc);
	for (i = 0; i < fs->best.sc.nc; i++)
		sched_write_circuit(stream_packer(w), &fs->best.sc.c[i]);
	for (i = 0; i < fs->best.sc.np; i++)
		sched_write_plan(stream_packer(w), &fs->best.sc.p[i]);
	fluxsolve_write_solve(stream_packer(w), o, fs);
	if ((rc = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(rc));
}

int
main(int argc, char **argv)
{
	struct fsolve_opts o = { .method = FSOLVE_FLUX, .solver = "lpsolve",
	    .limit = DEFAULT_LIMIT, .max_bin = DEFAULT_MAXBIN, .stop = &stop };
	struct stream_writer *w;
	struct sigaction sa;
	struct fsolve fs;
	struct dagin in;
	double t0;

	die_init("fluxsolve");
	dagin_init(&in);
	parse(argc, argv, &o, &in.omit.on);
	fail_env(&o);
	die_if_tty();
	if ((w = stream_writer(stdout)) == NULL)
		die("out of memory");
	in.planes_ok = 1;
	t0 = wclock_now();
	read_input(&in, w, argc - 1, argv + 1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_int;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	if (isatty(STDERR_FILENO))
		o.progress = progress;
	if (in.tiered) {
		planes_solve(&in, &o, w, t0);
		dagin_free(&in);
		return 0;
	}
	if (fsolve_run(&in.dag, &in.net, &o, &fs) != 0)
		die("%s", fs.err);
	if (o.progress != NULL && fs.nm > 0)
		fputc('\n', stderr);
	write_output(w, &in, &o, &fs);
	fsolve_free(&fs);
	dagin_free(&in);
	return 0;
}
