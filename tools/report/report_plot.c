/*
 * report_plot.c: iteration time and peak NIC buffer (under both
 * accountings of ocssim(1)) against tau, through gnuplot(1).
 *
 * plot_script() writes a whole gnuplot script, data included, that
 * draws prefix-iteration, prefix-buffer and prefix-nic as PNG and SVG
 * (the nic one on a logarithmic axis, runs without the key left out):
 * one panel
 * per DAG (see report_runs.c), one line per scheduler and mode, the
 * same colour for a scheduler in every panel, the ideal fabric dashed.
 * plot_draw() feeds that script to gnuplot and prints the names of the
 * files it made.  Only simulated runs with a tau and an iteration time
 * above 0 are drawn, since the tau and iteration axes are logarithmic.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "records/die.h"
#include "report.h"

#define NAMESZ	200
#define PANEL_W	560
#define PANEL_H	400

struct names {
	char	(*v)[NAMESZ];
	size_t	 n, cap;
};

/* Each panel: its DAG's group, its title, the series it holds. */
struct panel {
	size_t		 group;
	char		 title[NAMESZ];
	unsigned char	*has;		/* one per name */
	double		 lo[4], hi[4];	/* tau us, iteration ms, buffer MiB,
					   nic KiB (above 0 only) */
};

struct plot {
	struct names	 nm;
	struct panel	*p;
	size_t		 np, cap;
};

static size_t
name_index(struct names *nm, const char *s)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i], s) == 0)
			return i;
	xgrow(&nm->v, &nm->cap, nm->n + 1, sizeof(*nm->v));
	snprintf(nm->v[nm->n], NAMESZ, "%s", s);
	return nm->n++;
}

static int
plotted(const struct run *u)
{
	return u->has_result && u->has_net && u->tau_ps > 0 &&
	    u->makespan_ps > 0;
}

/*
 * A string in gnuplot's single quotes, in which only ' is special; a
 * control character, which could end the line and start a command,
 * becomes '?', and so does what gnuplot would pass into an SVG that is
 * then not XML: a byte outside printable ASCII (not UTF-8, maybe), the
 * '>' of "]]>" (gnuplot escapes < and &, not >).
 */
static void
quote(FILE *fp, const char *s)
{
	const char *p = s;

	putc('\'', fp);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			putc('\'', fp);
		if (*s < ' ' || *s > '~' || (*s == '>' && s - p >= 2 &&
		    s[-1] == ']' && s[-2] == ']'))
			putc('?', fp);
		else
			putc(*s, fp);
	}
	putc('\'', fp);
}

/* Datablock $dG_S: tau (us), iteration (ms), buffer (MiB), nic (KiB,
 * NaN, which gnuplot leaves out, when unknown or 0). */
static void
data(FILE *fp, const struct runs *rs, size_t g, const char *series,
    size_t si)
{
	char buf[NAMESZ];
	size_t i;

	fprintf(fp, "$d%zu_%zu << EOD\n", g, si);
	for (i = 0; i < rs->n; i++) {
		const struct run *u = &rs->v[i];

		if (u->group != g || !plotted(u) ||
		    strcmp(runs_series(u, buf, sizeof(buf)), series) != 0)
			continue;
		fprintf(fp, "%.6f %.6f %.6f ", u->tau_ps / 1e6,
		    u->makespan_ps / 1e9, u->buffer_bytes / 1048576.0);
		if (u->has_nic && u->nic_bytes > 0)
			fprintf(fp, "%.6f\n", u->nic_bytes / 1024.0);
		else
			fputs("NaN\n", fp);
	}
	fputs("EOD\n", fp);
}

static void
extend(struct panel *p, const struct run *u)
{
	double v[4];
	int i;

	v[0] = u->tau_ps / 1e6;
	v[1] = u->makespan_ps / 1e9;
	v[2] = u->buffer_bytes / 1048576.0;
	v[3] = u->has_nic ? u->nic_bytes / 1024.0 : 0;
	for (i = 0; i < 4; i++) {
		if (i == 3 && v[i] == 0)
			continue;
		if (p->lo[i] == 0 || v[i] < p->lo[i])
			p->lo[i] = v[i];
		if (v[i] > p->hi[i])
			p->hi[i] = v[i];
	}
}

/*
 * Autoscaling, unless a logarithmic range is one value: gnuplot warns
 * of those.  The buffer axis is linear from 0, where a peak of 0 fits.
 */
static void
range(FILE *fp, char axis, double lo, double hi, int linear)
{
	if (linear)
		fprintf(fp, "unset logscale %c\nset %crange [0:%g]\n", axis,
		    axis, hi > 0 ? hi * 1.1 : 1);
	else if (lo == hi)
		fprintf(fp, "set logscale %c\nset %crange [%g:%g]\n", axis,
		    axis, lo / 2, hi * 2);
	else
		fprintf(fp, "set logscale %c\nset autoscale %c\n", axis, axis);
}

/* Name the series of every plotted run, then give each DAG a panel. */
static void
panels(const struct runs *rs, struct plot *pl)
{
	char buf[NAMESZ];
	struct panel *p;
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (plotted(&rs->v[i]))
			name_index(&pl->nm, runs_series(&rs->v[i], buf,
			    sizeof(buf)));
	for (i = 0; i < rs->n; i++) {
		const struct run *u = &rs->v[i];

		if (!plotted(u))
			continue;
		if (pl->np == 0 || pl->p[pl->np - 1].group != u->group) {
			xgrow(&pl->p, &pl->cap, pl->np + 1, sizeof(*pl->p));
			p = &pl->p[pl->np++];
			memset(p, 0, sizeof(*p));
			p->group = u->group;
			p->has = xcalloc(pl->nm.n, 1);
			runs_workload(u, p->title, NAMESZ);
			if (u->fabric != NULL)
				snprintf(p->title + strlen(p->title), NAMESZ -
				    strlen(p->title), " on %.60s", u->fabric);
		}
		p = &pl->p[pl->np - 1];
		extend(p, u);
		p->has[name_index(&pl->nm, runs_series(u, buf,
		    sizeof(buf)))] = 1;
	}
}

static const char *const figs[] = { "iteration", "buffer", "nic" };
static const char *const ylabels[] = { "iteration time (ms)",
	"peak NIC buffer, ready bytes (MiB)",
	"peak NIC buffer, bytes handed to the NIC (KiB)" };
static const char *const titles[] = {
	"Iteration time against reconfiguration delay",
	"Peak NIC buffer (ready bytes) against reconfiguration delay",
	"Peak NIC buffer (bytes handed to the NIC) against tau" };
#define NFIG	3

/* Flux's series: drawn last, over the others, and bolder. */
static int
is_flux(const char *series)
{
	return strncmp(series, "flux", 4) == 0 && (series[4] == '\0' ||
	    strchr("/+@", series[4]) != NULL);
}

/* The panel's lines of figure f, Flux's (last) or the others. */
static const char *
lines(FILE *fp, const struct plot *pl, const struct panel *p, int f,
    int last, const char *sep)
{
	size_t s;

	for (s = 0; s < pl->nm.n; s++) {
		if (!p->has[s] || is_flux(pl->nm.v[s]) != last)
			continue;
		fprintf(fp, "%s$d%zu_%zu using 1:%d with linespoints ls %zu "
		    "title ", sep, p->group, s, f + 2, s + 1);
		quote(fp, pl->nm.v[s]);
		sep = ", \\\n    ";
	}
	return sep;
}

/* Figure f of figs[], panel by panel. */
static void
figure(FILE *fp, const struct plot *pl, const char *out, int f, int svg)
{
	size_t np = pl->np, cols = np < 3 ? np : 3, rows, i;
	const struct panel *p;
	const char *sep;
	int last;

	rows = (np + cols - 1) / cols;
	fprintf(fp, "set terminal %s size %zu,%zu font 'sans,%d' noenhanced\n",
	    svg ? "svg" : "pngcairo", PANEL_W * cols, PANEL_H * rows + 30,
	    svg ? 12 : 10);
	fputs("set output ", fp);
	quote(fp, out);
	fprintf(fp, "\nset ylabel '%s'\n", ylabels[f]);
	/* the nic figure's lines keep to the top and the bottom */
	fprintf(fp, "set key %s left\n", f == 2 ? "center" : "top");
	fprintf(fp, "set multiplot layout %zu,%zu title '%s'\n", rows, cols,
	    titles[f]);
	for (i = 0; i < np; i++) {
		p = &pl->p[i];
		range(fp, 'x', p->lo[0], p->hi[0], 0);
		if (f == 2 && p->hi[3] == 0)	/* no nic peak: any range */
			range(fp, 'y', 1, 1, 0);
		else
			range(fp, 'y', p->lo[f + 1], p->hi[f + 1], f == 1);
		fputs("set title ", fp);
		quote(fp, p->title);
		fputs("\nplot", fp);
		sep = " ";
		for (last = 0; last < 2; last++)
			sep = lines(fp, pl, p, f, last, sep);
		putc('\n', fp);
	}
	fputs("unset multiplot\nset output\n", fp);
}

static void
styles(FILE *fp, const struct names *nm)
{
	static const char *const colours[] = {
		"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
		"#e6ab02", "#a6761d", "#666666", "#1f78b4", "#b2df8a",
		"#fb9a99", "#cab2d6"
	};
	size_t s, k = 0;

	for (s = 0; s < nm->n; s++) {
		if (strcmp(nm->v[s], "ideal") == 0)
			fprintf(fp, "set style line %zu lc rgb 'black' dt 2 "
			    "lw 1.5 pt 0\n", s + 1);
		else if (is_flux(nm->v[s])) {
			fprintf(fp, "set style line %zu lc rgb '%s' lw 3 "
			    "pt 5 ps 1.1\n", s + 1, colours[k % 12]);
			k++;
		} else {
			fprintf(fp, "set style line %zu lc rgb '%s' lw 1.5 "
			    "pt %zu ps 0.8\n", s + 1, colours[k % 12],
			    k % 6 + 5);
			k++;
		}
	}
}

static void
plot_free(struct plot *pl)
{
	size_t i;

	for (i = 0; i < pl->np; i++)
		free(pl->p[i].has);
	free(pl->p);
	free(pl->nm.v);
}

static int
no_runs(const struct runs *rs, const char *prefix, char *err, size_t n)
{
	size_t i;

	if (strlen(prefix) > 4000) {
		snprintf(err, n, "-p: the prefix is too long");
		return 1;
	}
	for (i = 0; i < rs->n; i++)
		if (plotted(&rs->v[i]))
			return 0;
	snprintf(err, n, "nothing to plot: no simulated run with a "
	    "reconfiguration delay above 0");
	return 1;
}

int
plot_script(FILE *fp, const struct runs *rs, const char *prefix, char *err,
    size_t n)
{
	struct plot pl;
	char out[4096 + 32];
	size_t i, s;
	int b, svg;

	if (no_runs(rs, prefix, err, n))
		return -1;
	memset(&pl, 0, sizeof(pl));
	panels(rs, &pl);
	fputs("# Made by report(1): iteration time and peak NIC buffer\n"
	    "# (ready bytes, and bytes handed to the NIC) against the\n"
	    "# reconfiguration delay tau.\n", fp);
	for (i = 0; i < pl.np; i++)
		for (s = 0; s < pl.nm.n; s++)
			if (pl.p[i].has[s])
				data(fp, rs, pl.p[i].group, pl.nm.v[s], s);
	styles(fp, &pl.nm);
	fputs("set grid\n"
	    "set format x '%g'\nset format y '%g'\n"
	    "set xlabel 'reconfiguration delay tau (us)'\n", fp);
	for (b = 0; b < NFIG; b++)
		for (svg = 0; svg < 2; svg++) {
			snprintf(out, sizeof(out), "%s-%s.%s", prefix,
			    figs[b], svg ? "svg" : "png");
			figure(fp, &pl, out, b, svg);
		}
	plot_free(&pl);
	if (!ferror(fp))
		return 0;
	snprintf(err, n, "write error: %s", strerror(errno));
	return -1;
}

int
plot_draw(const struct runs *rs, const char *prefix, char *err, size_t n)
{
	void (*old)(int);
	FILE *gp;
	int st, werr;
	size_t f;

	if (no_runs(rs, prefix, err, n))
		return -1;
	fflush(stdout);
	old = signal(SIGPIPE, SIG_IGN);	/* a dead gnuplot is an error */
	if ((gp = popen("gnuplot", "w")) == NULL) {
		signal(SIGPIPE, old);
		snprintf(err, n, "gnuplot: %s", strerror(errno));
		return -1;
	}
	werr = plot_script(gp, rs, prefix, err, n) != 0 || fflush(gp) != 0;
	st = pclose(gp);
	signal(SIGPIPE, old);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || werr) {
		snprintf(err, n, "gnuplot failed%s", WIFEXITED(st) &&
		    WEXITSTATUS(st) == 127 ? ": is gnuplot (gnuplot-nox) "
		    "installed?" : "");
		return -1;
	}
	for (f = 0; f < NFIG; f++)
		printf("%s-%s.png\n%s-%s.svg\n", prefix, figs[f], prefix,
		    figs[f]);
	return 0;
}
