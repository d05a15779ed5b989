/* taskfast: task records read from and written to their bytes. */
#include <stdint.h>
#include <string.h>

#include "model/dag.h"
#include "model/taskfast.h"
#include "records/mpk.h"
#include "records/mpkshape.h"
#include "records/rec.h"
#include "records/stream.h"

enum { F_ID, F_KIND, F_DEPS, F_STEP, F_GPU, F_DUR, F_SRC, F_DST, F_BYTES,
	F_N };

/* The key's index, F_N for any other: by length, then bytes. */
static int
key(const char *s, uint32_t n)
{
	switch (n) {
	case 2:
		return memcmp(s, "id", 2) == 0 ? F_ID : F_N;
	case 3:
		if (memcmp(s, "gpu", 3) == 0)
			return F_GPU;
		if (memcmp(s, "src", 3) == 0)
			return F_SRC;
		return memcmp(s, "dst", 3) == 0 ? F_DST : F_N;
	case 4:
		if (memcmp(s, "kind", 4) == 0)
			return F_KIND;
		if (memcmp(s, "deps", 4) == 0)
			return F_DEPS;
		return memcmp(s, "step", 4) == 0 ? F_STEP : F_N;
	case 5:
		return memcmp(s, "bytes", 5) == 0 ? F_BYTES : F_N;
	case 11:
		return memcmp(s, "duration_ps", 11) == 0 ? F_DUR : F_N;
	}
	return F_N;
}

#define BIT(k)		(1U << (k))
#define NEED_ALL	(BIT(F_ID) | BIT(F_KIND) | BIT(F_DEPS))
#define NEED_COMPUTE	(NEED_ALL | BIT(F_GPU) | BIT(F_DUR))
#define NEED_TRANSFER	(NEED_ALL | BIT(F_SRC) | BIT(F_DST) | BIT(F_BYTES))

struct fields {
	uint64_t	 v[F_N];
	unsigned	 seen;
	uint32_t	 pos[F_N];	/* which pair of the map */
	int		 kind;
	uint32_t	*dep, ndep;
	uint64_t	 maxdep;	/* 0 when none */
};

static int
read_kind(struct mpk *m, struct fields *f)
{
	const char *s;
	uint32_t n;

	if (mpk_str(m, &s, &n) != 0)
		return -1;
	if (n == 7 && memcmp(s, "compute", 7) == 0)
		f->kind = DAG_COMPUTE;
	else if (n == 8 && memcmp(s, "transfer", 8) == 0)
		f->kind = DAG_TRANSFER;
	else
		return -1;
	return 0;
}

/* The dependencies, in place in the dag's room for them. */
static int
read_deps(struct mpk *m, struct fields *f, struct dag *d)
{
	uint64_t v;
	uint32_t i;

	if (mpk_array(m, &f->ndep) != 0 ||
	    (f->dep = dag_dep_space(d, f->ndep)) == NULL)
		return -1;
	f->maxdep = 0;
	for (i = 0; i < f->ndep; i++) {
		if (mpk_u64(m, &v) != 0 || v >= UINT32_MAX)
			return -1;
		f->dep[i] = (uint32_t)v;
		if (v > f->maxdep)
			f->maxdep = v;
	}
	return 0;
}

static int
read_field(struct mpk *m, int k, uint32_t i, struct fields *f,
    struct dag *d)
{
	if (k == F_N)
		return mpk_skip(m);
	if (f->seen & BIT(k))
		return -1;
	f->seen |= BIT(k);
	f->pos[k] = i;
	if (k == F_KIND)
		return read_kind(m, f);
	if (k == F_DEPS)
		return read_deps(m, f, d);
	return mpk_u64(m, &f->v[k]);
}

/* The checks of taskio_read(), all passed, into t; else -1. */
static int
check(struct fields *f, const struct dag *d, uint32_t gpus,
    struct dag_task *t)
{
	int xfer = f->kind == DAG_TRANSFER;
	unsigned need = xfer ? NEED_TRANSFER : NEED_COMPUTE;

	if (!(f->seen & BIT(F_STEP)))
		f->v[F_STEP] = 0;
	if ((f->seen & need) != need || f->v[F_STEP] > DAG_MAX_STEP ||
	    f->v[F_ID] != d->n || (f->ndep > 0 && f->maxdep >= f->v[F_ID]))
		return -1;
	t->kind = (uint8_t)f->kind;
	t->step = (uint16_t)f->v[F_STEP];
	t->gpu = 0;
	if (!xfer) {
		if (f->v[F_GPU] >= gpus)
			return -1;
		t->gpu = (uint32_t)f->v[F_GPU];
		t->amount = f->v[F_DUR];
		return 0;
	}
	if (f->v[F_SRC] >= gpus || f->v[F_DST] >= gpus ||
	    f->v[F_SRC] == f->v[F_DST])
		return -1;
	t->gpu = (uint32_t)f->v[F_SRC];
	t->dst = (uint32_t)f->v[F_DST];
	t->amount = f->v[F_BYTES];
	return 0;
}

/*
 * Where taskio_read_tree() would now expect each key (dag.h, hint):
 * with a key twice in a later record, which one it takes depends on
 * them, so they must move as if it had read this record.
 */
static void
hint(const struct fields *f, struct dag *d)
{
	uint32_t *h = d->hint[f->kind];
	int k;

	for (k = F_ID; k <= F_STEP; k++)
		if (f->seen & BIT(k))
			h[k] = f->pos[k];
	if (f->kind == DAG_COMPUTE) {
		h[4] = f->pos[F_GPU];
		h[5] = f->pos[F_DUR];
	} else {
		h[4] = f->pos[F_SRC];
		h[5] = f->pos[F_DST];
		h[6] = f->pos[F_BYTES];
	}
}

/*
 * A record as taskfast_write() lays it out, read at one go into a
 * task: a fixmap of 7 to 15 pairs, "type" first, then id, kind, deps,
 * the kind's keys and step, then "op" or "name" in any order.  The keys
 * (and the type and kind) between two values are compared as one block
 * of bytes each.  Any other layout, or a value out of it (a signed
 * integer, say), and the caller reads the record key by key.
 */
struct quick {
	uint64_t	 id, a, b, amount, step;	/* a: gpu or src */
	uint64_t	 ndep, maxdep;
	uint32_t	*dep;
	int		 kind;
};

/* The dependencies, in place in the dag's room for them. */
static int
quick_deps(struct shape *sh, struct quick *q, struct dag *d)
{
	uint64_t v, n;
	uint32_t i;

	if (sh->p >= sh->end)
		return -1;
	if ((sh->p[0] & 0xf0) == 0x90)
		n = *sh->p++ & 0x0f;
	else if (sh->p[0] == 0xdc && sh->end - sh->p > 2) {
		n = mpk_be(sh->p + 1, 2);
		sh->p += 3;
	} else
		return -1;
	if (n > (size_t)(sh->end - sh->p) ||
	    (q->dep = dag_dep_space(d, n)) == NULL)
		return -1;
	q->ndep = n;
	q->maxdep = 0;
	for (i = 0; i < n; i++) {
		if (shape_uint(sh, &v) != 0)
			return -1;
		q->dep[i] = (uint32_t)v;	/* checked: below the id */
		if (v > q->maxdep)
			q->maxdep = v;
	}
	return 0;
}

/* After step: "op" (an integer) and "name" (a string), skipped. */
static int
quick_tail(struct shape *sh, uint32_t left)
{
	uint64_t v;
	size_t len;

	for (; left > 0; left--) {
		if (SHAPE_BLOCK(sh, "\xa2" "op")) {
			if (shape_uint(sh, &v) != 0)
				return -1;
			continue;
		}
		if (!SHAPE_BLOCK(sh, "\xa4" "name") || sh->p >= sh->end)
			return -1;
		if ((sh->p[0] & 0xe0) == 0xa0)
			len = *sh->p++ & 0x1f;
		else if (sh->p[0] == 0xd9 && sh->end - sh->p > 1) {
			len = sh->p[1];
			sh->p += 2;
		} else
			return -1;
		if (len > (size_t)(sh->end - sh->p))
			return -1;
		sh->p += len;
	}
	return 0;
}

static int
quick_transfer(struct shape *sh, struct quick *q)
{
	if (sh->pairs < 8 || !SHAPE_FIELD(sh, "\xa3" "src", &q->a) ||
	    !SHAPE_FIELD(sh, "\xa3" "dst", &q->b) ||
	    !SHAPE_FIELD(sh, "\xa5" "bytes", &q->amount) ||
	    !SHAPE_FIELD(sh, "\xa4" "step", &q->step))
		return -1;
	return quick_tail(sh, sh->pairs - 8);
}

static int
quick_compute(struct shape *sh, struct quick *q)
{
	q->b = 0;
	if (!SHAPE_FIELD(sh, "\xa3" "gpu", &q->a) ||
	    !SHAPE_FIELD(sh, "\xab" "duration_ps", &q->amount) ||
	    !SHAPE_FIELD(sh, "\xa4" "step", &q->step))
		return -1;
	return quick_tail(sh, sh->pairs - 7);
}

/*
 * The fewest bytes of a record quick_read() takes: a compute task with
 * no dependencies and one-byte integers, "op" and "name" left out (each
 * block's size counts its terminating NUL, in place of the one-byte
 * value or array header after it).  Once a buffer's first record is
 * read, taskfast_run() makes room for as many tasks as it can hold so.
 */
#define QUICK_MIN	(1 + \
	sizeof("\xa4" "type" "\xa4" "task" "\xa2" "id") + \
	sizeof("\xa4" "kind" "\xa7" "compute" "\xa4" "deps") + \
	sizeof("\xa3" "gpu") + sizeof("\xab" "duration_ps") + \
	sizeof("\xa4" "step"))

/* On success sh->p is at the end of the record. */
static int
quick_read(struct shape *sh, struct quick *q, struct dag *d)
{
	if (!shape_map(sh, 7) ||
	    !SHAPE_FIELD(sh, "\xa4" "type" "\xa4" "task" "\xa2" "id", &q->id))
		return -1;
	if (SHAPE_BLOCK(sh, "\xa4" "kind" "\xa8" "transfer" "\xa4" "deps")) {
		q->kind = DAG_TRANSFER;
		return quick_deps(sh, q, d) != 0 ? -1 : quick_transfer(sh, q);
	}
	if (!SHAPE_BLOCK(sh, "\xa4" "kind" "\xa7" "compute" "\xa4" "deps"))
		return -1;
	q->kind = DAG_COMPUTE;
	return quick_deps(sh, q, d) != 0 ? -1 : quick_compute(sh, q);
}

/* Where taskio_read_tree() would now expect each key of a kind. */
static void
quick_hint(struct dag *d, int kind)
{
	uint32_t *h = d->hint[kind];

	h[0] = 1;
	h[1] = 2;
	h[2] = 3;
	h[4] = 4;
	h[5] = 5;
	if (kind == DAG_COMPUTE)
		h[3] = 6;
	else {
		h[3] = 7;
		h[6] = 6;
	}
}

/*
 * The checks of taskio_read(), then the task added: pushed, when
 * there is room (its dependencies are in place, checked below its id,
 * and quick_deps() made room for them).  The caller leaves the hints
 * that reader leaves (quick_hint()).
 */
static int
quick_add(const struct quick *q, struct dag *d, uint32_t gpus)
{
	struct dag_task t = { 0 };

	if (q->step > DAG_MAX_STEP || q->id != d->n || q->id >= UINT32_MAX ||
	    (q->ndep > 0 && q->maxdep >= q->id) || q->a >= gpus)
		return -1;
	if (q->kind == DAG_TRANSFER && (q->b >= gpus || q->b == q->a))
		return -1;
	t.kind = (uint8_t)q->kind;
	t.step = (uint16_t)q->step;
	t.gpu = (uint32_t)q->a;
	t.dst = (uint32_t)q->b;
	t.amount = q->amount;
	if (d->n < d->cap) {
		dag_push(d, &t, (uint32_t)q->ndep);
		return 0;
	}
	return dag_add(d, &t, q->dep, q->ndep);
}

/* The keys in any order, each read by its type. */
static int
any_order(const struct rec *r, struct fields *f, struct dag *d)
{
	struct mpk m;
	const char *s;
	uint32_t n, i, len;

	mpk_init(&m, r->src.raw, r->src.rawlen);
	if (mpk_map(&m, &n) != 0)
		return -1;
	for (i = 0; i < n; i++)
		if (mpk_str(&m, &s, &len) != 0 ||
		    read_field(&m, key(s, len), i, f, d) != 0)
			return -1;
	return 0;
}

/* The task checked, added and its hints left; -1 when it fails. */
static int
add(struct fields *f, struct dag *d, uint32_t gpus)
{
	struct dag_task t = { 0 };

	if (check(f, d, gpus, &t) != 0 || dag_add(d, &t, f->dep, f->ndep) != 0)
		return -1;
	hint(f, d);
	return 0;
}

size_t
taskfast_run(const uint8_t *p, size_t n, const struct stream_limits *lim,
    struct dag *d, uint32_t gpus, size_t *len)
{
	struct shape sh = { p, p + n, 0 };
	const uint8_t *at = p;
	struct quick q;
	unsigned kinds = 0;
	size_t k, n0 = d->n, ndep0 = d->ndep;

	for (k = 0;; k++, at = sh.p) {
		q.ndep = 0;
		if (quick_read(&sh, &q, d) != 0 || !shape_fits(&sh, at, lim,
		    2, sh.pairs > q.ndep ? sh.pairs : q.ndep))
			break;
		if (k == 0 && dag_reserve(d, n / QUICK_MIN + 1) != 0)
			break;
		if (quick_add(&q, d, gpus) != 0)
			break;
		kinds |= 1U << q.kind;
	}
	if (k > 0)
		dag_pushed(d, n0, ndep0);
	if (kinds & (1U << DAG_COMPUTE))
		quick_hint(d, DAG_COMPUTE);
	if (kinds & (1U << DAG_TRANSFER))
		quick_hint(d, DAG_TRANSFER);
	*len = (size_t)(at - p);
	return k;
}

int
taskfast_read(const struct rec *r, struct dag *d, uint32_t gpus)
{
	struct shape sh = { r->src.raw, r->src.raw + r->src.rawlen, 0 };
	struct quick q;
	struct fields f;

	if (rec_failed(r))
		return 1;
	q.ndep = 0;
	if (quick_read(&sh, &q, d) == 0 && sh.p == sh.end) {
		if (quick_add(&q, d, gpus) != 0)
			return 1;
		quick_hint(d, q.kind);
		return 0;
	}
	f.seen = 0;
	f.ndep = 0;
	if (any_order(r, &f, d) != 0)
		return 1;
	return add(&f, d, gpus) != 0;
}

#define KEY(p, k)	mpk_put_fixstr((p), (k), sizeof(k) - 1)

int
taskfast_write(struct stream_writer *w, const struct dag *d, size_t i,
    const char *name, const uint64_t *op)
{
	const struct dag_task *t = &d->t[i];
	const uint32_t *dep = dag_deps(d, i);
	size_t nlen = name != NULL ? strlen(name) : 0, room;
	uint32_t n = 7 + (t->kind == DAG_TRANSFER) + (name != NULL) +
	    (op != NULL), j;
	uint8_t *p;

	/* 12 keys of at most 12 bytes and their values, deps and name */
	room = 12 * (12 + MPK_MAX_INT) + MPK_MAX_HEADER * 3 +
	    (size_t)t->ndep * MPK_MAX_INT + nlen;
	if (nlen > UINT32_MAX || room > STREAM_WBUF ||
	    (p = stream_reserve(w, room)) == NULL)
		return -1;
	p = mpk_put_map(p, n);
	p = KEY(KEY(p, "type"), "task");
	p = mpk_put_u64(KEY(p, "id"), i);
	p = KEY(p, "kind");
	p = t->kind == DAG_COMPUTE ? KEY(p, "compute") : KEY(p, "transfer");
	p = mpk_put_array(KEY(p, "deps"), t->ndep);
	for (j = 0; j < t->ndep; j++)
		p = mpk_put_u64(p, dep[j]);
	if (t->kind == DAG_COMPUTE) {
		p = mpk_put_u64(KEY(p, "gpu"), t->gpu);
		p = mpk_put_u64(KEY(p, "duration_ps"), t->amount);
	} else {
		p = mpk_put_u64(KEY(p, "src"), t->gpu);
		p = mpk_put_u64(KEY(p, "dst"), t->dst);
		p = mpk_put_u64(KEY(p, "bytes"), t->amount);
	}
	p = mpk_put_u64(KEY(p, "step"), t->step);
	if (op != NULL)
		p = mpk_put_u64(KEY(p, "op"), *op);
	if (name != NULL)
		p = mpk_put_str(KEY(p, "name"), name, (uint32_t)nlen);
	stream_commit(w, p);
	return 0;
}
