/*
 * chakra, export: an op stream (fluxocs(5)) to Chakra execution trace
 * files, <prefix>.<rank>.et, one per rank, and <prefix>.json, the
 * communicator groups (BRIEF section 6).
 *
 * Each rank's file starts with GlobalMetadata "0.0.4"; then one Node
 * per op of the rank, in stream order, with the op's index among the
 * rank's ops as its id and its dependencies as data_deps; a compute
 * op's ctrl_deps name its rank's compute before it (program order,
 * which dagbuild(1) keeps and Chakra's readers do not add).  A compute op
 * becomes a COMP node of duration_micros = its time rounded to the
 * nearest microsecond (halves up); a collective a COMM_COLL node with
 * comm_type, comm_size (an all-gather's per-rank input, the op's size
 * over the group; the others' size as it is), a broadcast's root as
 * comm_src (Chakra names none: chakra(1)'s import reads it back there)
 * and pg_name: "0" for all
 * ranks in rank order, else "1", "2", ... in order of first use,
 * named in the JSON file with their ranks in the op's order; a send a
 * COMM_SEND with comm_dst and comm_tag, a receive a COMM_RECV with
 * comm_src and comm_tag.  Every node has is_cpu_op false.
 *
 * Refused, before any file is written: a rank without ops below the
 * last, a dependency on another rank's op (Chakra's stay within a
 * rank), an unknown dependency or one on the op itself, a group empty,
 * naming a rank twice or past the last, or without the op's rank, an
 * all-gather whose size does not
 * divide by its group, a broadcast whose root is not in its group, an
 * all-to-all whose sizes give a pair other than a plain all-to-all's
 * share (Chakra's has one comm_size), a kind Chakra cannot name here,
 * a tag or rank past int32.  Errors die() as "chakra: stdin: op ID: what".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/coll.h"
#include "records/die.h"
#include "records/filter.h"
#include "records/pbwire.h"
#include "records/rec.h"
#include "records/stream.h"

#include "chakra_out.h"

enum { K_COMPUTE, K_ALLREDUCE, K_ALLGATHER, K_REDUCESCATTER, K_ALLTOALL,
	K_BROADCAST, K_SEND, K_RECV };

static const char *const kinds[] = { "compute", "allreduce", "allgather",
	"reducescatter", "alltoall", "broadcast", "send", "recv", NULL };

/* Chakra's CollectiveCommType of each collective kind above. */
static const int comm_type[] = { -1, 0, 2, 7, 6, 5, -1, -1 };

enum { N_COMP = 4, N_SEND = 5, N_RECV = 6, N_COLL = 7 };

struct xop {
	uint64_t	 id;
	uint32_t	 rank;
	int		 kind;
	char		*name;
	uint64_t	*deps;
	size_t		 ndeps;
	uint64_t	 dur_ps, size, tag;
	uint32_t	 peer;
	uint32_t	 root;		/* broadcast */
	uint32_t	*group;
	size_t		 ngroup;
	size_t		 gname;		/* 0: all ranks, else its number */
	uint32_t	 index;		/* among its rank's ops */
};

struct xp {
	struct xop	*op;
	size_t		 n, cap;
	uint32_t	 nranks;
	size_t		*sorted;	/* ops by id */
	size_t		*byrank;	/* ops by rank, in stream order */
	size_t		*roff;		/* rank r's: byrank[roff[r]..] */
	size_t		*gfirst;	/* an op of each named group */
	size_t		 ng, gcap;
};

static uint32_t *
u32_array(struct rec *r, const char *key, size_t *n)
{
	const msgpack_object_array *a = rec_array_or_empty(r, key);
	uint32_t *v = xcalloc(a->size + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < a->size; i++) {
		uint64_t x = rec_elem_u64(r, key, a, i);

		if (x >= (1U << 20))
			rec_fail(r, "key \"%s\": rank %llu is past 2^20", key,
			    (unsigned long long)x);
		v[i] = (uint32_t)x;
	}
	*n = a->size;
	return v;
}

/*
 * An all-to-all's sizes, read only to refuse what Chakra cannot say:
 * its ALL_TO_ALL has one comm_size, so every pair must get what a
 * plain all-to-all of the op's size gives it (lib/model/coll).
 */
static int
uneven_sizes(struct rec *r, const struct xop *o)
{
	const msgpack_object_array *a;
	size_t i;
	int bad;

	if (o->kind != K_ALLTOALL || !rec_has(r, "sizes"))
		return 0;
	a = rec_array(r, "sizes");
	bad = a->size != o->ngroup;
	for (i = 0; i < a->size && !bad && !rec_failed(r); i++)
		bad = rec_elem_u64(r, "sizes", a, i) != coll_chunk(o->size,
		    (uint32_t)o->ngroup, (uint32_t)i);
	return bad;
}

static void
read_op(struct xp *x, struct rec *r)
{
	const msgpack_object_array *a;
	struct xop *o;
	size_t i, len;
	const char *s;
	int uneven;

	xgrow(&x->op, &x->cap, x->n + 1, sizeof(*x->op));
	o = &x->op[x->n];
	memset(o, 0, sizeof(*o));
	o->id = rec_u64(r, "id");
	o->rank = (uint32_t)rec_u64_max(r, "rank", (1U << 20) - 1);
	o->kind = rec_enum(r, "kind", kinds);
	s = rec_str(r, "name", &len);
	o->name = xcalloc(len + 1, 1);
	memcpy(o->name, s, len);
	a = rec_array_or_empty(r, "deps");
	o->deps = xcalloc(a->size + 1, sizeof(*o->deps));
	for (i = 0; i < a->size; i++)
		o->deps[i] = rec_elem_u64(r, "deps", a, i);
	o->ndeps = a->size;
	if (o->kind == K_COMPUTE)
		o->dur_ps = rec_u64(r, "duration_ps");
	else if (o->kind >= 0)
		o->size = rec_u64(r, "size");
	if (o->kind == K_SEND || o->kind == K_RECV) {
		o->peer = (uint32_t)rec_u64_max(r, "peer", (1U << 20) - 1);
		o->tag = rec_has(r, "tag") ? rec_u64_max(r, "tag",
		    INT32_MAX) : 0;
	} else if (o->kind > K_COMPUTE)
		o->group = u32_array(r, "group", &o->ngroup);
	if (o->kind == K_BROADCAST)
		o->root = (uint32_t)rec_u64_max(r, "root", (1U << 20) - 1);
	uneven = uneven_sizes(r, o);
	if (rec_failed(r))
		die("%s", rec_error(r));
	if (uneven)
		die("stdin: op %llu: an all-to-all with unequal sizes: "
		    "Chakra's ALL_TO_ALL has one comm_size",
		    (unsigned long long)o->id);
	if (o->rank >= x->nranks)
		x->nranks = o->rank + 1;
	x->n++;
}

static int
take(void *arg, const struct stream_rec *sr)
{
	struct rec r;

	if (!stream_rec_is(sr, "op"))
		return 0;
	rec_init(&r, sr, "stdin");
	read_op(arg, &r);
	return 0;
}

static const struct xop *sort_ops;

static int
by_id(const void *a, const void *b)
{
	uint64_t i = sort_ops[*(const size_t *)a].id;
	uint64_t j = sort_ops[*(const size_t *)b].id;

	return i < j ? -1 : i > j;
}

static const struct xop *
find(const struct xp *x, uint64_t id)
{
	size_t lo = 0, hi = x->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (x->op[x->sorted[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n && x->op[x->sorted[lo]].id == id ?
	    &x->op[x->sorted[lo]] : NULL;
}

static int
same_group(const struct xop *a, const struct xop *b)
{
	return a->ngroup == b->ngroup && memcmp(a->group, b->group,
	    a->ngroup * sizeof(*a->group)) == 0;
}

static int
in_group(const struct xop *o, uint32_t rank)
{
	size_t i;

	for (i = 0; i < o->ngroup; i++)
		if (o->group[i] == rank)
			return 1;
	return 0;
}

static int
all_ranks(const struct xp *x, const struct xop *o)
{
	size_t i;

	if (o->ngroup != x->nranks)
		return 0;
	for (i = 0; i < o->ngroup && o->group[i] == i; i++)
		;
	return i == o->ngroup;
}

/*
 * What chakra(1) or dagbuild(1) would refuse of op o, refused before
 * any file is written: a dependency on no op, on another rank's or on
 * itself; a collective's group empty, naming a rank twice or past the
 * last rank with ops, or without o's rank.  seen: nranks counters,
 * seen[r] == tag when r was met in this group.
 */
static void
check_op(const struct xp *x, const struct xop *o, size_t *seen, size_t tag)
{
	const struct xop *d;
	size_t i;

	for (i = 0; i < o->ndeps; i++) {
		if ((d = find(x, o->deps[i])) == NULL)
			die("stdin: op %llu: depends on op %llu, which is not "
			    "in the stream", (unsigned long long)o->id,
			    (unsigned long long)o->deps[i]);
		if (d == o)
			die("stdin: op %llu: depends on itself",
			    (unsigned long long)o->id);
		if (d->rank != o->rank)
			die("stdin: op %llu: depends on op %llu of rank %u: a "
			    "Chakra trace's dependencies stay within a rank",
			    (unsigned long long)o->id,
			    (unsigned long long)d->id, d->rank);
	}
	if (o->kind <= K_COMPUTE || o->kind >= K_SEND)
		return;
	if (o->ngroup == 0)
		die("stdin: op %llu: an empty group", (unsigned long long)o->id);
	for (i = 0; i < o->ngroup; i++) {
		if (o->group[i] >= x->nranks)
			die("stdin: op %llu: its group names rank %u, past the "
			    "last rank with ops (%u)", (unsigned long long)o->id,
			    o->group[i], x->nranks - 1);
		if (seen[o->group[i]] == tag)
			die("stdin: op %llu: its group names rank %u twice",
			    (unsigned long long)o->id, o->group[i]);
		seen[o->group[i]] = tag;
	}
	if (seen[o->rank] != tag)
		die("stdin: op %llu: its group does not hold its rank, %u",
		    (unsigned long long)o->id, o->rank);
}

/*
 * The ops of each rank, in stream order, before any file is written:
 * a rank without ops below one with some is refused (it would be an
 * empty file; a rank number of 2^20 - 1 alone would make a million).
 */
static void
by_rank(struct xp *x)
{
	size_t i;
	uint32_t r;

	x->roff = xcalloc((size_t)x->nranks + 1, sizeof(*x->roff));
	x->byrank = xcalloc(x->n + 1, sizeof(*x->byrank));
	for (i = 0; i < x->n; i++)
		x->roff[x->op[i].rank + 1]++;
	for (r = 0; r < x->nranks; r++) {
		if (x->roff[r + 1] == 0)
			die("stdin: rank %u has no ops, and rank %u has: a "
			    "Chakra trace is a file per rank from 0 to the "
			    "last, each with its rank's ops", r,
			    x->nranks - 1);
		x->roff[r + 1] += x->roff[r];
	}
	for (i = 0; i < x->n; i++)
		x->byrank[x->roff[x->op[i].rank]++] = i;
	for (r = x->nranks; r > 0; r--)		/* back to the starts */
		x->roff[r] = x->roff[r - 1];
	x->roff[0] = 0;
}

/* Ids in order, indices within ranks, names of groups; checks. */
static void
prepare(struct xp *x)
{
	uint32_t *next = xcalloc(x->nranks + 1, sizeof(*next));
	size_t i, j, *seen;

	x->sorted = xcalloc(x->n + 1, sizeof(*x->sorted));
	for (i = 0; i < x->n; i++)
		x->sorted[i] = i;
	sort_ops = x->op;
	qsort(x->sorted, x->n, sizeof(*x->sorted), by_id);
	for (i = 1; i < x->n; i++)
		if (x->op[x->sorted[i]].id == x->op[x->sorted[i - 1]].id)
			die("stdin: op %llu: the id is used twice",
			    (unsigned long long)x->op[x->sorted[i]].id);
	for (i = 0; i < x->n; i++) {
		struct xop *o = &x->op[i];

		o->index = next[o->rank]++;
		if (o->kind <= K_COMPUTE || o->kind >= K_SEND)
			continue;
		if (o->kind == K_ALLGATHER && (o->ngroup == 0 ||
		    o->size % o->ngroup != 0))
			die("stdin: op %llu: an all-gather of %llu bytes over "
			    "%zu ranks: Chakra gives each rank's input, which "
			    "must be whole bytes", (unsigned long long)o->id,
			    (unsigned long long)o->size, o->ngroup);
		if (o->kind == K_BROADCAST && !in_group(o, o->root))
			die("stdin: op %llu: the broadcast's root, rank %u, is "
			    "not in its group", (unsigned long long)o->id,
			    o->root);
		if (all_ranks(x, o))
			continue;
		for (j = 0; j < x->ng && !same_group(&x->op[x->gfirst[j]],
		    o); j++)
			;
		if (j == x->ng) {
			xgrow(&x->gfirst, &x->gcap, x->ng + 1,
			    sizeof(*x->gfirst));
			x->gfirst[x->ng++] = i;
		}
		o->gname = j + 1;
	}
	free(next);
	seen = xcalloc((size_t)x->nranks + 1, sizeof(*seen));
	for (i = 0; i < x->n; i++)
		check_op(x, &x->op[i], seen, i + 1);
	free(seen);
	by_rank(x);
}

/* An AttributeProto made in a, as field 10 of the node in w. */
static void
attr_end(struct pbw *w, struct pbw *a)
{
	if (pbw_failed(a))
		w->failed = 1;
	else
		pbw_bytes(w, 10, a->p, a->n);
	pbw_free(a);
}

static void
attr_int(struct pbw *w, const char *name, uint32_t field, uint64_t v)
{
	struct pbw a;

	pbw_init(&a);
	pbw_str(&a, 1, name);
	pbw_varint(&a, field, v);
	attr_end(w, &a);
}

static void
attr_str(struct pbw *w, const char *name, const char *v)
{
	struct pbw a;

	pbw_init(&a);
	pbw_str(&a, 1, name);
	pbw_str(&a, 29, v);
	attr_end(w, &a);
}

/* The attributes of a communication node (int64 9, int32 7, bool 27). */
static void
comm_attrs(struct pbw *w, const struct xop *o)
{
	char pg[32];
	uint64_t size = o->size;

	if (o->kind == K_SEND || o->kind == K_RECV) {
		attr_int(w, o->kind == K_SEND ? "comm_dst" : "comm_src", 7,
		    o->peer);
		attr_int(w, "comm_tag", 7, o->tag);
		attr_int(w, "comm_size", 9, size);
		return;
	}
	if (o->kind == K_ALLGATHER)
		size /= o->ngroup;
	attr_int(w, "comm_type", 9, (uint64_t)comm_type[o->kind]);
	attr_int(w, "comm_size", 9, size);
	if (o->kind == K_BROADCAST)
		attr_int(w, "comm_src", 7, o->root);
	if (o->gname == 0)
		snprintf(pg, sizeof(pg), "0");
	else
		snprintf(pg, sizeof(pg), "%zu", o->gname);
	attr_str(w, "pg_name", pg);
}

/*
 * Op o as a node; prev is the index of its rank's compute before it, or
 * UINT64_MAX: a compute's ctrl_deps name it, since dagbuild(1) runs a
 * rank's computes in stream order and a reader of Chakra adds no such
 * order of its own.
 */
static void
node(struct pbw *w, const struct xp *x, const struct xop *o, uint64_t prev)
{
	static const int type[] = { N_COMP, N_COLL, N_COLL, N_COLL, N_COLL,
		N_COLL, N_SEND, N_RECV };
	uint64_t *deps = xcalloc(o->ndeps + 1, sizeof(*deps));
	const struct xop *d;
	size_t i;

	for (i = 0; i < o->ndeps; i++) {	/* checked: check_op() */
		d = find(x, o->deps[i]);
		deps[i] = d->index;
	}
	pbw_varint(w, 1, o->index);
	pbw_str(w, 2, o->name);
	pbw_varint(w, 3, (uint64_t)type[o->kind]);
	if (o->kind == K_COMPUTE && prev != UINT64_MAX)
		pbw_packed(w, 4, &prev, 1);
	if (o->ndeps > 0)
		pbw_packed(w, 5, deps, o->ndeps);
	if (o->kind == K_COMPUTE)
		pbw_varint(w, 7, o->dur_ps / 1000000 +
		    (o->dur_ps % 1000000 >= 500000));
	else
		comm_attrs(w, o);
	attr_int(w, "is_cpu_op", 27, 0);
	free(deps);
}

static void
write_rank(const struct xp *x, const char *prefix, uint32_t rank)
{
	char path[4096];
	const struct xop *o;
	struct pbw w;
	uint64_t prev = UINT64_MAX;
	FILE *fp;
	size_t i;

	snprintf(path, sizeof(path), "%s.%u.et", prefix, rank);
	if ((fp = fopen(path, "wb")) == NULL)
		die("%s: %s", path, strerror(errno));
	pbw_init(&w);
	pbw_str(&w, 1, "0.0.4");
	if (pbw_frame(fp, &w) != 0)
		die("%s: %s", path, strerror(errno));
	for (i = x->roff[rank]; i < x->roff[rank + 1]; i++) {
		w.n = 0;
		o = &x->op[x->byrank[i]];
		node(&w, x, o, prev);
		if (o->kind == K_COMPUTE)
			prev = o->index;
		if (pbw_frame(fp, &w) != 0)
			die("%s: %s", path, strerror(errno));
	}
	pbw_free(&w);
	if (fclose(fp) != 0)
		die("%s: %s", path, strerror(errno));
}

static void
write_groups(const struct xp *x, const char *prefix)
{
	char path[4096];
	const struct xop *o;
	size_t g, i;
	FILE *fp;

	snprintf(path, sizeof(path), "%s.json", prefix);
	if ((fp = fopen(path, "w")) == NULL)
		die("%s: %s", path, strerror(errno));
	fputc('{', fp);
	for (g = 0; g < x->ng; g++) {
		o = &x->op[x->gfirst[g]];
		fprintf(fp, "%s\"%zu\": [", g ? ", " : "", g + 1);
		for (i = 0; i < o->ngroup; i++)
			fprintf(fp, "%s%u", i ? ", " : "", o->group[i]);
		fputc(']', fp);
	}
	fputs("}\n", fp);
	if (ferror(fp) || fclose(fp) != 0)
		die("%s: %s", path, strerror(errno));
}

void
chakra_export(const char *prefix, int argc, char **argv)
{
	struct stream_writer *w;
	struct xp x = { 0 };
	FILE *null;
	char err[400];
	size_t i;
	uint32_t r;

	if (strlen(prefix) > 4000)
		die("-x: the prefix is too long");
	if ((null = fopen("/dev/null", "w")) == NULL ||
	    (w = stream_writer(null)) == NULL)
		die("/dev/null: %s", strerror(errno));
	if (filter_run(stdin, "stdin", w, "chakra", argc, argv, take, &x,
	    err, sizeof(err)) != 0)
		die("%s", err);
	if (x.n == 0)
		die("stdin: no op records: pipe tracegen's stream in");
	prepare(&x);
	for (r = 0; r < x.nranks; r++)
		write_rank(&x, prefix, r);
	write_groups(&x, prefix);
	(void)stream_writer_close(w);
	fclose(null);
	for (i = 0; i < x.n; i++) {
		free(x.op[i].name);
		free(x.op[i].deps);
		free(x.op[i].group);
	}
	free(x.op);
	free(x.sorted);
	free(x.byrank);
	free(x.roff);
	free(x.gfirst);
}
