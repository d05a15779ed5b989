/* simsetup: the state of a run of sim_run() built, and freed. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/heap.h"
#include "records/units.h"
#include "sim/sim.h"
#include "sim/simctl.h"
#include "sim/simfeed.h"
#include "sim/simnext.h"
#include "sim/simq.h"
#include "sim/simsetup.h"
#include "sim/simskip.h"
#include "sim/simslot.h"
#include "sim/simstate.h"

static void *
zalloc(struct sim *s, size_t n, size_t sz)
{
	void *p;

	if ((p = calloc(n ? n : 1, sz)) == NULL)
		sim_fail(s, "out of memory");
	return p;
}

/*
 * Room that is written before it is read, left as it comes: clearing
 * it would cost a pass over memory that is mostly reused (mem_keep()).
 */
static void *
xalloc(struct sim *s, size_t n, size_t sz)
{
	void *p;

	if ((p = reallocarray(NULL, n ? n : 1, sz)) == NULL)
		sim_fail(s, "out of memory");
	return p;
}

/*
 * The pair of a transfer from a to b, remembering each source's last
 * (a GPU sends to few peers, often one after the other) in its gpu
 * entry: sim_pair_find() only on a change.
 */
static uint32_t
last_pair(struct sim *s, uint32_t a, uint32_t b)
{
	struct gpu *g = &s->g[a];

	if (g->lpair == NONE || s->pr[g->lpair].dst != b)
		g->lpair = sim_pair_find(s, a, b, 1);
	return g->lpair;
}

/*
 * Successor lists in place: each task's count in its tstate becomes its
 * list's end, and the lists are filled from the back, so that each ends
 * at its start, successors in id order.  ts[n] closes the last one.
 */
static void
fill_succ(struct sim *s)
{
	const struct dag *d = s->d;
	size_t i, j, run = 0;

	for (i = 0; i < d->n; i++) {
		run += s->ts[i].succ;
		s->ts[i].succ = (uint32_t)run;
	}
	s->ts[d->n] = (struct tstate){ .succ = (uint32_t)run };
	for (i = d->n; i-- > 0;) {
		const uint32_t *dep = d->dep + d->t[i].dep_off;

		for (j = d->t[i].ndep; j-- > 0;)
			s->succ[--s->ts[dep[j]].succ] = (uint32_t)i;
	}
}

/*
 * Task i's state, counted among its dependencies' successors (they come
 * before it, dag.h, so their states are set): a compute joins its GPU's
 * list, a transfer finds its pair.
 */
static int
task_state(struct sim *s, size_t i)
{
	const struct dag_task *t = &s->d->t[i];
	const uint32_t *dep = s->d->dep + t->dep_off;
	struct gpu *g = &s->g[t->gpu];
	uint32_t j;

	s->ts[i] = (struct tstate){ .pending = t->ndep, .pair = NONE,
	    .plan = NONE, .step = t->step, .kind = t->kind };
	if (t->ndep == 0)
		s->roots[s->nroots++] = (uint32_t)i;
	for (j = 0; j < t->ndep; j++)
		s->ts[dep[j]].succ++;
	if (t->kind == DAG_TRANSFER) {
		s->ts[i].left = t->amount;
		s->ts[i].pair = last_pair(s, t->gpu, t->dst);
		return s->ts[i].pair == NONE ? -1 : 0;
	}
	if (g->cur == NONE)
		g->cur = (uint32_t)i;
	else
		s->ts[g->tail].nextc = (uint32_t)i;
	g->tail = (uint32_t)i;
	return 0;
}

/* One pass over the tasks, then their successor lists. */
static int
setup_tasks(struct sim *s)
{
	const struct dag *d = s->d;
	size_t i;
	uint32_t gpus = s->net->gpus, gi, nsteps = 1;
	u128 total = 0;
	char buf[48];

	if (d->ndep > UINT32_MAX) {
		sim_fail(s, "%zu dependencies, more than 4294967295", d->ndep);
		return -1;
	}
	s->ts = xalloc(s, d->n + 1, sizeof(*s->ts));
	s->succ = xalloc(s, d->ndep, sizeof(*s->succ));
	s->g = zalloc(s, gpus, sizeof(*s->g));
	s->roots = xalloc(s, d->n, sizeof(*s->roots));
	if (s->failed)
		return -1;
	for (gi = 0; gi < gpus; gi++)
		s->g[gi] = (struct gpu){ .cur = NONE, .tail = NONE,
		    .flows = NONE, .qpairs = NONE, .lpair = NONE };
	for (i = 0; i < d->n; i++) {
		if (d->t[i].step >= nsteps)
			nsteps = d->t[i].step + 1U;
		if (d->t[i].kind == DAG_TRANSFER)
			total += d->t[i].amount;
		if (task_state(s, i) != 0)
			return -1;
	}
	if (total > UINT64_MAX) {
		sim_fail(s, "the transfers total %s bytes, more than "
		    "18446744073709551615", units_fmt_u128(buf, sizeof(buf), total));
		return -1;
	}
	fill_succ(s);
	s->out->nsteps = nsteps;
	s->out->step_end = zalloc(s, nsteps, sizeof(*s->out->step_end));
	return s->failed ? -1 : 0;
}

int
sim_cmp_pentry(const void *x, const void *y)
{
	const struct pentry *p = x, *q = y;

	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	return p->task < q->task ? -1 : p->task > q->task;
}

/*
 * Whether a plan queue is out of (start, task) order, and its sort:
 * tasks are planned once, so there are no ties.
 */
static int
queue_unsorted(const struct sim *s, const struct pqueue *q)
{
	const struct pentry *e = s->pe + q->off;
	uint32_t i;

	for (i = 1; i < q->n; i++)
		if (sim_cmp_pentry(&e[i - 1], &e[i]) > 0)
			return 1;
	return 0;
}

/*
 * The plans into their queues (plan i's is queue[i]), each in (start,
 * task) order: counted out by queue in stream order, then each queue
 * out of order sorted (one in order, as schedulers write them, costs a
 * look).
 */
static int
plan_queues(struct sim *s, uint32_t npq, const uint32_t *queue)
{
	const struct schedule *sc = s->sc;
	size_t n = sc->np, i;
	uint32_t *at, qi;

	if ((at = zalloc(s, (size_t)npq + 1, sizeof(*at))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		at[queue[i] + 1]++;
	for (qi = 0; qi < npq; qi++) {
		at[qi + 1] += at[qi];
		s->pq[qi].off = at[qi];
		s->pq[qi].n = at[qi + 1] - at[qi];
		s->pq[qi].flow = NONE;
	}
	for (i = 0; i < n; i++) {
		qi = at[queue[i]]++;
		s->pe[qi] = (struct pentry){ sc->p[i].start, sc->p[i].task };
	}
	free(at);
	for (qi = 0; qi < npq; qi++)
		if (queue_unsorted(s, &s->pq[qi]))
			qsort(s->pe + s->pq[qi].off, s->pq[qi].n,
			    sizeof(*s->pe), sim_cmp_pentry);
	if (s->opt->replay == SIMCTL_ASAP)
		for (i = 0; i < n; i++)
			s->pe[i].start = 0;
	return 0;
}

/*
 * Plan p's task checked and marked, and its queue into *qi: a new
 * pair's queues numbered on first sight, ns of them from *npq on.
 */
static int
plan_find_queue(struct sim *s, const struct plan *p, uint32_t *npq,
    uint32_t *qi)
{
	uint32_t ns = s->net->switches;
	struct pair *pr;

	if (p->task >= s->d->n || s->ts[p->task].kind != DAG_TRANSFER) {
		sim_fail(s, "plan for task %u, which is not a transfer",
		    p->task);
		return -1;
	}
	if (s->ts[p->task].plan != NONE) {
		sim_fail(s, "task %u is planned twice", p->task);
		return -1;
	}
	s->ts[p->task].plan = p->sw;
	pr = &s->pr[s->ts[p->task].pair];
	if (pr->pq == NONE) {
		if (*npq > UINT32_MAX - ns) {
			sim_fail(s, "more than 4294967295 plan queues (one "
			    "per pair and switch)");
			return -1;
		}
		pr->pq = *npq;
		*npq += ns;
	}
	*qi = pr->pq + p->sw;
	return 0;
}

/*
 * Plan queues: one per (pair, switch), in start order.  Each plan's
 * queue is found once, from its task's state (a cache miss a plan, the
 * plans not being in task order), and kept for the passes after.
 */
static int
setup_plans(struct sim *s)
{
	const struct schedule *sc = s->sc;
	uint32_t npq = 0, *queue;
	size_t i;
	int rc = -1;

	s->pe = xalloc(s, sc->np, sizeof(*s->pe));
	queue = xalloc(s, sc->np, sizeof(*queue));
	if (s->failed)
		goto out;
	for (i = 0; i < sc->np; i++)
		if (plan_find_queue(s, &sc->p[i], &npq, &queue[i]) != 0)
			goto out;
	s->pq = zalloc(s, npq, sizeof(*s->pq));
	if (!s->failed)
		rc = plan_queues(s, npq, queue);
out:
	free(queue);
	return rc;
}

/* Replay: only the circuits that wait for none come up by themselves. */
static int
setup_ctl(struct sim *s)
{
	uint32_t *ci;
	uint64_t *at;
	size_t i, m;

	if (s->ctl == NULL)
		return 0;
	ci = zalloc(s, s->sc->nc, sizeof(*ci));
	at = zalloc(s, s->sc->nc, sizeof(*at));
	if (!s->failed) {
		m = simctl_first(s->ctl, ci, at);
		for (i = 0; i < m; i++)
			sim_push(s, at[i], EV_UP, ci[i]);
	}
	free(ci);
	free(at);
	return s->failed ? -1 : 0;
}

static int
setup_net(struct sim *s)
{
	size_t n = (size_t)s->net->switches * s->net->gpus, i;
	u128 all = (u128)s->net->switches * s->net->bandwidth_bps;
	char buf[48];

	if (all > UINT64_MAX) {
		sim_fail(s, "%u switches at %llu bit/s give a GPU %s bit/s, "
		    "more than 18446744073709551615", s->net->switches,
		    (unsigned long long)s->net->bandwidth_bps,
		    units_fmt_u128(buf, sizeof(buf), all));
		return -1;
	}

	s->partner = zalloc(s, n, sizeof(*s->partner));
	s->lastp = zalloc(s, n, sizeof(*s->lastp));
	s->swork = zalloc(s, s->net->switches, sizeof(*s->swork));
	s->up_at = zalloc(s, s->sc ? s->sc->nc : 0, sizeof(*s->up_at));
	s->cperiod = zalloc(s, s->sc ? s->sc->nc : 0, sizeof(*s->cperiod));
	s->port = zalloc(s, 2 * (size_t)s->net->gpus, sizeof(*s->port));
	s->qports = zalloc(s, 2 * (size_t)s->net->gpus, sizeof(*s->qports));
	s->dirty = zalloc(s, 2 * (size_t)s->net->gpus, sizeof(*s->dirty));
	if (s->failed)
		return -1;
	memset(s->partner, 0xff, n * sizeof(*s->partner));
	memset(s->lastp, 0xff, n * sizeof(*s->lastp));
	for (i = 0; s->sc != NULL && i < s->sc->nc; i++) {
		s->up_at[i] = UINT64_MAX;
		if (s->canon && s->ctl == NULL && s->slot == NULL)
			sim_push(s, s->sc->c[i].from, EV_UP, (uint32_t)i);
	}
	if (s->sc != NULL && !s->canon && s->ctl == NULL &&
	    simfeed_init(s) != 0)
		return -1;
	return s->failed ? -1 : setup_ctl(s);
}

/* rotorlb: the schedule's circuits indexed once, for lookahead(). */
static int
setup_next(struct sim *s)
{
	if (!s->vlb || s->sc->forwarding != SCHED_ROTORLB)
		return 0;
	if ((s->next = simnext_new(s->sc)) == NULL)
		sim_fail(s, "%s", errno == ENOMEM ? "out of memory" :
		    "a circuit does not end within the period");
	return s->failed ? -1 : 0;
}

static int
setup_out(struct sim *s, struct sim_out *o)
{
	memset(o, 0, sizeof(*o));
	o->gpu = zalloc(s, s->net->gpus, sizeof(*o->gpu));
	o->sw = zalloc(s, s->net->switches, sizeof(*o->sw));
	o->start = xalloc(s, s->d->n, sizeof(*o->start));
	o->end = zalloc(s, s->d->n, sizeof(*o->end));
	if (s->sc != NULL && s->sc->nc > 0) {
		o->cup = zalloc(s, s->sc->nc, sizeof(*o->cup));
		o->cdown = zalloc(s, s->sc->nc, sizeof(*o->cdown));
	}
	if (s->failed)
		return -1;
	memset(o->start, 0xff, s->d->n * sizeof(*o->start));
	if (o->cup != NULL) {
		memset(o->cup, 0xff, s->sc->nc * sizeof(*o->cup));
		memset(o->cdown, 0xff, s->sc->nc * sizeof(*o->cdown));
	}
	return 0;
}

void
simsetup_free(struct sim *s)
{
	uint32_t i;

	for (i = 0; s->port != NULL && i < 2 * s->net->gpus; i++)
		free(s->port[i].f);
	free(s->port);
	free(s->qports);
	free(s->qflows);
	free(s->dirty);
	free(s->qleft);
	free(s->qrate);
	free(s->ifl);
	free(s->ts);
	free(s->succ);
	free(s->g);
	free(s->pe);
	free(s->pq);
	free(s->seg);
	free(s->fl);
	free(s->pr);
	free(s->hkey);
	free(s->hval);
	free(s->roots);
	free(s->partner);
	free(s->lastp);
	free(s->up_at);
	free(s->cperiod);
	free(s->swork);
	heap_free(&s->h);
	simq_free(s);
	simfeed_free(s);
	simskip_free(s);
	simslot_free(s);
	simnext_free(s->next);
	simctl_free(s->ctl);
}

static int
new_ctl(struct sim *s)
{
	if (s->opt->replay == SIMCTL_NONE)
		return 0;
	if (s->sc == NULL) {
		sim_fail(s, "replay: needs a schedule, not the ideal fabric");
		return -1;
	}
	s->ctl = simctl_new(s->d, s->net, s->sc, s->opt->replay,
	    s->opt->up_after, s->opt->down_after, s->err, s->errlen);
	s->failed = s->ctl == NULL;
	return s->failed ? -1 : 0;
}

/*
 * In order: the outputs, the replay controller, the slot lists of a
 * periodic schedule, the fabric, rotorlb's index, the tasks and the
 * plans; each step needs the ones before it.
 */
int
simsetup(struct sim *s)
{
	if (setup_out(s, s->out) != 0 || new_ctl(s) != 0)
		return -1;
	if (s->canon && !s->opt->every_circuit && simslot_init(s) != 0)
		return -1;
	if (setup_net(s) != 0 || setup_next(s) != 0 || setup_tasks(s) != 0)
		return -1;
	return s->ideal ? 0 : setup_plans(s);
}
