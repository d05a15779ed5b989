/*
 * report_gantt: one simulated stream as an SVG timeline (report -g).
 *
 * Every GPU has a row of two lanes, its compute tasks and the transfers
 * it sends; every switch port that ever holds a circuit has a row of
 * its circuits and of the reconfiguration time before each new one.
 * Bars of one lane less than a pixel apart merge, so the output grows
 * with rows x width, not with tasks or periodic circuit instances, and
 * a periodic schedule whose period is under a pixel skips its middle
 * periods.  Every check is made before the first byte is written, so
 * bad input never leaves half a drawing behind; and the rows are
 * capped at MAX_ROWS, which bounds the output.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "records/die.h"
#include "records/rec.h"
#include "report.h"
#include "model/sched.h"
#include "model/taskio.h"
#include "records/stream.h"
#include "records/units.h"

#define LEFT	64		/* room for row labels */
#define TOP	28		/* room for the title */
#define GPU_H	20		/* two lanes of 8 pixels */
#define PORT_H	12
#define GAP	6		/* between groups of rows */
#define NONE	UINT32_MAX
#define MAX_ROWS	4096	/* GPUs and switch ports */

enum kind { K_COMP, K_SEND, K_UP, K_DARK };

static const char *const cls[] = { "c", "t", "u", "r" };
static const char *const nouns[] = { "tasks", "transfers", "circuits",
	"reconfigurations" };

struct span {			/* a taskrun, then a bar to draw */
	uint64_t	 t0, t1;
	uint32_t	 lane, id;	/* lane: GPU * 2 + kind */
};

struct use {			/* a circuit seen from one of its ports */
	uint32_t	 port, c;	/* port: switch * gpus + GPU */
};

struct gantt {
	const char	*name;
	struct net	 net;
	int		 has_net, has_result;
	struct dag	 d;
	struct schedule	 sc;
	struct span	*sp;
	size_t		 nsp, spcap;
	struct use	*u;	/* two per circuit, by port then start */
	uint32_t	*idx;	/* their circuits */
	uint32_t	*all;	/* 0, 1, ... : every circuit */
	unsigned char	*chg;	/* new: in period 0 (1), later (2) */
	uint64_t	 makespan, from, to, end;
	int		 to_end;	/* the window ends at the makespan */
	double		 scale;	/* pixels per picosecond */
	char		 fabric[32], sched[32];
	FILE		*f;
};

struct acc {			/* the bar of one lane being merged */
	struct gantt	*g;
	int		 kind;
	uint32_t	 sw, gpu, id;
	double		 y, x0, x1;
	double		 busy;	/* pixels covered, overlaps twice */
	uint64_t	 t0, t1;
	size_t		 n;
};

static void
esc(FILE *f, const char *s, size_t n)
{
	for (; n > 0; s++, n--)
		if (*s == '&' || *s == '<' || *s == '>')
			fprintf(f, "&#%d;", *s);
		else
			putc(*s < ' ' || *s > '~' ? '?' : *s, f);
}

static void
title(const struct acc *a)
{
	const struct gantt *g = a->g;
	const struct dag_task *t;
	const struct circuit *c;
	char t0[UNITS_BUFSZ], t1[UNITS_BUFSZ], b[UNITS_BUFSZ];

	units_fmt_time(t0, sizeof(t0), a->t0);
	units_fmt_time(t1, sizeof(t1), a->t1);
	if (a->n > 1 || a->id == NONE)
		fprintf(g->f, "%zu %s, ", a->n, nouns[a->kind]);
	else if (a->kind == K_COMP)
		fprintf(g->f, "task %u: compute on GPU %u, ", a->id,
		    g->d.t[a->id].gpu);
	else if (a->kind == K_SEND) {
		t = &g->d.t[a->id];
		fprintf(g->f, "task %u: %s to GPU %u, ", a->id,
		    units_fmt_size(b, sizeof(b), t->amount), t->dst);
	} else if (a->kind == K_UP) {
		c = &g->sc.c[a->id];
		fprintf(g->f, "switch %u port %u: to GPU %u, ", a->sw, a->gpu,
		    c->a == a->gpu ? c->b : c->a);
	} else
		fprintf(g->f, "switch %u port %u: reconfiguring, ", a->sw,
		    a->gpu);
	fprintf(g->f, "%s-%s", t0, t1);
}

/*
 * A merged bar is as opaque as it is busy, but never fainter than 0.2
 * so that it shows; its title says how busy.
 */
static void
flush(struct acc *a)
{
	double busy = a->busy / (a->x1 - a->x0), op;

	if (a->n == 0)
		return;
	busy = busy > 1 ? 1 : busy;
	op = a->n == 1 ? 1 : busy < 0.2 ? 0.2 : busy;
	fprintf(a->g->f, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" "
	    "width=\"%.2f\" height=\"8\"", cls[a->kind], LEFT + a->x0, a->y,
	    a->x1 - a->x0);
	if (op < 0.995)
		fprintf(a->g->f, " opacity=\"%.2f\"", op);
	fprintf(a->g->f, "><title>");
	title(a);
	if (a->n > 1)
		fprintf(a->g->f, " (%.0f%% busy)", 100 * busy);
	fprintf(a->g->f, "</title></rect>\n");
	a->n = 0;
}

/*
 * Add [t0, t1), clipped to the window, busy for a fraction of it;
 * starts come in order.  A bar is at least a pixel wide, and bars
 * less than a pixel apart merge: a lane then holds at most one bar
 * every two pixels.
 */
static void
add(struct acc *a, uint64_t t0, uint64_t t1, uint32_t id, size_t n,
    double busy)
{
	const struct gantt *g = a->g;
	double x0, x1, xend = (double)(g->end - g->from) * g->scale;

	if (t1 <= t0 || t1 <= g->from || t0 >= g->end)
		return;
	x0 = (double)((t0 > g->from ? t0 : g->from) - g->from) * g->scale;
	x1 = (double)((t1 < g->end ? t1 : g->end) - g->from) * g->scale;
	busy *= x1 - x0;
	if (x1 < x0 + 1)
		x1 = x0 + 1;
	if (x1 > xend) {	/* widened at the end: widen to the left */
		x0 = xend - 1 > 0 ? xend - 1 : 0;
		x1 = xend;
	}
	if (a->n > 0 && x0 - a->x1 < 1) {
		a->x1 = x1 > a->x1 ? x1 : a->x1;
		a->t1 = t1 > a->t1 ? t1 : a->t1;
		a->busy += busy;
		a->n += n;
		return;
	}
	flush(a);
	a->x0 = x0;
	a->x1 = x1;
	a->busy = busy;
	a->t0 = t0;
	a->t1 = t1;
	a->id = id;
	a->n = n;
}

static int
take_taskrun(struct gantt *g, struct rec *r)
{
	struct span s;

	s.id = (uint32_t)rec_u64_max(r, "id", UINT32_MAX - 1);
	s.t0 = rec_u64(r, "start_ps");
	s.t1 = rec_u64(r, "end_ps");
	if (rec_failed(r))
		return -1;
	if (s.id >= g->d.n)
		rec_fail(r, "task %u is not in the stream", s.id);
	else if (s.t1 < s.t0)
		rec_fail(r, "end_ps %llu is before start_ps %llu",
		    (unsigned long long)s.t1, (unsigned long long)s.t0);
	if (rec_failed(r))
		return -1;
	s.lane = g->d.t[s.id].gpu * 2 + g->d.t[s.id].kind;
	xgrow(&g->sp, &g->spcap, g->nsp + 1, sizeof(*g->sp));
	g->sp[g->nsp++] = s;
	return 0;
}

static void
copy_str(struct rec *r, const char *key, char *buf, size_t n)
{
	size_t len;
	const char *s = rec_str(r, key, &len);

	snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), s);
}

static int
take(void *arg, const struct stream_rec *sr, struct rec *r)
{
	struct gantt *g = arg;
	int net = stream_rec_is(sr, "net");

	if (net && g->has_net)
		rec_fail(r, "a second net record");
	else if (net) {
		g->has_net = 1;
		return net_read(r, &g->net);
	} else if (!g->has_net && (stream_rec_is(sr, "task") ||
	    stream_rec_is(sr, "circuit")))
		rec_fail(r, "comes before the net record");
	else if (stream_rec_is(sr, "task"))
		return taskio_read(r, &g->d, g->net.gpus);
	else if (stream_rec_is(sr, "schedule"))
		return sched_read_schedule(r, &g->sc);
	else if (stream_rec_is(sr, "circuit"))
		return sched_read_circuit(r, &g->sc, &g->net);
	else if (stream_rec_is(sr, "taskrun"))
		return take_taskrun(g, r);
	else if (stream_rec_is(sr, "result")) {
		g->has_result = 1;
		g->makespan = rec_u64(r, "makespan_ps");
		copy_str(r, "fabric", g->fabric, sizeof(g->fabric));
		copy_str(r, "scheduler", g->sched, sizeof(g->sched));
	}
	return rec_failed(r) ? -1 : 0;
}

static int
cmp_span(const void *x, const void *y)
{
	const struct span *p = x, *q = y;

	if (p->lane != q->lane)
		return p->lane < q->lane ? -1 : 1;
	if (p->t0 != q->t0)
		return p->t0 < q->t0 ? -1 : 1;
	return p->id < q->id ? -1 : p->id > q->id;
}

static int
cmp_use(const void *x, const void *y)
{
	const struct use *p = x, *q = y;

	if (p->port != q->port)
		return p->port < q->port ? -1 : 1;
	return p->c < q->c ? -1 : p->c > q->c;
}

/*
 * Mark the circuits of one switch (sorted by start) that are new for
 * either port: in the first period, where a port's first circuit is
 * free, then in every later one, which follows the period before.
 */
static void
mark_new(struct gantt *g, size_t lo, size_t hi, uint32_t *last)
{
	const struct circuit *c = g->sc.c;
	size_t i;
	int pass;

	for (i = lo; i < hi; i++)
		last[c[i].a] = last[c[i].b] = NONE;
	for (pass = 0; pass < 2; pass++)
		for (i = lo; i < hi; i++) {
			if ((last[c[i].a] != NONE && last[c[i].a] != c[i].b) ||
			    (last[c[i].b] != NONE && last[c[i].b] != c[i].a))
				g->chg[i] |= 1 << pass;
			last[c[i].a] = c[i].b;
			last[c[i].b] = c[i].a;
		}
}

/* Bars of lane a in every later period, and how busy they keep it. */
static size_t
steady(const struct acc *a, const uint32_t *cs, size_t k, double *busy)
{
	const struct gantt *g = a->g;
	uint64_t last = UINT64_MAX;
	size_t i, n = 0;

	*busy = 0;
	for (i = 0; i < k; i++) {
		const struct circuit *c = &g->sc.c[cs[i]];

		if (a->kind == K_UP || ((g->chg[cs[i]] & 2) &&
		    c->from != last)) {	/* switch model: one per time */
			last = a->kind == K_UP ? last : c->from;
			n++;
			*busy += a->kind == K_UP ? c->to - c->from :
			    g->net.reconfig_ps;
		}
	}
	*busy /= g->sc.period;
	return n;
}

/*
 * Draw circuits cs[0..k) of a port, or the reconfigurations before
 * them, in every period that reaches the window.  When a period is
 * under a pixel, the periods between the first two and the last two
 * would merge into one bar anyway: draw that bar instead.
 */
static void
lane(struct acc *a, const uint32_t *cs, size_t k)
{
	const struct gantt *g = a->g;
	uint64_t per = g->sc.periodic ? g->sc.period : 0, p, p0 = 0, p1 = 0;
	uint64_t tau = a->kind == K_DARK ? g->net.reconfig_ps : 0, t, last;
	size_t i, n;
	double busy;

	if (a->kind == K_DARK && tau == 0)
		return;		/* nothing is ever dark */
	if (per > 0 && tau > per)
		tau = per;	/* sched_check allows no change then */
	if (per > 0) {
		p0 = g->from / per;
		p1 = (g->end + tau) / per;
	}
	for (p = p0, last = UINT64_MAX; p <= p1; p++) {
		if (p == p0 + 2 && p1 - p0 > 4 && per * g->scale < 1) {
			if ((n = steady(a, cs, k, &busy)) > 0)
				add(a, p * per, (p1 - 1) * per, NONE,
				    n * (p1 - 1 - p), busy);
			p = p1 - 1;
		}
		for (i = 0; i < k; i++) {
			const struct circuit *c = &g->sc.c[cs[i]];

			t = p * per + c->from;
			if (a->kind == K_UP)
				add(a, t, c->to == SCHED_FOREVER ? g->makespan :
				    p * per + c->to, cs[i], 1, 1);
			else if ((g->chg[cs[i]] & (p > 0 ? 2 : 1)) &&
			    t != last && t <= g->makespan) {
				/* switch model: one per time; none after the
				 * run, which the simulator does not count */
				add(a, t > tau ? t - tau : 0, t, cs[i], 1, 1);
				last = t;
			}
		}
	}
	flush(a);
}

/* The rows of the switch ports that hold circuits, from y on. */
static void
draw_ports(struct gantt *g, double y)
{
	struct acc a = { .g = g };
	uint32_t *last = xmalloc(g->net.gpus * sizeof(*last)), sw = NONE;
	size_t i, j, lo = 0, hi = 0, nu = 2 * g->sc.nc;

	for (i = 0; i < nu; i = j) {
		for (j = i; j < nu && g->u[j].port == g->u[i].port; j++)
			;
		a.sw = g->u[i].port / g->net.gpus;
		a.gpu = g->u[i].port % g->net.gpus;
		if (a.sw != sw) {
			sw = a.sw;
			for (lo = hi; hi < g->sc.nc && g->sc.c[hi].sw == sw;)
				hi++;
			mark_new(g, lo, hi, last);
			y += GAP;
		}
		fprintf(g->f, "<text x=\"4\" y=\"%.2f\">s%u p%u</text>\n",
		    y + 9, a.sw, a.gpu);
		a.y = y + 1;
		a.kind = K_UP;
		lane(&a, g->idx + i, j - i);
		a.kind = K_DARK;
		if (g->net.model == NET_PORT)
			lane(&a, g->idx + i, j - i);
		else
			lane(&a, g->all + lo, hi - lo);
		y += PORT_H;
	}
	free(last);
}

static void
draw_gpus(struct gantt *g)
{
	struct acc a = { .g = g };
	const struct span *s;
	uint32_t i;

	for (i = 0; i < g->net.gpus; i++)
		fprintf(g->f, "<text x=\"4\" y=\"%u\">GPU %u</text>\n",
		    TOP + i * GPU_H + 13, i);
	for (s = g->sp; s < g->sp + g->nsp; s++) {
		if (s == g->sp || s->lane != s[-1].lane) {
			flush(&a);
			a.kind = s->lane & 1;
			a.y = TOP + (s->lane >> 1) * GPU_H + 1 + a.kind * 9;
		}
		add(&a, s->t0, s->t1, s->id, 1, 1);
	}
	flush(&a);
}

/* A step of 1, 2 or 5 x 10^k ps giving at most one tick per 80 pixels. */
static uint64_t
tick_step(uint64_t span, unsigned width)
{
	static const uint64_t m[] = { 1, 2, 5 };
	uint64_t most = width / 80 > 2 ? width / 80 : 2, dec;
	int i;

	for (dec = 1;; dec *= 10)
		for (i = 0; i < 3; i++)
			if (span / (dec * m[i]) <= most)
				return dec * m[i];
}

/* The finest step units_fmt_time() shows at t: it keeps 3 decimals. */
static uint64_t
resolution(uint64_t t)
{
	return t >= 1000000000000ULL ? 1000000000 : t >= 1000000000 ?
	    1000000 : t >= 1000000 ? 1000 : 1;
}

/* Exactly, as the window was given: 1000100us rather than 1s. */
static char *
fmt_exact(char *b, size_t n, uint64_t t)
{
	static const char *const name[] = { "ps", "ns", "us", "ms", "s" };
	uint64_t m = 1000000000000ULL;
	int i = 4;

	if (t % resolution(t) == 0)
		return units_fmt_time(b, n, t);
	for (; t % m != 0; m /= 1000)
		i--;
	snprintf(b, n, "%llu%s", (unsigned long long)(t / m), name[i]);
	return b;
}

static void
axis(struct gantt *g, unsigned width, double y)
{
	uint64_t step = tick_step(g->to - g->from, width), t;
	char b[UNITS_BUFSZ];
	double x;
	int rel;

	/* too fine a step for the labels: show offsets from the start */
	rel = step % resolution(g->to) != 0;
	fprintf(g->f, "<line class=\"a\" x1=\"%d\" y1=\"%.2f\" x2=\"%u\" "
	    "y2=\"%.2f\"/>\n", LEFT, y, LEFT + width, y);
	t = g->from % step && !rel ? g->from - g->from % step + step : g->from;
	for (; t >= g->from && t <= g->to; t += step) {	/* no wrap */
		x = LEFT + (double)(t - g->from) * g->scale;
		fprintf(g->f, "<line class=\"g\" x1=\"%.2f\" y1=\"%d\" "
		    "x2=\"%.2f\" y2=\"%.2f\"/>\n<text class=\"m\" "
		    "x=\"%.2f\" y=\"%.2f\">%s%s</text>\n", x, TOP, x, y + 4,
		    x, y + 16, rel ? "+" : "", units_fmt_time(b, sizeof(b),
		    rel ? t - g->from : t));
		if (g->to - t < step)
			break;
	}
}

static void
legend(struct gantt *g, double y)
{
	static const char *const what[] = { "compute", "transfer sent",
		"circuit up", "reconfiguring" };
	int i;

	for (i = 0; i < 4; i++)
		fprintf(g->f, "<rect class=\"%s\" x=\"%d\" y=\"%.2f\" "
		    "width=\"12\" height=\"8\"/><text x=\"%d\" y=\"%.2f\">"
		    "%s</text>\n", cls[i], LEFT + 120 * i, y,
		    LEFT + 120 * i + 16, y + 8, what[i]);
}

static void
draw(struct gantt *g, unsigned width)
{
	char t[3][UNITS_BUFSZ];
	size_t i, nports = 0, nsw = 0, nu = 2 * g->sc.nc, gpus = g->net.gpus;
	double h;

	for (i = 0; i < nu; i++) {
		nports += i == 0 || g->u[i].port != g->u[i - 1].port;
		nsw += i == 0 || g->u[i].port / gpus != g->u[i - 1].port / gpus;
	}
	h = TOP + gpus * GPU_H + nsw * GAP + nports * PORT_H + 4;
	fprintf(g->f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
	    "height=\"%.0f\">\n<style>text{font:11px sans-serif}"
	    ".m{text-anchor:middle}.c{fill:#4e79a7}"
	    ".t{fill:#f28e2b;fill-opacity:.6}.u{fill:#59a14f}.r{fill:#222}"
	    ".g{stroke:#ddd}.a{stroke:#000}</style>\n<rect width=\"100%%\" "
	    "height=\"100%%\" fill=\"#fff\"/>\n<text x=\"4\" y=\"16\">",
	    LEFT + width + 40, h + 44);
	esc(g->f, g->name, strlen(g->name));
	fprintf(g->f, ": scheduler ");
	esc(g->f, g->sched, strlen(g->sched));
	fprintf(g->f, ", fabric ");
	esc(g->f, g->fabric, strlen(g->fabric));
	fprintf(g->f, "; %s to %s of %s</text>\n",
	    fmt_exact(t[0], sizeof(t[0]), g->from),
	    g->to_end ? units_fmt_time(t[1], sizeof(t[1]), g->to) :
	    fmt_exact(t[1], sizeof(t[1]), g->to),
	    units_fmt_time(t[2], sizeof(t[2]), g->makespan));
	axis(g, width, h);
	draw_gpus(g);
	draw_ports(g, TOP + gpus * GPU_H);
	legend(g, h + 26);
	fprintf(g->f, "</svg>\n");
}

/* Check what was read and set up the window, the bars and the ports. */
static int
prepare(struct gantt *g, const struct gantt_opts *o, char *err, size_t n)
{
	char msg[300];
	size_t i, rows;

	if (g->nsp == 0) {
		snprintf(err, n, "%s: no taskrun records: simulate with "
		    "ocssim -t", g->name);
		return -1;
	}
	if (!g->has_result) {
		snprintf(err, n, "%s: no result record", g->name);
		return -1;
	}
	g->from = o->from_ps;
	g->to = o->to_ps ? o->to_ps : g->makespan;
	g->to_end = o->to_ps == 0;
	if (g->makespan == 0) {
		snprintf(err, n, "%s: the makespan is 0: nothing to draw",
		    g->name);
		return -1;
	}
	if (g->from >= g->makespan) {
		units_fmt_time(msg, sizeof(msg), g->makespan);
		snprintf(err, n, "%s: the window starts after the run ends, "
		    "at %s: nothing to draw", g->name, msg);
		return -1;
	}
	g->end = g->to < g->makespan ? g->to : g->makespan;
	g->end = g->end > g->from ? g->end : g->from;
	g->scale = o->width / (double)(g->to - g->from);
	if (strcmp(g->fabric, "schedule") != 0)
		g->sc.nc = 0;	/* the simulation used none of them */
	if (sched_check(&g->sc, &g->net, msg, sizeof(msg)) != 0) {
		snprintf(err, n, "%s: %s", g->name, msg);
		return -1;
	}
	qsort(g->sp, g->nsp, sizeof(*g->sp), cmp_span);
	g->u = xcalloc(2 * g->sc.nc + 1, sizeof(*g->u));
	g->idx = xcalloc(2 * g->sc.nc + 1, sizeof(*g->idx));
	g->all = xcalloc(g->sc.nc + 1, sizeof(*g->all));
	g->chg = xcalloc(g->sc.nc + 1, 1);
	for (i = 0; i < g->sc.nc; i++) {
		const struct circuit *c = &g->sc.c[i];

		g->u[2 * i] = (struct use){ c->sw * g->net.gpus + c->a, i };
		g->u[2 * i + 1] = (struct use){ c->sw * g->net.gpus + c->b, i };
		g->all[i] = i;
	}
	qsort(g->u, 2 * g->sc.nc, sizeof(*g->u), cmp_use);
	rows = g->net.gpus;
	for (i = 0; i < 2 * g->sc.nc; i++) {
		g->idx[i] = g->u[i].c;
		rows += i == 0 || g->u[i].port != g->u[i - 1].port;
	}
	if (rows <= MAX_ROWS)
		return 0;
	snprintf(err, n, "%s: %zu rows of GPUs and switch ports: more than "
	    "%d to draw", g->name, rows, MAX_ROWS);
	return -1;
}

int
gantt_write(FILE *out, struct stream_reader *rd, const struct gantt_opts *o,
    char *err, size_t n)
{
	struct gantt g;
	int rc = -1;

	memset(&g, 0, sizeof(g));
	dag_init(&g.d);
	sched_init(&g.sc);
	g.name = stream_name(rd);
	if (report_walk(rd, 0, take, &g, err, n) != 0 ||
	    prepare(&g, o, err, n) != 0)
		goto done;
	/* Every check is done: from here on only output can fail. */
	g.f = out;
	draw(&g, o->width);
	if (fflush(out) != 0 || ferror(out)) {
		snprintf(err, n, "write error: %s", strerror(errno));
		goto done;
	}
	rc = 0;
done:
	free(g.sp);
	free(g.u);
	free(g.idx);
	free(g.all);
	free(g.chg);
	dag_free(&g.d);
	sched_free(&g.sc);
	return rc;
}
