/*
 * simstate: the state of one run of sim_run(), shared by sim.c and its
 * parts (simbuf, simcirc, simfeed, simideal, simpair, simq, simsetup,
 * simskip, simslot) and their unit tests only; nothing else includes
 * it.
 * sim.c owns every array; sim_fail() records the first error.
 */
#ifndef SIMSTATE_H
#define SIMSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"
#include "records/heap.h"
#include "sim/sim.h"
#include "sim/simctl.h"
#include "sim/simnext.h"

typedef unsigned __int128 u128;

#define NONE		UINT32_MAX
#define PS_PER_S	1000000000000ULL
#define WORK_BYTE	((u128)8 * PS_PER_S)	/* work units in one byte */

/* Ask for the cache line at p ahead of a read (GCC, clang); else nothing. */
#if defined(__GNUC__)
#define SIM_PREFETCH(p)	__builtin_prefetch(p)
#else
#define SIM_PREFETCH(p)	((void)(p))
#endif

enum ev { EV_COMPUTE, EV_FLOW, EV_ARRIVE, EV_PLAN, EV_UP, EV_DOWN };

/* Bytes of one transfer, or part of one, moving over one hop. */
struct seg {
	uint32_t	task;
	uint32_t	next;
	uint64_t	bytes;
	uint32_t	fdst;		/* final destination */
	uint8_t		relayed;	/* held by a relay for fdst */
};

struct flow {
	uint32_t	seg;
	uint32_t	pair;
	int32_t		sw;		/* planned switch, or -1 */
	uint32_t	ver;
	uint64_t	rate;		/* bit/s */
	uint64_t	t0;		/* time of the last update */
	u128		work;		/* bits x 10^12 still to send */
	uint32_t	gprev, gnext;	/* the sender's active flows */
	uint8_t		live;
	uint8_t		streamed;	/* its segment is not handed whole */
};

struct pair {
	uint32_t	src, dst;
	uint32_t	qhead, qtail;	/* unplanned segments, FIFO */
	uint32_t	flow;		/* the unplanned flow, or NONE */
	uint32_t	up;		/* switches with the circuit up */
	uint32_t	pbusy;		/* of those, running a planned flow */
	uint32_t	pq;		/* first plan queue (one per switch) */
	uint32_t	rhead, rtail;	/* relayed segments, served first */
	uint64_t	qbytes;		/* bytes in the local queue */
	uint64_t	held;		/* relay bytes src holds for dst */
	uint64_t	until;		/* end of the circuit now up */
	uint32_t	want;		/* slot by slot: its want, or NONE */
	uint32_t	qprev, qnext;	/* the source's pairs with qbytes */
};

/*
 * A plan in its queue: its task and planned start (simfeed: a circuit
 * and its from); sim_cmp_pentry() orders them by (start, task).
 */
struct pentry {
	uint64_t	start;
	uint32_t	task;
};

struct pqueue {
	uint32_t	off, n, head;	/* into plan order */
	uint32_t	flow;
	int		waiting;	/* an EV_PLAN is pending */
};

/* Ideal fabric: a flow on a port, and the flow's other port. */
struct pflow {
	uint32_t	fi, other;
};

struct port {
	struct pflow	*f;
	uint32_t	 n, cap;
	uint64_t	 cap_bps;	/* water-filling */
	uint32_t	 cnt, mark;
	uint32_t	 qidx;		/* its place in qports at mark */
	uint32_t	 min;		/* the round it was a bottleneck */
	uint8_t		 isdirty;
};

/* simq: events pushed one after another for one time, as one item. */
struct simrun {
	uint64_t	*v;		/* their events, in push order */
	uint32_t	 n, cap, cur;	/* cur: the next to come out */
	uint32_t	 next;		/* free list */
};

/* Ideal fabric: a flow's ports and its places in their lists. */
struct iflow {
	uint32_t	pt[2];
	uint32_t	pos[2];
};

/* Ideal fabric: a flow of the component being re-shared, its ports. */
struct qflow {
	uint32_t	fi;
	uint32_t	pt[2];
};

/*
 * A task's state in a run, in one place: an event touches these fields
 * of a task together, and at millions of tasks each array of its own
 * would cost a cache miss of its own.
 */
struct tstate {
	uint64_t	left;		/* transfer: bytes undelivered */
	uint32_t	pending;	/* dependencies not done */
	uint32_t	pair;		/* transfer: its pair; compute: NONE */
	union {
		uint32_t plan;		/* transfer: its planned switch, or NONE */
		uint32_t nextc;		/* compute: its GPU's next, or NONE */
	};
	uint32_t	succ;		/* its successors: s->succ[succ] up to
					   s->succ[this[1].succ] */
	uint16_t	step;		/* the DAG's */
	uint8_t		ready;
	uint8_t		kind;		/* the DAG's */
	uint8_t		started;	/* out->start is set */
};

struct gpu {
	uint32_t	cur, tail;	/* its next compute task (NONE: no more),
					   its last (set-up) */
	int		busy;
	uint64_t	free_at;
	uint64_t	ready_bytes, sent_bytes;
	uint64_t	nic_bytes, nic_sent;	/* of those, handed whole */
	uint32_t	flows;		/* head of active flow list */
	uint32_t	nstream;	/* of those, streamed (not handed) */
	uint64_t	queued;		/* bytes in its pairs' local queues */
	uint32_t	qpairs;		/* head of its pairs with any */
	uint32_t	lpair;		/* set-up: the pair it last sent on */
};

struct sim {
	const struct dag	*d;
	const struct net	*net;
	const struct schedule	*sc;
	const struct sim_opts	*opt;
	struct sim_out		*out;
	char			*err;
	size_t			 errlen;
	int			 ideal;
	int			 vlb;
	uint64_t		 vlb_cap;
	struct simnext		*next;		/* rotorlb's look-ahead */
	struct simctl		*ctl;		/* replay's controller */
	uint64_t		 now, seq;
	struct heap		 h;
	/* tasks */
	struct tstate		*ts;		/* one more: its succ ends */
	uint32_t		*succ;
	uint32_t		*roots;		/* tasks without dependencies */
	size_t			 nroots;
	size_t			 done;
	struct gpu		*g;
	/* transfers */
	struct seg		*seg;
	size_t			 nseg, segcap;
	uint32_t		 segfree;
	struct flow		*fl;
	size_t			 nfl, flcap;
	uint32_t		 flfree;
	uint32_t		 moving;	/* flows with a positive rate */
	uint64_t		 arriving;	/* deliveries still in flight */
	uint32_t		 computing;	/* GPUs running a task */
	uint64_t		 planned;	/* EV_PLANs pending */
	struct pair		*pr;
	size_t			 npr, prcap;
	uint64_t		*hkey;		/* pair hash: key + 1, 0 empty */
	uint32_t		*hval;
	size_t			 hcap;
	struct pqueue		*pq;
	struct pentry		*pe;		/* plans, by queue, in order */
	uint32_t		*partner, *lastp;	/* [sw * gpus + g] */
	uint64_t		*up_at;		/* per circuit */
	uint64_t		*cperiod;	/* per circuit: period index */
	u128			*swork;		/* per switch: work carried */
	/* ideal fabric */
	struct port		*port;		/* 2 * gpus */
	uint32_t		 epoch;
	uint32_t		*qports, *qleft;
	struct qflow		*qflows;
	uint64_t		*qrate;
	size_t			 qfcap;		/* one component's flows */
	struct iflow		*ifl;		/* by flow index */
	size_t			 iflcap;
	uint32_t		 wstamp;	/* water-filling rounds */
	uint32_t		*dirty;		/* ports to rebalance at now */
	size_t			 ndirty;
	uint64_t		 last_moving;
	int			 failed;
	/* periodic schedules: whole periods skipped in closed form */
	uint64_t		 nstruct;	/* events that change more than work */
	struct simskip		*skip;
	int			 clipped;	/* circuits past 2^64-1 ps dropped */
	/* periodic schedules: only the circuits traffic waits for */
	struct simslot		*slot;
	int			 canon;		/* circuit events in index order */
	int			 running;	/* the event loop has begun */
	/* schedules without a period: circuits queued as time comes */
	struct simfeed		*feed;
	/* the queue's runs of same-time events (simq.h) */
	struct simrun		*runs;
	size_t			 nruns, runcap;
	uint32_t		 runfree, runopen;
	size_t			 qextra;	/* events in runs, less one a run */
	uint64_t		 qlast_key, qlast_seq;	/* the last push */
	int			 qlast_set, runs_on;
};

/*
 * Sequence numbers: under a periodic schedule the circuit events of an
 * instant come first, downs then ups, each by circuit index (so that
 * simulating every circuit and only the wanted ones agree); every other
 * event is numbered in push order after them.
 */
#define SEQ_DOWN(ci)	((uint64_t)(ci))
#define SEQ_UP(ci)	(((uint64_t)1 << 32) + (ci))
#define SEQ_FIRST	((uint64_t)1 << 40)

/* The GPU that g's port on switch sw faces now, or NONE. */
static inline uint32_t
sim_partner(const struct sim *s, uint32_t sw, uint32_t g)
{
	return s->partner[(size_t)sw * s->net->gpus + g];
}

/*
 * When a flow with work left at t0 ends at rate bit/s: the first
 * picosecond by which it is all sent, or UINT64_MAX when that is later
 * (the event then only marks the limit; see flow_fits() in sim.c).
 */
static inline uint64_t
sim_end_at(uint64_t t0, u128 work, uint64_t rate)
{
	u128 d = (work + rate - 1) / rate;

	return d > UINT64_MAX - t0 ? UINT64_MAX : t0 + (uint64_t)d;
}

/*
 * Work in bytes, rounded up.  WORK_BYTE is 2^15 * 5^12, and rounding up
 * twice, by 2^15 and then by 5^12, rounds up once: the second step is a
 * 64-bit division by a constant, a multiply, for any work below 2^79
 * (75 GB), where the 128-bit division is a call.
 */
_Static_assert(WORK_BYTE == (u128)32768 * 244140625U, "WORK_BYTE's factors");

static inline uint64_t
sim_work_bytes(u128 w)
{
	u128 v = (w >> 15) + ((w & 0x7fff) != 0);
	uint64_t lo = (uint64_t)v, q;

	if (v >> 64 != 0)
		return (uint64_t)((w + WORK_BYTE - 1) / WORK_BYTE);
	q = lo / 244140625U;
	return q + (lo - q * 244140625U != 0);
}

/* The bytes of a live flow not yet sent at s->now, rounded up. */
static inline uint64_t
sim_unsent(const struct sim *s, const struct flow *f)
{
	u128 w = (u128)f->rate * (s->now - f->t0);

	return sim_work_bytes(w > f->work ? 0 : f->work - w);
}

void	sim_fail(struct sim *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* sim.c's, for its parts: grow an array, or fail; set a flow's rate. */
int	sim_grow(struct sim *, void *, size_t *, size_t, size_t);
void	sim_flow_rate(struct sim *, uint32_t, uint64_t);
/*
 * Queue an event (kind, index) at a time, with the next sequence number
 * (sim_push) or a given one.
 */
void	sim_push(struct sim *, uint64_t, int, uint32_t);
void	sim_push_seq(struct sim *, uint64_t, int, uint32_t, uint64_t);
/* sim_push() with a version (EV_PLAN: the switch) beside the index. */
void	sim_push_ver(struct sim *, uint64_t, int, uint32_t, uint32_t);
/*
 * The pair (src, dst): its index in s->pr, made if create is set, or
 * NONE (not there, or out of memory with sim_fail() called).
 */
uint32_t sim_pair_find(struct sim *, uint32_t, uint32_t, int);
/*
 * A segment of bytes of a task towards its final destination fdst, and
 * a flow of segment seg over pair on switch sw (-1: unplanned), each
 * new at s->now; NONE when memory runs out (sim_fail() called).
 */
uint32_t sim_seg_new(struct sim *, uint32_t, uint64_t, uint32_t);
uint32_t sim_flow_new(struct sim *, uint32_t, uint32_t, int32_t);
/* *x += b, or sim_fail() naming what passed 2^64-1 (what: a noun). */
int	sim_add_u64(struct sim *, uint64_t *, uint64_t, const char *);
/* A line of the event log (sim_opts.log) at s->now, when there is one. */
void	sim_logf(struct sim *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
#define sim_log(s, ...) do {					\
	if ((s)->opt->log != NULL)					\
		sim_logf((s), __VA_ARGS__);				\
} while (0)
int	sim_cmp_pentry(const void *, const void *);

#endif
