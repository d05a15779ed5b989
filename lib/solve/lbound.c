/* lbound: a lower bound from the ports of each GPU. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "records/mem.h"
#include "solve/greedy.h"
#include "solve/lbound.h"

typedef unsigned __int128 u128;

/* What the transfers from T on ask of one GPU, in three directions:
 * 0 receives, 1 sends, 2 both. */
struct sweep {
	u128		 L[3];
	uint64_t	 P[3];
	int64_t		 M[3];	/* least time after a port is left */
	uint64_t	*tx, *rx;	/* per partner: time sent, received */
	uint32_t	*seen;		/* partners touched, to clear */
	size_t		 nseen;
};

static uint64_t
occupancy(const struct net *n, uint64_t bytes)
{
	uint64_t d = greedy_duration(n, bytes);

	return d > 0 ? d : 1;
}

/*
 * From the end of a transfer's hold on its ports to the end of the
 * DAG at least: its bottom level less the hold.  A transfer of no
 * bytes holds its circuit 1 ps but takes no time, so this is -1 when
 * nothing follows it.  Bottom levels are below 2^63 (lib/model/horizon).
 */
static int64_t
after_port(uint64_t bl, uint64_t len)
{
	if (bl >= len)
		return bl - len > INT64_MAX ? INT64_MAX : (int64_t)(bl - len);
	return len - bl > INT64_MAX ? -INT64_MAX : -(int64_t)(len - bl);
}

/* Transfer j joins GPU g's sweep. */
static void
add(struct sweep *w, const struct dag_task *t, uint32_t g, uint64_t len,
    int64_t after)
{
	int snd = t->gpu == g;
	uint32_t q = snd ? t->dst : t->gpu;
	uint64_t old, now;
	size_t d;

	if (w->tx[q] == 0 && w->rx[q] == 0) {
		w->seen[w->nseen++] = q;
		w->P[2]++;
	}
	if ((snd ? w->tx[q] : w->rx[q]) == 0)
		w->P[snd]++;
	old = w->tx[q] > w->rx[q] ? w->tx[q] : w->rx[q];
	if (snd)
		w->tx[q] += len;
	else
		w->rx[q] += len;
	now = w->tx[q] > w->rx[q] ? w->tx[q] : w->rx[q];
	w->L[2] += now - old;
	w->L[snd] += len;
	for (d = 0; d < 3; d++)
		if ((d == 2 || d == (size_t)snd) && after < w->M[d])
			w->M[d] = after;
}

static uint64_t
eval(const struct sweep *w, const struct net *n, uint64_t T)
{
	__int128 b, best = 0;
	size_t d;

	for (d = 0; d < 3; d++) {
		u128 work = w->L[d];

		if (work == 0)
			continue;
		if (w->P[d] > n->switches)
			work += (u128)(w->P[d] - n->switches) * n->reconfig_ps;
		b = (__int128)T + (__int128)((work + n->switches - 1) /
		    n->switches) + w->M[d];
		best = b > best ? b : best;
	}
	return best > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)best;
}

/* The transfers of each GPU, as offsets into one array. */
static int
by_gpu(const struct dag *d, const struct net *n, size_t **offp,
    uint32_t **xp)
{
	size_t *off, i, g;
	uint32_t *x;

	if ((off = calloc(n->gpus + 2, sizeof(*off))) == NULL)
		return -1;
	for (i = 0; i < d->n; i++)
		if (d->t[i].kind == DAG_TRANSFER) {
			off[d->t[i].gpu + 2]++;
			off[d->t[i].dst + 2]++;
		}
	for (g = 0; g < n->gpus; g++)
		off[g + 2] += off[g + 1];
	if ((x = mem_array(off[n->gpus + 1] + 1, sizeof(*x))) == NULL) {
		free(off);
		return -1;
	}
	for (i = 0; i < d->n; i++)
		if (d->t[i].kind == DAG_TRANSFER) {
			x[off[d->t[i].gpu + 1]++] = (uint32_t)i;
			x[off[d->t[i].dst + 1]++] = (uint32_t)i;
		}
	*offp = off;
	*xp = x;
	return 0;
}

static uint64_t
gpu_bound(const struct dag *d, const struct net *n, const uint64_t *head,
    const uint64_t *bl, uint32_t g, uint32_t *x, size_t m, struct sweep *w)
{
	uint64_t best = 0, b;
	size_t k;

	dag_sort_desc(x, m, head);
	memset(w->L, 0, sizeof(w->L));
	memset(w->P, 0, sizeof(w->P));
	w->M[0] = w->M[1] = w->M[2] = INT64_MAX;
	for (k = 0; k < m; k++) {
		const struct dag_task *t = &d->t[x[k]];
		uint64_t len = occupancy(n, t->amount);
		int64_t after = after_port(bl[x[k]], len);

		add(w, t, g, len, after);
		if (k + 1 < m && head[x[k + 1]] == head[x[k]])
			continue;	/* all of one head first */
		b = eval(w, n, head[x[k]]);
		best = b > best ? b : best;
	}
	for (k = 0; k < w->nseen; k++)
		w->tx[w->seen[k]] = w->rx[w->seen[k]] = 0;
	w->nseen = 0;
	return best;
}

int
lbound_ports(const struct dag *d, const struct net *n, const uint64_t *head,
    const uint64_t *bl, uint64_t *out)
{
	struct sweep w;
	size_t *off = NULL;
	uint32_t *x = NULL, g;
	uint64_t best = 0, b;
	int rc = -1;

	memset(&w, 0, sizeof(w));
	w.tx = calloc(n->gpus + 1, sizeof(*w.tx));
	w.rx = calloc(n->gpus + 1, sizeof(*w.rx));
	w.seen = malloc((n->gpus + 1) * sizeof(*w.seen));
	if (w.tx == NULL || w.rx == NULL || w.seen == NULL ||
	    by_gpu(d, n, &off, &x) != 0)
		goto out;
	for (g = 0; g < n->gpus; g++) {
		b = gpu_bound(d, n, head, bl, g, x + off[g], off[g + 1] -
		    off[g], &w);
		best = b > best ? b : best;
	}
	*out = best;
	rc = 0;
out:
	free(w.tx);
	free(w.rx);
	free(w.seen);
	free(off);
	free(x);
	return rc;
}
