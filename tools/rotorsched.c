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
#include "die.h"
#include "filter.h"
#include "header.h"
#include "net.h"
#include "rec.h"
#include "sched.h"
#include "stream.h"
#include "taskio.h"
#include "units.h"

#define NONE	UINT32_MAX
#define PS	1000000000000ULL

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

struct input {
	struct net	 net;
	int		 have_net;
	uint64_t	*traffic;	/* gpus x gpus bytes, bvn only */
	size_t		 ntasks;
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
	if (a->slot_set)
		return a->slot;
	return (uint64_t)((double)n->reconfig_ps / (1 - a->duty) + 0.5);
}

static void
rotor(struct schedule *sc, const struct net *n, const struct args *a)
{
	uint32_t S = n->switches, nm = n->gpus - 1 + (n->gpus & 1);
	uint32_t K = (nm + S - 1) / S, s, j, g, m, p;
	uint64_t tau = n->reconfig_ps, slot = rotor_slot(n, a);

	if (tau == 0 && !a->slot_set)
		die("the reconfiguration delay is 0: give the slot with -s");
	if (slot <= tau)
		die("slot of %llu ps leaves no time after the reconfiguration "
		    "delay of %llu ps", (unsigned long long)slot,
		    (unsigned long long)tau);
	if (n->gpus < 2)
		die("rotor needs at least 2 GPUs");
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

	return (uint64_t)((t + bps - 1) / bps);
}

/* Pick a maximal matching, heaviest edges first; returns the lightest. */
static uint64_t
pick_matching(struct edge *e, size_t live, uint8_t *used, uint32_t gpus)
{
	uint64_t min = UINT64_MAX;
	size_t i;

	qsort(e, live, sizeof(*e), cmp_edge);
	memset(used, 0, gpus);
	for (i = 0; i < live; i++) {
		e[i].pick = !used[e[i].a] && !used[e[i].b];
		if (!e[i].pick)
			continue;
		used[e[i].a] = used[e[i].b] = 1;
		if (e[i].w < min)
			min = e[i].w;
	}
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
		min = pick_matching(e, live, used, n->gpus);
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

static size_t
traffic_edges(const struct input *in, struct edge **out)
{
	uint32_t n = in->net.gpus, a, b;
	size_t ne = 0, cap = 0;
	struct edge *e = NULL;

	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++) {
			uint64_t ab = in->traffic[(size_t)a * n + b];
			uint64_t ba = in->traffic[(size_t)b * n + a];

			if (ab == 0 && ba == 0)
				continue;
			xgrow(&e, &cap, ne + 1, sizeof(*e));
			e[ne++] = (struct edge){ ab > ba ? ab : ba, a, b, 0 };
		}
	*out = e;
	return ne;
}

/* Deal the matchings to the switches longest first, least load first. */
static void
bvn(struct schedule *sc, const struct input *in)
{
	const struct net *n = &in->net;
	struct slotm *sl;
	struct edge *e, *ch;
	uint64_t *load, start;
	uint32_t *order, s, best;
	size_t ne, ns, i, j, k;

	if ((ne = traffic_edges(in, &e)) == 0)
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
		for (k = m->off; k < m->off + m->n; k++)
			if (sched_add_circuit(sc, best, ch[k].a, ch[k].b, start,
			    start + m->dur) != 0)
				die("out of memory");
		load[best] += m->dur + n->reconfig_ps;
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
one_record(struct input *in, const struct stream_rec *sr, int want_traffic)
{
	struct rec r;
	uint64_t src, dst, bytes;

	rec_init(&r, sr, "stdin");
	if (stream_rec_is(sr, "schedule") || stream_rec_is(sr, "circuit") ||
	    stream_rec_is(sr, "plan"))
		rec_fail(&r, "the stream holds a schedule already");
	else if (stream_rec_is(sr, "net")) {
		if (in->have_net)
			rec_fail(&r, "a second net record");
		else if (net_read(&r, &in->net) == 0) {
			in->have_net = 1;
			if (want_traffic && in->net.gpus > 1U << 15)
				rec_fail(&r, "bvn handles at most 32768 GPUs");
			else if (want_traffic)
				in->traffic = xcalloc((size_t)in->net.gpus *
				    in->net.gpus, sizeof(*in->traffic));
		}
	} else if (stream_rec_is(sr, "task")) {
		in->ntasks++;
		if (!in->have_net)
			rec_fail(&r, "task record before the net record");
		else if (want_traffic && rec_has(&r, "src")) {
			src = rec_u64(&r, "src");
			dst = rec_u64(&r, "dst");
			bytes = rec_u64(&r, "bytes");
			if (!rec_failed(&r) && (src >= in->net.gpus ||
			    dst >= in->net.gpus))
				rec_fail(&r, "GPU out of range (the net has "
				    "%u)", in->net.gpus);
			else if (!rec_failed(&r))
				in->traffic[src * in->net.gpus + dst] += bytes;
		}
	}
	if (rec_failed(&r))
		die("%s", rec_error(&r));
}

struct reading {
	struct input	*in;
	int		 want_traffic;
};

static int
take(void *arg, const struct stream_rec *sr)
{
	struct reading *rg = arg;

	one_record(rg->in, sr, rg->want_traffic);
	return 1;
}

static void
read_input(struct input *in, struct stream_writer *w, int argc,
    char **argv, int want_traffic)
{
	struct reading rg = { in, want_traffic };
	char err[400];

	if (filter_run(stdin, "stdin", w, "rotorsched", argc, argv, take, &rg,
	    err, sizeof(err)) != 0)
		die("%s", err);
	if (!in->have_net)
		die("stdin: no net record: make the DAG with dagbuild");
	if (in->ntasks == 0)
		die("stdin: no task records: make the DAG with dagbuild");
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
	while ((ch = getopt_long(argc, argv, "c:d:f:m:s:", longopts, NULL)) !=
	    -1) {
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
			    a->slot == 0) {
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
	struct input in;
	struct args a;
	char err[400];
	size_t i;
	int rc;

	die_init("rotorsched");
	parse_args(&a, argc, argv);
	die_if_tty();
	memset(&in, 0, sizeof(in));
	sched_init(&sc);
	if ((w = stream_writer(stdout)) == NULL)
		die("out of memory");
	read_input(&in, w, argc - 1, argv + 1, a.mode == MODE_BVN);
	snprintf(sc.scheduler, sizeof(sc.scheduler), "%s", modes[a.mode]);
	if (a.mode == MODE_ROTOR)
		rotor(&sc, &in.net, &a);
	else
		bvn(&sc, &in);
	sc.forwarding = a.fwd;
	if (a.fwd == SCHED_VLB)	/* default: what one slot's circuit carries */
		sc.vlb_cap = a.cap_set ? a.cap : (uint64_t)((unsigned __int128)
		    (rotor_slot(&in.net, &a) - in.net.reconfig_ps) *
		    in.net.bandwidth_bps / (8 * PS));
	if (sched_check(&sc, &in.net, err, sizeof(err)) != 0)
		die("internal error: the schedule made is invalid: %s", err);
	sched_write_schedule(stream_packer(w), &sc);
	for (i = 0; i < sc.nc; i++)
		sched_write_circuit(stream_packer(w), &sc.c[i]);
	if ((rc = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(rc));
	sched_free(&sc);
	free(in.traffic);
	return 0;
}
