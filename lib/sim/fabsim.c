/* fabsim: the simulator of a tiered fabric. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/heap.h"
#include "records/mem.h"
#include "records/wclock.h"
#include "sim/fablink.h"
#include "sim/fabsim.h"
#include "sim/fabsetup.h"

typedef unsigned __int128 u128;

#define WORK_BIT	1000000000000ULL	/* work units a bit */

#define fail		fabsim_fail

void
fabsim_fail(struct fs *s, const char *fmt, ...)
{
	va_list ap;

	if (s->failed)
		return;
	s->failed = 1;
	va_start(ap, fmt);
	vsnprintf(s->err, s->errlen, fmt, ap);
	va_end(ap);
}

void
fabsim_push(struct fs *s, uint64_t t, int kind, uint32_t ver, uint32_t idx)
{
	uint64_t v = (uint64_t)kind << 56 | (uint64_t)(ver & 0xffffff) << 32 |
	    idx;

	if (heap_push(&s->h, t, s->seq++, v) != 0)
		fail(s, "out of memory (the event queue)");
}

static uint64_t
end_at(uint64_t now, u128 work, uint64_t rate)
{
	u128 d = (work + rate - 1) / rate;

	return d > UINT64_MAX - now ? UINT64_MAX : now + (uint64_t)d;
}

/* ---- flows ---- */

static void
busy(struct fs *s, uint32_t desc, int up)
{
	struct fabsim_descstat *st = &s->out->desc[desc];

	if (up && s->moving[desc]++ == 0)
		s->since[desc] = s->now;
	if (!up && --s->moving[desc] == 0)
		st->busy_ps += s->now - s->since[desc];
}

static void
advance(struct fs *s, struct fsflow *f)
{
	u128 w;

	if (f->rate > 0) {
		w = (u128)f->rate * (s->now - f->t0);
		f->work -= w > f->work ? f->work : w;
	}
	f->t0 = s->now;
}

static void
set_rate(struct fs *s, uint32_t i, uint64_t rate)
{
	struct fsflow *f = &s->fl[i];
	struct fstask *t = &s->ts[f->task];

	if (rate == f->rate && !f->fresh)
		return;
	f->fresh = 0;
	advance(s, f);
	if (rate > 0 && !t->started) {
		t->started = 1;
		s->out->start[f->task] = s->now;
	}
	if (f->rate == 0 && rate > 0)
		busy(s, f->desc, 1);
	if (f->rate > 0 && rate == 0)
		busy(s, f->desc, 0);
	f->rate = rate;
	f->ver++;
	if (f->work == 0)
		fabsim_push(s, s->now, EV_FLOW, f->ver, i);
	else if (rate > 0)
		fabsim_push(s, end_at(s->now, f->work, rate), EV_FLOW, f->ver, i);
}

static void
rebalance(struct fs *s)
{
	size_t i;

	s->dirty = 0;
	if (fablinks_share(&s->ls, s->ff) != 0) {
		fail(s, "out of memory (sharing the links)");
		return;
	}
	for (i = 0; i < s->ls.ncf; i++)
		set_rate(s, s->ls.cf[i], s->ff[s->ls.cf[i]].newrate);
}

static void
flow_start(struct fs *s, uint32_t t)
{
	uint32_t i;
	struct fsflow *f;

	if (s->nfree > 0)
		i = s->freei[--s->nfree];
	else {
		if (mem_grow(&s->fl, &s->flcap, s->nfl + 1, sizeof(*s->fl)) ||
		    mem_grow(&s->ff, &s->ffcap, s->nfl + 1, sizeof(*s->ff)) ||
		    mem_grow(&s->freei, &s->freecap, s->nfl + 1,
		    sizeof(*s->freei))) {
			fail(s, "out of memory (the flows)");
			return;
		}
		i = (uint32_t)s->nfl++;
		s->fl[i].ver = 0;
	}
	f = &s->fl[i];
	f->live = 1;
	f->fresh = 1;
	f->task = t;
	f->rate = 0;
	f->t0 = s->now;
	f->work = (u128)s->d->t[t].amount * 8 * WORK_BIT;
	if (fabsetup_links(s, t, &s->ff[i], &f->desc, &f->lat) != 0)
		return;
	if (fablinks_add(&s->ls, s->ff, i) != 0) {
		fail(s, "out of memory (the links' flows)");
		return;
	}
	s->ts[t].flow = i;
	s->nic[s->d->t[t].gpu] += s->d->t[t].amount;
	fabsetup_peak(s, s->d->t[t].gpu);
	s->dirty = 1;
}

/* ---- plan queues ---- */

void
fabsim_queue_try(struct fs *s, uint32_t q)
{
	struct fsqueue *qu = &s->q[q];

	if (qu->running || qu->at >= qu->end || !s->ts[qu->task].ready)
		return;
	if (s->now < qu->start) {
		if (!qu->waiting) {
			qu->waiting = 1;
			fabsim_push(s, qu->start, EV_START, 0, q);
		}
		return;
	}
	qu->running = 1;
	flow_start(s, qu->task);
}

/* ---- tasks ---- */

static void task_done(struct fs *, uint32_t);

static void
try_compute(struct fs *s, uint32_t g)
{
	uint32_t t = s->cur[g];

	if (s->gbusy[g] || t == UINT32_MAX || !s->ts[t].ready)
		return;
	s->gbusy[g] = 1;
	s->out->gpu[g].stall_ps += s->now - s->free_at[g];
	s->out->start[t] = s->now;
	if (s->d->t[t].amount > UINT64_MAX - s->now) {
		fail(s, "compute task %u ends after 18446744073709551615 ps", t);
		return;
	}
	fabsim_push(s, s->now + s->d->t[t].amount, EV_COMPUTE, 0, t);
}

static void
make_ready(struct fs *s, uint32_t t)
{
	const struct dag_task *d = &s->d->t[t];

	s->ts[t].ready = 1;
	if (d->kind == DAG_COMPUTE) {
		try_compute(s, d->gpu);
		return;
	}
	s->ready[d->gpu] += d->amount;
	fabsetup_peak(s, d->gpu);
	if (s->opt->mode != FABSIM_PLAN)
		flow_start(s, t);
	else
		fabsim_queue_try(s, s->ts[t].queue);
}

static void
task_done(struct fs *s, uint32_t t)
{
	size_t i;
	uint16_t st = s->d->t[t].step;

	s->out->end[t] = s->now;
	if (s->now > s->out->makespan)
		s->out->makespan = s->now;
	if (s->now > s->out->step_end[st])
		s->out->step_end[st] = s->now;
	s->done++;
	for (i = s->ts[t].succ; i < s->ts[t + 1].succ; i++)
		if (--s->ts[s->succ[i]].pending == 0)
			make_ready(s, s->succ[i]);
}

static void
flow_end(struct fs *s, uint32_t i)
{
	struct fsflow *f = &s->fl[i];
	uint32_t t = f->task;
	const struct dag_task *d = &s->d->t[t];

	advance(s, f);
	if (f->rate > 0)
		busy(s, f->desc, 0);
	if (!s->ts[t].started) {
		s->ts[t].started = 1;
		s->out->start[t] = s->now;
	}
	if (fablinks_del(&s->ls, s->ff, i) != 0)
		fail(s, "out of memory (the links' changes)");
	f->live = 0;
	s->freei[s->nfree++] = i;
	f->rate = 0;
	s->dirty = 1;
	s->ready[d->gpu] -= d->amount;
	s->nic[d->gpu] -= d->amount;
	s->out->gpu[d->gpu].bytes_sent += d->amount;
	s->out->bytes_sent += d->amount;
	s->out->desc[f->desc].bytes += d->amount;
	if (s->opt->mode == FABSIM_PLAN) {
		struct fsqueue *qu = &s->q[s->ts[t].queue];

		qu->running = 0;
		if (++qu->at < qu->end) {
			qu->start = s->qe[qu->at].start;
			qu->task = s->qe[qu->at].task;
		}
		fabsim_queue_try(s, s->ts[t].queue);
	}
	if (f->lat == 0) {
		task_done(s, t);
		return;
	}
	if (f->lat > UINT64_MAX - s->now) {
		fail(s, "transfer %u arrives after 18446744073709551615 ps", t);
		return;
	}
	fabsim_push(s, s->now + f->lat, EV_ARRIVE, 0, t);
}

/* ---- the run ---- */

static void
event(struct fs *s, const struct heap_item *it)
{
	int kind = (int)(it->val >> 56);
	uint32_t ver = (uint32_t)(it->val >> 32) & 0xffffff;
	uint32_t idx = (uint32_t)it->val;
	uint32_t g;

	switch (kind) {
	case EV_COMPUTE:
		g = s->d->t[idx].gpu;
		s->gbusy[g] = 0;
		s->free_at[g] = s->now;
		s->cur[g] = s->ts[idx].nextc;
		s->out->gpu[g].busy_ps += s->d->t[idx].amount;
		task_done(s, idx);
		try_compute(s, g);
		break;
	case EV_FLOW:
		if (idx < s->nfl && s->fl[idx].live &&
		    (s->fl[idx].ver & 0xffffff) == ver)
			flow_end(s, idx);
		break;
	case EV_ARRIVE:
		task_done(s, idx);
		break;
	case EV_START:
		s->q[idx].waiting = 0;
		fabsim_queue_try(s, idx);
		break;
	default:
		fabsetup_circuit(s, kind == EV_CUP, idx);
	}
}

static void
loop(struct fs *s)
{
	struct heap_item it;
	const struct heap_item *top;
	double t0 = wclock_now();

	while (s->done < s->d->n && !s->failed) {
		top = heap_peek(&s->h);
		if (s->dirty && (top == NULL || top->key > s->now)) {
			rebalance(s);
			continue;
		}
		if (top == NULL || top->key > s->now)
			fabsetup_peaks(s);	/* the instant is done */
		if (!heap_pop(&s->h, &it)) {
			fabsetup_deadlock(s);
			return;
		}
		s->now = it.key;
		s->out->events++;
		event(s, &it);
		if ((s->out->events & 0xfff) != 0)
			continue;
		if (s->opt->time_limit > 0 &&
		    wclock_now() - t0 > s->opt->time_limit)
			fail(s, "time limit of %g s reached at %llu ps with %zu "
			    "of %zu tasks done", s->opt->time_limit,
			    (unsigned long long)s->now, s->done, s->d->n);
		if (s->opt->progress != NULL)
			s->opt->progress(s->opt->arg, s->done, s->d->n, s->now);
	}
}

int
fabsim_run(const struct dag *d, const struct planes *pl,
    const struct schedule *sc, const struct fabsim_opts *opt,
    struct fabsim_out *out, char *err, size_t errlen)
{
	struct fs s;
	size_t i;
	uint32_t g;

	memset(&s, 0, sizeof(s));
	memset(out, 0, sizeof(*out));
	s.d = d;
	s.pl = pl;
	s.sc = sc;
	s.opt = opt;
	s.out = out;
	s.err = err;
	s.errlen = errlen;
	heap_init(&s.h);
	fablinks_init(&s.ls);
	if (fabsetup(&s) == 0) {
		for (i = 0; i < d->n && !s.failed; i++)
			if (s.ts[i].pending == 0)
				make_ready(&s, (uint32_t)i);
		if (!s.failed)
			loop(&s);
		fabsetup_peaks(&s);
	}
	for (g = 0; !s.failed && g < pl->gpus; g++) {
		if (out->gpu[g].peak_buffer > out->peak_buffer)
			out->peak_buffer = out->gpu[g].peak_buffer;
		if (out->gpu[g].peak_nic > out->peak_nic)
			out->peak_nic = out->gpu[g].peak_nic;
	}
	for (i = 0; !s.failed && i < out->ndesc; i++)
		out->reconfigs += out->desc[i].reconfigs;
	fabsetup_free(&s);
	return s.failed ? -1 : 0;
}

void
fabsim_out_free(struct fabsim_out *o)
{
	free(o->step_end);
	free(o->gpu);
	free(o->desc);
	free(o->start);
	free(o->end);
	memset(o, 0, sizeof(*o));
}
