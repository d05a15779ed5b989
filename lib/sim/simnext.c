/* simnext: when a schedule next joins two GPUs by a circuit. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/sched.h"
#include "sim/simnext.h"

typedef unsigned __int128 u128;

/*
 * An interval [from, to) in which the pair is joined, and the time the
 * pair's earlier intervals (of the period) are up: its place on the
 * pair's clock of up time.
 */
struct span {
	uint64_t	from, to;
	uint64_t	cum;
};

struct simnext {
	int		 periodic;
	uint64_t	 period;
	uint64_t	*key;	/* per pair: lower << 32 | higher, sorted */
	size_t		*off;	/* pair i's spans: off[i] to off[i + 1] */
	size_t		 npairs;
	struct span	*sp;
};

/* One circuit's interval, by pair, while building. */
struct item {
	uint64_t	key, from, to;
};

static uint64_t
pair_key(uint32_t x, uint32_t y)
{
	return x < y ? (uint64_t)x << 32 | y : (uint64_t)y << 32 | x;
}

static int
cmp_item(const void *p, const void *q)
{
	const struct item *a = p, *b = q;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

void
simnext_free(struct simnext *nx)
{
	if (nx == NULL)
		return;
	free(nx->key);
	free(nx->off);
	free(nx->sp);
	free(nx);
}

/* The sorted intervals, merged per pair, into nx. */
static void
fill(struct simnext *nx, const struct item *it, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct span *last = k > 0 ? &nx->sp[k - 1] : NULL;

		if (i > 0 && it[i].key == it[i - 1].key &&
		    it[i].from <= last->to) {
			if (it[i].to > last->to)
				last->to = it[i].to;
			continue;
		}
		if (i == 0 || it[i].key != it[i - 1].key) {
			nx->key[nx->npairs] = it[i].key;
			nx->off[nx->npairs++] = k;
		}
		nx->sp[k++] = (struct span){ it[i].from, it[i].to, 0 };
	}
	nx->off[nx->npairs] = k;
	for (i = 0; i < nx->npairs; i++)
		for (k = nx->off[i] + 1; k < nx->off[i + 1]; k++)
			nx->sp[k].cum = nx->sp[k - 1].cum +
			    (nx->sp[k - 1].to - nx->sp[k - 1].from);
}

struct simnext *
simnext_new(const struct schedule *sc)
{
	struct simnext *nx;
	struct item *it;
	size_t i, k, n = sc->nc;

	if (sc->periodic && sc->period == 0) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (sc->periodic && sc->c[i].to > sc->period) {
			errno = EINVAL;
			return NULL;
		}
	if ((nx = calloc(1, sizeof(*nx))) == NULL)
		return NULL;
	nx->periodic = sc->periodic;
	nx->period = sc->period;
	it = calloc(n + 1, sizeof(*it));
	nx->key = calloc(n + 1, sizeof(*nx->key));
	nx->off = calloc(n + 1, sizeof(*nx->off));
	nx->sp = calloc(n + 1, sizeof(*nx->sp));
	if (it == NULL || nx->key == NULL || nx->off == NULL ||
	    nx->sp == NULL) {
		free(it);
		simnext_free(nx);
		errno = ENOMEM;
		return NULL;
	}
	for (i = k = 0; i < n; i++)
		if (sc->c[i].from < sc->c[i].to)	/* else never up */
			it[k++] = (struct item){ pair_key(sc->c[i].a,
			    sc->c[i].b), sc->c[i].from, sc->c[i].to };
	qsort(it, k, sizeof(*it), cmp_item);
	fill(nx, it, k);
	free(it);
	return nx;
}

/* The pair's spans, or 0 when no circuit joins it. */
static size_t
spans(const struct simnext *nx, uint32_t x, uint32_t y,
    const struct span **sp)
{
	uint64_t key = pair_key(x, y);
	size_t lo = 0, hi = nx->npairs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nx->key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (x == y || lo == nx->npairs || nx->key[lo] != key)
		return 0;
	*sp = nx->sp + nx->off[lo];
	return nx->off[lo + 1] - nx->off[lo];
}

/*
 * The first span still up after r: the spans are disjoint and sorted,
 * so their ends rise too.  A span without end covers every r.
 */
static size_t
first_after(const struct span *sp, size_t n, uint64_t r)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp[mid].to > r || sp[mid].to == SCHED_FOREVER)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Where a span ends on the pair's clock of up time; one without end
 * never does.
 */
static u128
span_end(const struct span *sp)
{
	if (sp->to == SCHED_FOREVER)
		return ~(u128)0;
	return (u128)sp->cum + (sp->to - sp->from);
}

/* The span in which up time pos falls: the first that ends after it. */
static size_t
span_at(const struct span *sp, size_t n, u128 pos)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (span_end(&sp[mid]) > pos)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int
simnext_after(const struct simnext *nx, uint32_t x, uint32_t y, uint64_t t,
    uint64_t ps, uint64_t *at)
{
	const struct span *sp = NULL;
	size_t n, i;
	uint64_t k = 0, r = t;
	u128 pos = 0, per = 0, total, u;

	*at = UINT64_MAX;
	if ((n = spans(nx, x, y, &sp)) == 0)
		return SIMNEXT_NEVER;
	if (nx->periodic) {
		k = t / nx->period;
		r = t % nx->period;
	}
	if ((i = first_after(sp, n, r)) < n)
		pos = sp[i].cum + (r > sp[i].from ? r - sp[i].from : 0);
	else if (!nx->periodic)
		return SIMNEXT_NEVER;
	else
		k++;		/* from the start of the next period */
	pos += ps;
	total = span_end(&sp[n - 1]);
	if (nx->periodic) {
		per = pos / total + k;
		pos %= total;
		if (per > UINT64_MAX / nx->period)
			return SIMNEXT_LATE;
	} else if (pos >= total)
		return SIMNEXT_NEVER;
	i = span_at(sp, n, pos);
	u = per * nx->period + sp[i].from + (pos - sp[i].cum);
	if (u > UINT64_MAX)
		return SIMNEXT_LATE;
	*at = (uint64_t)u;
	return SIMNEXT_AT;
}

int
simnext_up(const struct simnext *nx, uint32_t x, uint32_t y, uint64_t t,
    uint64_t *at)
{
	return simnext_after(nx, x, y, t, 0, at);
}

int
simnext_relay_sooner(const struct simnext *nx, uint32_t a, uint32_t b,
    uint32_t d, uint64_t now, uint64_t t1, uint64_t direct_ps,
    uint64_t relay_ps)
{
	uint64_t ta, tb;

	if (simnext_after(nx, b, d, t1, relay_ps, &tb) != SIMNEXT_AT)
		return 0;
	if (simnext_after(nx, a, d, now, direct_ps, &ta) != SIMNEXT_AT)
		return 1;
	return tb < ta;
}
