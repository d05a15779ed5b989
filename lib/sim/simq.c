/* simq: the event queue of a run, with same-time runs as one item. */
#include <stdint.h>
#include <stdlib.h>

#include "records/heap.h"
#include "records/mem.h"
#include "sim/simq.h"
#include "sim/simstate.h"

/* A heap item that stands for a run: no event kind is this large. */
#define RUN_TAG		((uint64_t)0xff << 56)

static int
is_run(const struct heap_item *it)
{
	return (it->val & RUN_TAG) == RUN_TAG;
}

/* A run from the free list or new, empty; NONE when memory runs out. */
static uint32_t
run_new(struct sim *s)
{
	uint32_t r;

	if (s->runfree != NONE) {
		r = s->runfree;
		s->runfree = s->runs[r].next;
	} else {
		if (s->nruns >= NONE ||
		    mem_grow(&s->runs, &s->runcap, s->nruns + 1,
		    sizeof(*s->runs)) != 0)
			return NONE;
		r = (uint32_t)s->nruns++;
		s->runs[r] = (struct simrun){ .v = NULL };
	}
	s->runs[r].n = s->runs[r].cur = 0;
	return r;
}

static int
run_add(struct sim *s, uint32_t r, uint64_t val)
{
	struct simrun *u = &s->runs[r];
	size_t cap = u->cap;

	if (u->n == UINT32_MAX ||
	    mem_grow(&u->v, &cap, (size_t)u->n + 1, sizeof(*u->v)) != 0)
		return -1;
	u->cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
	u->v[u->n++] = val;
	return 0;
}

/*
 * A push with the next sequence number for the time of the last push
 * joins the open run, or opens one (the push before stays an item of
 * its own); any other push closes it.
 */
int
simq_push(struct sim *s, uint64_t t, uint64_t seq, uint64_t val, int chain)
{
	int follows = chain && s->runs_on && s->qlast_set &&
	    t == s->qlast_key && seq == s->qlast_seq + 1;
	uint32_t r;

	s->qlast_set = chain;
	s->qlast_key = t;
	s->qlast_seq = seq;
	if (!follows) {
		s->runopen = NONE;
		return heap_push(&s->h, t, seq, val);
	}
	if (s->runopen == NONE) {
		if ((r = run_new(s)) == NONE ||
		    heap_push(&s->h, t, seq, RUN_TAG | r) != 0)
			return -1;
		s->runopen = r;
	} else
		s->qextra++;
	return run_add(s, s->runopen, val);
}

/*
 * The least event: a run at the top gives its next one, and stays at
 * the top with that one's number until it is spent.
 */
int
simq_pop(struct sim *s, struct heap_item *out)
{
	struct heap_item *top;
	struct simrun *u;
	uint32_t r;

	if (s->h.n == 0)
		return 0;
	top = &s->h.a[0];
	if (!is_run(top))
		return heap_pop(&s->h, out);
	r = (uint32_t)top->val;
	u = &s->runs[r];
	*out = (struct heap_item){ top->key, top->seq, u->v[u->cur++] };
	if (u->cur < u->n) {
		s->qextra--;
		top->seq++;
		heap_fix_top(&s->h);
		return 1;
	}
	heap_pop(&s->h, &(struct heap_item){ 0, 0, 0 });
	if (s->runopen == r)
		s->runopen = NONE;
	u->next = s->runfree;
	s->runfree = r;
	return 1;
}

/*
 * Every run's events back in the heap as items of their own, each with
 * its own number: the order does not change.
 */
int
simq_flatten(struct sim *s)
{
	size_t i;
	uint32_t r, j;

	s->runopen = NONE;
	s->qlast_set = 0;
	s->qextra = 0;
	for (i = 0; i < s->h.n;) {
		struct heap_item it = s->h.a[i];
		struct simrun *u;

		if (!is_run(&it)) {
			i++;
			continue;
		}
		r = (uint32_t)it.val;
		u = &s->runs[r];
		s->h.a[i] = (struct heap_item){ it.key, it.seq, u->v[u->cur] };
		for (j = u->cur + 1; j < u->n; j++)
			if (heap_push(&s->h, it.key, it.seq + (j - u->cur),
			    u->v[j]) != 0)
				return -1;
		u->next = s->runfree;
		s->runfree = r;
	}
	return 0;
}

size_t
simq_len(const struct sim *s)
{
	return s->h.n + s->qextra;
}

void
simq_free(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->nruns; i++)
		free(s->runs[i].v);
	free(s->runs);
	s->runs = NULL;
	s->nruns = s->runcap = 0;
}
