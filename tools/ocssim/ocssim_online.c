/* ocssim_online: online Flux, re-planned as the real sizes appear. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "records/wclock.h"
#include "model/net.h"
#include "records/mem.h"
#include "solve/fsolve.h"
#include "solve/greedy.h"
#include "ocssim.h"
#include "model/sched.h"
#include "sim/sim.h"
#include "sim/simctl.h"

struct online {
	const struct dag	*real;
	const struct net	*net;
	uint64_t		 latency;
	double			 budget;	/* seconds of the flux method */
	double			 limit;		/* -T: seconds for the run, or 0 */
	double			 deadline;	/* wclock_now() at which it ends */
	uint32_t		 replans;	/* so far */
	uint64_t		 tlast;		/* the last re-plan's t */
	uint64_t		*assumed;	/* per task: the plan's amount */
	uint64_t		*ready;		/* per task, in the last run */
	uint64_t		*prev;		/* per task: start, last run */
	uint64_t		 T;		/* the last re-plan took effect */
	struct schedule		 cur;		/* the plan being run */
	uint64_t		*upa, *downa;	/* per circuit of cur */
	size_t			 upcap, downcap;
	char			*err;
	size_t			 errlen;
};

static int
fail(struct online *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->err, o->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * The seconds left of -T for the next part of the run (1e300 without
 * -T), or -1 with the message if none are: -T bounds the whole run, its
 * re-plans and simulations together.
 */
static double
left(struct online *o)
{
	double now;

	if (o->limit <= 0)
		return 1e300;
	if ((now = wclock_now()) < o->deadline)
		return o->deadline - now;
	fail(o, "online: time limit of %g s reached after %u re-plans, the "
	    "last at %llu ps of the step (each re-plan runs the greedy and "
	    "simulates the whole step again: see ocssim(1), Online Flux)",
	    o->limit, o->replans, (unsigned long long)o->tlast);
	return -1;
}

/* Each task's ready time in a run: when its last dependency ended. */
static void
ready_times(struct online *o, const struct sim_out *out)
{
	const struct dag *d = o->real;
	size_t i, j;

	for (i = 0; i < d->n; i++) {
		const uint32_t *dep = dag_deps(d, i);

		o->ready[i] = 0;
		for (j = 0; j < d->t[i].ndep; j++)
			if (out->end[dep[j]] > o->ready[i])
				o->ready[i] = out->end[dep[j]];
	}
}

/*
 * The run before the last re-plan took effect must be the run of the
 * plan before it: the splice keeps the past by construction, and this
 * checks it.
 */
static int
same_past(struct online *o, const struct sim_out *out, int first)
{
	size_t i;

	for (i = 0; i < o->real->n; i++) {
		if (!first && (o->prev[i] < o->T || out->start[i] < o->T) &&
		    o->prev[i] != out->start[i])
			return fail(o, "online: task %zu started at %llu ps "
			    "before the re-plan that took effect at %llu ps, "
			    "and at %llu ps after it", i,
			    (unsigned long long)o->prev[i],
			    (unsigned long long)o->T,
			    (unsigned long long)out->start[i]);
		o->prev[i] = out->start[i];
	}
	return 0;
}

/* The first instant a task of another amount than assumed is ready. */
static uint64_t
next_reveal(const struct online *o)
{
	uint64_t r = UINT64_MAX;
	size_t i;

	for (i = 0; i < o->real->n; i++)
		if (o->assumed[i] != o->real->t[i].amount && o->ready[i] < r)
			r = o->ready[i];
	return r;
}

/* What the controller knows at t: h, the real DAG with those amounts. */
static int
knowledge(struct online *o, uint64_t t, struct dag *h)
{
	size_t i, n = o->real->n;

	*h = *o->real;
	if ((h->t = malloc(n * sizeof(*h->t))) == NULL)
		return fail(o, "out of memory");
	memcpy(h->t, o->real->t, n * sizeof(*h->t));
	for (i = 0; i < n; i++) {
		if (o->ready[i] <= t)
			o->assumed[i] = o->real->t[i].amount;
		h->t[i].amount = o->assumed[i];
	}
	return 0;
}

/* A kept circuit of cur: they go by (first up, planned start, index). */
struct kept {
	uint64_t	up, from;
	uint32_t	i;
};

static int
cmp_kept(const void *x, const void *y)
{
	const struct kept *p = x, *q = y;

	if (p->up != q->up)
		return p->up < q->up ? -1 : 1;
	if (p->from != q->from)
		return p->from < q->from ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

static int
push_circuit(struct online *o, struct schedule *s, const struct circuit *c,
    uint64_t from, uint64_t to, uint64_t up, uint64_t down)
{
	size_t k = s->nc;

	if (sched_add_circuit(s, c->sw, c->a, c->b, from, to) != 0 ||
	    mem_grow(&o->upa, &o->upcap, k + 1, sizeof(*o->upa)) != 0 ||
	    mem_grow(&o->downa, &o->downcap, k + 1, sizeof(*o->downa)) != 0)
		return fail(o, "out of memory");
	o->upa[k] = up;
	o->downa[k] = down;
	return 0;
}

/* What has started by T stays: the circuits up by T and their runs. */
static int
keep_past(struct online *o, const struct sim_out *out, uint64_t T,
    struct schedule *s)
{
	const struct schedule *c = &o->cur;
	struct kept *kp;
	uint32_t m = 0, i, ci;
	size_t j;
	int rc = 0;

	if ((kp = malloc((c->nc ? c->nc : 1) * sizeof(*kp))) == NULL)
		return fail(o, "out of memory");
	for (i = 0; i < c->nc; i++)
		if (out->cup[i] < T)
			kp[m++] = (struct kept){ out->cup[i], c->c[i].from, i };
	qsort(kp, m, sizeof(*kp), cmp_kept);
	for (i = 0; i < m && rc == 0; i++) {
		ci = kp[i].i;
		rc = push_circuit(o, s, &c->c[ci], out->cup[ci],
		    UINT64_MAX - 1, out->cup[ci], out->cdown[ci] >= T ? T : 0);
	}
	free(kp);
	for (j = 0; j < c->np && rc == 0; j++)
		if (out->start[c->p[j].task] < T &&
		    sched_add_plan(s, c->p[j].task, c->p[j].sw,
		    out->start[c->p[j].task]) != 0)
			rc = fail(o, "out of memory");
	return rc;
}

/* Every other transfer as the new plan g has it, from T on. */
static int
take_plan(struct online *o, const struct sim_out *out, uint64_t T,
    const struct dag *h, const struct schedule *g, struct schedule *s)
{
	struct simctl *k;
	unsigned char *used;
	uint64_t from, to, at;
	size_t j;
	uint32_t i;
	int rc = 0;

	if ((k = simctl_new(h, o->net, g, SIMCTL_ASAP, NULL, NULL, o->err,
	    o->errlen)) == NULL)
		return -1;
	if ((used = calloc(g->nc ? g->nc : 1, 1)) == NULL) {
		simctl_free(k);
		return fail(o, "out of memory");
	}
	for (j = 0; j < g->np; j++)
		if (out->start[g->p[j].task] >= T)
			used[simctl_circuit(k, g->p[j].task)] = 1;
	for (i = 0; i < g->nc && rc == 0; i++) {
		if (!used[i])
			continue;
		to = g->c[i].to == SCHED_FOREVER ? SCHED_FOREVER : 0;
		if (__builtin_add_overflow(T, g->c[i].from, &from) ||
		    (to == 0 && __builtin_add_overflow(T, g->c[i].to, &to)))
			rc = fail(o, "online: a re-plan at %llu ps has times "
			    "past 18446744073709551615 ps",
			    (unsigned long long)T);
		else
			rc = push_circuit(o, s, &g->c[i], from, to, T, 0);
	}
	for (j = 0; j < g->np && rc == 0; j++) {
		if (out->start[g->p[j].task] < T)
			continue;
		if (__builtin_add_overflow(T, g->p[j].start, &at))
			rc = fail(o, "online: a re-plan at %llu ps has times "
			    "past 18446744073709551615 ps",
			    (unsigned long long)T);
		else if (sched_add_plan(s, g->p[j].task, g->p[j].sw, at) != 0)
			rc = fail(o, "out of memory");
	}
	free(used);
	simctl_free(k);
	return rc;
}

/* The plan from T on: cur's past, then the new plan g. */
static int
splice(struct online *o, const struct sim_out *out, uint64_t T,
    const struct dag *h, const struct schedule *g)
{
	struct schedule s;

	sched_init(&s);
	memcpy(s.scheduler, o->cur.scheduler, sizeof(s.scheduler));
	s.present = 1;
	free(o->upa);
	free(o->downa);
	o->upa = o->downa = NULL;
	o->upcap = o->downcap = 0;
	if (keep_past(o, out, T, &s) != 0 ||
	    take_plan(o, out, T, h, g, &s) != 0) {
		sched_free(&s);
		return -1;
	}
	sched_free(&o->cur);
	o->cur = s;
	return 0;
}

static int
copy_plan(struct online *o, const struct schedule *sc)
{
	size_t i;

	sched_init(&o->cur);
	memcpy(o->cur.scheduler, sc->scheduler, sizeof(sc->scheduler));
	o->cur.present = 1;
	for (i = 0; i < sc->nc; i++)
		if (push_circuit(o, &o->cur, &sc->c[i], sc->c[i].from,
		    sc->c[i].to, 0, 0) != 0)
			return -1;
	for (i = 0; i < sc->np; i++)
		if (sched_add_plan(&o->cur, sc->p[i].task, sc->p[i].sw,
		    sc->p[i].start) != 0)
			return fail(o, "out of memory");
	return 0;
}

/*
 * The new plan of h: the greedy's, or the flux method's in budget, and
 * in the l seconds left of -T.
 */
static int
plan_of(struct online *o, const struct dag *h, double l, struct fsolve *fs)
{
	struct fsolve_opts fo = { .method = FSOLVE_FLUX, .solver = "lpsolve",
	    .limit = o->budget, .max_bin = 2000 };

	if (o->budget <= 0)
		fo.method = FSOLVE_GREEDY;
	else if (l < fo.limit)
		fo.limit = l;
	if (fsolve_run(h, o->net, &fo, fs) == 0)
		return 0;
	return fail(o, "online: re-plan: %s", fs->err);
}

/* One re-plan at t, from the run in out. */
static int
replan(struct online *o, const struct sim_out *out, uint64_t t)
{
	struct fsolve fs;
	struct dag h;
	uint64_t T;
	double l;
	int rc;

	if ((l = left(o)) < 0)
		return -1;
	if (__builtin_add_overflow(t, o->latency, &T))
		return fail(o, "online: a re-plan at %llu ps takes effect "
		    "after 18446744073709551615 ps", (unsigned long long)t);
	if (knowledge(o, t, &h) != 0)
		return -1;
	if (plan_of(o, &h, l, &fs) != 0) {
		fsolve_free(&fs);
		free(h.t);
		return -1;
	}
	rc = splice(o, out, T, &h, &fs.best.sc);
	fsolve_free(&fs);
	free(h.t);
	return rc;
}

static int
run(struct online *o, const struct sim_opts *opt0, struct sim_out *out)
{
	struct sim_opts opt = *opt0;
	double l;

	if ((l = left(o)) < 0)
		return -1;
	opt.time_limit = o->limit > 0 ? l : 0;
	opt.fabric = SIM_SCHEDULE;
	opt.replay = SIMCTL_ASAP;
	opt.up_after = o->upa;
	opt.down_after = o->downa;
	opt.log = NULL;
	if (sim_run(o->real, o->net, &o->cur, &opt, out, o->err,
	    o->errlen) == 0)
		return 0;
	sim_out_free(out);
	if (o->limit > 0)
		(void)left(o);	/* the run's own limit: say it of the whole */
	return -1;
}

int
online_run(const struct dag *real, const struct dag *nom,
    const struct net *net, const struct schedule *sc, uint64_t latency,
    double budget, const struct sim_opts *opt0, struct sim_out *out,
    uint32_t *replans, char *err, size_t errlen)
{
	struct online o;
	const char *why;
	uint64_t r, t, last = 0;
	size_t i;
	int rc = -1;

	memset(&o, 0, sizeof(o));
	if ((why = simctl_refusal(net, sc)) != NULL) {
		snprintf(err, errlen, "-O replays -S's plan as -R does: %s",
		    why);
		return -1;
	}
	o.real = real;
	o.net = net;
	o.latency = latency;
	o.budget = budget;
	o.limit = opt0->time_limit;
	o.deadline = wclock_now() + o.limit;
	o.err = err;
	o.errlen = errlen;
	sched_init(&o.cur);

	*replans = 0;
	o.assumed = malloc((real->n ? real->n : 1) * sizeof(*o.assumed));
	o.ready = malloc((real->n ? real->n : 1) * sizeof(*o.ready));
	o.prev = malloc((real->n ? real->n : 1) * sizeof(*o.prev));
	if (o.assumed == NULL || o.ready == NULL || o.prev == NULL) {
		fail(&o, "out of memory");
		goto out;
	}
	for (i = 0; i < real->n; i++)
		o.assumed[i] = nom->t[i].amount;
	if (copy_plan(&o, sc) != 0)
		goto out;
	for (;;) {
		if (run(&o, opt0, out) != 0)
			goto out;
		if (same_past(&o, out, *replans == 0) != 0) {
			sim_out_free(out);
			goto out;
		}
		ready_times(&o, out);
		if ((r = next_reveal(&o)) == UINT64_MAX)
			break;
		/* busy with the last re-plan until it took effect */
		t = *replans > 0 && r < last + latency ? last + latency : r;
		if (replan(&o, out, t) != 0) {
			sim_out_free(out);
			goto out;
		}
		sim_out_free(out);
		last = t;
		o.T = t + latency;
		o.tlast = t;
		o.replans = ++*replans;
	}
	rc = 0;
out:
	free(o.assumed);
	free(o.ready);
	free(o.prev);
	free(o.upa);
	free(o.downa);
	sched_free(&o.cur);
	return rc;
}
