/*
 * Unit tests of lib/sim/simnext: when two GPUs are next joined, worked by
 * hand on small schedules, across period boundaries and near 2^64 ps.
 */
#include <errno.h>
#include <stdint.h>

#include "model/sched.h"
#include "sim/simnext.h"
#include "tap.h"

static const char *const res[] = { "at", "never", "late" };

/* simnext_after(x, y, t, ps) gives want (and *at, when want is AT). */
static void
after_is(const struct simnext *nx, uint32_t x, uint32_t y, uint64_t t,
    uint64_t ps, int want, uint64_t at)
{
	uint64_t got = 0;
	int rc = simnext_after(nx, x, y, t, ps, &got);

	ok(rc == want && (rc != SIMNEXT_AT || got == at) &&
	    (rc == SIMNEXT_AT || got == UINT64_MAX),
	    "%u-%u from %llu after %llu ps up: %s %llu (got %s %llu)", x, y,
	    (unsigned long long)t, (unsigned long long)ps, res[want],
	    (unsigned long long)at, rc >= 0 && rc <= 2 ? res[rc] : "?",
	    (unsigned long long)got);
}

static void
up_is(const struct simnext *nx, uint32_t x, uint32_t y, uint64_t t,
    int want, uint64_t at)
{
	uint64_t got = 0;
	int rc = simnext_up(nx, x, y, t, &got);

	ok(rc == want && (rc != SIMNEXT_AT || got == at),
	    "%u-%u next up at or after %llu: %s %llu (got %s %llu)", x, y,
	    (unsigned long long)t, res[want], (unsigned long long)at,
	    rc >= 0 && rc <= 2 ? res[rc] : "?", (unsigned long long)got);
}

static struct simnext *
build(struct schedule *sc, int periodic, uint64_t period)
{
	struct simnext *nx;

	sc->periodic = periodic;
	sc->period = period;
	nx = simnext_new(sc);
	ok(nx != NULL, "the index is built (%zu circuits)", sc->nc);
	return nx;
}

/*
 * Period 100: 0-1 up in [10, 20) on switch 0 and [15, 30) on switch 1
 * (one interval [10, 30)), and [60, 70); 0-2 in [95, 100) and [0, 5),
 * which join across the period's end.  0-1 is up 30 ps a period.
 */
static void
periodic(void)
{
	struct schedule sc;
	struct simnext *nx;

	sched_init(&sc);
	sched_add_circuit(&sc, 0, 0, 1, 10, 20);
	sched_add_circuit(&sc, 1, 1, 0, 15, 30);
	sched_add_circuit(&sc, 0, 0, 1, 60, 70);
	sched_add_circuit(&sc, 0, 2, 0, 95, 100);
	sched_add_circuit(&sc, 1, 0, 2, 0, 5);
	if ((nx = build(&sc, 1, 100)) == NULL)
		return;
	up_is(nx, 0, 1, 0, SIMNEXT_AT, 10);
	up_is(nx, 0, 1, 10, SIMNEXT_AT, 10);
	up_is(nx, 0, 1, 25, SIMNEXT_AT, 25);	/* the overlap merged */
	up_is(nx, 1, 0, 30, SIMNEXT_AT, 60);	/* either order */
	up_is(nx, 0, 1, 69, SIMNEXT_AT, 69);
	up_is(nx, 0, 1, 70, SIMNEXT_AT, 110);	/* the next period */
	up_is(nx, 0, 1, 250, SIMNEXT_AT, 260);
	up_is(nx, 0, 2, 5, SIMNEXT_AT, 95);
	up_is(nx, 0, 2, 99, SIMNEXT_AT, 99);
	up_is(nx, 0, 2, 100, SIMNEXT_AT, 100);	/* across the boundary */
	up_is(nx, 2, 0, 404, SIMNEXT_AT, 404);
	up_is(nx, 1, 2, 0, SIMNEXT_NEVER, 0);	/* no circuit joins them */
	up_is(nx, 2, 3, 0, SIMNEXT_NEVER, 0);	/* GPU 3 has none */
	up_is(nx, 1, 1, 0, SIMNEXT_NEVER, 0);
	after_is(nx, 0, 1, 0, 0, SIMNEXT_AT, 10);
	after_is(nx, 0, 1, 0, 5, SIMNEXT_AT, 15);
	/* 20 ps fill [10, 30) to its end: on to the next interval */
	after_is(nx, 0, 1, 0, 20, SIMNEXT_AT, 60);
	after_is(nx, 0, 1, 0, 25, SIMNEXT_AT, 65);
	after_is(nx, 0, 1, 0, 30, SIMNEXT_AT, 110);
	/* from 25: 5 + 10 this period, 30 in each of the next two, then
	 * 20 of [310, 330) and 5 of [360, 370) */
	after_is(nx, 0, 1, 25, 100, SIMNEXT_AT, 365);
	after_is(nx, 0, 1, 75, 1, SIMNEXT_AT, 111);
	after_is(nx, 0, 2, 97, 3, SIMNEXT_AT, 100);
	after_is(nx, 0, 2, 97, 8, SIMNEXT_AT, 195);
	after_is(nx, 0, 1, 0, UINT64_MAX, SIMNEXT_LATE, 0);
	/* a time in the last period below 2^64: 2^64 - 1 = 15 mod 100 */
	up_is(nx, 0, 1, UINT64_MAX, SIMNEXT_AT, UINT64_MAX);
	up_is(nx, 0, 1, UINT64_MAX - 5, SIMNEXT_AT, UINT64_MAX - 5);
	up_is(nx, 0, 2, UINT64_MAX - 15, SIMNEXT_AT, UINT64_MAX - 15);
	/* 95 ps into the last period: 2^64 + 79 */
	up_is(nx, 0, 2, UINT64_MAX - 10, SIMNEXT_LATE, 0);
	up_is(nx, 0, 1, UINT64_MAX - 5 - 30, SIMNEXT_AT, UINT64_MAX - 5);
	after_is(nx, 0, 1, UINT64_MAX - 10, 5, SIMNEXT_AT, UINT64_MAX);
	after_is(nx, 0, 1, UINT64_MAX - 10, 6, SIMNEXT_LATE, 0);
	simnext_free(nx);
	sched_free(&sc);
}

/*
 * Not periodic: 0-1 in [10, 20) and [30, 40), then never again; 1-2
 * from 5 ps on, for ever.
 */
static void
once(void)
{
	struct schedule sc;
	struct simnext *nx;

	sched_init(&sc);
	sched_add_circuit(&sc, 0, 0, 1, 30, 40);
	sched_add_circuit(&sc, 0, 1, 0, 10, 20);
	sched_add_circuit(&sc, 1, 2, 1, 5, SCHED_FOREVER);
	if ((nx = build(&sc, 0, 0)) == NULL)
		return;
	up_is(nx, 0, 1, 0, SIMNEXT_AT, 10);
	up_is(nx, 0, 1, 15, SIMNEXT_AT, 15);
	up_is(nx, 0, 1, 20, SIMNEXT_AT, 30);
	up_is(nx, 1, 0, 39, SIMNEXT_AT, 39);
	up_is(nx, 0, 1, 40, SIMNEXT_NEVER, 0);	/* past the last one */
	up_is(nx, 0, 1, UINT64_MAX, SIMNEXT_NEVER, 0);
	after_is(nx, 0, 1, 0, 15, SIMNEXT_AT, 35);
	after_is(nx, 0, 1, 12, 17, SIMNEXT_AT, 39);
	after_is(nx, 0, 1, 0, 20, SIMNEXT_NEVER, 0);	/* all used up */
	up_is(nx, 1, 2, 0, SIMNEXT_AT, 5);
	up_is(nx, 2, 1, UINT64_MAX, SIMNEXT_AT, UINT64_MAX);
	after_is(nx, 1, 2, 0, UINT64_MAX - 5, SIMNEXT_AT, UINT64_MAX);
	after_is(nx, 1, 2, 0, UINT64_MAX - 4, SIMNEXT_LATE, 0);
	up_is(nx, 0, 2, 0, SIMNEXT_NEVER, 0);
	simnext_free(nx);
	sched_free(&sc);
}

/* A period of 2^63 ps: its second period starts at 2^63, its third
 * would at 2^64. */
static void
near_2_64(void)
{
	struct schedule sc;
	struct simnext *nx;
	uint64_t p = (uint64_t)1 << 63;

	sched_init(&sc);
	sched_add_circuit(&sc, 0, 0, 1, 0, 10);
	sched_add_circuit(&sc, 0, 0, 1, p - 10, p);
	if ((nx = build(&sc, 1, p)) == NULL)
		return;
	up_is(nx, 0, 1, 10, SIMNEXT_AT, p - 10);
	up_is(nx, 0, 1, p + 9, SIMNEXT_AT, p + 9);
	up_is(nx, 0, 1, p + 10, SIMNEXT_AT, UINT64_MAX - 9);
	up_is(nx, 0, 1, UINT64_MAX, SIMNEXT_AT, UINT64_MAX);
	after_is(nx, 0, 1, UINT64_MAX, 1, SIMNEXT_LATE, 0);	/* 2^64 */
	after_is(nx, 0, 1, 0, 20, SIMNEXT_AT, p);
	after_is(nx, 0, 1, 0, 39, SIMNEXT_AT, UINT64_MAX);
	after_is(nx, 0, 1, 0, 40, SIMNEXT_LATE, 0);
	after_is(nx, 0, 1, UINT64_MAX - 1, UINT64_MAX, SIMNEXT_LATE, 0);
	simnext_free(nx);
	sched_free(&sc);
}

/*
 * The look-ahead rule on a period of 30: 0-2 up in [0, 9), 0-1 in
 * [10, 19), 2-1 in [20, 29) and 0-3 in [20, 29); then a second
 * schedule with 2-1 in [10, 19), so that both routes start at 10.
 */
static void
sooner(void)
{
	struct schedule sc;
	struct simnext *nx;

	sched_init(&sc);
	sched_add_circuit(&sc, 0, 0, 2, 0, 9);
	sched_add_circuit(&sc, 0, 0, 1, 10, 19);
	sched_add_circuit(&sc, 0, 1, 2, 20, 29);
	sched_add_circuit(&sc, 1, 0, 3, 20, 29);
	if ((nx = build(&sc, 1, 30)) == NULL)
		return;
	ok(!simnext_relay_sooner(nx, 0, 2, 1, 0, 3, 0, 0),
	    "direct at 10 beats the relay's 20: no relay");
	ok(simnext_relay_sooner(nx, 0, 2, 1, 0, 3, 9, 0),
	    "9 ps ahead at the source push it to 40: relay at 20");
	ok(!simnext_relay_sooner(nx, 0, 2, 1, 0, 3, 9, 9),
	    "9 ps ahead at the relay too push it to 50: no relay");
	ok(!simnext_relay_sooner(nx, 0, 2, 3, 0, 3, 0, 0),
	    "no circuit from the relay to 3: no relay");
	ok(simnext_relay_sooner(nx, 2, 0, 3, 0, 3, 0, 0),
	    "2 has no circuit to 3 of its own: relay through 0 at 20");
	simnext_free(nx);
	sched_free(&sc);
	sched_init(&sc);
	sched_add_circuit(&sc, 0, 0, 2, 0, 9);
	sched_add_circuit(&sc, 0, 0, 1, 10, 19);
	sched_add_circuit(&sc, 1, 1, 2, 10, 19);
	if ((nx = build(&sc, 1, 30)) == NULL)
		return;
	ok(!simnext_relay_sooner(nx, 0, 2, 1, 0, 3, 0, 0),
	    "both routes start at 10: the tie goes direct");
	ok(simnext_relay_sooner(nx, 0, 2, 1, 0, 3, 1, 0),
	    "1 ps ahead at the source: the relay is first");
	simnext_free(nx);
	sched_free(&sc);
}

static void
refusals(void)
{
	struct schedule sc;
	struct simnext *nx;

	sched_init(&sc);
	sc.periodic = 1;
	errno = 0;
	ok((nx = simnext_new(&sc)) == NULL && errno == EINVAL,
	    "a periodic schedule without a period is refused (EINVAL)");
	simnext_free(nx);
	sc.period = 100;
	sched_add_circuit(&sc, 0, 0, 1, 90, 110);
	errno = 0;
	ok((nx = simnext_new(&sc)) == NULL && errno == EINVAL,
	    "a circuit past the period's end is refused (EINVAL)");
	simnext_free(nx);
	sched_free(&sc);
	sched_init(&sc);
	sched_add_circuit(&sc, 0, 0, 1, 7, 7);
	nx = simnext_new(&sc);
	ok(nx != NULL, "an empty circuit is taken");
	if (nx != NULL)
		up_is(nx, 0, 1, 0, SIMNEXT_NEVER, 0);
	simnext_free(nx);
	sched_free(&sc);
	simnext_free(NULL);
}

int
main(void)
{
	periodic();
	once();
	near_2_64();
	sooner();
	refusals();
	return tap_done();
}
