/*
 * dagbuild_fabric.c: --fabric: the presets listed, a preset or a file
 * read, the net's options applied to its planes, the fabric checked on
 * the trace's GPUs and the transfers no plane carries routed in hops.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dagbuild.h"
#include "model/cost.h"
#include "model/fabric.h"
#include "model/route.h"
#include "records/die.h"
#include "records/header.h"

#define FABRIC_FILE_MAX	(1UL << 20)

static void
list(void)
{
	const struct fabric_preset *p;
	const char *s, *nl;

	for (p = fabric_presets; p->name != NULL; p++) {
		printf("%-24s%s\n", p->name, p->what);
		for (s = p->text; *s != '\0'; s = nl + 1) {
			nl = strchr(s, '\n');
			printf("%26s%.*s\n", "", (int)(nl - s), s);
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		die("write error: %s", strerror(errno));
	exit(0);
}

static void
read_file(struct fabopt *fo, const char *path)
{
	char err[400], *buf;
	size_t n;
	FILE *fp;

	if ((fp = fopen(path, "rb")) == NULL)
		die("--fabric=%s: not a preset (--fabric=list), and %s",
		    path, strerror(errno));
	buf = xmalloc(FABRIC_FILE_MAX + 1);
	n = fread(buf, 1, FABRIC_FILE_MAX + 1, fp);
	if (ferror(fp))
		die("%s: %s", path, strerror(errno));
	fclose(fp);
	if (n > FABRIC_FILE_MAX)
		die("%s: a fabric is described in 1 MiB at most", path);
	if (fabric_parse(&fo->fab, buf, n, path, err, sizeof(err)) != 0)
		die("%s", err);
	free(buf);
}

void
fabric_opt(struct fabopt *fo, const char *arg)
{
	char err[400];
	size_t i;

	if (strcmp(arg, "list") == 0)
		list();
	for (i = 0; fabric_presets[i].name != NULL; i++)
		if (strcmp(fabric_presets[i].name, arg) == 0)
			break;
	if (fabric_presets[i].name == NULL)
		read_file(fo, arg);
	else if (fabric_preset(&fo->fab, arg, err, sizeof(err)) != 0)
		die("%s", err);
	fo->given = 1;
	fo->on = !fabric_is_paper(&fo->fab);
}

/* A flat net described as a fabric: its figures, but for the options. */
static void
flat(const struct fabopt *fo, struct net *net)
{
	const struct plane_desc *d = &fo->fab.d[0];

	if (!fo->set_s)
		net->switches = d->count;
	if (!fo->set_b)
		net->bandwidth_bps = d->rate_bps;
	if (!fo->set_r)
		net->reconfig_ps = d->reconfig_ps;
	if (!fo->set_m)
		net->model = d->model;
	if (!fo->set_L)
		net->latency_ps = d->latency_ps;
}

/*
 * A fabric of one description "ocs all" with no radix is the paper's
 * flat net, written as such: its figures, which the options override.
 * Any other fabric has its planes' own figures, but for -r, -m and -L,
 * which set every OCS plane's delay and model and every plane's
 * latency; -s and -b are refused.
 */
void
fabric_apply(struct fabopt *fo, struct net *net)
{
	size_t i;

	if (fo->given && !fo->on)
		flat(fo, net);
	if (fo->equal)
		header_minor(STREAM_MINOR_MAX);	/* the net becomes planes */
	if (!fo->on)
		return;
	if (fo->set_s || fo->set_b)
		die("-s and -b describe the paper's flat net; the fabric %s "
		    "gives its planes' own", fo->fab.name);
	for (i = 0; i < fo->fab.n; i++) {
		struct plane_desc *d = &fo->fab.d[i];

		if (fo->set_r && d->kind == PLANE_OCS)
			d->reconfig_ps = net->reconfig_ps;
		if (fo->set_m && d->kind == PLANE_OCS)
			d->model = net->model;
		if (fo->set_L)
			d->latency_ps = net->latency_ps;
	}
	header_minor(STREAM_MINOR_MAX);
}

void
fabric_check_gpus(const struct fabopt *fo, uint32_t gpus)
{
	char err[400];

	if (fo->on && fabric_check(&fo->fab, gpus, err, sizeof(err)) != 0)
		die("%s", err);
}

/* Whether some transfer needs two hops: else routing copies the DAG. */
static int
needs_hops(const struct dag *d, const struct fabric *f)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->t[i].kind == DAG_TRANSFER &&
		    !fabric_joined(f, d->t[i].gpu, d->t[i].dst))
			return 1;
	return 0;
}

/* Route the DAG on the fabric; the tasks keep their ops' names. */
void
fabric_route(struct fabopt *fo, struct build *b)
{
	uint32_t *from, g, h, *op;
	int32_t *part;
	struct dag out;
	int64_t split;
	size_t i;

	if (!fo->on || !needs_hops(&b->dag, &fo->fab))
		return;
	dag_init(&out);
	from = xreallocarray(NULL, 2 * b->dag.n + 1, sizeof(*from));
	if ((split = route_dag(&b->dag, &fo->fab, &out, from, &g, &h)) < 0)
		die(g == UINT32_MAX ? "out of memory routing the DAG" :
		    "no route from GPU %u to GPU %u on fabric %s", g, h,
		    fo->fab.name);
	op = xreallocarray(NULL, out.n + 1, sizeof(*op));
	part = xreallocarray(NULL, out.n + 1, sizeof(*part));
	for (i = 0; i < out.n; i++) {
		op[i] = b->taskop[from[i]];
		part[i] = b->taskpart[from[i]];
	}
	free(from);
	free(b->taskop);
	free(b->taskpart);
	b->taskop = op;
	b->taskpart = part;
	dag_free(&b->dag);
	b->dag = out;
	fo->split = (uint64_t)split;
}

/* --eps-equal-cost[=FIGURES]: the figures, on top of the defaults. */
void
equal_opt(struct fabopt *fo, const char *arg)
{
	char err[300];

	fo->equal = 1;
	fo->fig = cost_defaults;
	if (arg != NULL && cost_parse(&fo->fig, arg, err, sizeof(err)) != 0) {
		warnmsg("--eps-equal-cost=%s: %s", arg, err);
		exit(2);
	}
}

/* The paper's flat net as a fabric: its switches, rate and latency. */
static void
paper_fabric(struct fabopt *fo, const struct net *net)
{
	char err[300];
	struct plane_desc *d;

	if (!fo->given && fabric_preset(&fo->fab, "paper", err,
	    sizeof(err)) != 0)
		die("%s", err);
	d = &fo->fab.d[0];
	d->count = net->switches;
	d->rate_bps = net->bandwidth_bps;
	d->latency_ps = net->latency_ps;
}

static void
say_cost(const struct fabopt *fo, const char *was, uint32_t gpus,
    const struct cost_sum *ocs, const struct cost_sum *eps)
{
	const struct cost_figures *f = &fo->fig;
	char what[400] = "", one[160];
	size_t i, k = 0;

	for (i = 0; i < fo->fab.n; i++) {
		const struct plane_desc *d = &fo->fab.d[i];

		if (d->kind != PLANE_EPS || d->attach == ATTACH_GROUP ||
		    k >= sizeof(what))
			continue;
		k += (size_t)snprintf(what + k, sizeof(what) - k, "%s%s",
		    k > 0 ? "; " : "", fabric_describe(d, one, sizeof(one)));
	}
	warnmsg("--eps-equal-cost: the scale-out of %s on %u GPUs costs "
	    "$%.0f and draws %.0f W (%.0f switch ports, %.0f transceivers); "
	    "that money buys \"%s\": $%.0f, %.0f W (%.0f switch ports, "
	    "%.0f transceivers); figures xcvr_usd=%g xcvr_w=%g eps_usd=%g "
	    "eps_w=%g ocs_usd=%g ocs_w=%g eps_tbps=%g", was, gpus, ocs->usd,
	    ocs->w, ocs->ports, ocs->xcvrs, what, eps->usd, eps->w,
	    eps->ports, eps->xcvrs, f->xcvr_usd, f->xcvr_w, f->eps_usd,
	    f->eps_w, f->ocs_usd, f->ocs_w, f->eps_tbps);
}

/*
 * --eps-equal-cost: the fabric (the paper's net as one when none was
 * given) made the EPS-only fabric of the same cost (model/cost), once
 * the GPUs are known; said on standard error.
 */
void
fabric_equal_cost(struct fabopt *fo, const struct net *net)
{
	struct cost_sum ocs, eps;
	struct fabric out;
	char err[400], was[FABRIC_NAME];

	if (!fo->equal)
		return;
	if (!fo->on)
		paper_fabric(fo, net);
	if (fabric_check(&fo->fab, net->gpus, err, sizeof(err)) != 0)
		die("%s", err);
	fabric_init(&out);
	if (cost_eps_equal(&fo->fab, net->gpus, &fo->fig, &out, &ocs, &eps,
	    err, sizeof(err)) != 0)
		die("--eps-equal-cost: %s", err);
	snprintf(was, sizeof(was), "%s", fo->fab.name);
	fabric_free(&fo->fab);
	fo->fab = out;
	snprintf(fo->fab.name, sizeof(fo->fab.name), "%.40s-eps-equal-cost",
	    was);
	fo->on = 1;
	say_cost(fo, was, net->gpus, &ocs, &eps);
}
