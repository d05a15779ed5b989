/* schedfast: plan and circuit records read from and written to bytes. */
#include <stdint.h>

#include "model/net.h"
#include "model/sched.h"
#include "model/schedfast.h"
#include "records/mpk.h"
#include "records/mpkshape.h"
#include "records/rec.h"
#include "records/stream.h"

enum { P_TASK, P_SWITCH, P_START, P_N };
enum { C_SWITCH, C_A, C_B, C_FROM, C_TO, C_N };

static const char *const pkeys[P_N] = { "task", "switch", "start_ps" };
static const char *const ckeys[C_N] = { "switch", "a", "b", "from_ps",
	"to_ps" };

#define BIT(k)		(1U << (k))
#define KEY(p, k)	mpk_put_fixstr((p), (k), sizeof(k) - 1)

/* The plan in v, checked as sched_read_plan() checks it, added; else -1. */
static int
add_plan(struct schedule *s, const struct net *n, const uint64_t *v)
{
	if (v[P_TASK] > UINT32_MAX - 1 || v[P_SWITCH] >= n->switches)
		return -1;
	if (sched_add_plan(s, (uint32_t)v[P_TASK], (uint32_t)v[P_SWITCH],
	    v[P_START]) != 0)
		return -1;
	/* checked once added, so that out of memory is not a check's */
	if (s->plan_check != NULL &&
	    s->plan_check(s->plan_arg, &s->p[s->np - 1]) != NULL) {
		s->np--;
		return -1;	/* the tree reader says why */
	}
	return 0;
}

/* The circuit in v, checked as sched_read_circuit() does, added. */
static int
add_circuit(struct schedule *s, const struct net *n, const uint64_t *v)
{
	if (v[C_SWITCH] >= n->switches || v[C_A] >= n->gpus ||
	    v[C_B] >= n->gpus || v[C_A] == v[C_B] || v[C_FROM] >= v[C_TO])
		return -1;
	return sched_add_circuit(s, (uint32_t)v[C_SWITCH], (uint32_t)v[C_A],
	    (uint32_t)v[C_B], v[C_FROM], v[C_TO]) != 0 ? -1 : 0;
}

int
schedfast_read_plan(const struct rec *r, struct schedule *s,
    const struct net *n)
{
	uint64_t v[P_N];
	uint32_t seen;
	struct mpk m;

	if (rec_failed(r))
		return 1;
	mpk_init(&m, r->src.raw, r->src.rawlen);
	if (mpk_flat_u64(&m, pkeys, P_N, v, &seen) != 0 ||
	    (seen & (BIT(P_TASK) | BIT(P_SWITCH))) !=
	    (BIT(P_TASK) | BIT(P_SWITCH)))
		return 1;
	if (!(seen & BIT(P_START)))
		v[P_START] = 0;
	return add_plan(s, n, v) != 0;
}

int
schedfast_read_circuit(const struct rec *r, struct schedule *s,
    const struct net *n)
{
	const uint32_t need = BIT(C_SWITCH) | BIT(C_A) | BIT(C_B) |
	    BIT(C_FROM);
	uint64_t v[C_N];
	uint32_t seen;
	struct mpk m;

	if (rec_failed(r))
		return 1;
	mpk_init(&m, r->src.raw, r->src.rawlen);
	if (mpk_flat_u64(&m, ckeys, C_N, v, &seen) != 0 ||
	    (seen & need) != need)
		return 1;
	if (!(seen & BIT(C_TO)))
		v[C_TO] = SCHED_FOREVER;
	return add_circuit(s, n, v) != 0;
}

/*
 * A plan as schedfast_write_plan() lays it out, into v; the keys (and
 * the type) between two values are compared as one block each.
 */
static int
shape_plan(struct shape *sh, uint64_t *v)
{
	return shape_map(sh, 4) && sh->pairs == 4 &&
	    SHAPE_FIELD(sh, "\xa4" "type" "\xa4" "plan" "\xa4" "task",
	    &v[P_TASK]) && SHAPE_FIELD(sh, "\xa6" "switch", &v[P_SWITCH]) &&
	    SHAPE_FIELD(sh, "\xa8" "start_ps", &v[P_START]) ? 0 : -1;
}

/* A circuit as schedfast_write_circuit() lays it out, into v. */
static int
shape_circuit(struct shape *sh, uint64_t *v)
{
	if (!shape_map(sh, 5) || sh->pairs > 6 ||
	    !SHAPE_FIELD(sh, "\xa4" "type" "\xa7" "circuit" "\xa6" "switch",
	    &v[C_SWITCH]) || !SHAPE_FIELD(sh, "\xa1" "a", &v[C_A]) ||
	    !SHAPE_FIELD(sh, "\xa1" "b", &v[C_B]) ||
	    !SHAPE_FIELD(sh, "\xa7" "from_ps", &v[C_FROM]))
		return -1;
	v[C_TO] = SCHED_FOREVER;
	if (sh->pairs == 6 && !SHAPE_FIELD(sh, "\xa5" "to_ps", &v[C_TO]))
		return -1;
	return 0;
}

/* One plan or circuit from p; its end, or NULL when not taken. */
static const uint8_t *
quick(const uint8_t *p, const uint8_t *end, const struct stream_limits *lim,
    struct schedule *s, const struct net *net)
{
	struct shape sh = { p, end, 0 };
	uint64_t v[C_N];
	int plan;

	if (!(plan = shape_plan(&sh, v) == 0)) {
		sh = (struct shape){ p, end, 0 };
		if (shape_circuit(&sh, v) != 0)
			return NULL;
	}
	if (!shape_fits(&sh, p, lim, 1, sh.pairs) ||
	    (plan ? add_plan(s, net, v) : add_circuit(s, net, v)) != 0)
		return NULL;
	return sh.p;
}

size_t
schedfast_run(const uint8_t *p, size_t n, const struct stream_limits *lim,
    struct schedule *s, const struct net *net, size_t *len)
{
	const uint8_t *at = p, *next;
	size_t k;

	for (k = 0; (next = quick(at, p + n, lim, s, net)) != NULL; k++)
		at = next;
	*len = (size_t)(at - p);
	return k;
}

/* The longest record: 6 pairs, keys of at most 9 bytes. */
#define ROOM	(1 + 6 * (10 + MPK_MAX_INT))

void
schedfast_write_plan(struct stream_writer *w, const struct plan *pl)
{
	uint8_t *p = stream_reserve(w, ROOM);

	p = mpk_put_map(p, 4);
	p = KEY(KEY(p, "type"), "plan");
	p = mpk_put_u64(KEY(p, "task"), pl->task);
	p = mpk_put_u64(KEY(p, "switch"), pl->sw);
	p = mpk_put_u64(KEY(p, "start_ps"), pl->start);
	stream_commit(w, p);
}

void
schedfast_write_circuit(struct stream_writer *w, const struct circuit *c)
{
	uint8_t *p = stream_reserve(w, ROOM);

	p = mpk_put_map(p, c->to == SCHED_FOREVER ? 5 : 6);
	p = KEY(KEY(p, "type"), "circuit");
	p = mpk_put_u64(KEY(p, "switch"), c->sw);
	p = mpk_put_u64(KEY(p, "a"), c->a);
	p = mpk_put_u64(KEY(p, "b"), c->b);
	p = mpk_put_u64(KEY(p, "from_ps"), c->from);
	if (c->to != SCHED_FOREVER)
		p = mpk_put_u64(KEY(p, "to_ps"), c->to);
	stream_commit(w, p);
}
