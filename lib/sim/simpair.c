/* simpair: a pair's bytes served over its circuits. */
#include <stdint.h>

#include "model/net.h"
#include "sim/sim.h"
#include "sim/simbuf.h"
#include "sim/simctl.h"
#include "sim/simnext.h"
#include "sim/simpair.h"
#include "sim/simslot.h"
#include "sim/simstate.h"

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
	if ((sg = sim_seg_new(s, s->seg[h].task, max, s->seg[h].fdst)) == NONE)
		return NONE;
	s->seg[sg].relayed = s->seg[*head].relayed;
	s->seg[*head].bytes -= max;
	return sg;
}

/*
 * Start the pair's next segment while a circuit is up: relayed bytes
 * first, then local ones, then (two-hop) an offer of other bytes.
 */
void
simpair_serve(struct sim *s, uint32_t pi)
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
	if ((f = sim_flow_new(s, sg, pi, -1)) == NONE)
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
	uint32_t rp = sim_pair_find(s, s->pr[pi].dst, s->pr[k].dst, 1);
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
	if ((rp = sim_pair_find(s, b, s->pr[best].dst, 1)) == NONE)
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
		simpair_serve(s, pi);
}

void
sim_plan_try(struct sim *s, uint32_t pi, uint32_t sw)
{
	struct pair *p = &s->pr[pi];
	struct pqueue *q = &s->pq[p->pq + sw];
	uint32_t t, sg, f;

	if (sim_partner(s, sw, p->src) != p->dst || q->head >= q->n)
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
			sim_push_ver(s, s->pe[q->off + q->head].start,
			    EV_PLAN, sw, pi);
		}
		return;
	}
	/* a planned transfer is sent whole: nothing of it is delivered */
	if ((sg = sim_seg_new(s, t, s->ts[t].left, p->dst)) == NONE ||
	    (f = sim_flow_new(s, sg, pi, (int32_t)sw)) == NONE)
		return;
	q->flow = f;
	/*
	 * The queue's next plan is read when this transfer ends, and by
	 * then its line has often left the cache: the plans are laid out
	 * queue by queue, and the queues (4,096 of Flux's at 1024 GPUs)
	 * take turns among the simulation's other work.
	 */
	if (q->head + 1 < q->n)
		SIM_PREFETCH(&s->pe[q->off + q->head + 1]);
	s->pr[pi].pbusy++;
	sim_log(s, "send-start %u %u->%u switch %u", t, p->src, p->dst, sw);
	simslot_pair(s, pi);
	sim_flow_rate(s, f, s->net->bandwidth_bps);
}

/* New bytes at g: its idle circuits may offer them to a relay. */
static void
offer_around(struct sim *s, uint32_t g)
{
	uint32_t sw, b, pi;

	for (sw = 0; sw < s->net->switches; sw++) {
		if ((b = sim_partner(s, sw, g)) == NONE)
			continue;
		if ((pi = sim_pair_find(s, g, b, 1)) != NONE)
			simpair_serve(s, pi);
	}
}

/* A relayed segment reached its relay: hold it for its destination. */
void
simpair_relay(struct sim *s, uint32_t sg, uint32_t at)
{
	uint32_t rp;

	if ((rp = sim_pair_find(s, at, s->seg[sg].fdst, 1)) == NONE)
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
	simpair_serve(s, rp);
}

/* An unplanned transfer's bytes join its pair's queue, to be served. */
void
simpair_queue(struct sim *s, uint32_t t, uint32_t pi, uint64_t amount)
{
	uint32_t src = s->pr[pi].src, sg;

	if ((sg = sim_seg_new(s, t, amount, s->pr[pi].dst)) == NONE)
		return;
	append(s, &s->pr[pi].qhead, &s->pr[pi].qtail, sg);
	queue_add(s, pi, amount);
	simslot_pair(s, pi);
	if (s->vlb)
		simslot_gpu(s, src);
	simpair_serve(s, pi);
	if (s->vlb)
		offer_around(s, src);
}
