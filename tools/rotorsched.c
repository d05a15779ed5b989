/*
 * rotorsched: periodic, demand-oblivious circuit schedules.
 *
 * --mode rotor: RotorNet.  The N-1 matchings of a 1-factorization of
 * the complete graph on the GPUs are dealt to the switches, and every
 * switch steps to its next matching each slot: dark for tau, then up.
 * --mode bvn: traffic-aware periodic.  The iteration's traffic matrix,
 * made symmetric for duplex circuits, is decomposed into weighted
 * matchings (Birkhoff-von Neumann style), which are dealt to the
 * switches longest first, each followed by tau of reconfiguration.
 * Either way one period of circuits is written, and ocssim repeats it
 * until the DAG is done.  See rotorsched(1).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "dagin.h"
#include "die.h"
#include "net.h"
#include "rec.h"
#include "sched.h"
#include "stream.h"
#include "units.h"

#define NONE	UINT32_MAX
#define PS	1000000000000ULL

/*
 * A period of K <= NET_MAX_GPUS slots then ends below SCHED_FOREVER:
 * (2^20 - 1) x (2^44 - 1) < 2^64 - 1.
 */
#define SLOT_MAX	(UINT64_MAX / NET_MAX_GPUS)

/*
 * A rotor period holds every pair of GPUs once, N(N-1)/2 circuits
 * whatever the tasks: 4096 GPUs fit (8386560 circuits, 268 MB held
 * and as much again to check them); more are refused up front.
 */
#define ROTOR_MAX_CIRCUITS	(1ULL << 23)

enum { MODE_ROTOR, MODE_BVN };

static const char *const modes[] = { "rotor", "bvn", NULL };

struct args {
	int		 mode;
	int		 fwd;
	int		 duty_set, slot_set, fwd_set;
	double		 duty;
	uint64_t	 slot;
	uint64_t	 cap;
	int		 cap_set;
};


static void
usage(void)
{
	fprintf(stderr, "usage: rotorsched [-c vlb-cap] [-d duty] "
	    "[-f direct|vlb] [-m rotor|bvn] [-s slot]\n");
	exit(2);
}

/* ---- RotorNet ---- */

/*
 * Partner of g in matching m (1 <= m < n'), n' = n rounded up to even:
 * XOR matchings when n is a power of two, else the circle method.
 * NONE for an idle port (odd n).
 */
static uint32_t
rr_partner(uint32_t n, uint32_t m, uint32_t g)
{
	uint32_t ne = n + (n & 1), k = ne - 1, r = m - 1, p;

	if ((n & (n - 1)) == 0)
		return g ^ m;
	if (g == k)
		p = r;
	else if (g == r)
		p = k;
	else
		p = (2 * r + k - g) % k;
	return p < n ? p : NONE;
}

/*
 * The matching that switch s shows in slot j, 0 for idle.  Two switches
 * and a power-of-two n give RotorNet's own table: odd XORs ascending on
 * one, even XORs descending then idle on the other.
 */
static uint32_t
rotor_matching(uint32_t n, uint32_t S, uint32_t s, uint32_t j)
{
	uint32_t nm = n - 1 + (n & 1), idx;

	if (S == 2 && (n & (n - 1)) == 0)
		return s == 0 ? 2 * j + 1 : n - 2 - 2 * j;
	idx = j * S + s;
	return idx < nm ? idx + 1 : 0;
}

static uint64_t
rotor_slot(const struct net *n, const struct args *a)
{
	double slot;

	if (a->slot_set)
		return a->slot;
	slot = (double)n->reconfig_ps / (1 - a->duty) + 0.5;
	if (slot >= (double)SLOT_MAX)
		die("a reconfiguration delay of %llu ps at a duty cycle of %g "
		    "makes a slot of %.0f ps, more than the %llu ps a slot "
		    "may last", (unsigned long long)n->reconfig_ps, a->duty,
		    slot, (unsigned long long)SLOT_MAX);
	return (uint64_t)slot;
}

/* Refuse up front a period too large to make: it grows as N^2. */
static void
rotor_size(const struct net *n)
{
	uint64_t nc = (uint64_t)n->gpus * (n->gpus - 1) / 2;

	if (nc <= ROTOR_MAX_CIRCUITS)
		return;
	die("a rotor period on %u GPUs holds %llu circuits (%llu bytes in "
	    "memory); at most %llu are made (4096 GPUs)", n->gpus,
	    (unsigned long long)nc,
	    (unsigned long long)(nc * sizeof(struct circuit)),
	    (unsigned long long)ROTOR_MAX_CIRCUITS);
}

static void
rotor(struct schedule *sc, const struct net *n, const struct args *a)
{
	uint32_t S = n->switches, nm = n->gpus - 1 + (n->gpus & 1);
	uint32_t K = (nm + S - 1) / S, s, j, g, m, p;
	uint64_t tau = n->reconfig_ps, slot;

	if (n->gpus < 2)
		die("rotor needs at least 2 GPUs");
	rotor_size(n);
	if (tau == 0 && !a->slot_set)
		die("the reconfiguration delay is 0: give the slot with -s");
	slot = rotor_slot(n, a);
	if (slot <= tau)
		die("slot of %llu ps leaves no time after the reconfiguration "
		    "delay of %llu ps", (unsigned long long)slot,
		    (unsigned long long)tau);
	sc->periodic = 1;
	sc->period = K * slot;
	for (s = 0; s < S; s++)
		for (j = 0; j < K; j++) {
			if ((m = rotor_matching(n->gpus, S, s, j)) == 0)
				continue;
			for (g = 0; g < n->gpus; g++) {
				p = rr_partner(n->gpus, m, g);
				if (p == NONE || p < g)
					continue;
				if (sched_add_circuit(sc, s, g, p, j * slot +
				    tau, (j + 1) * slot) != 0)
					die("out of memory");
			}
		}
}

/* ---- traffic-aware periodic (BvN) ---- */

struct edge {
	uint64_t	w;
	uint32_t	a, b;
	int		pick;
};

struct slotm {
	uint64_t	dur;
	size_t		off, n;		/* into the chosen edges */
};

static int
cmp_edge(const void *x, const void *y)
{
	const struct edge *p = x, *q = y;

	if (p->w != q->w)
		return p->w > q->w ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

static uint64_t
ps_for(uint64_t bytes, uint64_t bps)
{
	unsigned __int128 t = (unsigned __int128)bytes * 8 * PS;

	t = (t + bps - 1) / bps;
	if (t >= SCHED_FOREVER)
		die("%llu bytes at %llu bit/s take more than 2^64 ps",
		    (unsigned long long)bytes, (unsigned long long)bps);
	return (uint64_t)t;
}

/*
 * Pick a maximal matching, heaviest edges first; returns the lightest.
 * used[] is all 0 on entry and on return: the work is the edges'.
 */
static uint64_t
pick_matching(struct edge *e, size_t live, uint8_t *used)
{
	uint64_t min = UINT64_MAX;
	size_t i;

	qsort(e, live, sizeof(*e), cmp_edge);
	for (i = 0; i < live; i++) {
		e[i].pick = !used[e[i].a] && !used[e[i].b];
		if (!e[i].pick)
			continue;
		used[e[i].a] = used[e[i].b] = 1;
		if (e[i].w < min)
			min = e[i].w;
	}
	for (i = 0; i < live; i++)
		used[e[i].a] = used[e[i].b] = 0;
	return min;
}

/*
 * Decompose W into weighted matchings: a matching on the support of W
 * lasts as long as its lightest edge needs at rate B; subtract; repeat
 * until W is empty.  Every round empties at least one edge.
 */
static size_t
decompose(struct edge *e, size_t live, const struct net *n,
    struct slotm **out, struct edge **chosen)
{
	uint8_t *used = xcalloc(n->gpus, 1);
	size_t ns = 0, cap = 0, ccap = 0, nch = 0, i, k;
	struct slotm *sl = NULL;
	struct edge *ch = NULL;
	uint64_t min;

	while (live > 0) {
		min = pick_matching(e, live, used);
		xgrow(&sl, &cap, ns + 1, sizeof(*sl));
		sl[ns] = (struct slotm){ ps_for(min, n->bandwidth_bps), nch,
		    0 };
		for (i = k = 0; i < live; i++) {
			if (e[i].pick) {
				xgrow(&ch, &ccap, nch + 1, sizeof(*ch));
				ch[nch++] = e[i];
				e[i].w -= min;
			}
			if (e[i].w > 0)
				e[k++] = e[i];
		}
		sl[ns].n = nch - sl[ns].off;
		live = k;
		ns++;
	}
	free(used);
	*out = sl;
	*chosen = ch;
	return ns;
}

/* The bytes of one transfer between a < b: a to b in ab, b to a in ba. */
struct pair {
	uint32_t	a, b;
	uint64_t	ab, ba;
};

static int
cmp_pair(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/*
 * The pairs with traffic and their weights max(D[a][b], D[b][a]),
 * from the transfers alone: memory follows the tasks, not N^2.
 */
static size_t
traffic_edges(const struct dag *d, struct edge **out)
{
	struct pair *x;
	size_t nx = 0, ne = 0, i, j;
	struct edge *e;

	x = xcalloc(d->n, sizeof(*x));
	for (i = 0; i < d->n; i++) {
		const struct dag_task *t = &d->t[i];
		int up = t->gpu < t->dst;

		if (t->kind != DAG_TRANSFER)
			continue;
		x[nx].a = up ? t->gpu : t->dst;
		x[nx].b = up ? t->dst : t->gpu;
		x[nx].ab = up ? t->amount : 0;
		x[nx++].ba = up ? 0 : t->amount;
	}
	qsort(x, nx, sizeof(*x), cmp_pair);
	e = xcalloc(nx, sizeof(*e));
	for (i = 0; i < nx; i = j) {
		uint64_t ab = 0, ba = 0;

		for (j = i; j < nx && x[j].a == x[i].a && x[j].b == x[i].b;
		    j++)
			if (__builtin_add_overflow(ab, x[j].ab, &ab) ||
			    __builtin_add_overflow(ba, x[j].ba, &ba))
				die("stdin: the bytes between GPUs %u and %u "
				    "exceed 2^64", x[i].a, x[i].b);
		e[ne++] = (struct edge){ ab > ba ? ab : ba, x[i].a, x[i].b,
		    0 };
	}
	free(x);
	*out = e;
	return ne;
}

/* Deal the matchings to the switches longest first, least load first. */
static void
bvn(struct schedule *sc, const struct dagin *in)
{
	const struct net *n = &in->net;
	struct slotm *sl;
	struct edge *e, *ch;
	uint64_t *load, start;
	uint32_t *order, s, best;
	size_t ne, ns, i, j, k;

	if ((ne = traffic_edges(&in->dag, &e)) == 0)
		die("stdin: no transfers: there is no traffic to schedule");
	ns = decompose(e, ne, n, &sl, &ch);
	order = xcalloc(ns, sizeof(*order));
	load = xcalloc(n->switches, sizeof(*load));
	for (i = 0; i < ns; i++)
		order[i] = (uint32_t)i;
	for (i = 1; i < ns; i++)	/* stable: longest first */
		for (j = i; j > 0 && sl[order[j]].dur > sl[order[j - 1]].dur;
		    j--) {
			uint32_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < ns; i++) {
		const struct slotm *m = &sl[order[i]];

		for (best = 0, s = 1; s < n->switches; s++)
			if (load[s] < load[best])
				best = s;
		start = load[best];
		if (__builtin_add_overflow(start, m->dur, &load[best]) ||
		    __builtin_add_overflow(load[best], n->reconfig_ps,
		    &load[best]) || load[best] == SCHED_FOREVER)
			die("the period passes 2^64 - 1 ps on switch %u", best);
		for (k = m->off; k < m->off + m->n; k++)
			if (sched_add_circuit(sc, best, ch[k].a, ch[k].b, start,
			    start + m->dur) != 0)
				die("out of memory");
	}
	sc->periodic = 1;
	for (s = 0; s < n->switches; s++)
		if (load[s] > sc->period)
			sc->period = load[s];
	free(order);
	free(load);
	free(sl);
	free(ch);
	free(e);
}

/* ---- stream ---- */

static void
read_input(struct dagin *in, struct stream_writer *w, int argc,
    char **argv)
{
	char err[400];

	if (dagin_read(in, stdin, "stdin", w, "rotorsched", argc, argv,
	    dagin_unscheduled, NULL, err, sizeof(err)) != 0)
		die("%s", err);
}

/* What one slot's circuit carries at the port rate, in whole bytes. */
static uint64_t
default_cap(const struct net *n, const struct args *a)
{
	unsigned __int128 c = (unsigned __int128)(rotor_slot(n, a) -
	    n->reconfig_ps) * n->bandwidth_bps / (8 * PS);

	if (c > UINT64_MAX)
		die("a slot carries more than 2^64 - 1 bytes: give -c");
	return (uint64_t)c;
}

static void
parse_args(struct args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "vlb-cap",	required_argument, NULL, 'c' },
		{ "duty",	required_argument, NULL, 'd' },
		{ "forwarding",	required_argument, NULL, 'f' },
		{ "mode",	required_argument, NULL, 'm' },
		{ "slot",	required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	const char *e;
	char *end;
	int ch, i;

	*a = (struct args){ .mode = MODE_ROTOR, .duty = 0.9 };
	while ((ch = getopt_long(argc, die_argv(argv), "c:d:f:m:s:",
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			if ((e = units_parse_size(optarg, &a->cap)) != NULL ||
			    a->cap == 0) {
				warnmsg("-c %s: %s", optarg, e ? e :
				    "must be positive");
				usage();
			}
			a->cap_set = 1;
			break;
		case 'd':
			a->duty = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' ||
			    !(a->duty > 0 && a->duty < 1)) {
				warnmsg("-d %s: duty cycle must be in (0, 1)",
				    optarg);
				usage();
			}
			a->duty_set = 1;
			break;
		case 'f':
			for (i = 0; sched_fwds[i] != NULL &&
			    strcmp(optarg, sched_fwds[i]) != 0; i++)
				;
			if (sched_fwds[i] == NULL) {
				warnmsg("-f %s: forwarding is direct or vlb",
				    optarg);
				usage();
			}
			a->fwd = i;
			a->fwd_set = 1;
			break;
		case 'm':
			for (i = 0; modes[i] != NULL &&
			    strcmp(optarg, modes[i]) != 0; i++)
				;
			if (modes[i] == NULL) {
				warnmsg("-m %s: mode is rotor or bvn", optarg);
				usage();
			}
			a->mode = i;
			break;
		case 's':
			if ((e = units_parse_time(optarg, &a->slot)) != NULL ||
			    a->slot == 0 || a->slot > SLOT_MAX) {
				if (e == NULL && a->slot != 0)
					warnmsg("-s %s: a slot lasts at most "
					    "%llups", optarg,
					    (unsigned long long)SLOT_MAX);
				else
					warnmsg("-s %s: %s", optarg, e ? e :
					    "must be positive");
				usage();
			}
			a->slot_set = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (a->slot_set && a->duty_set) {
		warnmsg("-d and -s exclude each other");
		usage();
	}
	if (a->mode == MODE_BVN && (a->slot_set || a->duty_set ||
	    a->fwd_set || a->cap_set)) {
		warnmsg("-c, -d, -f and -s go with -m rotor");
		usage();
	}
	if (a->cap_set && a->fwd != SCHED_VLB) {
		warnmsg("-c goes with -f vlb");
		usage();
	}
}

int
main(int argc, char **argv)
{
	struct stream_writer *w;
	struct schedule sc;
	struct dagin in;
	struct args a;
	char err[400];
	size_t i;
	int rc;

	die_init("rotorsched");
	parse_args(&a, argc, argv);
	die_if_tty();
	dagin_init(&in);
	sched_init(&sc);
	if ((w = stream_writer(stdout)) == NULL)
		die("out of memory");
	read_input(&in, w, argc - 1, argv + 1);
	snprintf(sc.scheduler, sizeof(sc.scheduler), "%s", modes[a.mode]);
	if (a.mode == MODE_ROTOR)
		rotor(&sc, &in.net, &a);
	else
		bvn(&sc, &in);
	sc.forwarding = a.fwd;
	if (a.fwd == SCHED_VLB)
		sc.vlb_cap = a.cap_set ? a.cap : default_cap(&in.net, &a);
	if (sched_check(&sc, &in.net, err, sizeof(err)) != 0)
		die("internal error: the schedule made is invalid: %s", err);
	sched_write_schedule(stream_packer(w), &sc);
	for (i = 0; i < sc.nc; i++)
		sched_write_circuit(stream_packer(w), &sc.c[i]);
	if ((rc = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(rc));
	sched_free(&sc);
	dagin_free(&in);
	return 0;
}
