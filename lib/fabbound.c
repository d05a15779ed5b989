/* fabbound: a lower bound under every fabric. */
#include <stdint.h>
#include <stdlib.h>

#include "dag.h"
#include "fabbound.h"
#include "net.h"

typedef unsigned __int128 u128;

#define PS_PER_S	1000000000000ULL

struct fb {
	const struct dag	*d;
	const struct net	*net;
	uint64_t		*head, *bl, *dur, *send;
	uint32_t		*prev;		/* previous compute of its GPU */
	size_t			*off;
	uint32_t		*nx;
	uint32_t		*idx;		/* one GPU's transfers */
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

/* The time bytes take at S*B, rounded down. */
static uint64_t
at_sb(const struct net *n, u128 bytes)
{
	return sat(bytes * 8 * PS_PER_S /
	    ((u128)n->switches * n->bandwidth_bps));
}

/* Durations, and each compute's predecessor on its GPU. */
static int
durations(struct fb *f)
{
	const struct dag *d = f->d;
	uint32_t *last;
	size_t i;

	if ((last = malloc(((size_t)f->net->gpus + 1) * sizeof(*last))) ==
	    NULL)
		return -1;
	for (i = 0; i < f->net->gpus; i++)
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
		f->send[i] = at_sb(f->net, t->amount);
		f->dur[i] = add(f->send[i], f->net->latency_ps);
	}
	free(last);
	return 0;
}

/* Earliest starts forward, bottom levels backward (ids are in order). */
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
	}
	for (i = d->n; i-- > 0;) {
		b = 0;
		for (j = f->off[i]; j < f->off[i + 1]; j++)
			if (f->bl[f->nx[j]] > b)
				b = f->bl[f->nx[j]];
		f->bl[i] = add(b, f->dur[i]);
		if (add(f->head[i], f->bl[i]) > cp)
			cp = add(f->head[i], f->bl[i]);
	}
	return cp;
}

/*
 * One GPU, one direction: its n transfers in idx, latest start first;
 * after the last byte of x, bl[x] - send[x] must still follow.
 */
static uint64_t
sweep(struct fb *f, size_t n)
{
	uint64_t best = 0, tail = UINT64_MAX, b;
	u128 bytes = 0;
	size_t i;

	dag_sort_desc(f->idx, n, f->head);
	for (i = 0; i < n; i++) {
		uint32_t x = f->idx[i];

		bytes += f->d->t[x].amount;
		if (f->bl[x] - f->send[x] < tail)
			tail = f->bl[x] - f->send[x];
		if (i + 1 < n && f->head[f->idx[i + 1]] == f->head[x])
			continue;
		b = add(add(f->head[x], at_sb(f->net, bytes)), tail);
		if (b > best)
			best = b;
	}
	return best;
}

/* The GPUs' loads: transfers grouped by GPU and direction. */
static int
loads(struct fb *f, uint64_t *best)
{
	const struct dag *d = f->d;
	size_t *cnt, i, g, n;
	uint32_t *grp;
	uint64_t b;
	int dir;

	cnt = calloc((size_t)f->net->gpus + 1, sizeof(*cnt));
	grp = malloc((d->n + 1) * sizeof(*grp));
	if (cnt == NULL || grp == NULL) {
		free(cnt);
		free(grp);
		return -1;
	}
	for (dir = 0; dir < 2; dir++) {
		for (g = 0; g <= f->net->gpus; g++)
			cnt[g] = 0;
		for (i = n = 0; i < d->n; i++)
			if (d->t[i].kind == DAG_TRANSFER)
				cnt[(dir ? d->t[i].dst : d->t[i].gpu) + 1]++;
		for (g = 0; g < f->net->gpus; g++)
			cnt[g + 1] += cnt[g];
		for (i = 0; i < d->n; i++)
			if (d->t[i].kind == DAG_TRANSFER)
				grp[cnt[dir ? d->t[i].dst : d->t[i].gpu]++] =
				    (uint32_t)i;
		for (g = 0, n = 0; g < f->net->gpus; n = cnt[g++]) {
			f->idx = grp + n;
			if ((b = sweep(f, cnt[g] - n)) > *best)
				*best = b;
		}
	}
	free(cnt);
	free(grp);
	return 0;
}

int
fabbound(const struct dag *d, const struct net *net, uint64_t *out)
{
	struct fb f = { .d = d, .net = net };
	size_t n = d->n + 1;
	int rc = -1;

	*out = 0;
	f.head = malloc(n * sizeof(*f.head));
	f.bl = malloc(n * sizeof(*f.bl));
	f.dur = malloc(n * sizeof(*f.dur));
	f.send = malloc(n * sizeof(*f.send));
	f.prev = malloc(n * sizeof(*f.prev));
	if (f.head == NULL || f.bl == NULL || f.dur == NULL ||
	    f.send == NULL || f.prev == NULL || durations(&f) != 0 ||
	    dag_successors(d, f.prev, &f.off, &f.nx) != 0)
		goto out;
	*out = levels(&f);
	rc = loads(&f, out);
	free(f.off);
	free(f.nx);
out:
	free(f.head);
	free(f.bl);
	free(f.dur);
	free(f.send);
	free(f.prev);
	return rc;
}
