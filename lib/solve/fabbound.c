/* fabbound: a lower bound under every fabric. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/planes.h"
#include "records/mem.h"
#include "records/radix.h"
#include "solve/fabbound.h"

typedef unsigned __int128 u128;

#define PS_PER_S	1000000000000ULL

struct fb {
	const struct dag	*d;
	const struct net	*net;	/* the flat net, or NULL */
	const struct planes	*pl;	/* or a tiered fabric's planes */
	uint32_t		 gpus;
	uint64_t		*grate;	/* planes: each GPU's, once */
	uint64_t		*head, *bl, *dur, *send;
	uint32_t		*prev;		/* previous compute of its GPU */
	struct fbrec		*r, *w;		/* transfers, and scratch */
};

/* One transfer of a sweep: ~earliest start (a sort key), bytes, tail. */
struct fbrec {
	uint64_t	key;
	uint64_t	amount;
	uint64_t	tail;
};

static uint64_t
sat(u128 x)
{
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

static uint64_t
add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The time bytes take at rate bit/s, rounded down. */
static uint64_t
at_rate(u128 bytes, u128 rate)
{
	return rate == 0 ? UINT64_MAX : sat(bytes * 8 * PS_PER_S / rate);
}

/* The most GPU g sends or receives: S*B, or all its ports. */
static u128
gpu_rate(const struct fb *f, uint32_t g)
{
	if (f->pl == NULL)
		return (u128)f->net->switches * f->net->bandwidth_bps;
	return f->grate[g];
}

/* A transfer's least time on the wire, and after it its latency. */
static void
wire(const struct fb *f, const struct dag_task *t, uint64_t *send,
    uint64_t *lat)
{
	u128 r;

	if (f->pl == NULL) {
		*send = at_rate(t->amount, gpu_rate(f, t->gpu));
		*lat = f->net->latency_ps;
		return;
	}
	r = planes_pair_bps(f->pl, t->gpu, t->dst, lat);
	if (gpu_rate(f, t->gpu) < r)
		r = gpu_rate(f, t->gpu);
	if (gpu_rate(f, t->dst) < r)
		r = gpu_rate(f, t->dst);
	*send = at_rate(t->amount, r);
}

/* Durations, and each compute's predecessor on its GPU. */
static int
durations(struct fb *f)
{
	const struct dag *d = f->d;
	uint32_t *last;
	size_t i;

	uint64_t lat;

	if ((last = malloc(((size_t)f->gpus + 1) * sizeof(*last))) == NULL)
		return -1;
	for (i = 0; i < f->gpus; i++)
		last[i] = UINT32_MAX;
	for (i = 0; i < d->n; i++) {
		const struct dag_task *t = &d->t[i];

		f->prev[i] = UINT32_MAX;
		if (t->kind == DAG_COMPUTE) {
			f->send[i] = 0;
			f->dur[i] = t->amount;
			f->prev[i] = last[t->gpu];
			last[t->gpu] = (uint32_t)i;
			continue;
		}
		wire(f, t, &f->send[i], &lat);
		f->dur[i] = add(f->send[i], lat);
	}
	free(last);
	return 0;
}

/*
 * Earliest starts forward, bottom levels backward (ids are in order).
 * Backward, each task's level is final once every later task has been
 * seen; it then raises its predecessors' (dependencies and the GPU's
 * previous compute), each of which holds the most of its successors'
 * levels until its own turn.
 */
static uint64_t
levels(struct fb *f)
{
	const struct dag *d = f->d;
	uint64_t cp = 0, h, b;
	size_t i, j, k;

	for (i = 0; i < d->n; i++) {
		h = 0;
		for (j = 0; j < d->t[i].ndep; j++) {
			k = dag_deps(d, i)[j];
			if (add(f->head[k], f->dur[k]) > h)
				h = add(f->head[k], f->dur[k]);
		}
		if ((k = f->prev[i]) != UINT32_MAX &&
		    add(f->head[k], f->dur[k]) > h)
			h = add(f->head[k], f->dur[k]);
		f->head[i] = h;
		f->bl[i] = 0;
	}
	for (i = d->n; i-- > 0;) {
		b = f->bl[i] = add(f->bl[i], f->dur[i]);
		if (add(f->head[i], b) > cp)
			cp = add(f->head[i], b);
		for (j = 0; j < d->t[i].ndep; j++) {
			k = dag_deps(d, i)[j];
			if (b > f->bl[k])
				f->bl[k] = b;
		}
		if ((k = f->prev[i]) != UINT32_MAX && b > f->bl[k])
			f->bl[k] = b;
	}
	return cp;
}

/* Records by key, least first (lib/records/radix.h). */
RADIX_GENERATE(radix, struct fbrec, key)

/*
 * One GPU, one direction: its n transfers in r, taken latest start
 * first; after the last byte of one, its tail must still follow.
 * Equal starts go together, so their order does not matter.
 */
static uint64_t
sweep(struct fb *f, struct fbrec *r, size_t n, uint32_t g)
{
	u128 rate = gpu_rate(f, g);
	uint64_t best = 0, tail = UINT64_MAX, b;
	u128 bytes = 0;
	size_t i;

	r = radix(r, f->w, n);
	for (i = 0; i < n; i++) {
		bytes += r[i].amount;
		if (r[i].tail < tail)
			tail = r[i].tail;
		if (i + 1 < n && r[i + 1].key == r[i].key)
			continue;
		b = add(add(~r[i].key, at_rate(bytes, rate)), tail);
		if (b > best)
			best = b;
	}
	return best;
}

/*
 * One direction's transfers as records, grouped by GPU (sender or
 * receiver) in one pass in id order, each task's lines read once;
 * cnt[g] is where GPU g's group starts, cnt[gpus] their number.
 */
static int
group(struct fb *f, int dir, size_t *cnt)
{
	const struct dag *d = f->d;
	size_t i, g, most = 1, *at;

	memset(cnt, 0, ((size_t)f->gpus + 1) * sizeof(*cnt));
	for (i = 0; i < d->n; i++)
		if (d->t[i].kind == DAG_TRANSFER)
			cnt[(dir ? d->t[i].dst : d->t[i].gpu) + 1]++;
	for (g = 0; g < f->gpus; g++) {
		if (cnt[g + 1] > most)
			most = cnt[g + 1];
		cnt[g + 1] += cnt[g];
	}
	if (f->r == NULL && (f->r = mem_array(cnt[f->gpus] + 1,
	    sizeof(*f->r))) == NULL)
		return -1;
	free(f->w);
	if ((f->w = malloc(most * sizeof(*f->w))) == NULL ||
	    (at = malloc(((size_t)f->gpus + 1) * sizeof(*at))) == NULL)
		return -1;
	memcpy(at, cnt, ((size_t)f->gpus + 1) * sizeof(*at));
	for (i = 0; i < d->n; i++) {
		const struct dag_task *t = &d->t[i];

		if (t->kind == DAG_TRANSFER)
			f->r[at[dir ? t->dst : t->gpu]++] = (struct fbrec){
			    ~f->head[i], t->amount, f->bl[i] - f->send[i] };
	}
	free(at);
	return 0;
}

/* The GPUs' loads: transfers grouped by GPU and direction. */
static int
loads(struct fb *f, uint64_t *best)
{
	size_t *cnt, g;
	uint64_t b;
	int dir, rc = -1;

	if ((cnt = malloc(((size_t)f->gpus + 1) * sizeof(*cnt))) ==
	    NULL)
		return -1;
	for (dir = 0; dir < 2; dir++) {
		if (group(f, dir, cnt) != 0)
			goto out;
		for (g = 0; g < f->gpus; g++)
			if ((b = sweep(f, f->r + cnt[g], cnt[g + 1] - cnt[g],
			    (uint32_t)g)) > *best)
				*best = b;
	}
	rc = 0;
out:
	free(cnt);
	free(f->r);
	free(f->w);
	f->r = f->w = NULL;
	return rc;
}

static int
bound(struct fb *fp, uint64_t *out)
{
	struct fb f = *fp;
	const struct dag *d = f.d;
	size_t n = d->n + 1;
	int rc = -1;

	*out = 0;
	f.head = mem_array(n, sizeof(*f.head));
	f.bl = mem_array(n, sizeof(*f.bl));
	f.dur = mem_array(n, sizeof(*f.dur));
	f.send = mem_array(n, sizeof(*f.send));
	f.prev = mem_array(n, sizeof(*f.prev));
	if (f.head == NULL || f.bl == NULL || f.dur == NULL ||
	    f.send == NULL || f.prev == NULL || durations(&f) != 0)
		goto out;
	*out = levels(&f);
	/* the loads need only head, bl and send: room for their records */
	free(f.dur);
	free(f.prev);
	f.dur = NULL;
	f.prev = NULL;
	rc = loads(&f, out);
out:
	free(f.head);
	free(f.bl);
	free(f.dur);
	free(f.send);
	free(f.prev);
	return rc;
}

int
fabbound(const struct dag *d, const struct net *net, uint64_t *out)
{
	struct fb f = { .d = d, .net = net, .gpus = net->gpus };

	return bound(&f, out);
}

int
fabbound_planes(const struct dag *d, const struct planes *pl, uint64_t *out)
{
	struct fb f = { .d = d, .pl = pl, .gpus = pl->gpus };
	uint32_t g;
	int rc;

	*out = 0;
	if ((f.grate = mem_array((size_t)pl->gpus + 1, sizeof(*f.grate))) ==
	    NULL)
		return -1;
	for (g = 0; g < pl->gpus; g++)
		f.grate[g] = planes_gpu_bps(pl, g);
	rc = bound(&f, out);
	free(f.grate);
	return rc;
}
