/* simctl: a circuit controller that replays a plan by its order. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/dag.h"
#include "model/net.h"
#include "model/sched.h"
#include "sim/simctl.h"

#define NONE	UINT32_MAX

const char *const simctl_policies[] = { "none", "hold", "asap", NULL };

enum { WAITING, UP, DOWN };

struct ctlc {
	uint32_t	succ[2];	/* next circuit on port a, on port b */
	uint8_t		gap[2];		/* that one changes the port's partner */
	uint8_t		npred;		/* predecessors not down yet */
	uint8_t		state;
	uint32_t	ntr;		/* planned transfers not sent yet */
	uint64_t	from, to, ready;
	uint64_t	up_after, down_after;
};

struct simctl {
	int		 policy;
	uint64_t	 tau;
	size_t		 nc;
	struct ctlc	*c;
	uint32_t	*of;		/* per task: its circuit, or NONE */
	size_t		 ntask;
};

/* One end of a circuit: its port on its switch, and when it starts. */
struct use {
	uint64_t	key;		/* switch x gpus + port */
	uint64_t	from;
	uint32_t	ci;
	uint32_t	end;		/* 0: the circuit's a, 1: its b */
};

static void
say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static int
cmp_use(const void *x, const void *y)
{
	const struct use *p = x, *q = y;

	if (p->key != q->key)
		return p->key < q->key ? -1 : 1;
	if (p->from != q->from)
		return p->from < q->from ? -1 : 1;
	return p->ci < q->ci ? -1 : p->ci > q->ci;
}

/* A circuit and its index, sorted by (switch, a, b, from, index). */
struct byp {
	struct circuit	c;
	uint32_t	ci;
};

static int
cmp_pair(const void *x, const void *y)
{
	const struct byp *u = x, *v = y;
	const struct circuit *p = &u->c, *q = &v->c;

	if (p->sw != q->sw)
		return p->sw < q->sw ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	if (p->from != q->from)
		return p->from < q->from ? -1 : 1;
	return u->ci < v->ci ? -1 : u->ci > v->ci;
}

static int
before(const struct circuit *c, uint32_t sw, uint32_t a, uint32_t b,
    uint64_t t)
{
	if (c->sw != sw)
		return c->sw < sw;
	if (c->a != a)
		return c->a < a;
	if (c->b != b)
		return c->b < b;
	return c->from <= t;
}

/* The last circuit of (sw, a, b) that starts at or before t, or NONE. */
static uint32_t
find(const struct byp *idx, size_t n, uint32_t sw, uint32_t a, uint32_t b,
    uint64_t t)
{
	size_t lo = 0, hi = n;
	const struct circuit *c;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(&idx[mid].c, sw, a, b, t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NONE;
	c = &idx[lo - 1].c;
	if (c->sw != sw || c->a != a || c->b != b || t > c->to)
		return NONE;
	return idx[lo - 1].ci;
}

static int
map_plans(struct simctl *k, const struct dag *d, const struct schedule *sc,
    char *err, size_t len)
{
	struct byp *idx;
	uint32_t i;
	size_t j;

	if ((idx = malloc((sc->nc ? sc->nc : 1) * sizeof(*idx))) == NULL) {
		say(err, len, "out of memory");
		return -1;
	}
	for (i = 0; i < sc->nc; i++)
		idx[i] = (struct byp){ sc->c[i], i };
	qsort(idx, sc->nc, sizeof(*idx), cmp_pair);
	for (j = 0; j < sc->np; j++) {
		const struct plan *p = &sc->p[j];
		const struct dag_task *t;
		uint32_t a, b, ci;

		if (p->task >= d->n || d->t[p->task].kind != DAG_TRANSFER) {
			say(err, len, "plan for task %u, which is not a "
			    "transfer", p->task);
			break;
		}
		t = &d->t[p->task];
		a = t->gpu < t->dst ? t->gpu : t->dst;
		b = t->gpu < t->dst ? t->dst : t->gpu;
		if ((ci = find(idx, sc->nc, p->sw, a, b, p->start)) == NONE) {
			say(err, len, "replay: transfer %u (%u->%u) is planned "
			    "on switch %u at %llu ps, where no circuit %u-%u "
			    "is up", p->task, t->gpu, t->dst, p->sw,
			    (unsigned long long)p->start, a, b);
			break;
		}
		k->of[p->task] = ci;
		k->c[ci].ntr++;
	}
	free(idx);
	return j < sc->np ? -1 : 0;
}

/* Each port's circuits in order: who waits for whom. */
static int
link_ports(struct simctl *k, const struct net *n, const struct schedule *sc,
    char *err, size_t len)
{
	struct use *u;
	size_t i, m = 2 * sc->nc;

	if ((u = malloc((m ? m : 1) * sizeof(*u))) == NULL) {
		say(err, len, "out of memory");
		return -1;
	}
	for (i = 0; i < sc->nc; i++) {
		const struct circuit *c = &sc->c[i];
		uint64_t base = (uint64_t)c->sw * n->gpus;

		u[2 * i] = (struct use){ base + c->a, c->from, (uint32_t)i, 0 };
		u[2 * i + 1] = (struct use){ base + c->b, c->from,
		    (uint32_t)i, 1 };
	}
	qsort(u, m, sizeof(*u), cmp_use);
	for (i = 1; i < m; i++) {
		const struct circuit *p, *c;
		uint32_t port;

		if (u[i].key != u[i - 1].key)
			continue;
		p = &sc->c[u[i - 1].ci];
		c = &sc->c[u[i].ci];
		port = u[i].end == 0 ? c->a : c->b;
		k->c[u[i - 1].ci].succ[u[i - 1].end] = u[i].ci;
		k->c[u[i - 1].ci].gap[u[i - 1].end] =
		    (p->a == port ? p->b : p->a) != (c->a == port ? c->b :
		    c->a);
		k->c[u[i].ci].npred++;
	}
	free(u);
	return 0;
}

const char *
simctl_refusal(const struct net *n, const struct schedule *sc)
{
	size_t i;

	if (sc->periodic)
		return "a periodic schedule repeats its own times: replay "
		    "runs one-shot schedules (fluxsolve's)";
	if (SCHED_TWO_HOP(sc->forwarding))
		return "replay runs direct forwarding only";
	if (n->model == NET_SWITCH && n->reconfig_ps > 0)
		return "replay runs the port model only (the net's "
		    "reconfig_model is switch)";
	for (i = 0; i < sc->nc; i++)
		if (sc->c[i].to < sc->c[i].from)
			return "a circuit ends before it starts";
	return NULL;
}

struct simctl *
simctl_new(const struct dag *d, const struct net *n,
    const struct schedule *sc, int policy, const uint64_t *up_after,
    const uint64_t *down_after, char *err, size_t len)
{
	struct simctl *k;
	const char *why;
	size_t i;

	if ((why = simctl_refusal(n, sc)) != NULL) {
		say(err, len, "replay: %s", why);
		return NULL;
	}
	if ((k = calloc(1, sizeof(*k))) == NULL ||
	    (k->c = calloc(sc->nc ? sc->nc : 1, sizeof(*k->c))) == NULL ||
	    (k->of = malloc((d->n ? d->n : 1) * sizeof(*k->of))) == NULL) {
		simctl_free(k);
		say(err, len, "out of memory");
		return NULL;
	}
	k->policy = policy;
	k->tau = n->reconfig_ps;
	k->nc = sc->nc;
	k->ntask = d->n;
	for (i = 0; i < d->n; i++)
		k->of[i] = NONE;
	for (i = 0; i < sc->nc; i++)
		k->c[i] = (struct ctlc){ { NONE, NONE }, { 0, 0 }, 0, WAITING,
		    0, sc->c[i].from, sc->c[i].to, 0,
		    up_after != NULL ? up_after[i] : 0,
		    down_after != NULL ? down_after[i] : 0 };
	if (map_plans(k, d, sc, err, len) != 0 ||
	    link_ports(k, n, sc, err, len) != 0) {
		simctl_free(k);
		return NULL;
	}
	return k;
}

void
simctl_free(struct simctl *k)
{
	if (k == NULL)
		return;
	free(k->c);
	free(k->of);
	free(k);
}

/* When circuit ci may come up, its predecessors all down. */
static uint64_t
release(const struct simctl *k, uint32_t ci)
{
	const struct ctlc *c = &k->c[ci];
	uint64_t t = c->ready > c->up_after ? c->ready : c->up_after;

	if (k->policy == SIMCTL_HOLD && c->from > t)
		return c->from;
	return t;
}

size_t
simctl_first(const struct simctl *k, uint32_t *ci, uint64_t *at)
{
	size_t i, m = 0;

	for (i = 0; i < k->nc; i++)
		if (k->c[i].npred == 0) {
			ci[m] = (uint32_t)i;
			at[m++] = release(k, (uint32_t)i);
		}
	return m;
}

uint32_t
simctl_circuit(const struct simctl *k, uint32_t task)
{
	return task < k->ntask ? k->of[task] : NONE;
}

int
simctl_is_up(const struct simctl *k, uint32_t ci)
{
	return ci < k->nc && k->c[ci].state == UP;
}

/* Everything planned on ci is sent: when may it go down? */
static int
may_go(const struct simctl *k, uint32_t ci, uint64_t now, uint64_t *when)
{
	const struct ctlc *c = &k->c[ci];

	if (c->state != UP || c->ntr > 0)
		return 0;
	*when = now > c->down_after ? now : c->down_after;
	if (k->policy == SIMCTL_HOLD) {
		if (c->to == SCHED_FOREVER)
			return 0;
		if (c->to > *when)
			*when = c->to;
	}
	return 1;
}

int
simctl_up(struct simctl *k, uint32_t ci, uint64_t now, uint64_t *when)
{
	k->c[ci].state = UP;
	return may_go(k, ci, now, when);
}

int
simctl_sent(struct simctl *k, uint32_t task, uint64_t now, uint32_t *ci,
    uint64_t *when)
{
	if ((*ci = simctl_circuit(k, task)) == NONE || k->c[*ci].ntr == 0)
		return 0;
	k->c[*ci].ntr--;
	return may_go(k, *ci, now, when);
}

int
simctl_down(struct simctl *k, uint32_t ci, uint64_t now, uint32_t *succ,
    uint64_t *at)
{
	struct ctlc *c = &k->c[ci];
	int j, m = 0;

	c->state = DOWN;
	for (j = 0; j < 2; j++) {
		struct ctlc *s;
		uint64_t t;

		if (c->succ[j] == NONE)
			continue;
		s = &k->c[c->succ[j]];
		t = c->gap[j] && now > UINT64_MAX - k->tau ? UINT64_MAX :
		    now + (c->gap[j] ? k->tau : 0);
		if (t > s->ready)
			s->ready = t;
		if (--s->npred == 0) {
			succ[m] = c->succ[j];
			at[m++] = release(k, c->succ[j]);
		}
	}
	return m;
}
