/*
 * rotorsched, placement (-p): which rotor port each rank sits on.
 *
 * RotorNet's table is made on ports; a placement relabels it, rank i
 * on port port[i].  identity keeps the table as it is; a given list or
 * random:SEED (splitmix64 and Fisher-Yates: the same on every machine)
 * name one; best searches for the one whose schedule lets the stream's
 * DAG finish first under lib/sim/sim, the simulator ocssim runs.
 *
 * The search.  When N is a power of two the table's matchings are
 * i XOR m, which relabelling every port p to p XOR c leaves as they
 * are: port[] and port[] XOR c give the same circuits, so rank 0 stays
 * on port 0 and (N-1)! placements remain (N! otherwise, where the
 * circle method has no such symmetry).  When they fit the budget of
 * evaluations all are simulated, in lexicographic order from identity;
 * else a local search over transpositions, first improvement, from
 * identity and then from seeded random starts, until the budget or the
 * time limit is spent.  A candidate replaces the best only when it is
 * strictly faster, so ties keep the earlier one and the choice is the
 * same on every run that the time limit does not cut.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/dagin.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/die.h"
#include "records/splitmix.h"
#include "records/units.h"
#include "records/wclock.h"
#include "sim/sim.h"

#include "rotorsched.h"

/* The seed of best's random restarts when best:SEED does not give it. */
#define BEST_SEED	1

/* Uniform in [0, n), n > 0: draws below 2^64 mod n are rejected. */
static uint64_t
below(uint64_t *x, uint64_t n)
{
	uint64_t r, low = (0 - n) % n;

	while ((r = splitmix_next(x)) < low)
		;
	return r % n;
}

/* A uniform permutation of 0..n-1 (Fisher-Yates from identity). */
static void
shuffle(uint32_t *p, uint32_t n, uint64_t *x)
{
	uint32_t i, j, t;

	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n; i > 1; i--) {
		j = (uint32_t)below(x, i);
		t = p[i - 1];
		p[i - 1] = p[j];
		p[j] = t;
	}
}

/* ---- the option ---- */

/* A whole decimal number, digits only, within 64 bits. */
static int
parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' ||
		    x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

static int
parse_seed(const char *s, uint64_t *seed, char *err, size_t len)
{
	if (parse_u64(s, seed) == 0)
		return 0;
	snprintf(err, len, "the seed is a whole number from 0 to %" PRIu64,
	    UINT64_MAX);
	return -1;
}

/* "3,0,1,2": a permutation of 0..n-1, n <= NET_MAX_GPUS. */
static int
parse_list(struct place *pl, const char *s, char *err, size_t len)
{
	unsigned char *seen;
	uint32_t n = 1, i;
	const char *q;
	char num[24];
	uint64_t v;
	size_t k;

	for (q = s; *q != '\0'; q++)
		if (*q == ',' && ++n > NET_MAX_GPUS) {
			snprintf(err, len, "more than %u ports", NET_MAX_GPUS);
			return -1;
		}
	pl->port = xmalloc((size_t)n * sizeof(*pl->port));
	seen = xcalloc(n, 1);
	for (i = 0, q = s; i < n; i++, q += k + 1) {
		k = strcspn(q, ",");
		snprintf(num, sizeof(num), "%.*s", (int)(k < 23 ? k : 23), q);
		if (k >= sizeof(num) || parse_u64(num, &v) != 0) {
			snprintf(err, len, "item %u is not a port number "
			    "(expected a list like 3,0,1,2)", i);
			break;
		}
		if (v >= n) {
			snprintf(err, len, "not a permutation of 0..%u: port "
			    "%" PRIu64 " out of range", n - 1, v);
			break;
		}
		if (seen[v]++) {
			snprintf(err, len, "not a permutation of 0..%u: port "
			    "%" PRIu64 " appears twice", n - 1, v);
			break;
		}
		pl->port[i] = (uint32_t)v;
	}
	free(seen);
	if (i < n) {
		free(pl->port);
		pl->port = NULL;
		return -1;
	}
	pl->n = n;
	return 0;
}

int
place_parse(struct place *pl, const char *s, char *err, size_t len)
{
	free(pl->port);
	pl->port = NULL;
	pl->n = 0;
	pl->seed = BEST_SEED;
	if (strcmp(s, "identity") == 0) {
		pl->kind = PLACE_IDENTITY;
		return 0;
	}
	if (strcmp(s, "best") == 0) {
		pl->kind = PLACE_BEST;
		return 0;
	}
	if (strncmp(s, "best:", 5) == 0) {
		pl->kind = PLACE_BEST;
		return parse_seed(s + 5, &pl->seed, err, len);
	}
	if (strncmp(s, "random:", 7) == 0) {
		pl->kind = PLACE_RANDOM;
		return parse_seed(s + 7, &pl->seed, err, len);
	}
	if (*s < '0' || *s > '9') {
		snprintf(err, len, "placement is identity, best, best:SEED, "
		    "random:SEED or a list of ports like 3,0,1,2");
		return -1;
	}
	pl->kind = PLACE_GIVEN;
	return parse_list(pl, s, err, len);
}

/* ---- candidates ---- */

void
place_schedule(struct schedule *sc, const struct net *n,
    const struct args *a, const uint32_t *port)
{
	sc->nc = 0;
	rotor(sc, n, a, port);
	sc->forwarding = a->fwd;
	sc->vlb_cap = SCHED_TWO_HOP(a->fwd) ? a->cap : 0;
}

struct search {
	const struct args	*a;
	const struct dagin	*in;
	struct schedule		 sc;
	uint32_t		*pair;		/* of ranks with traffic */
	size_t			 npair;
	uint32_t		 n;
	int			 pow2;
	uint32_t		*best;
	uint64_t		 best_ms;	/* UINT64_MAX: none yet */
	uint64_t		 done;		/* simulations */
	uint64_t		 space, budget;
	uint64_t		 starts;	/* of the local search */
	double			 t0, shown;
	int			 stopped;	/* by the time limit */
	int			 tty;
};

static void
progress(struct search *s, int last)
{
	char t[UNITS_BUFSZ];
	double now;

	if (!s->tty)
		return;
	now = wclock_now();
	if (!last && now - s->shown < 0.2)
		return;
	s->shown = now;
	fprintf(stderr, "\rrotorsched: placement search: %" PRIu64 " of %"
	    PRIu64 " simulated in %.1f s, best %s   ", s->done,
	    s->space < s->budget ? s->space : s->budget, now - s->t0,
	    s->best_ms == UINT64_MAX ? "none" :
	    units_fmt_time(t, sizeof(t), s->best_ms));
	if (last)
		fputc('\n', stderr);
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;

	return p < q ? -1 : p > q;
}

/*
 * The pairs of ranks a < b with a transfer between them, each once, two
 * numbers a pair, into s->pair: a candidate under direct forwarding
 * needs their circuits only.
 */
static void
traffic_pairs(struct search *s)
{
	const struct dag *d = &s->in->dag;
	uint64_t *key;
	uint32_t a, b;
	size_t i, n = 0;

	key = xreallocarray(NULL, d->n ? d->n : 1, sizeof(*key));
	for (i = 0; i < d->n; i++) {
		if (d->t[i].kind != DAG_TRANSFER || d->t[i].gpu == d->t[i].dst)
			continue;
		a = d->t[i].gpu < d->t[i].dst ? d->t[i].gpu : d->t[i].dst;
		b = d->t[i].gpu ^ d->t[i].dst ^ a;
		key[n++] = (uint64_t)a << 32 | b;
	}
	qsort(key, n, sizeof(*key), cmp_u64);
	s->pair = xreallocarray(NULL, n ? n : 1, 2 * sizeof(*s->pair));
	for (i = s->npair = 0; i < n; i++) {
		if (i > 0 && key[i] == key[i - 1])
			continue;
		s->pair[2 * s->npair] = (uint32_t)(key[i] >> 32);
		s->pair[2 * s->npair++ + 1] = (uint32_t)key[i];
	}
	free(key);
}

/*
 * A candidate's schedule: under direct forwarding the circuits of the
 * pairs with traffic, which is all the simulation uses of the period,
 * else the whole period (two-hop relays over any circuit).
 */
static void
candidate(struct search *s, const uint32_t *port)
{
	const struct net *n = &s->in->net;
	char err[400];

	if (SCHED_TWO_HOP(s->a->fwd)) {
		place_schedule(&s->sc, n, s->a, port);
	} else {
		s->sc.nc = 0;
		rotor_pairs(&s->sc, n, s->a, port, s->pair, s->npair);
		s->sc.forwarding = s->a->fwd;
		s->sc.vlb_cap = 0;
	}
	if (sched_check(&s->sc, n, err, sizeof(err)) != 0)
		die("internal error: the schedule made is invalid: %s", err);
}

/* Past -T: the search stops; else the simulation gets what is left. */
static int
out_of_time(struct search *s, struct sim_opts *opt)
{
	double lim = s->a->place.seconds;

	if (lim <= 0)
		return 0;
	opt->time_limit = lim - (wclock_now() - s->t0);
	if (opt->time_limit > 0)
		return 0;
	s->stopped = 1;
	return 1;
}

/*
 * The simulated makespan of a placement, kept when strictly below the
 * best; UINT64_MAX once the time limit is reached, which is looked at
 * before the candidate's set-up and again before its simulation.
 */
static uint64_t
evaluate(struct search *s, const uint32_t *port)
{
	struct sim_opts opt = { .fabric = SIM_SCHEDULE };
	const struct net *n = &s->in->net;
	double lim = s->a->place.seconds;
	struct sim_out out;
	char err[400];
	uint64_t ms;
	int rc;

	if (s->stopped || s->done >= s->budget || out_of_time(s, &opt))
		return UINT64_MAX;
	candidate(s, port);
	if (out_of_time(s, &opt))
		return UINT64_MAX;
	rc = sim_run(&s->in->dag, n, &s->sc, &opt, &out, err, sizeof(err));
	ms = out.makespan;
	sim_out_free(&out);
	if (rc != 0 && lim > 0 && wclock_now() - s->t0 >= lim) {
		s->stopped = 1;
		return UINT64_MAX;
	}
	if (rc != 0)
		die("placement search: %s", err);
	s->done++;
	if (ms < s->best_ms) {
		s->best_ms = ms;
		memcpy(s->best, port, (size_t)s->n * sizeof(*port));
	}
	progress(s, 0);
	return ms;
}

/* The placements left by the symmetry, saturated at UINT64_MAX. */
static uint64_t
space_size(uint32_t n, int pow2)
{
	uint64_t f = 1;
	uint32_t i;

	for (i = pow2 ? n - 1 : n; i > 1; i--) {
		if (f > UINT64_MAX / i)
			return UINT64_MAX;
		f *= i;
	}
	return f;
}

/* The next permutation of p[0..k) in lexicographic order; 0 after the last. */
static int
next_perm(uint32_t *p, uint32_t k)
{
	uint32_t i, j, t;

	if (k < 2)
		return 0;
	for (i = k - 1; i > 0 && p[i - 1] > p[i]; i--)
		;
	if (i == 0)
		return 0;
	for (j = k - 1; p[j] < p[i - 1]; j--)
		;
	t = p[i - 1];
	p[i - 1] = p[j];
	p[j] = t;
	for (j = k - 1; i < j; i++, j--) {
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	return 1;
}

/* Every placement, rank 0 kept on port 0 when N is a power of two. */
static void
exhaustive(struct search *s, uint32_t *p)
{
	uint32_t i, off = s->pow2 ? 1 : 0;

	for (i = 0; i < s->n; i++)
		p[i] = i;
	do
		(void)evaluate(s, p);
	while (!s->stopped && next_perm(p + off, s->n - off));
}

/* The representative of p's class: rank 0 on port 0 (power of two). */
static void
normalize(const struct search *s, uint32_t *p)
{
	uint32_t i, c = p[0];

	if (!s->pow2)
		return;
	for (i = 0; i < s->n; i++)
		p[i] ^= c;
}

/*
 * From p (makespan ms), take the first transposition of two ranks
 * that is faster, and go on from there, until none is faster.
 */
static void
climb(struct search *s, uint32_t *p, uint32_t *q, uint64_t ms)
{
	uint32_t i, j, t;
	uint64_t m;
	int better = 1;

	while (better) {
		better = 0;
		for (i = 0; i < s->n; i++)
			for (j = i + 1; j < s->n; j++) {
				memcpy(q, p, (size_t)s->n * sizeof(*q));
				t = q[i];
				q[i] = q[j];
				q[j] = t;
				normalize(s, q);
				if ((m = evaluate(s, q)) == UINT64_MAX)
					return;
				if (m < ms) {
					memcpy(p, q, (size_t)s->n *
					    sizeof(*p));
					ms = m;
					better = 1;
				}
			}
	}
}

static void
local_search(struct search *s, uint32_t *p, uint32_t *q)
{
	uint64_t x = s->a->place.seed, ms;
	uint32_t i;

	for (i = 0; i < s->n; i++)
		p[i] = i;
	while (!s->stopped && s->done < s->budget) {
		if (s->starts++ > 0) {
			shuffle(p, s->n, &x);
			normalize(s, p);
		}
		if ((ms = evaluate(s, p)) == UINT64_MAX)
			break;
		climb(s, p, q, ms);
	}
}

static void
say_chosen(const uint32_t *port, uint32_t n, uint64_t ms)
{
	char t[UNITS_BUFSZ];
	uint32_t i;

	fprintf(stderr, "%s: placement ", die_prog());
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%" PRIu32, i > 0 ? "," : "",
		    port != NULL ? port[i] : i);
	if (ms == UINT64_MAX)
		fprintf(stderr, ": makespan unknown (no simulation ended)\n");
	else
		fprintf(stderr, ": makespan %" PRIu64 " ps (%s)\n", ms,
		    units_fmt_time(t, sizeof(t), ms));
}

static uint32_t *
search(const struct args *a, const struct dagin *in)
{
	struct search s = { .a = a, .in = in, .best_ms = UINT64_MAX };
	uint32_t *p, *q, i, n = in->net.gpus;

	s.n = n;
	s.pow2 = (n & (n - 1)) == 0;
	s.space = space_size(n, s.pow2);
	s.budget = a->place.evals;
	s.tty = isatty(STDERR_FILENO);
	s.t0 = wclock_now();
	sched_init(&s.sc);
	traffic_pairs(&s);
	s.best = xmalloc((size_t)n * sizeof(*s.best));
	p = xmalloc((size_t)n * sizeof(*p));
	q = xmalloc((size_t)n * sizeof(*q));
	for (i = 0; i < n; i++)
		s.best[i] = i;		/* identity, should no run end */
	if (s.space <= s.budget)
		exhaustive(&s, p);
	else
		local_search(&s, p, q);
	progress(&s, 1);
	if (a->verbose) {
		say_chosen(s.best, n, s.best_ms);
		fprintf(stderr, "%s: placement search: %" PRIu64 " of %" PRIu64
		    " placements%s simulated, %s%s, in %.2f s\n", die_prog(),
		    s.done, s.space, s.pow2 ? " (rank 0 on port 0)" : "",
		    s.space <= s.budget ? "exhaustive" : "local search",
		    s.stopped ? ", cut by the time limit" : "",
		    wclock_now() - s.t0);
	}
	sched_free(&s.sc);
	free(s.pair);
	free(p);
	free(q);
	return s.best;
}

/* Simulate the placement chosen, for -v. */
static void
say_makespan(const struct args *a, const struct dagin *in,
    const uint32_t *port)
{
	struct search s = { .a = a, .in = in, .best_ms = UINT64_MAX,
	    .budget = 1 };
	uint32_t *p = NULL, i;

	s.n = in->net.gpus;
	s.t0 = wclock_now();
	sched_init(&s.sc);
	traffic_pairs(&s);
	s.best = xmalloc((size_t)s.n * sizeof(*s.best));
	if (port == NULL) {
		p = xmalloc((size_t)s.n * sizeof(*p));
		for (i = 0; i < s.n; i++)
			p[i] = i;
	}
	(void)evaluate(&s, port != NULL ? port : p);
	say_chosen(port, s.n, s.best_ms);
	sched_free(&s.sc);
	free(s.pair);
	free(s.best);
	free(p);
}

uint32_t *
place_choose(const struct args *a, const struct dagin *in)
{
	uint32_t *port = NULL, n = in->net.gpus;
	uint64_t x;

	switch (a->place.kind) {
	case PLACE_BEST:
		return search(a, in);
	case PLACE_GIVEN:
		port = xmalloc((size_t)n * sizeof(*port));
		memcpy(port, a->place.port, (size_t)n * sizeof(*port));
		break;
	case PLACE_RANDOM:
		port = xmalloc((size_t)n * sizeof(*port));
		x = a->place.seed;
		shuffle(port, n, &x);
		break;
	default:
		break;
	}
	if (a->verbose)
		say_makespan(a, in, port);
	return port;
}
