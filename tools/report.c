/*
 * report: show what fluxocs streams hold.
 *
 * With -d every record is printed as one line of JSON: the way to look
 * inside a stream.  Without it, a summary of each stream: the tools
 * that made it, the workload, the network and how many records of
 * each type it holds.  See report(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "header.h"
#include "json.h"
#include "net.h"
#include "rec.h"
#include "stream.h"
#include "units.h"

struct tally {
	char		 type[24];
	uint64_t	 n;
};

static void
usage(void)
{
	fprintf(stderr, "usage: report [-d] [file ...]\n");
	exit(2);
}

static int
dump(struct stream_reader *rd, char *err, size_t n)
{
	struct header_end end = { 0, 0, 0 };
	struct stream_rec sr;
	int rc;

	while ((rc = stream_next(rd, &sr)) > 0) {
		json_print(stdout, sr.obj);
		putchar('\n');
		if (header_follow(&end, rd, &sr, err, n) != 0)
			return -1;
	}
	if (rc < 0) {
		snprintf(err, n, "%s", stream_error(rd));
		return rc;
	}
	return header_finish(&end, rd, err, n);
}

static void
count(struct tally *t, size_t *nt, const struct stream_rec *sr)
{
	size_t i, n = sr->typelen < 23 ? sr->typelen : 23;

	for (i = 0; i < *nt; i++)
		if (strlen(t[i].type) == n && memcmp(t[i].type, sr->type,
		    n) == 0) {
			t[i].n++;
			return;
		}
	if (*nt == 32)
		return;
	memcpy(t[*nt].type, sr->type, n);
	t[*nt].type[n] = '\0';
	t[(*nt)++].n = 1;
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

static void
show_net(struct rec *r)
{
	char bw[UNITS_BUFSZ], tau[UNITS_BUFSZ], lat[UNITS_BUFSZ];
	struct net n;

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

static int
summary(struct stream_reader *rd, char *err, size_t n)
{
	struct header_end end = { 0, 0, 0 };
	struct tally t[32];
	struct stream_rec sr;
	struct rec r;
	size_t nt = 0, i;
	int rc;

	printf("stream: %s\n", stream_name(rd));
	while ((rc = stream_next(rd, &sr)) > 0) {
		count(t, &nt, &sr);
		rec_init(&r, &sr, stream_name(rd));
		if ((stream_rec_is(&sr, "header") &&
		    header_check(rd, &sr, err, n) != 0) ||
		    header_follow(&end, rd, &sr, err, n) != 0)
			return -1;
		if (stream_rec_is(&sr, "header"))
			show_header(&r);
		else if (stream_rec_is(&sr, "workload"))
			show_workload(&r);
		else if (stream_rec_is(&sr, "net"))
			show_net(&r);
		else if (stream_rec_is(&sr, "schedule"))
			show_schedule(&r);
		else if (stream_rec_is(&sr, "result"))
			show_result(&r);
		else if (stream_rec_is(&sr, "solve"))
			show_solve(&r);
		if (rec_failed(&r))
			die("%s", rec_error(&r));
	}
	if (rc < 0) {
		snprintf(err, n, "%s", stream_error(rd));
		return rc;
	}
	if (header_finish(&end, rd, err, n) != 0)
		return -1;
	printf("  records:");
	for (i = 0; i < nt; i++)
		printf("%s %s %llu", i ? "," : "", t[i].type,
		    (unsigned long long)t[i].n);
	printf("\n");
	return 0;
}

static void
one(const char *path, int dumping)
{
	struct stream_reader *rd;
	FILE *fp = stdin;
	char err[400];

	if (strcmp(path, "-") != 0 && (fp = fopen(path, "rb")) == NULL)
		die("%s: %s", path, strerror(errno));
	if ((rd = stream_open(fp, strcmp(path, "-") ? path : "stdin")) ==
	    NULL)
		die("out of memory");
	if ((dumping ? dump(rd, err, sizeof(err)) : summary(rd, err,
	    sizeof(err))) < 0) {
		fflush(stdout);
		die("%s", err);
	}
	stream_close(rd);
	if (fp != stdin)
		fclose(fp);
	fflush(stdout);		/* a later failure keeps this file's output */
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dump", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	int ch, dumping = 0, i;

	die_init("report");
	while ((ch = getopt_long(argc, argv, "d", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			dumping = 1;
			break;
		default:
			usage();
		}
	}
	if (optind == argc)
		one("-", dumping);
	for (i = optind; i < argc; i++)
		one(argv[i], dumping);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("write error: %s", strerror(errno));
	return 0;
}
