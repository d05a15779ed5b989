/* simfeed: a schedule's circuits fed to the event queue as time comes. */
#include <stdint.h>
#include <stdlib.h>

#include "sim/simfeed.h"
#include "sim/simstate.h"

struct simfeed {
	uint32_t	*order;		/* circuits by (from, index) */
	size_t		 n, next;
	uint64_t	 first;		/* sequence number of circuit 0 */
};

/* The circuits by (from, index), sorted unless the schedule has them so. */
static int
order(const struct schedule *sc, uint32_t *o)
{
	struct pentry *v;
	size_t i, n = sc->nc;

	for (i = 0; i < n; i++)
		o[i] = (uint32_t)i;
	for (i = 1; i < n && sc->c[i - 1].from <= sc->c[i].from; i++)
		;
	if (i >= n)
		return 0;
	if ((v = calloc(n, sizeof(*v))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		v[i] = (struct pentry){ sc->c[i].from, (uint32_t)i };
	qsort(v, n, sizeof(*v), sim_cmp_pentry);
	for (i = 0; i < n; i++)
		o[i] = v[i].task;
	free(v);
	return 0;
}

int
simfeed_init(struct sim *s)
{
	struct simfeed *f;
	size_t n = s->sc->nc;

	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (f->order = calloc(n ? n : 1, sizeof(*f->order))) == NULL ||
	    order(s->sc, f->order) != 0) {
		if (f != NULL)
			free(f->order);
		free(f);
		sim_fail(s, "out of memory");
		return -1;
	}
	f->n = n;
	f->first = s->seq;
	s->seq += n;
	s->feed = f;
	return 0;
}

const struct heap_item *
simfeed_top(struct sim *s)
{
	struct simfeed *f = s->feed;
	const struct heap_item *top = heap_peek(&s->h);

	while (f != NULL && f->next < f->n && !s->failed) {
		uint32_t ci = f->order[f->next];
		uint64_t t = s->sc->c[ci].from;

		if (top != NULL && t > top->key)
			break;
		sim_push_seq(s, t, EV_UP, ci, f->first + ci);
		f->next++;
		top = heap_peek(&s->h);
	}
	return top;
}

void
simfeed_free(struct sim *s)
{
	if (s->feed == NULL)
		return;
	free(s->feed->order);
	free(s->feed);
	s->feed = NULL;
}
