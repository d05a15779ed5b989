/* Unit tests of lib/records/units: exact parsing, refusals, printing. */
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "records/units.h"

static void
time_is(const char *s, uint64_t want)
{
	uint64_t v = 0;
	const char *e = units_parse_time(s, &v);

	ok(e == NULL && v == want, "time \"%s\" is %llu ps", s,
	    (unsigned long long)want);
}

static void
refused(const char *(*fn)(const char *, uint64_t *), const char *s,
    const char *why)
{
	uint64_t v = 0;
	const char *e = fn(s, &v);

	ok(e != NULL && strcmp(e, why) == 0, "\"%s\" refused: %s (got %s)",
	    s, why, e ? e : "accepted");
}

static void
seconds_is(const char *s, double want)
{
	double v = 0;
	const char *e = units_parse_seconds(s, &v);

	ok(e == NULL && v == want, "seconds \"%s\" are %g (got %s, %g)", s,
	    want, e ? e : "accepted", v);
}

static void
seconds_refused(const char *s, const char *why)
{
	double v = 0;
	const char *e = units_parse_seconds(s, &v);

	ok(e != NULL && strcmp(e, why) == 0, "seconds \"%s\" refused: %s "
	    "(got %s)", s, why, e ? e : "accepted");
}

/* What the refusals of each kind end with: the units, an example. */
#define TIMES	" (a time takes ps, ns, us, ms or s, as in 10us)"
#define SIZES	" (a size takes B, KB, kB, MB, GB, TB, KiB, MiB, GiB or " \
		"TiB, or none for bytes, as in 64MiB)"
#define RATES	" (a rate takes bps, Kbps, Mbps, Gbps or Tbps, as in " \
		"800Gbps)"
#define LIMITS	" (a duration takes ps, ns, us, ms or s, or none for " \
		"seconds, as in 500ms or 10)"

/* Issue 34: unit errors listed no unit that works. */
static void
unit_errors(void)
{
	char big[64];

	refused(units_parse_time, "10usec", "unknown unit \"usec\"" TIMES);
	refused(units_parse_time, "10 us", "unknown unit \" us\"" TIMES);
	refused(units_parse_time, "10US", "unknown unit \"US\"" TIMES);
	refused(units_parse_time, "10", "missing unit" TIMES);
	refused(units_parse_time, "", "not a number" TIMES);
	refused(units_parse_size, "64mib", "unknown unit \"mib\"" SIZES);
	refused(units_parse_size, "4 KiB", "unknown unit \" KiB\"" SIZES);
	refused(units_parse_size, "KiB", "not a number" SIZES);
	refused(units_parse_rate, "800G", "unknown unit \"G\"" RATES);
	refused(units_parse_rate, "800gbps", "unknown unit \"gbps\"" RATES);
	refused(units_parse_rate, "800", "missing unit" RATES);
	/* a long unit is cut at 32 characters, the list kept whole */
	memset(big, 'x', 41);
	big[0] = '1';
	big[41] = '\0';
	refused(units_parse_time, big, "unknown unit \"xxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxx\"" TIMES);
}

/* Issue 34: -T 10s was refused where -r 10 needs a unit. */
static void
seconds(void)
{
	seconds_is("10", 10);
	seconds_is("2.5", 2.5);
	seconds_is("10s", 10);
	seconds_is("2.5s", 2.5);
	seconds_is("500ms", 0.5);
	seconds_is("250us", 250e-6);
	seconds_is("1ps", 1e-12);
	seconds_refused("10sec", "unknown unit \"sec\"" LIMITS);
	seconds_refused("10 s", "unknown unit \" s\"" LIMITS);
	seconds_refused("10m", "unknown unit \"m\"" LIMITS);
	seconds_refused("0", "not a positive number of seconds" LIMITS);
	seconds_refused("0s", "not a positive number of seconds" LIMITS);
	seconds_refused("-1", "not a positive number of seconds" LIMITS);
	seconds_refused("-1s", "not a positive number of seconds" LIMITS);
	seconds_refused("nan", "not a positive number of seconds" LIMITS);
	seconds_refused("", "not a positive number of seconds" LIMITS);
	seconds_refused("s", "not a positive number of seconds" LIMITS);
	seconds_refused("0.1ps", "not a whole number of the base unit");
	seconds_refused("99999999999s", "value too large");
}

int
main(void)
{
	uint64_t v = 0;
	char buf[UNITS_BUFSZ];

	time_is("10us", 10000000ULL);
	time_is("1us", 1000000ULL);
	time_is("1.5ms", 1500000000ULL);
	time_is("1ms", 1000000000ULL);
	time_is("0", 0);
	time_is("3ps", 3);
	time_is("2s", 2000000000000ULL);
	time_is("0.001ns", 1);
	refused(units_parse_time, "10xs", "unknown unit \"xs\"" TIMES);
	refused(units_parse_time, "0.0001ns", "not a whole number of the "
	    "base unit");
	refused(units_parse_time, "us", "not a number" TIMES);
	refused(units_parse_time, "99999999999s", "value too large");
	refused(units_parse_time, "99999999999999999999ps",
	    "number too large");
	refused(units_parse_time, "-1us", "not a number" TIMES);

	ok(units_parse_size("64MiB", &v) == NULL && v == 67108864ULL,
	    "64MiB is 67108864 bytes");
	ok(units_parse_size("32MB", &v) == NULL && v == 32000000ULL,
	    "32MB is 32000000 bytes");
	ok(units_parse_size("1000", &v) == NULL && v == 1000,
	    "a bare size is bytes");
	ok(units_parse_size("1.5KiB", &v) == NULL && v == 1536,
	    "1.5KiB is 1536 bytes");
	refused(units_parse_size, "1.5B", "not a whole number of the base "
	    "unit");

	ok(units_parse_rate("800Gbps", &v) == NULL && v == 800000000000ULL,
	    "800Gbps is 8e11 bit/s");
	ok(units_parse_rate("1.6Tbps", &v) == NULL &&
	    v == 1600000000000ULL, "1.6Tbps is 1.6e12 bit/s");
	refused(units_parse_rate, "800GBps", "unknown unit \"GBps\"" RATES);

	unit_errors();
	seconds();

	ok(units_parse_count("8", 1, 32, &v) == NULL && v == 8,
	    "count 8 in [1, 32]");
	ok(units_parse_count("0", 1, 32, &v) != NULL, "count 0 refused "
	    "below 1");
	ok(units_parse_count("33", 1, 32, &v) != NULL, "count 33 refused "
	    "above 32");
	ok(units_parse_count("1.0", 1, 32, &v) != NULL, "count 1.0 is not "
	    "whole");
	ok(units_parse_count("4x", 1, 32, &v) != NULL, "count 4x refused");

	ok(strcmp(units_fmt_time(buf, sizeof(buf), 10000000ULL), "10us") == 0,
	    "10us prints as 10us (%s)", buf);
	ok(strcmp(units_fmt_time(buf, sizeof(buf), 1419000000ULL),
	    "1.419ms") == 0, "1419000000 ps prints as 1.419ms (%s)", buf);
	ok(strcmp(units_fmt_time(buf, sizeof(buf), 0), "0ps") == 0,
	    "0 prints as 0ps (%s)", buf);
	ok(strcmp(units_fmt_size(buf, sizeof(buf), 67108864ULL), "64MiB") == 0,
	    "64MiB prints as 64MiB (%s)", buf);
	ok(strcmp(units_fmt_size(buf, sizeof(buf), 512), "512B") == 0,
	    "512 bytes print as 512B (%s)", buf);
	ok(strcmp(units_fmt_rate(buf, sizeof(buf), 800000000000ULL),
	    "800Gbps") == 0, "800e9 bit/s prints as 800Gbps (%s)", buf);
	return tap_done();
}
