/*
 * chakra_et: one rank's Chakra execution trace, decoded into nodes;
 * and the communicator groups of a comm_group.json.  See chakra.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra.h"
#include "records/die.h"
#include "records/pbwire.h"

#define SCHEMA	"0.0.4"

struct attr {
	char	name[32];	/* longer names are none we use */
	int	isint, isstr;
	int	big;		/* an unsigned integer past INT64_MAX */
	int64_t	v;
	struct pbuf s;
};

static void __attribute__((noreturn))
bad_node(const char *file, const struct ck_node *nd, const char *fmt,
    const char *arg)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, arg);
	die("%s: node %llu: %s", file, (unsigned long long)nd->id, msg);
}

static void __attribute__((noreturn))
bad_byte(const char *file, uint64_t off, const char *msg)
{
	die("%s: byte %llu: %s", file, (unsigned long long)off, msg);
}

/* A string field as a C string; a NUL in it would cut it: refused. */
static char *
pbstr(const char *file, const struct pbuf *b)
{
	const uint8_t *z = b->n > 0 ? memchr(b->p, '\0', b->n) : NULL;

	if (z != NULL)
		bad_byte(file, b->base + (uint64_t)(z - b->p),
		    "a NUL byte in a string");
	return xstrndup((const char *)b->p, b->n);
}

/* Any integer type of AttributeProto's oneof, as an int64. */
static int
attr_int(const struct pb_field *f, int64_t *v)
{
	switch (f->num) {
	case 7:		/* int32 */
		*v = (int32_t)f->v;
		return f->wt == PB_VARINT;
	case 9:		/* int64 */
		*v = (int64_t)f->v;
		return f->wt == PB_VARINT;
	case 11:	/* uint32 */
		*v = (uint32_t)f->v;
		return f->wt == PB_VARINT;
	case 13:	/* uint64 */
	case 27:	/* bool */
		*v = (int64_t)f->v;
		return f->wt == PB_VARINT && f->v <= INT64_MAX;
	case 15:	/* sint32 */
	case 17:	/* sint64 */
		*v = pb_zigzag(f->v);
		return f->wt == PB_VARINT;
	case 19:	/* fixed32 */
		*v = (uint32_t)f->v;
		return f->wt == PB_I32;
	case 23:	/* sfixed32 */
		*v = (int32_t)(uint32_t)f->v;
		return f->wt == PB_I32;
	case 21:	/* fixed64 */
		*v = (int64_t)f->v;
		return f->wt == PB_I64 && f->v <= INT64_MAX;
	case 25:	/* sfixed64 */
		*v = (int64_t)f->v;
		return f->wt == PB_I64;
	}
	return 0;
}

static void
read_attr(const char *file, const struct pbuf *b, struct attr *a)
{
	struct pb_field f;
	char err[256];
	size_t pos = 0;
	int r;

	memset(a, 0, sizeof(*a));
	while ((r = pb_next(b, &pos, &f, err, sizeof(err))) > 0) {
		if (f.num == 1 && f.wt == PB_LEN) {
			if (f.sub.n < sizeof(a->name)) {
				memcpy(a->name, f.sub.p, f.sub.n);
				a->name[f.sub.n] = '\0';
			} else
				a->name[0] = '\0';
		} else if (f.num == 29 && f.wt == PB_LEN) {
			a->isstr = 1;
			a->s = f.sub;
		} else if (attr_int(&f, &a->v))
			a->isint = 1;
		else if ((f.num == 13 || f.num == 21) && f.v > INT64_MAX)
			a->big = 1;
	}
	if (r < 0)
		die("%s: %s", file, err);
}

static void
need_int(const char *file, const struct ck_node *nd, const struct attr *a)
{
	if (a->big && !a->isint)
		bad_node(file, nd, "attribute %s is past 2^63 - 1", a->name);
	if (!a->isint)
		bad_node(file, nd, "attribute %s is not an integer", a->name);
}

static void
node_attr(const char *file, struct ck_node *nd, const struct pbuf *b)
{
	static const struct { const char *name; unsigned has; } ints[] = {
		{ "comm_type", CK_HAS_TYPE }, { "comm_size", CK_HAS_SIZE },
		{ "comm_src", CK_HAS_SRC }, { "comm_dst", CK_HAS_DST },
		{ "comm_tag", CK_HAS_TAG }, { "num_ops", CK_HAS_OPS },
		{ "tensor_size", CK_HAS_TSIZE }, { "is_cpu_op", 0 },
	};
	struct attr a;
	size_t i;
	char *s;

	read_attr(file, b, &a);
	if (strcmp(a.name, "pg_name") == 0) {
		if (!a.isstr)
			bad_node(file, nd, "attribute %s is not a string",
			    a.name);
		s = pbstr(file, &a.s);	/* which may die: nd keeps its own */
		free(nd->pg);
		nd->pg = s;
		nd->has |= CK_HAS_PG;
		return;
	}
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (strcmp(a.name, ints[i].name) == 0)
			break;
	if (i == sizeof(ints) / sizeof(ints[0]))
		return;
	need_int(file, nd, &a);
	nd->has |= ints[i].has;
	switch (ints[i].has) {
	case CK_HAS_TYPE: nd->comm_type = a.v; break;
	case CK_HAS_SIZE:
		if (a.v < 0)
			bad_node(file, nd, "%s is negative", a.name);
		nd->size = (uint64_t)a.v;
		break;
	case CK_HAS_OPS:
	case CK_HAS_TSIZE:
		if (a.v < 0)
			bad_node(file, nd, "%s is negative", a.name);
		*(ints[i].has == CK_HAS_OPS ? &nd->ops : &nd->tsize) =
		    (uint64_t)a.v;
		break;
	case CK_HAS_SRC: nd->src = a.v; break;
	case CK_HAS_DST: nd->dst = a.v; break;
	case CK_HAS_TAG: nd->tag = a.v; break;
	case 0: nd->cpu = a.v != 0; break;
	}
}

static void
add_dep(struct ck_node *nd, uint64_t d)
{
	xgrow(&nd->dep, &nd->depcap, nd->ndep + 1, sizeof(*nd->dep));
	nd->dep[nd->ndep++] = d;
}

static void
node_deps(const char *file, struct ck_node *nd, const struct pb_field *f)
{
	char err[256];
	size_t pos = 0;
	uint64_t v;

	if (f->wt == PB_VARINT) {	/* unpacked */
		add_dep(nd, f->v);
		return;
	}
	while (pos < f->sub.n) {
		if (pb_varint(&f->sub, &pos, &v, err, sizeof(err)) != 0)
			die("%s: %s", file, err);
		add_dep(nd, v);
	}
}

static void
wrong_type(const char *file, const struct pb_field *f)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "node field %u has wire type %d", f->num,
	    f->wt);
	bad_byte(file, f->off, msg);
}

static void
read_node(const char *file, const struct pbuf *b, struct ck_node *nd)
{
	struct pb_field f;
	char err[256], *s;
	size_t pos = 0;
	int r, len;

	memset(nd, 0, sizeof(*nd));
	nd->off = b->base;
	/* The id first, so that every message can name the node. */
	while ((r = pb_next(b, &pos, &f, err, sizeof(err))) > 0)
		if (f.num == 1 && f.wt == PB_VARINT)
			nd->id = f.v;
	if (r < 0)
		die("%s: %s", file, err);
	pos = 0;
	while (pb_next(b, &pos, &f, err, sizeof(err)) > 0) {
		len = f.wt == PB_LEN;
		switch (f.num) {
		case 1:
			if (len)
				wrong_type(file, &f);
			break;
		case 2:
			if (!len)
				wrong_type(file, &f);
			s = pbstr(file, &f.sub);
			free(nd->name);
			nd->name = s;
			break;
		case 3:
			if (len)
				wrong_type(file, &f);
			if (f.v >= CK_NTYPES)
				die("%s: node %llu: unknown node type %llu",
				    file, (unsigned long long)nd->id,
				    (unsigned long long)f.v);
			nd->type = (uint32_t)f.v;
			break;
		case 4:
		case 5:
			if (f.wt != PB_VARINT && !len)
				wrong_type(file, &f);
			node_deps(file, nd, &f);
			break;
		case 7:
			if (f.wt != PB_VARINT)
				wrong_type(file, &f);
			nd->dur_us = f.v;
			nd->has |= CK_HAS_DUR;
			break;
		case 10:
			if (!len)
				wrong_type(file, &f);
			node_attr(file, nd, &f.sub);
			break;
		}
	}
	if (nd->name == NULL)
		nd->name = xstrdup("");
}

/*
 * Message 0 is GlobalMetadata if it is not a Node: it has no node type
 * (field 3) and no varint id (field 1).  An INVALID node, whose type
 * proto3 leaves out, is refused anyway.
 */
static int
is_metadata(const struct pbuf *b)
{
	struct pb_field f;
	char err[256];
	size_t pos = 0;

	while (pb_next(b, &pos, &f, err, sizeof(err)) > 0)
		if (f.num == 3 || (f.num == 1 && f.wt != PB_LEN))
			return 0;
	return 1;
}

/*
 * The schema version: field 1, or else an attribute "schema" ending in
 * the version (as the MSCCL converter writes "1.0.2-chakra.0.0.4").
 */
static void
read_metadata(const char *file, const struct pbuf *b, struct ck_rank *rk)
{
	struct pb_field f;
	struct attr a;
	char err[256], msg[200];
	char *schema = NULL;
	size_t pos = 0, n;
	int r;

	while ((r = pb_next(b, &pos, &f, err, sizeof(err))) > 0) {
		if (f.num == 1 && f.wt == PB_LEN && rk->version == NULL)
			rk->version = pbstr(file, &f.sub);
		if (f.num == 2 && f.wt == PB_LEN) {
			read_attr(file, &f.sub, &a);
			if (strcmp(a.name, "schema") == 0 && a.isstr &&
			    schema == NULL)
				schema = pbstr(file, &a.s);
		}
	}
	if (r < 0)
		die("%s: %s", file, err);
	if (rk->version == NULL && schema != NULL) {
		n = strlen(schema);
		if (n >= strlen(SCHEMA) &&
		    strcmp(schema + n - strlen(SCHEMA), SCHEMA) == 0) {
			rk->version = schema;
			return;
		}
	}
	if (rk->version == NULL || strcmp(rk->version, SCHEMA) != 0) {
		snprintf(msg, sizeof(msg), "schema version \"%.64s\" is not "
		    SCHEMA " (older traces number the collectives otherwise)",
		    rk->version ? rk->version : schema ? schema : "");
		bad_byte(file, b->base, msg);
	}
	free(schema);
}

void
ck_rank_read(const char *file, struct ck_rank *rk)
{
	FILE *fp;

	if ((fp = fopen(file, "rb")) == NULL)
		die("%s: %s", file, strerror(errno));
	ck_rank_fread(file, fp, rk);
	fclose(fp);
}

void
ck_rank_fread(const char *file, FILE *fp, struct ck_rank *rk)
{
	struct pb_frames fr;
	struct pbuf b;
	char err[256];
	int r;

	memset(rk, 0, sizeof(*rk));
	rk->file = xstrdup(file);
	pb_frames_init(&fr, fp);
	while ((r = pb_frame_next(&fr, &b, err, sizeof(err))) > 0) {
		if (rk->n == 0 && rk->version == NULL && b.base <= 10 &&
		    is_metadata(&b)) {
			read_metadata(file, &b, rk);
			continue;
		}
		xgrow(&rk->node, &rk->cap, rk->n + 1, sizeof(*rk->node));
		read_node(file, &b, &rk->node[rk->n++]);
	}
	if (r < 0)
		die("%s: %s", file, err);
	pb_frames_free(&fr);
}

void
ck_rank_free(struct ck_rank *rk)
{
	size_t i;

	for (i = 0; i < rk->n; i++) {
		free(rk->node[i].name);
		free(rk->node[i].dep);
		free(rk->node[i].pg);
	}
	free(rk->node);
	free(rk->version);
	free(rk->file);
}

/*
 * comm_group.json: one object of arrays of integers.  A small parser
 * of that much JSON: strings with the simple escapes, integers, and
 * whitespace; anything else is refused with its byte offset.
 */
struct jp {
	const char	*file;
	const char	*s;
	size_t		 n, i;
};

static void __attribute__((noreturn))
jp_fail(const struct jp *j, const char *msg)
{
	bad_byte(j->file, j->i, msg);
}

static void
jp_ws(struct jp *j)
{
	while (j->i < j->n && isspace((unsigned char)j->s[j->i]))
		j->i++;
}

static int
jp_peek(struct jp *j)
{
	jp_ws(j);
	return j->i < j->n ? (unsigned char)j->s[j->i] : -1;
}

static void
jp_expect(struct jp *j, int c, const char *what)
{
	if (jp_peek(j) != c)
		jp_fail(j, what);
	j->i++;
}

/*
 * A string, checked to its closing quote before anything is allocated:
 * a name takes what it holds, not the rest of the file.
 */
static char *
jp_string(struct jp *j)
{
	char *out;
	size_t k = 0, i;
	int c;

	jp_expect(j, '"', "expected a string");
	for (i = j->i;; k++) {
		if (i >= j->n) {
			j->i = i;
			jp_fail(j, "end of file inside a string");
		}
		c = (unsigned char)j->s[i++];
		if (c == '"')
			break;
		if (c < 0x20) {
			j->i = i;
			jp_fail(j, "control character in a string");
		}
		if (c == '\\') {
			if (i >= j->n || j->s[i] == '\0' ||
			    strchr("\"\\/", j->s[i]) == NULL) {
				j->i = i;
				jp_fail(j, "unsupported escape in a string");
			}
			i++;
		}
	}
	out = xmalloc(k + 1);
	for (k = 0; j->s[j->i] != '"'; j->i++) {
		if (j->s[j->i] == '\\')
			j->i++;
		out[k++] = j->s[j->i];
	}
	j->i++;
	out[k] = '\0';
	return out;
}

static uint32_t
jp_rank(struct jp *j)
{
	uint64_t v = 0;
	size_t start;

	jp_ws(j);
	start = j->i;
	while (j->i < j->n && isdigit((unsigned char)j->s[j->i])) {
		v = v * 10 + (uint64_t)(j->s[j->i++] - '0');
		if (v >= 1048576) {
			j->i = start;
			jp_fail(j, "rank not below 1048576");
		}
	}
	if (j->i == start)
		jp_fail(j, "expected a rank (an integer from 0)");
	return (uint32_t)v;
}

/* seen: a bit a rank below 2^20, all clear before and after. */
static void
jp_group(struct jp *j, struct ck_group *g, uint8_t *seen)
{
	size_t cap = 0, k;
	uint32_t v;

	jp_expect(j, '[', "expected an array of ranks");
	if (jp_peek(j) == ']') {
		jp_fail(j, "empty group");
	}
	for (;;) {
		xgrow(&g->rank, &cap, g->n + 1, sizeof(*g->rank));
		v = g->rank[g->n] = jp_rank(j);
		if (seen[v >> 3] & (1U << (v & 7)))
			jp_fail(j, "rank twice in a group");
		seen[v >> 3] |= (uint8_t)(1U << (v & 7));
		g->n++;
		if (jp_peek(j) == ']')
			break;
		jp_expect(j, ',', "expected , or ]");
	}
	j->i++;
	for (k = 0; k < g->n; k++)
		seen[g->rank[k] >> 3] = 0;
}

static int
cmp_group(const void *a, const void *b)
{
	const struct ck_group *x = a, *y = b;
	int c;

	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Sorted by name, for ck_groups_find(); a name given twice is refused
 * where it comes again (the first such place in the file).
 */
static void
sort_groups(struct jp *j, struct ck_groups *gs)
{
	uint64_t at = UINT64_MAX;
	size_t k;

	if (gs->n > 1)
		qsort(gs->g, gs->n, sizeof(*gs->g), cmp_group);
	for (k = 1; k < gs->n; k++)
		if (strcmp(gs->g[k - 1].name, gs->g[k].name) == 0 &&
		    gs->g[k].off < at)
			at = gs->g[k].off;
	if (at == UINT64_MAX)
		return;
	j->i = (size_t)at;
	jp_fail(j, "group named twice");
}

const struct ck_group *
ck_groups_find(const struct ck_groups *gs, const char *name)
{
	size_t lo = 0, hi = gs->n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(gs->g[mid].name, name)) == 0)
			return &gs->g[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void
ck_groups_read(const char *file, struct ck_groups *gs)
{
	char *buf = NULL;
	size_t cap = 0, n = 0, k;
	FILE *fp;

	if ((fp = fopen(file, "r")) == NULL)
		die("%s: %s", file, strerror(errno));
	for (;;) {
		xgrow(&buf, &cap, n + 4096, 1);
		k = fread(buf + n, 1, cap - n, fp);
		n += k;
		if (k == 0)
			break;
		if (n > (16UL << 20))
			die("%s: larger than 16 MiB", file);
	}
	if (ferror(fp))
		die("%s: read error", file);
	fclose(fp);
	ck_groups_parse(file, buf, n, gs);
	free(buf);
}

void
ck_groups_parse(const char *file, const char *s, size_t n,
    struct ck_groups *gs)
{
	struct jp j = { file, s, n, 0 };

	/* in gs, so that ck_groups_free() frees it after a refusal too */
	memset(gs, 0, sizeof(*gs));
	gs->seen = xcalloc(1U << 17, 1);
	gs->file = xstrdup(file);
	jp_expect(&j, '{', "expected an object");
	while (jp_peek(&j) != '}') {
		if (gs->n > 0)
			jp_expect(&j, ',', "expected , or }");
		xgrow(&gs->g, &gs->cap, gs->n + 1, sizeof(*gs->g));
		memset(&gs->g[gs->n], 0, sizeof(*gs->g));
		gs->g[gs->n].name = jp_string(&j);
		gs->g[gs->n].off = j.i;
		jp_expect(&j, ':', "expected :");
		jp_group(&j, &gs->g[gs->n], gs->seen);
		gs->n++;
	}
	free(gs->seen);
	gs->seen = NULL;
	j.i++;
	if (jp_peek(&j) != -1)
		jp_fail(&j, "text after the object");
	sort_groups(&j, gs);
}

void
ck_groups_free(struct ck_groups *gs)
{
	size_t i;

	for (i = 0; i < gs->n; i++) {
		free(gs->g[i].name);
		free(gs->g[i].rank);
	}
	free(gs->g);
	free(gs->file);
	free(gs->seen);
}
