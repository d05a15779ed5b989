/*
 * dagbuild: turn a trace of ops into the task DAG, plus the network.
 *
 * Reads op records (one per rank and op, see fluxocs(5)), matches the
 * ranks' parts of every collective and every send with its receive,
 * expands collectives into point-to-point transfers with the chosen
 * algorithm, and writes a net record and the tasks, numbered densely
 * in a topological order.  Other records pass through.  See dagbuild(1).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/coll.h"
#include "model/dag.h"
#include "model/horizon.h"
#include "model/net.h"
#include "model/taskio.h"
#include "records/cli.h"
#include "records/die.h"
#include "records/filter.h"
#include "records/header.h"
#include "records/mem.h"
#include "records/rec.h"
#include "records/stream.h"
#include "records/units.h"

#include "dagbuild.h"
#include "model/netplanes.h"

static const char *const op_kinds[] = { "compute", "allreduce",
	"allgather", "reducescatter", "alltoall", "broadcast", "send", "recv",
	NULL };

#define OPT_FABRIC	256
#define OPT_EQUAL	257

static const char USAGE[] =
    "usage: dagbuild [-a ring|hd|direct] [-b bandwidth] [-g gpus]"
    " [-L latency]\n"
    "                [-m port|switch] [-r reconfig] [-s switches]\n"
    "                [--fabric=name|file] [--eps-equal-cost[=figures]]\n";

static const char OPTIONS[] =
    "Read ops (tracegen, chakra), write the net and the task DAG (a stream).\n"
    "  -a, --algorithm=ALG     collectives as transfers: ring, hd or direct"
    " (ring)\n"
    "  -b, --bandwidth=RATE    rate of every port each way, as 800Gbps"
    " (800Gbps)\n"
    "      --eps-equal-cost[=FIGURES]\n"
    "                          the fabric's OCS replaced by the EPS its cost"
    " buys\n"
    "      --fabric=F          the net's planes: a preset, a file, or list\n"
    "  -g, --gpus=N            GPUs in the net, at least the trace's (the"
    " trace's)\n"
    "  -L, --latency=TIME      propagation latency of every transfer (0)\n"
    "  -m, --reconfig-model=M  port (only changed ports go dark) or switch"
    " (port)\n"
    "  -r, --reconfig=TIME     reconfiguration delay, as 10us or 1ms (10us)\n"
    "  -s, --switches=N        optical circuit switches, 1 to 1024 (2)\n"
    "  -h, --help              this help\n"
    "      --version           the version and the commit of the build\n";

static void
usage(void)
{
	fputs(USAGE, stderr);
	exit(2);
}

int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

size_t
sort_uniq(void *v, size_t n, size_t sz, int (*cmp)(const void *,
    const void *))
{
	char *c = v;
	size_t i, k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sz, cmp);
	for (i = 0; i < n; i++)
		if (k == 0 || cmp(c + (k - 1) * sz, c + i * sz) != 0)
			memmove(c + k++ * sz, c + i * sz, sz);
	return k;
}

static int
has_dup(const uint32_t *v, uint32_t n)
{
	uint32_t *c = xcalloc(n, sizeof(*c)), i;
	int dup = 0;

	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_u32);
	for (i = 1; i < n && !dup; i++)
		dup = c[i] == c[i - 1];
	free(c);
	return dup;
}

/* A broadcast's root: a rank of the group, kept as its position. */
static void
read_root(struct rec *r, struct op *o)
{
	uint64_t v;

	if (o->kind != OP_BROADCAST || r->failed)
		return;
	v = rec_u64(r, "root");
	for (o->root = 0; o->root < o->ngroup && o->group[o->root] != v;
	    o->root++)
		;
	if (!r->failed && o->root == o->ngroup)
		rec_fail(r, "key \"root\": rank %llu is not in the group",
		    (unsigned long long)v);
}

/*
 * An all-to-all's optional sizes: the bytes to each position of the
 * group, summing exactly to the op's size, its send buffer.
 */
static void
read_sizes(struct rec *r, struct op *o)
{
	const msgpack_object_array *a;
	uint64_t sum = 0, v;
	uint32_t i;

	if (!rec_has(r, "sizes") || r->failed)
		return;
	if (o->kind != OP_ALLTOALL) {
		rec_fail(r, "key \"sizes\": only an all-to-all has sizes");
		return;
	}
	a = rec_array(r, "sizes");
	if (!r->failed && a->size != o->ngroup) {
		rec_fail(r, "key \"sizes\": %u entries for a group of %u",
		    (unsigned)a->size, o->ngroup);
		return;
	}
	o->sizes = xcalloc(o->ngroup, sizeof(*o->sizes));
	for (i = 0; i < o->ngroup && !r->failed; i++) {
		v = o->sizes[i] = rec_elem_u64(r, "sizes", a, i);
		if (!r->failed && sum > UINT64_MAX - v)
			rec_fail(r, "key \"sizes\": the entries sum past "
			    "2^64-1 bytes");
		sum += v;
	}
	if (!r->failed && sum != o->amount)
		rec_fail(r, "key \"sizes\": the entries sum to %llu, not the "
		    "size %llu", (unsigned long long)sum,
		    (unsigned long long)o->amount);
}

/*
 * The longest op name taken, whole: the task names made of it, with
 * "[part]", and a task's deps stay far below a reader's record limit.
 */
#define MAX_NAME	4096

static void
read_op(struct build *b, struct rec *r)
{
	struct ops *os = &b->ops;
	const msgpack_object_array *deps, *grp;
	struct op o = { 0 };
	const char *nm;
	size_t len, i;

	o.off = r->off;
	o.id = rec_u64(r, "id");
	o.rank = (uint32_t)rec_u64_max(r, "rank", NET_MAX_GPUS - 1);
	o.kind = rec_enum(r, "kind", op_kinds);
	nm = rec_str(r, "name", &len);
	if (!r->failed && len > MAX_NAME)
		rec_fail(r, "key \"name\": %zu bytes, over the %d a name may "
		    "have", len, MAX_NAME);
	deps = rec_array(r, "deps");
	if (rec_has(r, "step"))
		o.step = (uint32_t)rec_u64_max(r, "step", DAG_MAX_STEP);
	if (o.kind == OP_COMPUTE)
		o.amount = rec_u64(r, "duration_ps");
	else
		o.amount = rec_u64(r, "size");
	if (IS_COLL(o.kind)) {
		o.key = rec_u64(r, "coll");
		grp = rec_array(r, "group");
		if (!r->failed && grp->size == 0)
			rec_fail(r, "key \"group\": empty group");
		o.group = xcalloc(grp->size, sizeof(*o.group));
		o.ngroup = grp->size;
		for (i = 0; i < grp->size && !r->failed; i++) {
			uint64_t g = rec_elem_u64(r, "group", grp, i);

			if (g >= NET_MAX_GPUS)
				rec_fail(r, "key \"group\": rank %llu out of "
				    "range", (unsigned long long)g);
			o.group[i] = (uint32_t)g;
		}
		if (!r->failed && has_dup(o.group, o.ngroup))
			rec_fail(r, "key \"group\": a rank is listed twice");
		read_root(r, &o);
		read_sizes(r, &o);
	}
	if (!IS_COLL(o.kind) && rec_has(r, "sizes"))
		rec_fail(r, "key \"sizes\": only an all-to-all has sizes");
	if (o.kind != OP_BROADCAST && rec_has(r, "root"))
		rec_fail(r, "key \"root\": only a broadcast has a root");
	if (!IS_COLL(o.kind) && o.kind != OP_COMPUTE) {
		o.peer = (uint32_t)rec_u64_max(r, "peer", NET_MAX_GPUS - 1);
		o.key = rec_u64_or(r, "tag", 0);
	}
	if (!r->failed && os->n >= UINT32_MAX / 2)
		rec_fail(r, "too many ops");
	xgrow(&os->rawdep, &os->depcap, os->ndep + deps->size,
	    sizeof(*os->rawdep));
	for (i = 0; i < deps->size; i++)
		os->rawdep[os->ndep + i] = rec_elem_u64(r, "deps", deps, i);
	if (rec_failed(r))
		die("%s", rec_error(r));
	o.name = xstrndup(nm, len);
	o.dep_off = os->ndep;
	o.ndep = deps->size;
	os->ndep += deps->size;
	xgrow(&os->o, &os->cap, os->n + 1, sizeof(*os->o));
	mem_ahead(os->o, sizeof(*os->o), os->n, os->n + 1, os->cap);
	os->o[os->n++] = o;
}

void
opfail(const struct build *b, const struct op *o, const char *fmt,
    const char *what)
{
	char msg[200];

	char name[64];

	snprintf(msg, sizeof(msg), fmt, what);
	die("%s: byte %llu: op %llu (%s): %s", b->input,
	    (unsigned long long)o->off, (unsigned long long)o->id,
	    rec_printable(o->name, strlen(o->name), name, sizeof(name)), msg);
}

/*
 * An op's dependencies.  rawdep stays NULL while no op has any, and
 * NULL + 0 is undefined: point into it only when there is something.
 */
uint64_t *
op_deps(const struct ops *os, const struct op *o)
{
	return o->ndep == 0 ? NULL : os->rawdep + o->dep_off;
}

static uint32_t
count_gpus(const struct build *b)
{
	uint32_t max = 0, j;
	size_t i;

	for (i = 0; i < b->ops.n; i++) {
		const struct op *o = &b->ops.o[i];

		if (o->rank > max)
			max = o->rank;
		if (o->kind == OP_SEND || o->kind == OP_RECV)
			max = o->peer > max ? o->peer : max;
		for (j = 0; j < o->ngroup; j++)
			max = o->group[j] > max ? o->group[j] : max;
	}
	return max + 1;
}

/* "name[part]" in buf, which has room for MAX_NAME + 16 bytes. */
static const char *
part_name(char *buf, const char *name, int32_t part)
{
	char digits[12];
	size_t n = strlen(name), k = 0;
	uint32_t v = (uint32_t)part;

	do {
		digits[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	memcpy(buf, name, n);
	buf[n++] = '[';
	while (k > 0)
		buf[n++] = digits[--k];
	buf[n++] = ']';
	buf[n] = '\0';
	return buf;
}

/* Each task, named after its op (and its part of a collective). */
static void
write_tasks(struct build *b, msgpack_packer *pk)
{
	char buf[MAX_NAME + 16];
	size_t i;

	for (i = 0; i < b->dag.n; i++) {
		const struct op *o = &b->ops.o[b->taskop[i]];

		taskio_write(pk, &b->dag, i, b->taskpart[i] >= 0 ?
		    part_name(buf, o->name, b->taskpart[i]) : o->name,
		    &o->id);
	}
}

static void
free_build(struct build *b)
{
	size_t i;

	for (i = 0; i < b->ops.n; i++) {
		free(b->ops.o[i].name);
		free(b->ops.o[i].group);
		free(b->ops.o[i].sizes);
	}
	for (i = 0; i < b->nnode; i++)
		free(b->node[i].member);
	free(b->ops.o);
	free(b->ops.rawdep);
	free(b->node);
	dag_free(&b->dag);
	free(b->taskop);
	free(b->taskpart);
	free(b->done);
	free(b->scratch);
}

static const struct option longopts[] = {
	{ "algorithm",		required_argument, NULL, 'a' },
	{ "bandwidth",		required_argument, NULL, 'b' },
	{ "fabric",		required_argument, NULL, OPT_FABRIC },
	{ "eps-equal-cost",	optional_argument, NULL, OPT_EQUAL },
	{ "gpus",		required_argument, NULL, 'g' },
	{ "latency",		required_argument, NULL, 'L' },
	{ "reconfig-model",	required_argument, NULL, 'm' },
	{ "reconfig",		required_argument, NULL, 'r' },
	{ "switches",		required_argument, NULL, 's' },
	CLI_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

static int
pick(const char *opt, const char *arg, const char *const *names)
{
	int i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(arg, names[i]) == 0)
			return i;
	warnmsg("-%s %s: unknown value", opt, arg);
	usage();
	return 0;
}

static void
unit_opt(const char *opt, const char *arg, const char *(*fn)(const char *,
    uint64_t *), uint64_t *out)
{
	const char *e;

	if ((e = fn(arg, out)) != NULL) {
		warnmsg("-%s %s: %s", opt, arg, e);
		usage();
	}
}

/*
 * A delay of the net: past 2^62 ps (53 days) no schedule's times could
 * hold it (lib/model/horizon), so it is refused here, not downstream.
 */
static void
time_opt(const char *opt, const char *arg, uint64_t *out)
{
	unit_opt(opt, arg, units_parse_time, out);
	if (*out <= HORIZON_MAX_PS)
		return;
	warnmsg("-%s %s: over the %llu ps (2^62) a delay may last", opt,
	    arg, (unsigned long long)HORIZON_MAX_PS);
	usage();
}

static void
parse_args(struct build *b, struct net *net, struct fabopt *fo, int argc,
    char **argv)
{
	uint64_t v;
	int ch;

	*net = (struct net){ .switches = 2, .bandwidth_bps = 800000000000ULL,
	    .reconfig_ps = 10000000ULL, .model = NET_PORT };
	while ((ch = getopt_long(argc, die_argv(argv), "ha:b:g:L:m:r:s:",
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'a': b->algo = pick("a", optarg, coll_algos); break;
		case OPT_FABRIC: fabric_opt(fo, optarg); break;
		case OPT_EQUAL: equal_opt(fo, optarg); break;
		case 'b':
			fo->set_b = 1;
			unit_opt("b", optarg, units_parse_rate,
			    &net->bandwidth_bps);
			if (net->bandwidth_bps == 0) {
				warnmsg("-b %s: must be positive", optarg);
				usage();
			}
			break;
		case 'g':
			if (units_parse_count(optarg, 1, NET_MAX_GPUS, &v)) {
				warnmsg("-g %s: not a GPU count", optarg);
				usage();
			}
			net->gpus = (uint32_t)v;
			break;
		case 'L':
			fo->set_L = 1;
			time_opt("L", optarg, &net->latency_ps);
			break;
		case 'm':
			fo->set_m = 1;
			net->model = pick("m", optarg, net_models);
			break;
		case 'r':
			fo->set_r = 1;
			time_opt("r", optarg, &net->reconfig_ps);
			break;
		case 's':
			fo->set_s = 1;
			if (units_parse_count(optarg, 1, NET_MAX_SWITCHES, &v)) {
				warnmsg("-s %s: not a switch count", optarg);
				usage();
			}
			net->switches = (uint32_t)v;
			break;
		case 'h':
			cli_help(USAGE, OPTIONS);
		case CLI_VERSION:
			cli_version();
		default: usage();
		}
	}
	if (optind != argc)
		usage();
}

/* Keep the ops, pass the rest.  Refuse a stream built already. */
static int
take(void *arg, const struct stream_rec *sr)
{
	struct build *b = arg;
	struct rec r;

	if (stream_rec_is(sr, "net") || stream_rec_is(sr, "task"))
		die("%s: byte %llu: the stream already holds a %.*s record: "
		    "it has been through dagbuild", b->input,
		    (unsigned long long)sr->off, (int)sr->typelen, sr->type);
	if (!stream_rec_is(sr, "op"))
		return 1;
	rec_init(&r, sr, b->input);
	read_op(b, &r);
	return 0;
}

static void
read_input(struct build *b, struct stream_writer *w, int argc, char **argv)
{
	char err[400];

	if (filter_run(stdin, b->input, w, "dagbuild", argc, argv, take, b,
	    err, sizeof(err)) != 0)
		die("%s", err);
}

int
main(int argc, char **argv)
{
	struct stream_writer *w;
	struct fabopt fo;
	struct build b;
	struct net net;
	uint32_t need;
	int err;

	die_init("dagbuild");
	memset(&b, 0, sizeof(b));
	memset(&fo, 0, sizeof(fo));
	fabric_init(&fo.fab);
	b.input = "stdin";
	parse_args(&b, &net, &fo, argc, argv);
	fabric_apply(&fo, &net);
	die_if_tty();
	if ((w = stream_writer(stdout)) == NULL)
		die("out of memory");
	read_input(&b, w, argc - 1, argv + 1);
	if (b.ops.n == 0)
		die("%s: no op records in the input", b.input);
	resolve_deps(&b);
	make_nodes(&b);
	need = count_gpus(&b);
	if (net.gpus == 0)
		net.gpus = need;
	else if (net.gpus < need)
		die("-g %u: the trace uses %u GPUs", net.gpus, need);
	fabric_equal_cost(&fo, &net);
	fabric_check_gpus(&fo, net.gpus);
	expand(&b);
	fabric_route(&fo, &b);
	if (fo.on)
		netplanes_write(stream_packer(w), net.gpus, &fo.fab);
	else
		net_write(stream_packer(w), &net);
	write_tasks(&b, stream_packer(w));
	if ((err = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(err));
	free_build(&b);
	fabric_free(&fo.fab);
	return 0;
}
