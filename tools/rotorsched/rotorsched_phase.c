/*
 * rotorsched -m phase: one configuration of the OCS a phase of the
 * step (Opus), reconfigured at the phase boundaries.
 *
 * The phases: the transfers that cross the OCS, in the order they start
 * on the ideal fabric (lib/sim's or fabsim's, ties by id), cut wherever
 * the class (rotorsched_class.c) changes.  A transfer that waits for
 * another starts after it there, so no phase holds a transfer that
 * waits for one of a later phase.
 *
 * Each phase gets the configuration -m static would choose for its
 * transfers alone, and those of its transfers without a circuit are
 * relayed over its circuits (rotorsched_relay.c).  Phase 0's circuits
 * are up from time 0; phase k + 1's come up once the last transfer of
 * phase k has ended, at the time s the simulation of the schedule made
 * so far says (its configuration k left up for ever until then, which
 * changes nothing before s): a circuit that phase k + 1 keeps stays up,
 * one it drops ends at s, one it adds comes up at s + tau (under the
 * switch model, every circuit of a switch whose matching changes ends
 * at s and the new matching comes up at s + tau).  Transfers of a later
 * phase use whatever circuits are up as they are ready.  The
 * simulation of the whole schedule is the prediction, which ocssim
 * replays.  Work: one simulation a phase, on the ideal fabric first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/net.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/die.h"
#include "sim/fabsim.h"
#include "sim/sim.h"
#include "rotorsched_phase.h"
#include "rotorsched_static.h"

#define NONE	UINT32_MAX

struct ph {
	const struct dagin	*in;
	struct planes		 pl;	/* tiered */
	const struct dag	*d;	/* the DAG simulated */
	uint32_t		*phase;	/* of each task of d, NONE */
	uint64_t		*start, *end;	/* of each task of d */
};

/* A run's start and end of each task, kept; -1 when it made none. */
static int
keep(struct ph *p, const uint64_t *start, const uint64_t *end)
{
	size_t bytes = p->d->n * sizeof(*p->end);

	if (start == NULL || end == NULL)
		return -1;
	memcpy(p->start, start, bytes);
	memcpy(p->end, end, bytes);
	return 0;
}

/*
 * d under sc (the ideal fabric when sc is NULL): the start and end of
 * each task, those done when the run stops short; 0, or -1 with a
 * message in err.
 */
static int
simulate(struct ph *p, const struct schedule *sc, uint64_t *ms, char *err,
    size_t n)
{
	struct schedule none;
	int rc;

	sched_init(&none);
	if (p->in->tiered) {
		struct fabsim_opts o = { .mode = sc == NULL ? FABSIM_IDEAL :
		    FABSIM_CIRCUITS };
		struct fabsim_out out;

		memset(&out, 0, sizeof(out));
		rc = fabsim_run(p->d, &p->pl, sc != NULL ? sc : &none, &o,
		    &out, err, n);
		rc |= keep(p, out.start, out.end);
		*ms = out.makespan;
		fabsim_out_free(&out);
	} else {
		struct sim_opts o = { .fabric = sc == NULL ? SIM_IDEAL :
		    SIM_SCHEDULE, .packet = 4096 };
		struct sim_out out;

		memset(&out, 0, sizeof(out));
		rc = sim_run(p->d, &p->in->net, sc, &o, &out, err, n);
		rc |= keep(p, out.start, out.end);
		*ms = out.makespan;
		sim_out_free(&out);
	}
	sched_free(&none);
	return rc;
}

/* ---- the phases ---- */

static const uint64_t *by_start;

static int
cmp_start(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (by_start[a] != by_start[b])
		return by_start[a] < by_start[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

struct cspan {
	size_t		first, last;	/* in the order of starts */
	uint32_t	cls;
};

static int
cmp_span(const void *x, const void *y)
{
	const struct cspan *p = x, *q = y;

	if (p->first != q->first)
		return p->first < q->first ? -1 : 1;
	return p->cls < q->cls ? -1 : p->cls > q->cls;
}

/*
 * Each class's span of the order, its phase: classes whose spans
 * overlap are one phase; returns how many.
 */
static uint32_t
merge(const uint32_t *order, size_t n, const struct classes *cl,
    uint32_t *of, uint32_t *nclass)
{
	struct cspan *sp = xcalloc(cl->n + 1, sizeof(*sp));
	uint32_t c, np = 0, k = 0;
	size_t i, last = 0;

	for (c = 0; c < cl->n; c++)
		sp[c] = (struct cspan){ SIZE_MAX, 0, c };
	for (i = 0; i < n; i++) {
		c = cl->of[order[i]];
		if (sp[c].first == SIZE_MAX)
			sp[c].first = i;
		sp[c].last = i;
	}
	qsort(sp, cl->n, sizeof(*sp), cmp_span);
	for (c = 0; c < cl->n && sp[c].first != SIZE_MAX; c++, k++) {
		if (np == 0 || sp[c].first > last)
			np++;
		if (sp[c].last > last || np == 1)
			last = sp[c].last > last ? sp[c].last : last;
		of[sp[c].cls] = np - 1;
	}
	*nclass = k;
	free(sp);
	return np;
}

/*
 * The phases of the OCS's transfers, in phase[]; returns how many.
 * The transfers in the order they start on the ideal fabric (ties by
 * id); each class spans its first to its last there; classes whose
 * spans overlap, their traffic interleaved (a layer's gradients
 * all-reduced between the backward all-to-alls of the next), are one
 * phase, served by one configuration of all its traffic; the phases
 * follow one another.
 */
static uint32_t
phases(struct ph *p, struct st_plan *sp, const struct classes *cl,
    uint32_t *phase, uint32_t *nclass)
{
	const struct dag *d = &p->in->dag;
	uint32_t *order = xcalloc(d->n + 1, sizeof(*order));
	uint32_t *of = xcalloc(cl->n + 1, sizeof(*of)), np;
	char err[400];
	uint64_t ms;
	size_t i, n = 0;

	p->d = d;
	if (simulate(p, NULL, &ms, err, sizeof(err)) != 0)
		die("-m phase: the ideal fabric's run, for the phases' "
		    "order: %s", err);
	for (i = 0; i < d->n; i++) {
		phase[i] = NONE;
		if (d->t[i].kind == DAG_TRANSFER && st_uses_ocs(sp, i))
			order[n++] = (uint32_t)i;
	}
	by_start = p->start;
	qsort(order, n, sizeof(*order), cmp_start);
	by_start = NULL;
	np = merge(order, n, cl, of, nclass);
	for (i = 0; i < n; i++)
		phase[order[i]] = of[cl->of[order[i]]];
	free(order);
	free(of);
	return np;
}

/* ---- the windows ---- */

struct sw_model {
	uint64_t	tau;
	int		model;
};

static struct sw_model
model_of(const struct ph *p, uint32_t sw)
{
	if (p->in->tiered)
		return (struct sw_model){ p->pl.p[sw].reconfig_ps,
		    p->pl.p[sw].model };
	return (struct sw_model){ p->in->net.reconfig_ps, p->in->net.model };
}

static int
cmp_circ(const void *x, const void *y)
{
	const struct circuit *p = x, *q = y;

	if (p->sw != q->sw)
		return p->sw < q->sw ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

static const struct circuit *by_circ;

static int
cmp_open(const void *x, const void *y)
{
	return cmp_circ(&by_circ[*(const size_t *)x],
	    &by_circ[*(const size_t *)y]);
}

/*
 * At time s, from the circuits open (up for ever) in sc to those of cf:
 * kept ones stay up, dropped ones end at s, new ones come up at s + tau
 * (the switch model: a switch whose matching changes is all new).
 * Returns the circuits that came up.
 */
static uint64_t
transition(struct ph *p, struct schedule *sc, struct schedule *cf,
    uint64_t s)
{
	size_t *open = xcalloc(sc->nc + 1, sizeof(*open)), no = 0, i, j, k;
	uint8_t *chg, *stay = xcalloc(cf->nc + 1, 1);
	uint64_t up = 0, from;
	struct sw_model m;
	size_t nsw = p->in->tiered ? p->pl.n : p->in->net.switches;

	chg = xcalloc(nsw + 1, 1);
	for (i = 0; i < sc->nc; i++)
		if (sc->c[i].to == SCHED_FOREVER)
			open[no++] = i;
	by_circ = sc->c;
	qsort(open, no, sizeof(*open), cmp_open);
	by_circ = NULL;
	qsort(cf->c, cf->nc, sizeof(*cf->c), cmp_circ);
	for (i = j = 0; i < no || j < cf->nc;) {
		int c = i == no ? 1 : j == cf->nc ? -1 :
		    cmp_circ(&sc->c[open[i]], &cf->c[j]);

		if (c == 0)
			stay[j] = 1;
		else
			chg[c < 0 ? sc->c[open[i]].sw : cf->c[j].sw] = 1;
		i += c <= 0;
		j += c >= 0;
	}
	for (i = j = 0; i < no; i++) {
		struct circuit *o = &sc->c[open[i]];

		while (j < cf->nc && cmp_circ(&cf->c[j], o) < 0)
			j++;
		m = model_of(p, o->sw);
		if (j < cf->nc && cmp_circ(&cf->c[j], o) == 0 &&
		    !(m.model == NET_SWITCH && chg[o->sw]))
			continue;
		o->to = o->from < s ? s : o->from;	/* from >= s: never up */
	}
	for (j = 0; j < cf->nc; j++) {
		m = model_of(p, cf->c[j].sw);
		if (stay[j] && !(m.model == NET_SWITCH && chg[cf->c[j].sw]))
			continue;
		if (__builtin_add_overflow(s, m.tau, &from) ||
		    from >= SCHED_FOREVER)
			die("-m phase: a phase boundary passes 2^64 - 1 ps");
		k = sc->nc;
		if (sched_add_circuit(sc, cf->c[j].sw, cf->c[j].a, cf->c[j].b,
		    from, SCHED_FOREVER) != 0)
			die("out of memory (the circuits)");
		up += k < sc->nc;
	}
	free(open);
	free(stay);
	free(chg);
	return up;
}

/* Drop the circuits that were never up (ended where they began). */
static void
compact(struct schedule *sc)
{
	size_t i, k;

	for (i = k = 0; i < sc->nc; i++)
		if (sc->c[i].to > sc->c[i].from)
			sc->c[k++] = sc->c[i];
	sc->nc = k;
}

/*
 * When the last task of phase k has ended in p->end: 0 when one has
 * not, which only a failed run allows.
 */
static int
phase_end(const struct ph *p, uint32_t k, uint64_t *s)
{
	size_t j;

	*s = 0;
	for (j = 0; j < p->d->n; j++) {
		if (p->phase[j] != k)
			continue;
		if (p->end[j] == 0 && p->d->t[j].amount > 0)
			return 0;
		if (p->end[j] > *s)
			*s = p->end[j];
	}
	return 1;
}

/*
 * The schedule: configuration 0 from time 0, then each next one when
 * the phase before has ended (phases already over by then skipped).
 */
static void
windows(struct ph *p, struct schedule *sc, struct schedule *cf,
    uint32_t np, struct phase_out *po)
{
	uint32_t cur = 0, k = 1;
	uint64_t s = 0, e, ms;
	char err[400];
	size_t i;

	for (i = 0; np > 0 && i < cf[0].nc; i++)
		if (sched_add_circuit(sc, cf[0].c[i].sw, cf[0].c[i].a,
		    cf[0].c[i].b, 0, SCHED_FOREVER) != 0)
			die("out of memory (the circuits)");
	while (k < np) {
		int rc = simulate(p, sc, &ms, err, sizeof(err));

		if (!phase_end(p, cur, &e))
			die("internal error: -m phase: phase %u did not end "
			    "under its configuration: %s", cur,
			    rc != 0 ? err : "(the run ended)");
		s = e > s ? e : s;
		while (k < np && phase_end(p, k, &e) && e <= s)
			k++;		/* over already */
		if (k == np)
			break;
		po->changed += transition(p, sc, &cf[k], s);
		cur = k++;
	}
	compact(sc);
	if (simulate(p, sc, &ms, err, sizeof(err)) != 0)
		die("internal error: -m phase: the schedule made does not "
		    "run: %s", err);
	po->predicted = ms;
}

int64_t
phase_schedule(struct schedule *sc, const struct dagin *in, FILE *kept,
    struct dag *out, uint32_t **from, struct phase_out *po)
{
	struct ph p = { .in = in };
	struct schedule *cf;
	struct st_plan *sp;
	struct classes cl;
	uint32_t *phase, k, np;
	size_t n = in->dag.n, j;
	long at = ftell(kept);
	int64_t nr;

	memset(po, 0, sizeof(*po));
	sc->present = 1;	/* what the simulators ask of a schedule */
	if (in->tiered && planes_expand(&p.pl, &in->fab, in->net.gpus) != 0)
		die("out of memory (the planes of %s on %u GPUs)",
		    in->fab.name, in->net.gpus);
	classes_read(&cl, kept, &in->dag);
	if (at < 0 || fseek(kept, at, SEEK_SET) != 0)
		die("the temporary file of the stream read: cannot go back");
	phase = xcalloc(n + 1, sizeof(*phase));
	p.start = xcalloc(n + 1, sizeof(*p.start));
	p.end = xcalloc(n + 1, sizeof(*p.end));
	sp = st_plan(in, phase);
	po->phases = np = phases(&p, sp, &cl, phase, &po->classes);
	cf = xcalloc(np + 1, sizeof(*cf));
	for (k = 0; k < np; k++) {
		sched_init(&cf[k]);
		(void)st_config(sp, k, &cf[k]);
	}
	nr = st_relay(sp, out, from);
	st_plan_free(sp);
	p.d = nr > 0 ? out : &in->dag;
	p.phase = xcalloc(p.d->n + 1, sizeof(*p.phase));
	for (j = 0; j < p.d->n; j++)
		p.phase[j] = phase[nr > 0 ? (*from)[j] : j];
	if (nr > 0) {
		free(p.start);
		free(p.end);
		p.start = xcalloc(p.d->n + 1, sizeof(*p.start));
		p.end = xcalloc(p.d->n + 1, sizeof(*p.end));
	}
	windows(&p, sc, cf, np, po);
	for (k = 0; k < np; k++)
		sched_free(&cf[k]);
	free(cf);
	free(phase);
	free(p.phase);
	free(p.start);
	free(p.end);
	classes_free(&cl);
	if (in->tiered)
		planes_free(&p.pl);
	return nr;
}
