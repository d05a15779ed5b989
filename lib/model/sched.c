/* sched: schedules as records, and their validation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/net.h"
#include "model/sched.h"
#include "model/schedfast.h"
#include "records/mem.h"
#include "records/rec.h"
#include "records/stream.h"

const char *const sched_fwds[] = { "direct", "vlb", "rotorlb", NULL };

void
sched_init(struct schedule *s)
{
	memset(s, 0, sizeof(*s));
}

void
sched_free(struct schedule *s)
{
	free(s->c);
	free(s->p);
	free(s->place);
	sched_init(s);
}

/*
 * The optional key "placement": a permutation of 0..n-1, n its length,
 * at most NET_MAX_GPUS; whether n is the net's count of GPUs is for
 * sched_take() and sched_check(), which know the net.  NULL when the
 * key is absent or wrong (then through the record).
 */
static uint32_t *
read_placement(struct rec *r, uint32_t *np)
{
	const msgpack_object_array *a;
	unsigned char *seen;
	uint32_t *pl, i;
	uint64_t v;

	*np = 0;
	if (!rec_has(r, "placement"))
		return NULL;
	a = rec_array(r, "placement");
	if (rec_failed(r))
		return NULL;
	if (a->size > NET_MAX_GPUS) {
		rec_fail(r, "key \"placement\": %u ports, more than the %u "
		    "GPUs a net may have", a->size, NET_MAX_GPUS);
		return NULL;
	}
	pl = malloc(((size_t)a->size + 1) * sizeof(*pl));
	seen = calloc((size_t)a->size + 1, 1);
	if (pl == NULL || seen == NULL) {
		rec_fail(r, "out of memory");
		goto fail;
	}
	for (i = 0; i < a->size; i++) {
		v = rec_elem_u64(r, "placement", a, i);
		if (rec_failed(r))
			goto fail;
		if (v >= a->size) {
			rec_fail(r, "key \"placement\": item %u: port %llu "
			    "out of range (%u ports listed)", i,
			    (unsigned long long)v, a->size);
			goto fail;
		}
		if (seen[v]++) {
			rec_fail(r, "key \"placement\": item %u: port %llu "
			    "appears twice", i, (unsigned long long)v);
			goto fail;
		}
		pl[i] = (uint32_t)v;
	}
	free(seen);
	*np = a->size;
	return pl;
fail:
	free(pl);
	free(seen);
	return NULL;
}

int
sched_read_schedule(struct rec *r, struct schedule *s)
{
	const char *name;
	size_t len;

	if (s->present) {
		rec_fail(r, "a second schedule record");
		return -1;
	}
	name = rec_str(r, "scheduler", &len);
	s->periodic = rec_bool_or(r, "periodic", 0);
	s->period = s->periodic ? rec_u64(r, "period_ps") : 0;
	s->forwarding = rec_enum_or(r, "forwarding", sched_fwds, SCHED_DIRECT);
	s->vlb_cap = rec_u64_or(r, "vlb_cap_bytes", 0);
	s->circuits_first = rec_bool_or(r, "circuits_first", 0);
	if (!rec_failed(r) && s->periodic && s->period == 0)
		rec_fail(r, "key \"period_ps\": must be positive");
	if (rec_failed(r))
		return -1;
	if ((s->place = read_placement(r, &s->nplace)) == NULL &&
	    rec_failed(r))
		return -1;
	snprintf(s->scheduler, sizeof(s->scheduler), "%.*s",
	    (int)(len < sizeof(s->scheduler) ? len : sizeof(s->scheduler) - 1),
	    name);
	s->present = 1;
	return 0;
}

int
sched_add_circuit(struct schedule *s, uint32_t sw, uint32_t a, uint32_t b,
    uint64_t from, uint64_t to)
{
	if (mem_append(&s->c, &s->ccap, s->nc, sizeof(*s->c)) != 0)
		return -1;
	s->c[s->nc++] = (struct circuit){ sw, a < b ? a : b, a < b ? b : a,
	    from, to };
	return 0;
}

int
sched_add_plan(struct schedule *s, uint32_t task, uint32_t sw, uint64_t start)
{
	if (mem_append(&s->p, &s->pcap, s->np, sizeof(*s->p)) != 0)
		return -1;
	s->p[s->np++] = (struct plan){ task, sw, start };
	return 0;
}

int
sched_read_circuit(struct rec *r, struct schedule *s, const struct net *n)
{
	if (schedfast_read_circuit(r, s, n) == 0)
		return 0;
	return sched_read_circuit_tree(r, s, n);
}

int
sched_read_circuit_tree(struct rec *r, struct schedule *s,
    const struct net *n)
{
	uint64_t sw, a, b, from, to;

	sw = rec_u64(r, "switch");
	a = rec_u64(r, "a");
	b = rec_u64(r, "b");
	from = rec_u64(r, "from_ps");
	to = rec_u64_or(r, "to_ps", SCHED_FOREVER);
	if (rec_failed(r))
		return -1;
	if (sw >= n->switches)
		rec_fail(r, "switch %llu out of range (the net has %u)",
		    (unsigned long long)sw, n->switches);
	else if (a >= n->gpus || b >= n->gpus)
		rec_fail(r, "GPU out of range (the net has %u)", n->gpus);
	else if (a == b)
		rec_fail(r, "circuit joins GPU %llu to itself",
		    (unsigned long long)a);
	else if (from >= to)
		rec_fail(r, "from_ps %llu is not before to_ps %llu",
		    (unsigned long long)from, (unsigned long long)to);
	if (rec_failed(r))
		return -1;
	if (sched_add_circuit(s, (uint32_t)sw, (uint32_t)a, (uint32_t)b,
	    from, to) != 0) {
		rec_fail(r, "out of memory");
		return -1;
	}
	return 0;
}

int
sched_read_plan(struct rec *r, struct schedule *s, const struct net *n)
{
	if (schedfast_read_plan(r, s, n) == 0)
		return 0;
	return sched_read_plan_tree(r, s, n);
}

int
sched_read_plan_tree(struct rec *r, struct schedule *s, const struct net *n)
{
	struct plan p;
	const char *why;

	p.task = (uint32_t)rec_u64_max(r, "task", UINT32_MAX - 1);
	p.sw = (uint32_t)rec_u64(r, "switch");
	p.start = rec_u64_or(r, "start_ps", 0);
	if (!rec_failed(r) && p.sw >= n->switches)
		rec_fail(r, "switch %u out of range (the net has %u)", p.sw,
		    n->switches);
	if (!rec_failed(r) && s->plan_check != NULL &&
	    (why = s->plan_check(s->plan_arg, &p)) != NULL)
		rec_fail(r, "%s", why);
	if (rec_failed(r))
		return -1;
	if (mem_append(&s->p, &s->pcap, s->np, sizeof(*s->p)) != 0) {
		rec_fail(r, "out of memory");
		return -1;
	}
	s->p[s->np++] = p;
	return 0;
}

void
sched_write_schedule(msgpack_packer *pk, const struct schedule *s)
{
	size_t n = 4 + (s->periodic != 0) + (s->vlb_cap != 0) +
	    (s->circuits_first != 0) + (s->place != NULL);
	uint32_t i;

	stream_pack_record(pk, "schedule", n);
	stream_pack_kstr(pk, "scheduler", s->scheduler);
	stream_pack_kbool(pk, "periodic", s->periodic);
	if (s->periodic)
		stream_pack_ku64(pk, "period_ps", s->period);
	stream_pack_kstr(pk, "forwarding", sched_fwds[s->forwarding]);
	if (s->vlb_cap != 0)
		stream_pack_ku64(pk, "vlb_cap_bytes", s->vlb_cap);
	if (s->circuits_first)
		stream_pack_kbool(pk, "circuits_first", 1);
	if (s->place == NULL)
		return;
	stream_pack_str(pk, "placement");
	msgpack_pack_array(pk, s->nplace);
	for (i = 0; i < s->nplace; i++)
		msgpack_pack_uint32(pk, s->place[i]);
}

void
sched_write_circuit(msgpack_packer *pk, const struct circuit *c)
{
	struct stream_writer *w = stream_packer_writer(pk);

	if (w != NULL) {
		schedfast_write_circuit(w, c);
		return;
	}
	stream_pack_record(pk, "circuit", c->to == SCHED_FOREVER ? 5 : 6);
	stream_pack_ku64(pk, "switch", c->sw);
	stream_pack_ku64(pk, "a", c->a);
	stream_pack_ku64(pk, "b", c->b);
	stream_pack_ku64(pk, "from_ps", c->from);
	if (c->to != SCHED_FOREVER)
		stream_pack_ku64(pk, "to_ps", c->to);
}

void
sched_write_plan(msgpack_packer *pk, const struct plan *p)
{
	struct stream_writer *w = stream_packer_writer(pk);

	if (w != NULL) {
		schedfast_write_plan(w, p);
		return;
	}
	stream_pack_record(pk, "plan", 4);
	stream_pack_ku64(pk, "task", p->task);
	stream_pack_ku64(pk, "switch", p->sw);
	stream_pack_ku64(pk, "start_ps", p->start);
}

static int
cmp_circuit(const void *x, const void *y)
{
	const struct circuit *p = x, *q = y;

	if (p->sw != q->sw)
		return p->sw < q->sw ? -1 : 1;
	if (p->from != q->from)
		return p->from < q->from ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* One port's use of a switch: a circuit index and the port's partner. */
struct use {
	uint32_t	port, partner;
	size_t		c;
};

static int
cmp_use(const void *x, const void *y)
{
	const struct use *p = x, *q = y;

	if (p->port != q->port)
		return p->port < q->port ? -1 : 1;
	return p->c < q->c ? -1 : p->c > q->c;
}

static void
say(char *err, size_t n, const struct circuit *c, const char *what,
    unsigned long long x, unsigned long long y)
{
	char buf[160];

	snprintf(buf, sizeof(buf), what, x, y);
	snprintf(err, n, "circuit %u-%u on switch %u from %llu ps: %s",
	    c->a, c->b, c->sw, (unsigned long long)c->from, buf);
}

/*
 * Check the uses of one port (sorted by start): no overlap, and tau
 * of dark time before a circuit whose partner differs from the one
 * before (cyclically for a periodic schedule).  Marks the circuits
 * that change a partner in chg[]; u[].c index c[] and chg[].
 */
static int
check_port(const struct schedule *s, const struct net *n,
    const struct circuit *c, const struct use *u, size_t k,
    unsigned char *chg, char *err, size_t len)
{
	size_t i;

	for (i = 0; i < k; i++) {
		const struct circuit *cur = &c[u[i].c], *prev;
		uint64_t end, start = cur->from;

		if (i == 0 && !s->periodic)
			continue;
		prev = &c[u[i == 0 ? k - 1 : i - 1].c];
		end = prev->to;
		if (i == 0) {		/* wrap: the previous period */
			if (k == 1 && prev->to - prev->from >= s->period &&
			    prev->from == 0)
				continue;
			start += s->period;
		}
		if (end > start) {
			say(err, len, cur, "port %llu is still in a circuit "
			    "until %llu ps", u[i].port, end);
			return -1;
		}
		if (u[i].partner == u[i == 0 ? k - 1 : i - 1].partner)
			continue;
		chg[u[i].c] = 1;
		if (n->model == NET_PORT && start - end < n->reconfig_ps) {
			say(err, len, cur, "port %llu changes partner only "
			    "%llu ps after its previous circuit ends",
			    u[i].port, start - end);
			return -1;
		}
	}
	return 0;
}

/*
 * Switch model: before every change at time t the whole switch is dark
 * in [t - tau, t).  cs[0..k) are the switch's circuits by start; with
 * pm[i] the index of the latest-ending circuit among cs[0..i], the
 * circuits started before t reach as far as cs[pm[j]].to.
 */
static int
check_allstop(const struct schedule *s, const struct net *n,
    const struct circuit *cs, size_t k, const unsigned char *chg,
    char *err, size_t len)
{
	uint64_t tau = n->reconfig_ps;
	size_t *pm, i, j, lo, hi, far = 0;
	int rc = 0;

	if (tau == 0 || k == 0)
		return 0;
	if ((pm = malloc(k * sizeof(*pm))) == NULL) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (i = 0; i < k; i++) {
		pm[i] = i > 0 && cs[pm[i - 1]].to >= cs[i].to ? pm[i - 1] : i;
		if (cs[i].to > cs[far].to)
			far = i;
	}
	for (i = 0; i < k && rc == 0; i++) {
		uint64_t t = cs[i].from;

		if (!chg[i])
			continue;
		for (lo = 0, hi = k; lo < hi;) {	/* circuits from < t */
			size_t mid = lo + (hi - lo) / 2;

			if (cs[mid].from < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		j = k;
		if (lo > 0 && cs[pm[lo - 1]].to > (t >= tau ? t - tau : 0))
			j = pm[lo - 1];
		else if (t < tau && s->periodic &&
		    cs[far].to > s->period + t - tau)
			j = far;	/* the previous period's last circuits */
		if (j < k) {
			say(err, len, &cs[i], "the switch changes its "
			    "matching while circuit %llu-%llu is up within "
			    "the reconfiguration time before it", cs[j].a,
			    cs[j].b);
			rc = -1;
		}
	}
	free(pm);
	return rc;
}

static int
check_switch(const struct schedule *s, const struct net *n, size_t lo,
    size_t hi, char *err, size_t len)
{
	struct use *u;
	unsigned char *chg;
	size_t i, k = 0, j;
	int rc = 0;

	u = malloc(2 * (hi - lo) * sizeof(*u) + 1);
	chg = calloc(hi - lo + 1, 1);	/* this switch's circuits only */
	if (u == NULL || chg == NULL) {
		free(u);
		free(chg);
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (i = lo; i < hi; i++) {
		u[k++] = (struct use){ s->c[i].a, s->c[i].b, i - lo };
		u[k++] = (struct use){ s->c[i].b, s->c[i].a, i - lo };
	}
	qsort(u, k, sizeof(*u), cmp_use);
	for (i = 0; i < k && rc == 0; i = j) {
		for (j = i; j < k && u[j].port == u[i].port; j++)
			;
		rc = check_port(s, n, s->c + lo, u + i, j - i, chg, err,
		    len);
	}
	if (rc == 0 && n->model == NET_SWITCH)
		rc = check_allstop(s, n, s->c + lo, hi - lo, chg, err, len);
	free(u);
	free(chg);
	return rc;
}

int
sched_check(struct schedule *s, const struct net *n, char *err, size_t len)
{
	size_t i, j;

	if (s->place != NULL && s->nplace != n->gpus) {
		snprintf(err, len, "placement: %u ports, but the net has %u "
		    "GPUs", s->nplace, n->gpus);
		return -1;
	}
	if (s->nc > 0)
		qsort(s->c, s->nc, sizeof(*s->c), cmp_circuit);
	for (i = 0; i < s->nc; i++) {
		if (s->periodic && s->c[i].to == SCHED_FOREVER) {
			say(err, len, &s->c[i], "has no to_ps, but a circuit "
			    "of a periodic schedule must end", 0, 0);
			return -1;
		}
		if (s->periodic && s->c[i].to > s->period) {
			say(err, len, &s->c[i], "ends at %llu ps, after the "
			    "period of %llu ps", s->c[i].to, s->period);
			return -1;
		}
	}
	for (i = 0; i < s->nc; i = j) {
		for (j = i; j < s->nc && s->c[j].sw == s->c[i].sw; j++)
			;
		if (check_switch(s, n, i, j, err, len) != 0)
			return -1;
	}
	return 0;
}

/*
 * A schedule, circuit or plan record into the schedule, as a reader of
 * schedules takes them after the net (n NULL: none read yet, and a
 * circuit or plan is refused).  Returns 1 when the record was one of
 * them (problems through the record), 0 for any other.
 */
int
sched_take(struct rec *r, const struct stream_rec *sr, struct schedule *s,
    const struct net *n)
{
	int circ = stream_rec_is(sr, "circuit"), plan = stream_rec_is(sr,
	    "plan");

	if ((circ || plan) && n == NULL)
		rec_fail(r, "comes before the net record");
	else if (stream_rec_is(sr, "schedule")) {
		if (sched_read_schedule(r, s) == 0 && n != NULL &&
		    s->place != NULL && s->nplace != n->gpus)
			rec_fail(r, "key \"placement\": %u ports, but the "
			    "net has %u GPUs", s->nplace, n->gpus);
	}
	else if (circ)
		sched_read_circuit(r, s, n);
	else if (plan)
		sched_read_plan(r, s, n);
	else
		return 0;
	return 1;
}
