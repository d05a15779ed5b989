/* sim: the discrete-event simulator of GPUs, NICs and optical switches. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/heap.h"
#include "records/mem.h"
#include "records/wclock.h"
#include "sim/sim.h"
#include "sim/simbuf.h"
#include "sim/simcirc.h"
#include "sim/simctl.h"
#include "sim/simfeed.h"
#include "sim/simideal.h"
#include "sim/simpair.h"
#include "sim/simq.h"
#include "sim/simsetup.h"
#include "sim/simskip.h"
#include "sim/simslot.h"
#include "sim/simstate.h"

const char *const sim_fabrics[] = { "schedule", "ideal", "static", NULL };
const char *const sim_hosts[] = { "plan", "unaware", "circuit", NULL };

void
sim_fail(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	if (s->failed)
		return;
	s->failed = 1;
	va_start(ap, fmt);
	vsnprintf(s->err, s->errlen, fmt, ap);
	va_end(ap);
}

int
sim_add_u64(struct sim *s, uint64_t *x, uint64_t b, const char *what)
{
	if (!__builtin_add_overflow(*x, b, x))
		return 0;
	sim_fail(s, "%s pass%s %s", what, what[strlen(what) - 1] == 's' ?
	    "" : "es", "18446744073709551615");
	return -1;
}

void
sim_logf(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	fprintf(s->opt->log, "%llu ", (unsigned long long)s->now);
	va_start(ap, fmt);
	vfprintf(s->opt->log, fmt, ap);
	va_end(ap);
	fputc('\n', s->opt->log);
}

int
sim_grow(struct sim *s, void *p, size_t *cap, size_t need, size_t sz)
{
	if (mem_grow(p, cap, need, sz) == 0)
		return 0;
	sim_fail(s, "out of memory");
	return -1;
}

/* chain: seq is the next of s->seq (simq.h). */
static void
push_at(struct sim *s, uint64_t t, int kind, uint32_t ver, uint32_t idx,
    uint64_t seq, int chain)
{
	uint64_t v = (uint64_t)kind << 56 | (uint64_t)(ver & 0xffffff) << 32 |
	    idx;

	if (kind == EV_PLAN)
		s->nstruct++;
	if (simq_push(s, t, seq, v, chain) != 0)
		sim_fail(s, "out of memory");
}

static void
push(struct sim *s, uint64_t t, int kind, uint32_t ver, uint32_t idx)
{
	uint64_t seq = s->seq++;

	if (s->canon && kind == EV_DOWN)
		push_at(s, t, kind, ver, idx, SEQ_DOWN(idx), 0);
	else if (s->canon && kind == EV_UP)
		push_at(s, t, kind, ver, idx, SEQ_UP(idx), 0);
	else
		push_at(s, t, kind, ver, idx, seq, 1);
}

void
sim_push(struct sim *s, uint64_t t, int kind, uint32_t idx)
{
	push(s, t, kind, 0, idx);
}

void
sim_push_ver(struct sim *s, uint64_t t, int kind, uint32_t ver, uint32_t idx)
{
	push(s, t, kind, ver, idx);
}

void
sim_push_seq(struct sim *s, uint64_t t, int kind, uint32_t idx, uint64_t seq)
{
	push_at(s, t, kind, 0, idx, seq, 0);
}

/* ---- pairs: directed (src, dst), found through a hash ---- */


static int
hash_grow(struct sim *s)
{
	size_t ncap = s->hcap ? s->hcap * 2 : 1024, i, j, mask = ncap - 1;
	uint64_t *nk;
	uint32_t *nv;

	nk = calloc(ncap, sizeof(*nk));
	nv = calloc(ncap, sizeof(*nv));
	if (nk == NULL || nv == NULL) {
		free(nk);
		free(nv);
		sim_fail(s, "out of memory");
		return -1;
	}
	for (i = 0; i < s->hcap; i++) {
		if (s->hkey[i] == 0)
			continue;
		for (j = (s->hkey[i] * 0x9e3779b97f4a7c15ULL) >> 20 & mask;
		    nk[j] != 0; j = (j + 1) & mask)
			;
		nk[j] = s->hkey[i];
		nv[j] = s->hval[i];
	}
	free(s->hkey);
	free(s->hval);
	s->hkey = nk;
	s->hval = nv;
	s->hcap = ncap;
	return 0;
}

static uint32_t
pair_find(struct sim *s, uint32_t a, uint32_t b, int create)
{
	uint64_t key = (uint64_t)a * s->net->gpus + b + 1;
	size_t i, mask;
	struct pair *p;
	uint32_t sw;

	/* the table stays at most half full: a lookup always ends */
	if (create && (s->npr + 1) * 2 > s->hcap && hash_grow(s) != 0)
		return NONE;
	if (s->hcap == 0)
		return NONE;
	mask = s->hcap - 1;
	for (i = (key * 0x9e3779b97f4a7c15ULL) >> 20 & mask; s->hkey[i] != 0;
	    i = (i + 1) & mask)
		if (s->hkey[i] == key)
			return s->hval[i];
	if (!create)
		return NONE;
	if (sim_grow(s, &s->pr, &s->prcap, s->npr + 1, sizeof(*s->pr)))
		return NONE;
	p = &s->pr[s->npr];
	*p = (struct pair){ .src = a, .dst = b, .qhead = NONE, .qtail = NONE,
	    .flow = NONE, .pq = NONE, .rhead = NONE, .rtail = NONE,
	    .want = NONE, .qprev = NONE, .qnext = NONE };
	for (sw = 0; s->partner != NULL && sw < s->net->switches; sw++)
		p->up += sim_partner(s, sw, a) == b;
	s->hkey[i] = key;
	s->hval[i] = (uint32_t)s->npr;
	return (uint32_t)s->npr++;
}

uint32_t
sim_pair_find(struct sim *s, uint32_t a, uint32_t b, int create)
{
	return pair_find(s, a, b, create);
}

/* ---- flows ---- */

uint32_t
sim_flow_new(struct sim *s, uint32_t seg, uint32_t pair, int32_t sw)
{
	struct flow *f;
	struct gpu *g;
	uint32_t i;

	if (s->flfree != NONE) {
		i = s->flfree;
		s->flfree = s->fl[i].gnext;
	} else {
		if (sim_grow(s, &s->fl, &s->flcap, s->nfl + 1,
		    sizeof(*s->fl)))
			return NONE;
		i = (uint32_t)s->nfl++;
		s->fl[i].ver = 0;	/* a new slot: no events of its own yet */
	}
	s->nstruct++;
	f = &s->fl[i];
	*f = (struct flow){ .seg = seg, .pair = pair, .sw = sw,
	    .ver = f->ver + 1, .t0 = s->now, .live = 1 };
	f->work = (u128)s->seg[seg].bytes * WORK_BYTE;
	g = &s->g[s->pr[pair].src];
	f->gprev = NONE;
	f->gnext = g->flows;
	if (g->flows != NONE)
		s->fl[g->flows].gprev = i;
	g->flows = i;
	if (!simbuf_handed(s, s->seg[seg].task, s->seg[seg].relayed)) {
		f->streamed = 1;
		g->nstream++;
		simbuf_peak(s, s->pr[pair].src);
	}
	return i;
}

static void
flow_unlink(struct sim *s, uint32_t i)
{
	struct flow *f = &s->fl[i];
	struct gpu *g = &s->g[s->pr[f->pair].src];

	if (f->gprev != NONE)
		s->fl[f->gprev].gnext = f->gnext;
	else
		g->flows = f->gnext;
	if (f->gnext != NONE)
		s->fl[f->gnext].gprev = f->gprev;
	g->nstream -= f->streamed;
	if (f->rate > 0)
		s->moving--;
	f->live = 0;
	f->ver++;
	f->gnext = s->flfree;
	s->flfree = i;
}

/* Work done since t0 is credited; bytes go to the switches carrying it. */
static inline void
flow_advance(struct sim *s, struct flow *f)
{
	u128 w;
	uint32_t sw, k = 0, ns = s->net->switches;
	const struct pair *p = &s->pr[f->pair];

	if (f->rate == 0) {		/* nothing sent since t0 */
		f->t0 = s->now;
		return;
	}
	w = (u128)f->rate * (s->now - f->t0);
	if (w > f->work)
		w = f->work;
	f->work -= w;
	f->t0 = s->now;
	if (w == 0 || s->ideal)
		return;
	if (f->sw >= 0) {
		s->swork[f->sw] += w;
		return;
	}
	for (sw = 0; sw < ns; sw++)
		k += sim_partner(s, sw, p->src) == p->dst;
	for (sw = 0; sw < ns && k > 0; sw++)
		if (sim_partner(s, sw, p->src) == p->dst)
			s->swork[sw] += w / k;
}

void
sim_flow_rate(struct sim *s, uint32_t i, uint64_t rate)
{
	struct flow *f = &s->fl[i];
	uint32_t t = s->seg[f->seg].task;

	flow_advance(s, f);
	if (rate > 0 && !s->ts[t].started) {
		s->ts[t].started = 1;
		s->out->start[t] = s->now;
	}
	if (f->rate == 0 && rate > 0)
		s->moving++;
	if (f->rate > 0 && rate == 0)
		s->moving--;
	f->rate = rate;
	f->ver++;
	if (f->work == 0)
		push(s, s->now, EV_FLOW, f->ver, i);
	else if (rate > 0)
		push(s, sim_end_at(s->now, f->work, rate), EV_FLOW, f->ver, i);
}

/* ---- tasks ---- */

static void task_done(struct sim *, uint32_t);

static void
try_compute(struct sim *s, uint32_t gi)
{
	struct gpu *g = &s->g[gi];
	uint32_t t;

	if (g->busy || (t = g->cur) == NONE)
		return;
	if (!s->ts[t].ready)
		return;
	g->busy = 1;
	s->computing++;
	s->out->gpu[gi].stall_ps += s->now - g->free_at;
	s->out->start[t] = s->now;
	sim_log(s, "compute-start %u gpu %u", t, gi);
	if (s->d->t[t].amount > UINT64_MAX - s->now) {
		sim_fail(s, "compute task %u ends after 18446744073709551615 ps: it "
		    "starts at %llu ps and lasts %llu ps", t,
		    (unsigned long long)s->now,
		    (unsigned long long)s->d->t[t].amount);
		return;
	}
	push(s, s->now + s->d->t[t].amount, EV_COMPUTE, 0, t);
}

uint32_t
sim_seg_new(struct sim *s, uint32_t task, uint64_t bytes, uint32_t fdst)
{
	uint32_t i;

	if (s->segfree != NONE) {
		i = s->segfree;
		s->segfree = s->seg[i].next;
	} else {
		if (sim_grow(s, &s->seg, &s->segcap, s->nseg + 1,
		    sizeof(*s->seg)))
			return NONE;
		i = (uint32_t)s->nseg++;
	}
	s->seg[i] = (struct seg){ task, NONE, bytes, fdst, 0 };
	return i;
}

/* ---- transfers ---- */

static void
transfer_ready(struct sim *s, uint32_t t)
{
	/* its pair has its ends; none of its bytes is delivered yet */
	uint32_t pi = s->ts[t].pair, sg, f;
	uint32_t src = s->pr[pi].src, dst = s->pr[pi].dst;
	uint64_t amount = s->ts[t].left;

	s->g[src].ready_bytes += amount;
	if (simbuf_handed(s, t, 0))
		s->g[src].nic_bytes += amount;
	sim_log(s, "ready %u %u->%u %llu", t, src, dst,
	    (unsigned long long)amount);
	if (s->ideal) {
		if ((sg = sim_seg_new(s, t, amount, dst)) == NONE ||
		    (f = sim_flow_new(s, sg, pi, -1)) == NONE)
			return;
		simideal_add(s, f);
	} else if (s->ts[t].plan != NONE) {
		simslot_pair(s, pi);
		sim_plan_try(s, pi, s->ts[t].plan);
	} else
		simpair_queue(s, t, pi, amount);
	simbuf_peak(s, src);
}

static void
make_ready(struct sim *s, uint32_t t)
{
	s->ts[t].ready = 1;
	if (s->ts[t].kind == DAG_COMPUTE)
		try_compute(s, s->d->t[t].gpu);
	else
		transfer_ready(s, t);
}

static void
task_done(struct sim *s, uint32_t t)
{
	uint32_t i, end = s->ts[t + 1].succ;

	s->out->end[t] = s->now;
	if (s->now > s->out->makespan)
		s->out->makespan = s->now;
	if (s->now > s->out->step_end[s->ts[t].step])
		s->out->step_end[s->ts[t].step] = s->now;
	s->done++;
	sim_log(s, "done %u", t);
	for (i = s->ts[t].succ; i < end; i++)
		if (--s->ts[s->succ[i]].pending == 0)
			make_ready(s, s->succ[i]);
}

/* Replay: a planned transfer is sent; its circuit may go down. */
static void
ctl_sent(struct sim *s, uint32_t t)
{
	uint64_t when;
	uint32_t ci;

	if (s->ctl != NULL && simctl_sent(s->ctl, t, s->now, &ci, &when))
		push(s, when, EV_DOWN, 0, ci);
}

static void
flow_end(struct sim *s, uint32_t fi)
{
	struct flow *f = &s->fl[fi];
	uint32_t sg = f->seg, t = s->seg[sg].task, pi = f->pair;
	uint32_t src = s->pr[pi].src, dst = s->pr[pi].dst;
	int32_t sw = f->sw;
	uint64_t bytes = s->seg[sg].bytes;
	struct pair *p = &s->pr[pi];
	int delivered;

	s->nstruct++;
	flow_advance(s, f);
	if (sim_add_u64(s, &s->g[src].sent_bytes, bytes,
	    "the bytes a GPU sends") ||
	    sim_add_u64(s, &s->out->gpu[src].bytes_sent, bytes,
	    "the bytes a GPU sends") ||
	    sim_add_u64(s, &s->out->bytes_sent, bytes, "the bytes sent"))
		return;
	if (simbuf_handed(s, t, s->seg[sg].relayed))
		s->g[src].nic_sent += bytes;
	if (s->ideal)
		simideal_remove(s, fi);
	flow_unlink(s, fi);
	sim_log(s, "sent %u %u->%u", t, src, dst);
	if (s->seg[sg].relayed)
		p->held -= bytes;
	if (!s->ideal && sw >= 0) {
		struct pqueue *q = &s->pq[p->pq + (uint32_t)sw];

		q->flow = NONE;
		q->head++;
		p->pbusy--;
		ctl_sent(s, t);
		sim_plan_try(s, pi, (uint32_t)sw);
		sim_pair_update(s, pi);
	} else if (!s->ideal)
		p->flow = NONE;
	delivered = s->seg[sg].fdst == dst;
	if (!delivered)
		simpair_relay(s, sg, dst);
	else {
		s->seg[sg].next = s->segfree;
		s->segfree = sg;
	}
	if (!s->ideal && sw < 0)
		simpair_serve(s, pi);
	if (!delivered || (s->ts[t].left -= bytes) > 0)
		return;
	if (s->net->latency_ps > 0) {
		s->arriving++;
		if (s->net->latency_ps > UINT64_MAX - s->now) {
			sim_fail(s, "transfer %u arrives after 18446744073709551615 ps: "
			    "it is sent at %llu ps and latency_ps is %llu", t,
			    (unsigned long long)s->now,
			    (unsigned long long)s->net->latency_ps);
			return;
		}
		push(s, s->now + s->net->latency_ps, EV_ARRIVE, 0, t);
	} else
		task_done(s, t);
}

/* ---- the run ---- */

/* Name the first task that waits and why, when nothing can move. */
static void
deadlock(struct sim *s)
{
	const struct dag_task *t;
	size_t i;

	if (s->clipped) {
		sim_fail(s, "simulated time passes 18446744073709551615 ps with %zu "
		    "of %zu tasks done", s->done, s->d->n);
		return;
	}
	for (i = 0; i < s->d->n; i++)
		if (s->ts[i].ready && s->out->end[i] == 0 &&
		    s->d->t[i].kind == DAG_TRANSFER && s->ts[i].left > 0)
			break;
	if (i == s->d->n) {
		sim_fail(s, "deadlock at %llu ps: %zu of %zu tasks done, none "
		    "can start", (unsigned long long)s->now, s->done,
		    s->d->n);
		return;
	}
	t = &s->d->t[i];
	sim_fail(s, "deadlock at %llu ps: %zu of %zu tasks done; transfer %zu "
	    "(%u->%u, %llu bytes) waits for a circuit %u-%u%s that never "
	    "comes", (unsigned long long)s->now, s->done, s->d->n, i,
	    t->gpu, t->dst, (unsigned long long)t->amount, t->gpu, t->dst,
	    s->ts[i].plan != NONE ?
	    " on its planned switch" : "");
}

/*
 * A periodic schedule never runs out of events: watch for no progress
 * until t, the time of the next event (the state holds from s->now to
 * t: slot by slot, a compute may span any number of periods without an
 * event).  A transfer that waits for its planned start is on its way.
 */
static int
stuck(struct sim *s, uint64_t t)
{
	if (!s->sc || !s->sc->periodic)
		return 0;
	if (s->moving > 0 || s->arriving > 0 || s->computing > 0 ||
	    s->planned > 0) {
		s->last_moving = t;
		return 0;
	}
	return t - s->last_moving > (u128)2 * s->sc->period + 1;
}

/* A flow's end at 2^64-1 ps may only mark that it ends later. */
static int
flow_fits(struct sim *s, uint32_t i)
{
	const struct flow *f = &s->fl[i];
	const struct dag_task *t;

	if (s->now < UINT64_MAX ||
	    (u128)f->rate * (s->now - f->t0) >= f->work)
		return 1;
	t = &s->d->t[s->seg[f->seg].task];
	sim_fail(s, "transfer %u (%u->%u, %llu bytes) ends after "
	    "18446744073709551615 ps", s->seg[f->seg].task, t->gpu, t->dst,
	    (unsigned long long)t->amount);
	return 0;
}

static void
event(struct sim *s, const struct heap_item *it)
{
	int kind = (int)(it->val >> 56);
	uint32_t ver = (uint32_t)(it->val >> 32) & 0xffffff;
	uint32_t idx = (uint32_t)it->val;
	struct gpu *g;

	if (kind == EV_COMPUTE || kind == EV_ARRIVE || kind == EV_PLAN)
		s->nstruct++;
	switch (kind) {
	case EV_COMPUTE:
		g = &s->g[s->d->t[idx].gpu];
		g->busy = 0;
		s->computing--;
		g->free_at = s->now;
		g->cur = s->ts[idx].nextc;
		s->out->gpu[s->d->t[idx].gpu].busy_ps += s->d->t[idx].amount;
		task_done(s, idx);
		try_compute(s, s->d->t[idx].gpu);
		break;
	case EV_FLOW:
		if (s->fl[idx].live && (s->fl[idx].ver & 0xffffff) == ver &&
		    flow_fits(s, idx))
			flow_end(s, idx);
		break;
	case EV_ARRIVE:
		s->arriving--;
		task_done(s, idx);
		break;
	case EV_PLAN:
		s->pq[s->pr[idx].pq + ver].waiting = 0;
		s->planned--;
		sim_plan_try(s, idx, ver);
		break;
	default:
		simcirc_event(s, kind, idx);
	}
}

static void
loop(struct sim *s)
{
	struct heap_item it;
	double t0 = wclock_now();

	s->running = 1;
	while (s->done < s->d->n && !s->failed) {
		const struct heap_item *top = simfeed_top(s);

		if (s->ndirty > 0 && (top == NULL || top->key > s->now)) {
			simideal_rebalance(s);
			continue;
		}
		if (top != NULL && simskip_boundary(s, top->key))
			continue;
		if (!simq_pop(s, &it) || stuck(s, it.key)) {
			deadlock(s);
			return;
		}
		if (it.key < s->now) {
			sim_fail(s, "internal error: an event at %llu ps, "
			    "after %llu ps", (unsigned long long)it.key,
			    (unsigned long long)s->now);
			return;
		}
		s->now = it.key;
		s->out->events++;
		event(s, &it);
		if ((s->out->events & 0xffff) != 0)
			continue;
		if (s->opt->time_limit > 0 && wclock_now() - t0 > s->opt->time_limit)
			sim_fail(s, "time limit of %g s reached at %llu ps with "
			    "%zu of %zu tasks done", s->opt->time_limit,
			    (unsigned long long)s->now, s->done, s->d->n);
		if (s->opt->progress != NULL)
			s->opt->progress(s->opt->arg, s->done, s->d->n, s->now);
	}
}

static void
finish(struct sim *s)
{
	struct sim_out *o = s->out;
	size_t i;
	uint32_t g;

	if (s->slot != NULL)
		simslot_stats(s);
	for (i = 0; s->sc != NULL && s->slot == NULL && i < s->sc->nc; i++)
		if (s->up_at[i] < o->makespan)
			sim_add_u64(s, &o->sw[s->sc->c[i].sw].up_ps,
			    o->makespan - s->up_at[i],
			    "the circuit-up time of a switch (ps)");
	for (g = 0; g < s->net->gpus; g++) {
		if (o->gpu[g].peak_buffer > o->peak_buffer)
			o->peak_buffer = o->gpu[g].peak_buffer;
		if (o->gpu[g].peak_nic > o->peak_nic)
			o->peak_nic = o->gpu[g].peak_nic;
	}
	for (g = 0; g < s->net->switches; g++) {
		o->sw[g].bytes = (uint64_t)(s->swork[g] / WORK_BYTE);
		sim_add_u64(s, &o->reconfigs, o->sw[g].reconfigs,
		    "the reconfigurations");
	}
}

int
sim_run(const struct dag *d, const struct net *net,
    const struct schedule *sc, const struct sim_opts *opt,
    struct sim_out *out, char *err, size_t errlen)
{
	struct sim s;
	size_t i;

	memset(&s, 0, sizeof(s));
	s.d = d;
	s.net = net;
	s.opt = opt;
	s.out = out;
	s.err = err;
	s.errlen = errlen;
	s.ideal = opt->fabric == SIM_IDEAL;
	s.sc = s.ideal ? NULL : sc;
	s.vlb = !s.ideal && sc != NULL && SCHED_TWO_HOP(sc->forwarding);
	s.vlb_cap = s.vlb ? sc->vlb_cap : 0;
	s.segfree = s.flfree = s.runfree = s.runopen = NONE;
	s.runs_on = 1;
	s.seq = SEQ_FIRST;
	s.canon = s.sc != NULL && s.sc->periodic &&
	    opt->replay == SIMCTL_NONE;
	heap_init(&s.h);
	if (simsetup(&s) == 0) {
		for (i = 0; i < s.nroots && !s.failed; i++)
			make_ready(&s, s.roots[i]);
		if (!s.failed && simskip_init(&s) == 0)
			loop(&s);
	}
	if (!s.failed)
		finish(&s);
	simsetup_free(&s);
	return s.failed ? -1 : 0;
}

void
sim_out_free(struct sim_out *o)
{
	free(o->step_end);
	free(o->gpu);
	free(o->sw);
	free(o->start);
	free(o->end);
	free(o->cup);
	free(o->cdown);
	memset(o, 0, sizeof(*o));
}
