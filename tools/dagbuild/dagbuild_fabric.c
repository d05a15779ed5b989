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
