/*
 * report: show what fluxocs streams hold.
 *
 * By default a table of runs, one per stream (report_runs.c), or the
 * same as CSV or JSON; with -p plots of them (report_plot.c); with -g
 * the timeline of one run as SVG (report_gantt.c).  With -d every
 * record is printed as one line of JSON: the way to look inside a
 * stream.  With -s a summary of each stream: the tools that made it,
 * the workload, the network and how many records of each type it
 * holds.  See report(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fabric.h"
#include "model/net.h"
#include "model/netplanes.h"
#include "records/cli.h"
#include "records/die.h"
#include "records/header.h"
#include "records/json.h"
#include "report.h"
#include "records/rec.h"
#include "records/stream.h"
#include "records/units.h"

struct tally {
	char		 type[24];
	uint64_t	 n;
};

struct counts {			/* records by type, the first 32 types */
	struct tally	 t[32];
	size_t		 n;
};

static const char USAGE[] =
    "usage: report [-c | -d | -j | -s | -p prefix [--gnuplot]]"
    " [file ...]\n"
    "       report -g [-w from:to] [file]\n";

static const char OPTIONS[] =
    "Read streams, print the runs as a table (standard input without file).\n"
    "  -c, --csv               the runs as CSV\n"
    "  -d, --dump              every record as a line of JSON\n"
    "  -g, --gantt             the timeline of one simulated stream as SVG\n"
    "      --gnuplot           with -p: print the gnuplot script, draw"
    " nothing\n"
    "  -j, --json              the runs as JSON, an object per line\n"
    "  -p, --plot=PREFIX       draw iteration time and buffers into"
    " PREFIX*.png\n"
    "  -s, --summary           a summary of each stream\n"
    "  -w, --window=FROM:TO    with -g: only these times, as 0:2ms\n"
    "  -h, --help              this help\n"
    "      --version           the version and the commit of the build\n";

static void
usage(void)
{
	fputs(USAGE, stderr);
	exit(2);
}

static int
dump(struct stream_reader *rd, char *err, size_t n)
{
	struct header_end end = { 0, 0, 0 };
	const msgpack_object *o;
	struct stream_rec sr;
	int rc;

	while ((rc = stream_next(rd, &sr)) > 0) {
		if ((o = stream_rec_obj(&sr)) == NULL)
			break;
		json_print(stdout, o);
		putchar('\n');
		if (header_follow(&end, rd, &sr, err, n) != 0)
			return -1;
	}
	if (rc < 0 || stream_failed(rd)) {
		snprintf(err, n, "%s", stream_error(rd));
		return -1;
	}
	return header_finish(&end, rd, err, n);
}

static void
count(struct counts *c, const struct stream_rec *sr)
{
	struct tally *t = c->t;
	size_t i, n = sr->typelen < 23 ? sr->typelen : 23;

	for (i = 0; i < c->n; i++)
		if (strlen(t[i].type) == n && memcmp(t[i].type, sr->type,
		    n) == 0) {
			t[i].n++;
			return;
		}
	if (c->n == 32)
		return;
	memcpy(t[c->n].type, sr->type, n);
	t[c->n].type[n] = '\0';
	t[c->n++].n = 1;
}

static void
show_header(struct rec *r)
{
	const msgpack_object_array *a;
	const char *tool;
	size_t len, i;

	tool = rec_str(r, "tool", &len);
	a = rec_array_or_empty(r, "args");
	printf("  made by: %.*s", (int)len, tool);
	for (i = 0; i < a->size; i++)
		if (a->ptr[i].type == MSGPACK_OBJECT_STR)
			printf(" %.*s", (int)a->ptr[i].via.str.size,
			    a->ptr[i].via.str.ptr);
	putchar('\n');
}

static void
show_workload(struct rec *r)
{
	const char *m, *g;
	size_t ml, gl;
	uint64_t layers;

	m = rec_str(r, "model", &ml);
	g = rec_str(r, "gpu", &gl);
	layers = rec_u64_or(r, "layers", 0);
	printf("  workload: %.*s, %llu layer%s, tp %llu x dp %llu x pp %llu, "
	    "seq %llu, micro-batch %llu x %llu, %.*s at %g%%\n", (int)ml, m,
	    (unsigned long long)layers, layers == 1 ? "" : "s",
	    (unsigned long long)rec_u64_or(r, "tp", 1),
	    (unsigned long long)rec_u64_or(r, "dp", 1),
	    (unsigned long long)rec_u64_or(r, "pp", 1),
	    (unsigned long long)rec_u64_or(r, "seq", 0),
	    (unsigned long long)rec_u64_or(r, "micro_batch", 1),
	    (unsigned long long)rec_u64_or(r, "micro_batches", 1),
	    (int)gl, g, 100 * rec_dbl_or(r, "efficiency", 0));
}

/* A tiered fabric: its planes, one description a line. */
static void
show_planes(struct rec *r)
{
	struct fabric f;
	char line[200];
	uint32_t gpus;
	uint64_t units;
	size_t i;

	fabric_init(&f);
	if (netplanes_read(r, &gpus, &f) == 0) {
		printf("  net: fabric %s, %u GPUs, %llu planes\n", f.name, gpus,
		    (unsigned long long)fabric_planes(&f, gpus));
		for (i = 0; i < f.n; i++) {
			units = fabric_plane_count(&f.d[i], gpus);
			printf("    %s (%llu plane%s)\n", fabric_describe(&f.d[i],
			    line, sizeof(line)), (unsigned long long)units,
			    units == 1 ? "" : "s");
		}
	}
	fabric_free(&f);
}

static void
show_net(struct rec *r)
{
	char bw[UNITS_BUFSZ], tau[UNITS_BUFSZ], lat[UNITS_BUFSZ];
	struct net n;

	if (netplanes_is(r)) {
		show_planes(r);
		return;
	}
	if (net_read(r, &n) != 0)
		return;
	printf("  net: %u GPUs, %u switches, %s per port, reconfiguration "
	    "%s (%s model), latency %s\n", n.gpus, n.switches,
	    units_fmt_rate(bw, sizeof(bw), n.bandwidth_bps),
	    units_fmt_time(tau, sizeof(tau), n.reconfig_ps),
	    net_models[n.model], units_fmt_time(lat, sizeof(lat),
	    n.latency_ps));
}

static void
show_schedule(struct rec *r)
{
	char per[UNITS_BUFSZ];
	const char *name, *fwd = "direct";
	size_t len, flen = 6;
	const msgpack_object *f;

	name = rec_str(r, "scheduler", &len);
	if ((f = rec_get(r, "forwarding")) != NULL &&
	    f->type == MSGPACK_OBJECT_STR) {
		fwd = f->via.str.ptr;
		flen = f->via.str.size;
	}
	if (rec_bool_or(r, "periodic", 0))
		printf("  schedule: %.*s, periodic every %s, forwarding %.*s\n",
		    (int)len, name, units_fmt_time(per, sizeof(per),
		    rec_u64_or(r, "period_ps", 0)), (int)flen, fwd);
	else
		printf("  schedule: %.*s, forwarding %.*s\n", (int)len, name,
		    (int)flen, fwd);
}

/* The value of key k in map m, or NULL. */
static const msgpack_object *
map_get(const msgpack_object *m, const char *k)
{
	uint32_t i;

	if (m->type != MSGPACK_OBJECT_MAP)
		return NULL;
	for (i = 0; i < m->via.map.size; i++) {
		const msgpack_object *key = &m->via.map.ptr[i].key;

		if (key->type == MSGPACK_OBJECT_STR &&
		    rec_streq(key->via.str.ptr, key->via.str.size, k))
			return &m->via.map.ptr[i].val;
	}
	return NULL;
}

static uint64_t
map_u64(const msgpack_object *m, const char *k)
{
	const msgpack_object *v = map_get(m, k);

	return v != NULL && v->type == MSGPACK_OBJECT_POSITIVE_INTEGER ?
	    v->via.u64 : 0;
}

/* A tiered fabric's result: each plane description and what it did. */
static void
show_usage(struct rec *r)
{
	const msgpack_object_array *a;
	const msgpack_object *d;
	char t[UNITS_BUFSZ], b[UNITS_BUFSZ], p[200];
	uint32_t i;

	if (!rec_has(r, "planes") || (a = rec_array(r, "planes")) == NULL)
		return;
	for (i = 0; i < a->size; i++) {
		d = map_get(&a->ptr[i], "plane");
		if (d == NULL || d->type != MSGPACK_OBJECT_STR)
			continue;
		printf("  plane %s (%llu): %s in %s busy, %llu "
		    "reconfigurations\n", rec_printable(d->via.str.ptr,
		    d->via.str.size, p, sizeof(p)),
		    (unsigned long long)map_u64(&a->ptr[i], "planes"),
		    units_fmt_size(b, sizeof(b), map_u64(&a->ptr[i], "bytes")),
		    units_fmt_time(t, sizeof(t), map_u64(&a->ptr[i], "busy_ps")),
		    (unsigned long long)map_u64(&a->ptr[i], "reconfigs"));
	}
}

static void
show_result(struct rec *r)
{
	char t[UNITS_BUFSZ], b[UNITS_BUFSZ];
	const char *fab, *sch;
	size_t fl, sl;

	fab = rec_str(r, "fabric", &fl);
	sch = rec_str(r, "scheduler", &sl);
	printf("  result: iteration %s, peak NIC buffer %s, %llu "
	    "reconfigurations (fabric %.*s, scheduler %.*s)\n",
	    units_fmt_time(t, sizeof(t), rec_u64(r, "makespan_ps")),
	    units_fmt_size(b, sizeof(b), rec_u64(r, "peak_buffer_bytes")),
	    (unsigned long long)rec_u64(r, "reconfigs"), (int)fl, fab,
	    (int)sl, sch);
	if (rec_has(r, "peak_nic_bytes")) {
		sch = rec_str(r, "nic_host", &sl);
		printf("  nic: peak %s handed to the NIC (host %.*s",
		    units_fmt_size(b, sizeof(b), rec_u64(r, "peak_nic_bytes")),
		    (int)sl, sch);
		if (rec_u64_or(r, "packet_bytes", 0) > 0)
			printf(", packets of %s", units_fmt_size(t, sizeof(t),
			    rec_u64(r, "packet_bytes")));
		printf(")\n");
	}
	show_usage(r);
	if (rec_has(r, "lower_bound_ps"))
		printf("  bound: no schedule ends before %s\n",
		    units_fmt_time(t, sizeof(t), rec_u64(r, "lower_bound_ps")));
}

static void
show_solve(struct rec *r)
{
	char o[UNITS_BUFSZ], b[UNITS_BUFSZ];
	const char *m, *st;
	size_t ml, sl;

	m = rec_str(r, "method", &ml);
	st = rec_str(r, "status", &sl);
	printf("  solve: %.*s, %.*s, makespan %s, lower bound %s, gap %.2f%%\n",
	    (int)ml, m, (int)sl, st,
	    units_fmt_time(o, sizeof(o), rec_u64(r, "objective_ps")),
	    units_fmt_time(b, sizeof(b), rec_u64(r, "bound_ps")),
	    100 * rec_dbl_or(r, "gap", 0));
}

/*
 * Read a stream to its end, calling fn on every record after checking
 * its place: header records must name our format and version, nothing
 * may follow the end record, and a strict walk wants a stream that
 * begins with a header.  A record that fn fails (rec_fail) stops the
 * walk with its message.
 */
int
report_walk(struct stream_reader *rd, int strict,
    int (*fn)(void *, const struct stream_rec *, struct rec *), void *arg,
    char *err, size_t n)
{
	struct header_end end = { 0, 0, 0 };
	struct stream_rec sr;
	struct rec r;
	int rc;

	while ((rc = stream_next(rd, &sr)) > 0) {
		rec_init(&r, &sr, stream_name(rd));
		if (strict && sr.index == 0 && !stream_rec_is(&sr, "header")) {
			snprintf(err, n, "%s: byte %llu: stream does not begin "
			    "with a header record", stream_name(rd),
			    (unsigned long long)sr.off);
			return -1;
		}
		if ((stream_rec_is(&sr, "header") &&
		    header_check(rd, &sr, err, n) != 0) ||
		    header_follow(&end, rd, &sr, err, n) != 0)
			return -1;
		if (fn(arg, &sr, &r) != 0 || rec_failed(&r)) {
			snprintf(err, n, "%s", rec_error(&r));
			return -1;
		}
	}
	if (rc < 0) {
		snprintf(err, n, "%s", stream_error(rd));
		return -1;
	}
	if (strict && !end.first) {
		snprintf(err, n, "%s: empty input: expected a fluxocs stream",
		    stream_name(rd));
		return -1;
	}
	return header_finish(&end, rd, err, n);
}

static int
summary_rec(void *arg, const struct stream_rec *sr, struct rec *r)
{
	count(arg, sr);
	if (stream_rec_is(sr, "header"))
		show_header(r);
	else if (stream_rec_is(sr, "workload"))
		show_workload(r);
	else if (stream_rec_is(sr, "net"))
		show_net(r);
	else if (stream_rec_is(sr, "schedule"))
		show_schedule(r);
	else if (stream_rec_is(sr, "result"))
		show_result(r);
	else if (stream_rec_is(sr, "solve"))
		show_solve(r);
	return 0;
}

static int
summary(struct stream_reader *rd, char *err, size_t n)
{
	struct counts c;
	size_t i;

	c.n = 0;
	printf("stream: %s\n", stream_name(rd));
	if (report_walk(rd, 0, summary_rec, &c, err, n) != 0)
		return -1;
	printf("  records:");
	for (i = 0; i < c.n; i++)
		printf("%s %s %llu", i ? "," : "", c.t[i].type,
		    (unsigned long long)c.t[i].n);
	printf("\n");
	return 0;
}

enum mode { TABLE, SUMMARY, DUMP, CSV, JSON, PLOT, GNUPLOT, GANTT };

static FILE *
open_in(const char *path)
{
	FILE *fp;

	if (strcmp(path, "-") == 0)
		return stdin;
	if ((fp = fopen(path, "rb")) == NULL)
		die("%s: %s", path, strerror(errno));
	return fp;
}

/*
 * Report's own CSV or JSON lines, by their first byte: a stream begins
 * with a map, never with "f" (of "file,") or "{", and rows are read
 * back only into runs.
 */
static int
rows(FILE *fp, const char *path, enum mode m, struct runs *runs)
{
	char err[400];
	int c = getc(fp);

	if (c == EOF || (c != 'f' && c != '{'))
		return c == EOF || ungetc(c, fp) != EOF ? 0 : -1;
	ungetc(c, fp);
	if (m == DUMP || m == SUMMARY || m == GANTT)
		die("%s: report's %s, not a stream: -d, -s and -g read streams",
		    path, c == 'f' ? "CSV" : "JSON");
	if (rows_read(runs, fp, path, c == 'f', err, sizeof(err)) != 0)
		die("%s", err);
	if (fp != stdin)
		fclose(fp);
	return 1;
}

/* Read, show or gather one stream: fail on the first error. */
static void
one(const char *path, enum mode m, struct runs *runs,
    const struct gantt_opts *go)
{
	struct stream_reader *rd;
	FILE *fp = open_in(path);
	char err[400];
	int rc;

	if ((rc = rows(fp, fp == stdin ? "stdin" : path, m, runs)) != 0) {
		if (rc < 0)
			die("%s: %s", path, strerror(errno));
		return;
	}
	if ((rd = stream_open(fp, fp == stdin ? "stdin" : path)) == NULL)
		die("out of memory");
	if (m == DUMP)
		rc = dump(rd, err, sizeof(err));
	else if (m == SUMMARY)
		rc = summary(rd, err, sizeof(err));
	else if (m == GANTT)
		rc = gantt_write(stdout, rd, go, err, sizeof(err));
	else
		rc = runs_read(runs, rd, path, err, sizeof(err));
	if (rc < 0) {
		fflush(stdout);
		die("%s", err);
	}
	stream_close(rd);
	if (fp != stdin)
		fclose(fp);
	fflush(stdout);		/* a later failure keeps this file's output */
}

static void
setmode(enum mode *m, enum mode to)
{
	if (*m != TABLE && *m != to)
		usage();
	*m = to;
}

static void
window(const char *arg, struct gantt_opts *go)
{
	const char *colon = strchr(arg, ':'), *e;
	char from[64];

	if (colon == NULL || (size_t)(colon - arg) >= sizeof(from)) {
		warnmsg("-w wants FROM:TO, such as 100ms:110ms");
		usage();
	}
	memcpy(from, arg, colon - arg);
	from[colon - arg] = '\0';
	if ((e = units_parse_time(from, &go->from_ps)) != NULL ||
	    (e = units_parse_time(colon + 1, &go->to_ps)) != NULL) {
		warnmsg("-w %s: %s", arg, e);
		usage();
	}
	if (go->to_ps <= go->from_ps) {
		warnmsg("-w %s: the window ends before it starts", arg);
		usage();
	}
}

static void
output(enum mode m, struct runs *runs, const char *prefix)
{
	char err[400];
	int rc = 0;

	runs_relate(runs);
	if (m == TABLE)
		rc = runs_table(stdout, runs);
	else if (m == CSV)
		rc = runs_csv(stdout, runs);
	else if (m == JSON)
		rc = runs_json(stdout, runs);
	else if ((m == GNUPLOT && plot_script(stdout, runs, prefix, err,
	    sizeof(err)) != 0) || (m == PLOT && plot_draw(runs, prefix, err,
	    sizeof(err)) != 0))
		die("%s", err);
	if (rc != 0)
		die("write error: %s", strerror(errno));
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "dump", no_argument, NULL, 'd' },
		{ "gantt", no_argument, NULL, 'g' },
		{ "gnuplot", no_argument, NULL, 'G' },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 'p' },
		{ "summary", no_argument, NULL, 's' },
		{ "window", required_argument, NULL, 'w' },
		CLI_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct gantt_opts go = { 0, 0, 1000 };
	struct runs runs = { NULL, 0, 0 };
	const char *prefix = NULL;
	enum mode m = TABLE;
	int ch, i, gnu = 0, win = 0;

	die_init("report");
	while ((ch = getopt_long(argc, die_argv(argv), "hcdgjp:sw:",
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			setmode(&m, CSV);
			break;
		case 'd':
			setmode(&m, DUMP);
			break;
		case 'g':
			setmode(&m, GANTT);
			break;
		case 'G':
			gnu = 1;
			break;
		case 'j':
			setmode(&m, JSON);
			break;
		case 'p':
			setmode(&m, PLOT);
			prefix = optarg;
			break;
		case 's':
			setmode(&m, SUMMARY);
			break;
		case 'w':
			window(optarg, &go);
			win = 1;
			break;
		case 'h':
			cli_help(USAGE, OPTIONS);
		case CLI_VERSION:
			cli_version();
		default:
			usage();
		}
	}
	if ((gnu && m != PLOT) || (win && m != GANTT) ||
	    (m == GANTT && argc - optind > 1))
		usage();
	if (gnu)
		m = GNUPLOT;
	if (optind == argc)
		one("-", m, &runs, &go);
	for (i = optind; i < argc; i++)
		one(argv[i], m, &runs, &go);
	if (m != DUMP && m != SUMMARY && m != GANTT)
		output(m, &runs, prefix);
	runs_free(&runs);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("write error: %s", strerror(errno));
	return 0;
}
