/*
 * Unit tests of the ideal fabric (lib/sim/simideal through sim_run()):
 * every transfer's start and end on random DAGs of transfers against a
 * plain reference simulator written here.  The reference re-shares all
 * live flows from scratch at every instant, by progressive filling in
 * its textbook form: each round the ports with the least capacity per
 * rising flow (compared exactly) give each of their rising flows that
 * share, in whole bit/s, and drop out.  It keeps no components, port
 * lists, marks or shortcuts, which are what simideal adds: re-sharing
 * only the flows joined to a changed port, the walk over port lists,
 * and the first round done in one pass when it is the whole filling.
 * Work is kept as the simulator keeps it (bits x 10^12 per byte, a flow
 * ends at the first picosecond its work is done), so the times must be
 * equal to the picosecond.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/splitmix.h"
#include "sim/sim.h"
#include "tap.h"

typedef unsigned __int128 u128;

#define WORK_BYTE	((u128)8 * 1000000000000ULL)
#define MAXT		48
#define MAXG		8

struct ref {
	const struct dag	*d;
	uint64_t		 C;		/* S x B per port */
	uint32_t		 gpus;
	int			 live[MAXT];
	u128			 work[MAXT];
	uint64_t		 rate[MAXT];
	uint32_t		 pending[MAXT];
	uint64_t		 start[MAXT], end[MAXT];
};

/* Port p of task i's flow: its sender's out, or its receiver's in. */
static uint32_t
port_of(const struct ref *r, size_t i, int p)
{
	return p == 0 ? r->d->t[i].gpu : r->gpus + r->d->t[i].dst;
}

/* One round: the least share among ports with rising flows, marked. */
static uint64_t
least(const struct ref *r, const uint64_t *cap, const uint32_t *cnt,
    int *at)
{
	uint32_t p, b = UINT32_MAX;

	for (p = 0; p < 2 * r->gpus; p++)
		if (cnt[p] > 0 && (b == UINT32_MAX ||
		    (u128)cap[p] * cnt[b] < (u128)cap[b] * cnt[p]))
			b = p;
	for (p = 0; p < 2 * r->gpus; p++)
		at[p] = cnt[p] > 0 &&
		    (u128)cap[p] * cnt[b] == (u128)cap[b] * cnt[p];
	return cap[b] / cnt[b];
}

static void
fill(struct ref *r)
{
	uint64_t cap[2 * MAXG];
	uint32_t cnt[2 * MAXG] = { 0 };
	int rising[MAXT], at[2 * MAXG], left = 0, p;
	size_t i, n = r->d->n;

	for (p = 0; p < 2 * MAXG; p++)
		cap[p] = r->C;
	for (i = 0; i < n; i++) {
		rising[i] = r->live[i];
		left += rising[i];
		for (p = 0; p < 2 && r->live[i]; p++)
			cnt[port_of(r, i, p)]++;
	}
	while (left > 0) {
		uint64_t share = least(r, cap, cnt, at);
		int frozen[MAXT] = { 0 };

		for (i = 0; i < n; i++)
			frozen[i] = rising[i] && (at[port_of(r, i, 0)] ||
			    at[port_of(r, i, 1)]);
		for (i = 0; i < n; i++) {
			if (!frozen[i])
				continue;
			r->rate[i] = share;
			rising[i] = 0;
			left--;
			for (p = 0; p < 2; p++) {
				uint32_t q = port_of(r, i, p);

				cap[q] -= share < cap[q] ? share : cap[q];
				cnt[q]--;
			}
		}
	}
}

/* Task i's flow begins now, once its dependencies are done. */
static void
begin(struct ref *r, size_t i, uint64_t now)
{
	r->live[i] = 1;
	r->work[i] = (u128)r->d->t[i].amount * WORK_BYTE;
	r->start[i] = now;
}

/* The transfers of d on the ideal fabric; returns 0 when all end. */
static int
ref_run(struct ref *r)
{
	const struct dag *d = r->d;
	size_t i, j, k, done = 0;
	uint64_t now = 0;

	for (i = 0; i < d->n; i++) {
		r->live[i] = 0;
		if ((r->pending[i] = d->t[i].ndep) == 0)
			begin(r, i, 0);
	}
	while (done < d->n) {
		u128 next = ~(u128)0;

		fill(r);
		for (i = 0; i < d->n; i++)
			if (r->live[i]) {
				u128 e = now + (r->work[i] + r->rate[i] - 1) /
				    r->rate[i];

				next = e < next ? e : next;
			}
		if (next > UINT64_MAX)
			return -1;
		for (i = 0; i < d->n; i++) {
			u128 w = (u128)r->rate[i] * ((uint64_t)next - now);

			if (r->live[i])
				r->work[i] -= w < r->work[i] ? w : r->work[i];
		}
		now = (uint64_t)next;
		for (i = 0; i < d->n; i++) {
			if (!r->live[i] || r->work[i] > 0)
				continue;
			r->live[i] = 0;
			r->end[i] = now;
			done++;
			for (j = i + 1; j < d->n; j++)
				for (k = 0; k < d->t[j].ndep; k++)
					if (dag_deps(d, j)[k] == i &&
					    --r->pending[j] == 0)
						begin(r, j, now);
		}
	}
	return 0;
}

/*
 * A random DAG of transfers among gpus GPUs: few sizes, so that flows
 * tie, and each transfer after up to two earlier ones now and then.
 */
static int
random_dag(struct dag *d, uint64_t *st, uint32_t gpus, size_t n)
{
	static const uint64_t sizes[] = { 1, 1000, 1500000, 1500000, 3000000,
	    4500000, 7777777 };
	size_t i;

	for (i = 0; i < n; i++) {
		struct dag_task t = { .kind = DAG_TRANSFER };
		uint32_t dep[2];
		size_t nd = 0;

		t.gpu = (uint32_t)(splitmix_next(st) % gpus);
		t.dst = (uint32_t)((t.gpu + 1 + splitmix_next(st) %
		    (gpus - 1)) % gpus);
		t.amount = sizes[splitmix_next(st) % 7];
		if (i > 0 && splitmix_next(st) % 3 == 0) {
			dep[nd++] = (uint32_t)(splitmix_next(st) % i);
			if (splitmix_next(st) % 2 == 0 &&
			    (dep[nd] = (uint32_t)(splitmix_next(st) % i)) !=
			    dep[0])
				nd++;
		}
		if (nd == 2 && dep[1] < dep[0]) {
			uint32_t x = dep[0];

			dep[0] = dep[1];
			dep[1] = x;
		}
		if (dag_add(d, &t, dep, nd) != 0)
			return -1;
	}
	return 0;
}

/* One random case; returns 1 when the simulator agrees. */
static int
one(uint64_t seed, uint64_t *events)
{
	static const uint64_t bws[] = { 750000000000ULL, 100000000000ULL,
	    333333333333ULL, 7ULL * 1000000000 };
	uint64_t st = seed;
	struct net net = { 0 };
	struct dag d;
	struct schedule sc;
	struct sim_opts opt = { .fabric = SIM_IDEAL, .packet = 4096 };
	struct sim_out out;
	struct ref *r;
	char err[400];
	size_t i, n;
	int good;

	net.gpus = 2 + (uint32_t)(splitmix_next(&st) % (MAXG - 1));
	net.switches = 1 + (uint32_t)(splitmix_next(&st) % 3);
	net.bandwidth_bps = bws[splitmix_next(&st) % 4];
	n = 1 + splitmix_next(&st) % MAXT;
	dag_init(&d);
	sched_init(&sc);
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    random_dag(&d, &st, net.gpus, n) != 0) {
		free(r);
		dag_free(&d);
		return 0;
	}
	r->d = &d;
	r->gpus = net.gpus;
	r->C = (uint64_t)net.switches * net.bandwidth_bps;
	good = sim_run(&d, &net, &sc, &opt, &out, err, sizeof(err)) == 0;
	good = ref_run(r) == 0 && good;
	for (i = 0; good && i < n; i++)
		good = out.start[i] == r->start[i] && out.end[i] == r->end[i];
	if (good)
		*events += out.events;
	sim_out_free(&out);
	sched_free(&sc);
	dag_free(&d);
	free(r);
	return good;
}

int
main(void)
{
	uint64_t seed, events = 0;
	int good = 1;

	for (seed = 1; seed <= 3000 && good; seed++)
		good = one(seed, &events);
	ok(good, "3000 random DAGs of transfers: every start and end as "
	    "the reference's (first differing seed %llu)",
	    good ? 0ULL : (unsigned long long)seed - 1);
	ok(events > 3000, "they ran %llu events",
	    (unsigned long long)events);
	return tap_done();
}
