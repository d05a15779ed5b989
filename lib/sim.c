/* sim: the discrete-event simulator of GPUs, NICs and optical switches. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "heap.h"
#include "mem.h"
#include "net.h"
#include "sched.h"
#include "sim.h"
#include "simbuf.h"
#include "simcirc.h"
#include "simctl.h"
#include "simfeed.h"
#include "simideal.h"
#include "simnext.h"
#include "simq.h"
#include "simskip.h"
#include "simsetup.h"
#include "simslot.h"
#include "simstate.h"
#include "wclock.h"

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
sim_push_seq(struct sim *s, uint64_t t, int kind, uint32_t idx, uint64_t seq)
{
	push_at(s, t, kind, 0, idx, seq, 0);
}

/* ---- pairs: directed (src, dst), found through a hash ---- */

static uint32_t
partner(const struct sim *s, uint32_t sw, uint32_t g)
{
	return s->partner[(size_t)sw * s->net->gpus + g];
}


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
		p->up += partner(s, sw, a) == b;
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

static uint32_t
flow_new(struct sim *s, uint32_t seg, uint32_t pair, int32_t sw)
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
		k += partner(s, sw, p->src) == p->dst;
	for (sw = 0; sw < ns && k > 0; sw++)
		if (partner(s, sw, p->src) == p->dst)
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

static uint32_t
seg_new(struct sim *s, uint32_t task, uint64_t bytes, uint32_t fdst)
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

/* Rate of the unplanned flow of a pair: B per free circuit. */
static uint64_t
pair_rate(const struct sim *s, const struct pair *p)
{
	return (uint64_t)(p->up - p->pbusy) * s->net->bandwidth_bps;
}

static uint32_t
pop(struct sim *s, uint32_t *head, uint32_t *tail)
{
	uint32_t sg = *head;

	*head = s->seg[sg].next;
	if (*head == NONE)
		*tail = NONE;
	return sg;
}

static void
append(struct sim *s, uint32_t *head, uint32_t *tail, uint32_t sg)
{
	s->seg[sg].next = NONE;
	if (*tail == NONE)
		*head = sg;
	else
		s->seg[*tail].next = sg;
	*tail = sg;
}

static uint32_t offer(struct sim *, uint32_t);

/*
 * Bytes the pair's circuits carry before the circuit brought up last
 * goes down (periodic schedules up one circuit per pair at a time).
 */
static uint64_t
spare(const struct sim *s, const struct pair *p)
{
	unsigned __int128 w;

	if (p->until == UINT64_MAX)
		return UINT64_MAX;
	if (s->now >= p->until)
		return 0;
	w = (unsigned __int128)(p->until - s->now) * pair_rate(s, p);
	w /= WORK_BYTE;
	return w > UINT64_MAX ? UINT64_MAX : (uint64_t)w;
}

/* Bytes join the pair's local queue. */
static void
queue_add(struct sim *s, uint32_t pi, uint64_t bytes)
{
	struct pair *p = &s->pr[pi];
	struct gpu *g = &s->g[p->src];

	if (p->qbytes == 0 && bytes > 0) {
		p->qprev = NONE;
		p->qnext = g->qpairs;
		if (g->qpairs != NONE)
			s->pr[g->qpairs].qprev = pi;
		g->qpairs = pi;
	}
	p->qbytes += bytes;
	g->queued += bytes;
}

/* Bytes leave it. */
static void
queue_sub(struct sim *s, uint32_t pi, uint64_t bytes)
{
	struct pair *p = &s->pr[pi];
	struct gpu *g = &s->g[p->src];

	p->qbytes -= bytes;
	g->queued -= bytes;
	if (p->qbytes > 0 || bytes == 0)
		return;
	if (p->qprev != NONE)
		s->pr[p->qprev].qnext = p->qnext;
	else
		g->qpairs = p->qnext;
	if (p->qnext != NONE)
		s->pr[p->qnext].qprev = p->qprev;
}

/* The head segment, or its first max bytes split off. */
static uint32_t
take(struct sim *s, uint32_t *head, uint32_t *tail, uint64_t max)
{
	uint32_t h = *head, sg;

	if (s->seg[h].bytes <= max)
		return pop(s, head, tail);
	if ((sg = seg_new(s, s->seg[h].task, max, s->seg[h].fdst)) == NONE)
		return NONE;
	s->seg[sg].relayed = s->seg[*head].relayed;
	s->seg[*head].bytes -= max;
	return sg;
}

/*
 * Start the pair's next segment while a circuit is up: relayed bytes
 * first, then local ones, then (two-hop) an offer of other bytes.
 */
static void
pair_serve(struct sim *s, uint32_t pi)
{
	struct pair *p = &s->pr[pi];
	uint64_t max = UINT64_MAX;
	uint32_t sg, f;

	if (p->flow != NONE || pair_rate(s, p) == 0)
		return;
	/*
	 * Under two-hop forwarding a slot serves only what it can carry,
	 * so that the rest stays queued where relays can take it.
	 */
	if (s->vlb && (max = spare(s, p)) == 0)
		return;
	if (p->rhead != NONE)
		sg = take(s, &p->rhead, &p->rtail, max);
	else if (p->qhead != NONE) {
		sg = take(s, &p->qhead, &p->qtail, max);
		if (sg != NONE)
			queue_sub(s, pi, s->seg[sg].bytes);
	} else if (!s->vlb || (sg = offer(s, pi)) == NONE)
		return;
	if (sg == NONE)
		return;
	if ((f = flow_new(s, sg, pi, -1)) == NONE)
		return;
	p = &s->pr[pi];
	p->flow = f;
	sim_log(s, "send-start %u %u->%u", s->seg[sg].task, p->src, p->dst);
	simslot_pair(s, pi);
	sim_flow_rate(s, f, pair_rate(s, &s->pr[pi]));
}

/* What n bytes take at one circuit's rate, rounded up. */
static uint64_t
circuit_ps(const struct sim *s, u128 n)
{
	u128 ps = (n * WORK_BYTE + s->net->bandwidth_bps - 1) /
	    s->net->bandwidth_bps;

	return ps > UINT64_MAX ? UINT64_MAX : (uint64_t)ps;
}

/*
 * rotorlb's look-ahead: may a hand b, over the circuit of pair pi, the
 * head bytes of its queue for another destination d (pair k)?  Only
 * when b has room for some, and b would start them towards d before a
 * would (simnext_relay_sooner()): b from the end t1 of the hop to b (of
 * as much as offer() hands, at the circuit's rate), behind what it
 * holds for d already; a from now, behind its own bytes for d that
 * stay: what it holds for d as a relay, its hop to d under way, and
 * its queue for d less the bytes handed.
 */
static int
lookahead(struct sim *s, uint32_t pi, uint32_t k)
{
	uint32_t rp = pair_find(s, s->pr[pi].dst, s->pr[k].dst, 1);
	const struct pair *p = &s->pr[pi], *q = &s->pr[k];
	uint64_t room, sp = spare(s, p), rate = pair_rate(s, p), t1;
	u128 ahead;

	if (rp == NONE || rate == 0 || s->now >= p->until)
		return 0;
	room = s->pr[rp].held < s->vlb_cap ? s->vlb_cap - s->pr[rp].held : 0;
	room = room < sp ? room : sp;
	if (room > s->seg[q->qhead].bytes)
		room = s->seg[q->qhead].bytes;
	if (room == 0)
		return 0;
	t1 = sim_end_at(s->now, (u128)room * WORK_BYTE, rate);
	ahead = (u128)q->held + q->qbytes - room;
	if (q->flow != NONE && !s->seg[s->fl[q->flow].seg].relayed)
		ahead += sim_unsent(s, &s->fl[q->flow]);
	return simnext_relay_sooner(s->next, p->src, p->dst, q->dst, s->now,
	    t1, circuit_ps(s, ahead), circuit_ps(s, s->pr[rp].held));
}

/*
 * RotorLB: the circuit a-b has spare capacity.  Offer b the queued bytes
 * of a for the destination d with the most of them, as much as b still
 * accepts for d (the cap) and the circuit can carry before it goes down.
 * Under rotorlb only the destinations that pass lookahead() compete.
 */
static uint32_t
offer(struct sim *s, uint32_t pi)
{
	uint32_t a = s->pr[pi].src, b = s->pr[pi].dst, best = NONE, k, rp;
	uint32_t sg;
	uint64_t room, amount;

	for (k = s->g[a].qpairs; k != NONE; k = s->pr[k].qnext) {
		const struct pair *q;

		if (s->pr[k].dst == b ||
		    (s->next != NULL && !lookahead(s, pi, k)))
			continue;
		q = &s->pr[k];	/* lookahead() may move the pairs */
		if (best == NONE || q->qbytes > s->pr[best].qbytes ||
		    (q->qbytes == s->pr[best].qbytes && q->dst <
		    s->pr[best].dst))
			best = k;
	}
	if (best == NONE || s->now >= s->pr[pi].until)
		return NONE;
	if ((rp = pair_find(s, b, s->pr[best].dst, 1)) == NONE)
		return NONE;
	room = s->pr[rp].held < s->vlb_cap ? s->vlb_cap - s->pr[rp].held : 0;
	room = room < spare(s, &s->pr[pi]) ? room : spare(s, &s->pr[pi]);
	if (room == 0 || (sg = take(s, &s->pr[best].qhead,
	    &s->pr[best].qtail, room)) == NONE)
		return NONE;
	amount = s->seg[sg].bytes;
	queue_sub(s, best, amount);
	s->pr[rp].held += amount;
	sim_log(s, "offer %u %u->%u for %u %llu", s->seg[sg].task, a, b,
	    s->seg[sg].fdst, (unsigned long long)amount);
	return sg;
}

void
sim_pair_update(struct sim *s, uint32_t pi)
{
	struct pair *p = &s->pr[pi];

	if (p->flow != NONE)
		sim_flow_rate(s, p->flow, pair_rate(s, p));
	else
		pair_serve(s, pi);
}

void
sim_plan_try(struct sim *s, uint32_t pi, uint32_t sw)
{
	struct pair *p = &s->pr[pi];
	struct pqueue *q = &s->pq[p->pq + sw];
	uint32_t t, sg, f;

	if (partner(s, sw, p->src) != p->dst || q->head >= q->n)
		return;
	if (q->flow != NONE) {
		if (s->fl[q->flow].rate == 0) {
			p->pbusy++;
			sim_flow_rate(s, q->flow, s->net->bandwidth_bps);
		}
		return;
	}
	t = s->pe[q->off + q->head].task;
	if (!s->ts[t].ready || (s->ctl != NULL &&
	    !simctl_is_up(s->ctl, simctl_circuit(s->ctl, t))))
		return;
	if (s->now < s->pe[q->off + q->head].start) {	/* not before its plan */
		if (!q->waiting) {
			q->waiting = 1;
			s->planned++;
			push(s, s->pe[q->off + q->head].start, EV_PLAN, sw, pi);
		}
		return;
	}
	/* a planned transfer is sent whole: nothing of it is delivered */
	if ((sg = seg_new(s, t, s->ts[t].left, p->dst)) == NONE ||
	    (f = flow_new(s, sg, pi, (int32_t)sw)) == NONE)
		return;
	q->flow = f;
	s->pr[pi].pbusy++;
	sim_log(s, "send-start %u %u->%u switch %u", t, p->src, p->dst, sw);
	simslot_pair(s, pi);
	sim_flow_rate(s, f, s->net->bandwidth_bps);
}

/* ---- transfers ---- */

/* New bytes at g: its idle circuits may offer them to a relay. */
static void
offer_around(struct sim *s, uint32_t g)
{
	uint32_t sw, b, pi;

	for (sw = 0; sw < s->net->switches; sw++) {
		if ((b = partner(s, sw, g)) == NONE)
			continue;
		if ((pi = pair_find(s, g, b, 1)) != NONE)
			pair_serve(s, pi);
	}
}

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
		if ((sg = seg_new(s, t, amount, dst)) == NONE ||
		    (f = flow_new(s, sg, pi, -1)) == NONE)
			return;
		simideal_add(s, f);
	} else if (s->ts[t].plan != NONE) {
		simslot_pair(s, pi);
		sim_plan_try(s, pi, s->ts[t].plan);
	} else {
		if ((sg = seg_new(s, t, amount, dst)) == NONE)
			return;
		append(s, &s->pr[pi].qhead, &s->pr[pi].qtail, sg);
		queue_add(s, pi, amount);
		simslot_pair(s, pi);
		if (s->vlb)
			simslot_gpu(s, src);
		pair_serve(s, pi);
		if (s->vlb)
			offer_around(s, src);
	}
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

/* A relayed segment reached its relay: hold it for its destination. */
static void
relay_arrive(struct sim *s, uint32_t sg, uint32_t at)
{
	uint32_t rp;

	if ((rp = pair_find(s, at, s->seg[sg].fdst, 1)) == NONE)
		return;
	s->seg[sg].relayed = 1;
	if (sim_add_u64(s, &s->g[at].ready_bytes, s->seg[sg].bytes,
	    "the bytes a GPU holds"))
		return;
	s->g[at].nic_bytes += s->seg[sg].bytes;
	append(s, &s->pr[rp].rhead, &s->pr[rp].rtail, sg);
	sim_log(s, "relay %u at %u for %u", s->seg[sg].task, at,
	    s->seg[sg].fdst);
	simslot_pair(s, rp);
	simbuf_peak(s, at);
	pair_serve(s, rp);
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
		relay_arrive(s, sg, dst);
	else {
		s->seg[sg].next = s->segfree;
		s->segfree = sg;
	}
	if (!s->ideal && sw < 0)
		pair_serve(s, pi);
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
