/* simskip: whole periods of a periodic schedule, skipped in closed form. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched.h"
#include "records/heap.h"
#include "records/mem.h"
#include "sim/simq.h"
#include "sim/simskip.h"
#include "sim/simslot.h"
#include "sim/simstate.h"

/*
 * Skips that save fewer circuit events than this are not taken: a
 * quiet stretch that short is simulated event by event, as it always
 * was, so that the events count of such runs stays that of every
 * event handled (a skip counts the circuit events of the periods it
 * skips, but not the stale transfer events they would have popped).
 */
#define SKIP_MIN_EVENTS	((u128)1 << 20)

/* A flow at the start of the window. */
struct fsnap {
	u128		rem;		/* work left */
	uint64_t	rate, t0;
	uint8_t		live;
};

struct simskip {
	uint64_t		 start, end;	/* the window watched */
	uint64_t		 nstruct;	/* s->nstruct at its start */
	uint64_t		 events;	/* s->out->events at its start */
	int			 armed;		/* snapshot taken at start */
	struct fsnap		*f;
	size_t			 nf, fcap;
	uint64_t		*up, *rec;	/* per switch, at start */
	u128			*work;
	struct heap_item	*tmp;
	size_t			 tcap;
};

static u128
remaining(const struct flow *f, uint64_t t)
{
	u128 w = (u128)f->rate * (t - f->t0);

	return w >= f->work ? 0 : f->work - w;
}

static int
snapshot(struct sim *s, uint64_t t)
{
	struct simskip *k = s->skip;
	size_t i;

	if (mem_grow(&k->f, &k->fcap, s->nfl + 1, sizeof(*k->f)) != 0) {
		sim_fail(s, "out of memory");
		return -1;
	}
	k->nf = s->nfl;
	k->events = s->out->events;
	for (i = 0; i < s->nfl; i++) {
		const struct flow *f = &s->fl[i];

		k->f[i] = (struct fsnap){ .live = f->live };
		if (f->live)
			k->f[i] = (struct fsnap){ remaining(f, t), f->rate,
			    f->t0, 1 };
	}
	for (i = 0; i < s->net->switches; i++) {
		k->up[i] = s->out->sw[i].up_ps;
		k->rec[i] = s->out->sw[i].reconfigs;
		k->work[i] = s->swork[i];
	}
	return 0;
}

/*
 * The events of a period: every circuit's up and down, or, slot by slot
 * (simslot.h), those of the last window.
 */
static uint64_t
period_events(const struct sim *s)
{
	if (s->slot != NULL)
		return s->out->events - s->skip->events;
	return 2 * (uint64_t)s->sc->nc;
}

/*
 * Periods that can be skipped after t1: each flow must have repeated
 * its rates and updates, and keep more than the work of the periods
 * skipped; no compute end, delivery or plan may fall in them.  0 when
 * nothing bounds the wait: the run is stuck, and stuck() will say so.
 */
static uint64_t
periods(struct sim *s, uint64_t t1)
{
	const struct simskip *k = s->skip;
	uint64_t P = s->sc->period, n = UINT64_MAX, maxc = 0, q;
	int bounded = 0;
	size_t i;

	if (s->nfl != k->nf)
		return 0;
	if (simq_flatten(s) != 0) {
		sim_fail(s, "out of memory");
		return 0;
	}
	for (i = 0; i < s->nfl; i++) {
		const struct flow *f = &s->fl[i];
		const struct fsnap *o = &k->f[i];
		u128 rem, d;

		if (f->live != o->live || (f->live && f->rate != o->rate))
			return 0;
		if (!f->live)
			continue;
		if (f->rate > 0 && f->t0 - o->t0 != P)
			return 0;
		if ((rem = remaining(f, t1)) > o->rem)
			return 0;
		if ((d = o->rem - rem) == 0)
			continue;
		if (rem == 0)
			return 0;
		q = (rem - 1) / d > UINT64_MAX ? UINT64_MAX :
		    (uint64_t)((rem - 1) / d);
		n = q < n ? q : n;
		bounded = 1;
	}
	for (i = 0; i < s->h.n; i++) {
		const struct heap_item *it = &s->h.a[i];
		int kind = (int)(it->val >> 56);

		if (kind == EV_UP || kind == EV_DOWN) {
			maxc = it->key > maxc ? it->key : maxc;
			continue;
		}
		if (kind == EV_FLOW)
			continue;
		q = (it->key - t1) / P;
		n = q < n ? q : n;
		bounded = 1;
	}
	if (!bounded || maxc < t1)
		return 0;
	q = (UINT64_MAX - maxc) / P;
	n = n < q ? n : q;
	return (u128)n * period_events(s) < SKIP_MIN_EVENTS ? 0 : n;
}

static int
cmp_item(const void *x, const void *y)
{
	const struct heap_item *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * The events after the skip: circuits n periods on, each live flow's
 * end from its work left, stale flow events dropped.  Ties keep their
 * order, as every period repeats the order of its pushes; circuit
 * events keep their canonical numbers (simstate.h).
 */
static int
requeue(struct sim *s, uint64_t shift)
{
	struct simskip *k = s->skip;
	size_t i, m = 0;

	if (simq_flatten(s) != 0 ||
	    mem_grow(&k->tmp, &k->tcap, s->h.n + 1, sizeof(*k->tmp)) != 0) {
		sim_fail(s, "out of memory");
		return -1;
	}
	for (i = 0; i < s->h.n; i++) {
		struct heap_item it = s->h.a[i];
		int kind = (int)(it.val >> 56);
		const struct flow *f;

		if (kind == EV_UP || kind == EV_DOWN)
			it.key += shift;
		else if (kind == EV_FLOW) {
			f = &s->fl[(uint32_t)it.val];
			if (!f->live || (f->ver & 0xffffff) !=
			    ((uint32_t)(it.val >> 32) & 0xffffff))
				continue;
			if (f->rate > 0)
				it.key = sim_end_at(f->t0, f->work, f->rate);
		}
		k->tmp[m++] = it;
	}
	qsort(k->tmp, m, sizeof(*k->tmp), cmp_item);
	s->h.n = 0;
	for (i = 0; i < m; i++) {
		int kind = (int)(k->tmp[i].val >> 56);
		uint64_t seq = s->canon && (kind == EV_UP || kind == EV_DOWN) ?
		    k->tmp[i].seq : s->seq++;

		if (heap_push(&s->h, k->tmp[i].key, seq, k->tmp[i].val) != 0) {
			sim_fail(s, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* x + n * d, or -1 past 2^64-1. */
static int
scaled_add(uint64_t *x, uint64_t n, uint64_t d)
{
	uint64_t v;

	if (__builtin_mul_overflow(n, d, &v) ||
	    __builtin_add_overflow(*x, v, &v))
		return -1;
	*x = v;
	return 0;
}

/*
 * The switch statistics after n more periods like the last one (slot
 * by slot, simslot_stats() counts the circuits' in closed form).
 */
static int
advance_stats(struct sim *s, uint64_t n)
{
	const struct simskip *k = s->skip;
	struct sim_switchstat *st;
	uint64_t ev = period_events(s);
	uint32_t i;

	for (i = 0; i < s->net->switches; i++) {
		st = &s->out->sw[i];
		s->swork[i] += (s->swork[i] - k->work[i]) * n;
		if (s->slot != NULL)
			continue;
		if (scaled_add(&st->up_ps, n, st->up_ps - k->up[i]) != 0) {
			sim_fail(s, "switch %u: circuits up for more than "
			    "18446744073709551615 ps in all", i);
			return -1;
		}
		if (scaled_add(&st->reconfigs, n, st->reconfigs -
		    k->rec[i]) != 0) {
			sim_fail(s, "switch %u: more than "
			    "18446744073709551615 reconfigurations", i);
			return -1;
		}
	}
	if (scaled_add(&s->out->events, n, ev) != 0) {
		sim_fail(s, "more than 18446744073709551615 events");
		return -1;
	}
	return 0;
}

/* Move the run from t1 on by n periods; the state repeats. */
static void
skip(struct sim *s, uint64_t t1, uint64_t n)
{
	const struct simskip *k = s->skip;
	uint64_t shift = n * s->sc->period;
	size_t i;

	if (advance_stats(s, n) != 0)
		return;
	for (i = 0; i < s->sc->nc; i++) {
		s->cperiod[i] += n;
		if (s->up_at[i] != UINT64_MAX)
			s->up_at[i] += shift;
	}
	for (i = 0; i < s->npr; i++)
		if (s->pr[i].until > k->start && s->pr[i].until != UINT64_MAX)
			s->pr[i].until += shift;
	for (i = 0; i < s->nfl; i++) {
		struct flow *f = &s->fl[i];

		if (!f->live)
			continue;
		f->work -= (k->f[i].rem - remaining(f, t1)) * n;
		if (f->rate > 0 || f->t0 >= k->start)
			f->t0 += shift;
	}
	simslot_shift(s, n);
	s->now = s->last_moving = t1 + shift;
	if (requeue(s, shift) == 0 && s->opt->log != NULL)
		fprintf(s->opt->log, "%llu skip %llu periods to %llu\n",
		    (unsigned long long)t1, (unsigned long long)n,
		    (unsigned long long)(t1 + shift));
}

int
simskip_init(struct sim *s)
{
	struct simskip *k;
	uint32_t ns = s->net->switches;

	if (s->ideal || s->sc == NULL || !s->sc->periodic || s->sc->nc == 0)
		return 0;
	if ((k = calloc(1, sizeof(*k))) == NULL ||
	    (k->up = calloc(ns, sizeof(*k->up))) == NULL ||
	    (k->rec = calloc(ns, sizeof(*k->rec))) == NULL ||
	    (k->work = calloc(ns, sizeof(*k->work))) == NULL) {
		s->skip = k;
		simskip_free(s);
		sim_fail(s, "out of memory");
		return -1;
	}
	k->end = s->sc->period;
	k->nstruct = s->nstruct;
	s->skip = k;
	return 0;
}

/*
 * A flow paused and resumed every period leaves its old end in the
 * queue each time: in a long run that is not skipped (too few events a
 * period, or a window that never repeats) they pile up, and periods()
 * and the queue grow with them.  Drop them once they outnumber the
 * events that count (at most one per live flow, circuit, compute,
 * delivery and planned start), keeping the order of the rest.
 */
static int
compact(struct sim *s)
{
	u128 live = (u128)s->nfl + s->sc->nc + s->computing + s->arriving +
	    s->planned;

	if (simq_len(s) <= 2 * live + 1024)
		return 0;
	return requeue(s, 0);
}

/*
 * Called before the event at key: at the end of each window, skip if
 * this window and the last were quiet, then watch the next.  Returns 1
 * when it handled a window end (the queue may have changed).
 */
int
simskip_boundary(struct sim *s, uint64_t key)
{
	struct simskip *k = s->skip;
	uint64_t t, n, P;
	int quiet;

	if (k == NULL || key < k->end)
		return 0;
	t = k->end;
	P = s->sc->period;
	if (compact(s) != 0)
		return 1;
	quiet = s->nstruct == k->nstruct;
	n = 0;
	if (quiet && k->armed && !s->clipped && (n = periods(s, t)) > 0) {
		skip(s, t, n);
		t += n * P;
	}
	if (s->failed)
		return 1;
	/*
	 * No event before key (slot by slot, idle periods have none): the
	 * window moves to the period of key, to be watched afresh.
	 */
	if (n == 0 && key - t >= P) {
		t = key - (key - t) % P;
		quiet = 0;
	}
	if (t > UINT64_MAX - P) {
		simskip_free(s);
		return 1;
	}
	k->start = t;
	k->end = t + P;
	k->nstruct = s->nstruct;
	k->armed = quiet && snapshot(s, t) == 0;
	return 1;
}

void
simskip_free(struct sim *s)
{
	struct simskip *k = s->skip;

	if (k == NULL)
		return;
	free(k->f);
	free(k->up);
	free(k->rec);
	free(k->work);
	free(k->tmp);
	free(k);
	s->skip = NULL;
}
