/*
 * report_runs.c: one run per stream, related to the others, as a
 * table, CSV or JSON.
 *
 * Runs compare only when they schedule the same DAG on the same net
 * but for tau: their workload record and task records are byte for
 * byte the same (every tool passes them through untouched) and so are
 * the net's GPUs, switches, rate, latency and model.  A hash of those
 * is the run's dag key: of the workload record's bytes, the net's
 * figures and the xxh64 digest of the task records' bytes in order,
 * which a stream written with --own gives in its omitted record
 * instead of the records.  The ideal run of a run has its key, whatever
 * its tau, since the ideal fabric never reconfigures; the best run of
 * a run is the fastest run other than an ideal one with its key and
 * its tau.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fabric.h"
#include "model/net.h"
#include "model/netplanes.h"
#include "records/die.h"
#include "records/json.h"
#include "records/rec.h"
#include "report.h"
#include "records/stream.h"
#include "records/units.h"
#include "records/xxh64.h"

#define FNV_OFFSET	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n-- > 0)
		h = (h ^ *c++) * FNV_PRIME;
	return h;
}

/* The hash of n integers, each as 8 bytes little-endian: the same key
 * on every host. */
static uint64_t
fnv_u64s(uint64_t h, const uint64_t *v, size_t n)
{
	unsigned char b[8];
	size_t i;
	int j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < 8; j++)
			b[j] = (unsigned char)(v[i] >> (8 * j));
		h = fnv(h, b, sizeof(b));
	}
	return h;
}

/* A copy of a string key; NULL when optional and absent. */
static char *
dupstr(struct rec *r, const char *key, int required)
{
	const char *v;
	size_t len;

	if (!required && !rec_has(r, key))
		return NULL;
	v = rec_str(r, key, &len);
	return rec_failed(r) ? NULL : xstrndup(v, len);
}

static void
setstr(char **p, char *s)
{
	free(*p);
	*p = s;
}

static void
take_workload(struct run *u, struct rec *r)
{
	setstr(&u->model, dupstr(r, "model", 1));
	setstr(&u->trace, rec_has(r, "trace") ? dupstr(r, "trace", 1) : NULL);
	u->ranks = rec_u64_or(r, "ranks", 0);
	u->layers = rec_u64_or(r, "layers", 0);
	u->tp = rec_u64_or(r, "tp", 1);
	u->dp = rec_u64_or(r, "dp", 1);
	u->pp = rec_u64_or(r, "pp", 1);
}

/*
 * A tiered fabric: every figure of its planes but the OCS delays (runs
 * that differ only in tau relate), and tau: that of its first OCS plane.
 */
static uint64_t
take_planes(struct run *u, struct rec *r, uint64_t h)
{
	struct fabric f;
	uint64_t v[11];
	uint32_t gpus;
	size_t i, j;

	fabric_init(&f);
	if (netplanes_read(r, &gpus, &f) != 0)
		return h;
	u->has_net = 1;
	free(u->fabric);
	u->fabric = xstrdup(strrchr(f.name, '/') != NULL ?
	    strrchr(f.name, '/') + 1 : f.name);
	v[0] = gpus;
	h = fnv_u64s(h, v, 1);
	for (i = 0; i < f.n; i++) {
		const struct plane_desc *d = &f.d[i];

		if (d->kind == PLANE_OCS && u->tau_ps == 0)
			u->tau_ps = d->reconfig_ps;
		v[0] = (uint64_t)d->kind;
		v[1] = (uint64_t)d->attach;
		v[2] = d->k;
		v[3] = d->u;
		v[4] = d->count;
		v[5] = d->rate_bps;
		v[6] = d->latency_ps;
		v[7] = (uint64_t)d->model;
		v[8] = d->radix;
		v[9] = d->over_num;
		v[10] = d->over_den;
		h = fnv_u64s(h, v, 11);
		for (j = 0; j < d->ngpus; j++) {
			v[0] = d->gpus[j].lo;
			v[1] = d->gpus[j].hi;
			h = fnv_u64s(h, v, 2);
		}
	}
	fabric_free(&f);
	return h;
}

/* The flat net by its figures: "2x800Gbps". */
static char *
flat_name(const struct net *n, char *buf, size_t len)
{
	char r[UNITS_BUFSZ];

	snprintf(buf, len, "%ux%s", n->switches, units_fmt_rate(r, sizeof(r),
	    n->bandwidth_bps));
	return buf;
}

static uint64_t
take_net(struct run *u, struct rec *r, uint64_t h)
{
	char name[2 * UNITS_BUFSZ];
	struct net n;
	uint64_t v[5];

	if (netplanes_is(r))
		return take_planes(u, r, h);
	if (net_read(r, &n) != 0)
		return h;
	u->has_net = 1;
	u->tau_ps = n.reconfig_ps;
	free(u->fabric);
	u->fabric = xstrdup(flat_name(&n, name, sizeof(name)));
	v[0] = n.gpus;
	v[1] = n.switches;
	v[2] = n.bandwidth_bps;
	v[3] = n.latency_ps;
	v[4] = (uint64_t)n.model;
	return fnv_u64s(h, v, 5);
}

static void
take_schedule(struct run *u, struct rec *r)
{
	char *fwd = dupstr(r, "forwarding", 0);

	setstr(&u->sched, dupstr(r, "scheduler", 1));
	u->placed = rec_has(r, "placement");
	if (u->mode == NULL)
		u->mode = fwd != NULL ? fwd : xstrdup("direct");
	else
		free(fwd);
}

static void
take_solve(struct run *u, struct rec *r)
{
	u->has_solve = 1;
	setstr(&u->mode, dupstr(r, "method", 1));
	setstr(&u->status, dupstr(r, "status", 1));
	u->gap = rec_dbl_or(r, "gap", 0);
	u->bound_ps = rec_u64(r, "bound_ps");
}

static void
take_result(struct run *u, struct rec *r)
{
	char *fab = dupstr(r, "fabric", 1);

	u->has_result = 1;
	u->makespan_ps = rec_u64(r, "makespan_ps");
	u->buffer_bytes = rec_u64(r, "peak_buffer_bytes");
	if ((u->has_nic = rec_has(r, "peak_nic_bytes"))) {
		u->nic_bytes = rec_u64(r, "peak_nic_bytes");
		setstr(&u->host, dupstr(r, "nic_host", 1));
		u->packet_bytes = rec_u64(r, "packet_bytes");
	}
	if ((u->has_lb = rec_has(r, "lower_bound_ps")))
		u->lower_bound_ps = rec_u64(r, "lower_bound_ps");
	u->reconfigs = rec_u64(r, "reconfigs");
	if (fab != NULL && strcmp(fab, "schedule") != 0) {
		setstr(&u->sched, fab);		/* "ideal" or "static" */
		setstr(&u->mode, NULL);
	} else {
		free(fab);
		if (u->sched == NULL)
			u->sched = dupstr(r, "scheduler", 1);
	}
}

/* A stream holds at most one of these; a second is refused. */
static const char *const single[] = { "workload", "net", "schedule",
	"solve", "result", "omitted" };
#define NSINGLE	(sizeof(single) / sizeof(single[0]))

struct reading {			/* one stream being read into a run */
	struct run	*u;
	uint64_t	 h;		/* the dag key so far, but the tasks */
	struct xxh64	 tasks;		/* the task records' digest */
	uint64_t	 ntasks;
	int		 omitted;	/* an omitted record gave the digest */
	uint64_t	 digest;
	int		 seen[NSINGLE];
};

/* Take what the run needs from one record. */
static int
take(void *arg, const struct stream_rec *sr, struct rec *r)
{
	struct reading *rd = arg;
	size_t i;

	for (i = 0; i < NSINGLE; i++)
		if (stream_rec_is(sr, single[i]) && rd->seen[i]++ > 0) {
			rec_fail(r, "a second %s record: a stream holds one "
			    "run", single[i]);
			return -1;
		}
	if (stream_rec_is(sr, "task")) {
		xxh64_update(&rd->tasks, sr->raw, sr->rawlen);
		rd->ntasks++;
	} else if (stream_rec_is(sr, "omitted")) {
		rd->omitted = 1;
		rd->digest = rec_u64(r, "tasks_xxh64");
	}
	if (rd->omitted && rd->ntasks > 0) {
		rec_fail(r, "task records and an omitted record: the DAG is "
		    "either left out or not");
		return -1;
	}
	if (stream_rec_is(sr, "workload")) {
		rd->h = fnv(rd->h, sr->raw, sr->rawlen);
		take_workload(rd->u, r);
	} else if (stream_rec_is(sr, "net"))
		rd->h = take_net(rd->u, r, rd->h);
	else if (stream_rec_is(sr, "schedule"))
		take_schedule(rd->u, r);
	else if (stream_rec_is(sr, "solve"))
		take_solve(rd->u, r);
	else if (stream_rec_is(sr, "result"))
		take_result(rd->u, r);
	return 0;
}

int
runs_read(struct runs *rs, struct stream_reader *rd, const char *path,
    char *err, size_t n)
{
	struct reading c;

	memset(&c, 0, sizeof(c));
	c.h = FNV_OFFSET;
	xxh64_init(&c.tasks);
	xgrow(&rs->v, &rs->cap, rs->n + 1, sizeof(*rs->v));
	c.u = &rs->v[rs->n];
	memset(c.u, 0, sizeof(*c.u));
	c.u->file = xstrdup(path);
	c.u->order = rs->n++;
	if (report_walk(rd, 1, take, &c, err, n) != 0)
		return -1;
	if (!c.omitted)
		c.digest = xxh64_digest(&c.tasks);
	c.u->dag = fnv_u64s(c.h, &c.digest, 1);
	return 0;
}

static int
is_ideal(const struct run *u)
{
	return u->sched != NULL && strcmp(u->sched, "ideal") == 0;
}

/* By DAG (first appearance), then tau, then place on the command line. */
static int
cmp_run(const void *pa, const void *pb)
{
	const struct run *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->tau_ps != b->tau_ps)
		return a->tau_ps < b->tau_ps ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static void
relate_one(struct runs *rs, struct run *u)
{
	uint64_t ideal = 0, best = 0;
	const struct run *o;
	size_t i, others = 0;

	for (i = 0; i < rs->n; i++) {
		o = &rs->v[i];
		if (!o->has_result || o->dag != u->dag || o->makespan_ps == 0)
			continue;
		if (is_ideal(o) && (ideal == 0 || o->makespan_ps < ideal))
			ideal = o->makespan_ps;
		if (is_ideal(o) || o->tau_ps != u->tau_ps)
			continue;
		if (best == 0 || o->makespan_ps < best)
			best = o->makespan_ps;
		if (o != u)
			others++;
	}
	u->x_ideal = ideal ? (double)u->makespan_ps / ideal : 0;
	/* a schedule alone is the best of one: that says nothing */
	u->x_best = others > 0 ? (double)u->makespan_ps / best : 0;
	u->x_bound = u->has_lb && u->lower_bound_ps > 0 ?
	    (double)u->makespan_ps / u->lower_bound_ps : 0;
}

void
runs_relate(struct runs *rs)
{
	size_t i, j;

	for (i = 0; i < rs->n; i++) {
		for (j = 0; rs->v[j].dag != rs->v[i].dag; j++)
			continue;
		rs->v[i].group = j;
		if (rs->v[i].has_result)
			relate_one(rs, &rs->v[i]);
	}
	if (rs->n > 0)		/* a CSV of no rows: no array to sort */
		qsort(rs->v, rs->n, sizeof(*rs->v), cmp_run);
}

/*
 * "flux", "rotor/vlb", "ideal": how tables and plots name a run, by its
 * scheduler and its mode (forwarding, or the method of fluxsolve) when
 * the two differ.
 */
char *
runs_series(const struct run *u, char *buf, size_t n)
{
	const char *s = u->sched ? u->sched : "-";
	int host = u->has_nic && u->host != NULL && strcmp(u->host, "plan") &&
	    !is_ideal(u);
	size_t k;

	if (u->mode == NULL || strcmp(u->mode, s) == 0)
		snprintf(buf, n, "%s", s);
	else
		snprintf(buf, n, "%s/%s", s, u->mode);
	k = strlen(buf);
	if (u->placed && k < n)
		k += snprintf(buf + k, n - k, "+placed");
	if (host && k < n)
		snprintf(buf + k, n - k, "@%s", u->host);
	return buf;
}

/* The table. */

#define NCOL	15	/* the last, the file, is printed whole */
#define CELL	128

static const char *const heads[NCOL] = {
	"workload", "fabric", "scheduler", "tau", "iteration", "x ideal",
	"x bound", "x best", "peak buffer", "nic buffer", "host", "reconfigs",
	"solve", "gap", "file"
};
static const int leftcol[NCOL] = { 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1,
	0, 1 };

/* "llama3-8b 8L tp4 dp2": the workload in a few words. */
char *
runs_workload(const struct run *u, char *c, size_t n)
{
	const char *base;

	if (u->model == NULL)
		snprintf(c, n, "-");
	else if (u->trace != NULL) {
		base = strrchr(u->trace, '/');
		snprintf(c, n, "%.20s %.60s %llu ranks", u->model,
		    base != NULL ? base + 1 : u->trace,
		    (unsigned long long)u->ranks);
	} else if (u->pp > 1)
		snprintf(c, n, "%.80s %lluL tp%llu dp%llu pp%llu", u->model,
		    (unsigned long long)u->layers, (unsigned long long)u->tp,
		    (unsigned long long)u->dp, (unsigned long long)u->pp);
	else
		snprintf(c, n, "%.80s %lluL tp%llu dp%llu", u->model,
		    (unsigned long long)u->layers, (unsigned long long)u->tp,
		    (unsigned long long)u->dp);
	return c;
}

/* Times and sizes with a fixed number of decimals, so columns align. */
static void
time_cell(uint64_t ps, char *c)
{
	static const struct { const char *u; double d; } t[] = {
		{ "s", 1e12 }, { "ms", 1e9 }, { "us", 1e6 }, { "ns", 1e3 }
	};
	size_t i;

	for (i = 0; i < 4; i++)
		if (ps >= t[i].d) {
			snprintf(c, CELL, "%.3f %s", ps / t[i].d, t[i].u);
			return;
		}
	snprintf(c, CELL, "%llu ps", (unsigned long long)ps);
}

static void
size_cell(uint64_t b, char *c)
{
	static const char *const u[] = { "TiB", "GiB", "MiB", "KiB" };
	int i;

	for (i = 0; i < 4; i++)
		if (b >= 1ULL << (40 - 10 * i)) {
			snprintf(c, CELL, "%.1f %s", (double)b /
			    (1ULL << (40 - 10 * i)), u[i]);
			return;
		}
	snprintf(c, CELL, "%llu B", (unsigned long long)b);
}

static void
ratio_cell(double x, char *c)
{
	if (x > 0)
		snprintf(c, CELL, "%.2f", x);
	else
		snprintf(c, CELL, "-");
}

static void
cells(const struct run *u, char c[NCOL][CELL])
{
	int i;

	for (i = 0; i < NCOL; i++)
		snprintf(c[i], CELL, "-");
	runs_workload(u, c[0], CELL);
	if (u->fabric != NULL)
		snprintf(c[1], CELL, "%.60s", u->fabric);
	runs_series(u, c[2], CELL);
	if (u->has_net)
		units_fmt_time(c[3], CELL, u->tau_ps);
	if (u->has_result) {
		time_cell(u->makespan_ps, c[4]);
		ratio_cell(u->x_ideal, c[5]);
		ratio_cell(u->x_bound, c[6]);
		ratio_cell(u->x_best, c[7]);
		size_cell(u->buffer_bytes, c[8]);
		if (u->has_nic) {
			size_cell(u->nic_bytes, c[9]);
			snprintf(c[10], CELL, "%.20s", u->host ? u->host : "-");
		}
		snprintf(c[11], CELL, "%llu", (unsigned long long)u->reconfigs);
	}
	if (u->has_solve) {
		snprintf(c[12], CELL, "%.20s", u->status ? u->status : "-");
		snprintf(c[13], CELL, "%.3f%%", 100 * u->gap);
	}
	c[14][0] = '\0';
}

static void
row(FILE *fp, char c[NCOL][CELL], const size_t *w, const char *file)
{
	int i;

	for (i = 0; i < NCOL; i++) {
		if (i == NCOL - 1)
			fprintf(fp, "%s\n", file);
		else if (leftcol[i])
			fprintf(fp, "%-*s  ", (int)w[i], c[i]);
		else
			fprintf(fp, "%*s  ", (int)w[i], c[i]);
	}
}

int
runs_table(FILE *fp, const struct runs *rs)
{
	char (*c)[NCOL][CELL], h[NCOL][CELL];
	size_t w[NCOL], i;
	int j;

	c = xreallocarray(NULL, rs->n + 1, sizeof(*c));
	for (j = 0; j < NCOL; j++) {
		snprintf(h[j], CELL, "%s", heads[j]);
		w[j] = strlen(h[j]);
	}
	for (i = 0; i < rs->n; i++) {
		cells(&rs->v[i], c[i]);
		for (j = 0; j < NCOL; j++)
			if (strlen(c[i][j]) > w[j])
				w[j] = strlen(c[i][j]);
	}
	row(fp, h, w, heads[NCOL - 1]);
	for (i = 0; i < rs->n; i++)
		row(fp, c[i], w, rs->v[i].file);
	free(c);
	return ferror(fp) ? -1 : 0;
}

/* CSV (RFC 4180) and JSON lines: exact integers, empty or null when
 * unknown. */

#define NKEY	RUNS_NKEY

enum vkind { V_NONE, V_STR, V_U64, V_DBL, V_BOOL };

struct val {
	enum vkind	 k;
	const char	*s;
	uint64_t	 u;
	double		 d;
};

static void
vals(const struct run *u, struct val *v, char *dag, size_t n)
{
	size_t i;

	for (i = 0; i < NKEY; i++)
		v[i].k = V_NONE;
#define S(i, x)	do { if ((x) != NULL) { v[i].k = V_STR; v[i].s = (x); } } \
	while (0)
#define U(i, x)	do { v[i].k = V_U64; v[i].u = (x); } while (0)
#define D(i, x)	do { if (isfinite(x)) { v[i].k = V_DBL; v[i].d = (x); } } \
	while (0)
	S(0, u->file);
	S(1, u->model);
	if (u->model != NULL) {
		U(2, u->layers);
		U(3, u->tp);
		U(4, u->dp);
		U(5, u->pp);
	}
	S(6, u->sched);
	S(7, u->mode);
	if (u->has_net)
		U(8, u->tau_ps);
	if (u->has_result) {
		U(9, u->makespan_ps);
		if (u->x_ideal > 0)
			D(10, u->x_ideal);
		if (u->x_best > 0)
			D(11, u->x_best);
		U(12, u->buffer_bytes);
		U(13, u->reconfigs);
		if (u->has_lb)
			U(17, u->lower_bound_ps);
		if (u->x_bound > 0)
			D(18, u->x_bound);
		if (u->has_nic) {
			U(19, u->nic_bytes);
			S(20, u->host);
			U(21, u->packet_bytes);
		}
	}
	if (u->has_solve) {
		S(14, u->status);
		D(15, u->gap);
		U(16, u->bound_ps);
	}
	if (u->model != NULL && u->trace != NULL) {
		S(22, u->trace);
		U(23, u->ranks);
	}
	v[24].k = V_BOOL;
	v[24].u = u->placed != 0;
	snprintf(dag, n, "%016llx", (unsigned long long)u->dag);
	S(25, dag);
	if (u->has_net)
		S(26, u->fabric);
#undef S
#undef U
#undef D
}

static void
csv_str(FILE *fp, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, fp);
		return;
	}
	putc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			putc('"', fp);
		putc(*s, fp);
	}
	putc('"', fp);
}

static void
put_val(FILE *fp, const struct val *v, int json)
{
	switch (v->k) {
	case V_NONE:
		if (json)
			fputs("null", fp);
		break;
	case V_STR:
		if (json)
			json_print_str(fp, v->s, strlen(v->s));
		else
			csv_str(fp, v->s);
		break;
	case V_U64:
		fprintf(fp, "%llu", (unsigned long long)v->u);
		break;
	case V_DBL:
		fprintf(fp, "%.17g", v->d);
		break;
	case V_BOOL:
		fputs(v->u ? "true" : "false", fp);
		break;
	}
}

static int
lines(FILE *fp, const struct runs *rs, int json)
{
	struct val v[NKEY];
	char dag[17];
	size_t i, k;

	if (!json)
		for (k = 0; k < NKEY; k++)
			fprintf(fp, "%s%s", runs_keys[k], k + 1 < NKEY ? "," : "\n");
	for (i = 0; i < rs->n; i++) {
		vals(&rs->v[i], v, dag, sizeof(dag));
		for (k = 0; k < NKEY; k++) {
			if (json)
				fprintf(fp, "%s\"%s\":", k ? "," : "{",
				    runs_keys[k]);
			put_val(fp, &v[k], json);
			if (!json)
				putc(k + 1 < NKEY ? ',' : '\n', fp);
		}
		if (json)
			fputs("}\n", fp);
	}
	return ferror(fp) ? -1 : 0;
}

int
runs_csv(FILE *fp, const struct runs *rs)
{
	return lines(fp, rs, 0);
}

int
runs_json(FILE *fp, const struct runs *rs)
{
	return lines(fp, rs, 1);
}
