/* units: exact parsing and human printing of times, sizes and rates. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "records/units.h"

struct unit {
	const char	*name;
	uint64_t	 mult;
};

static const struct unit time_units[] = {
	{ "ps", 1ULL }, { "ns", 1000ULL }, { "us", 1000000ULL },
	{ "ms", 1000000000ULL }, { "s", 1000000000000ULL }, { NULL, 0 }
};

static const struct unit size_units[] = {
	{ "B", 1ULL }, { "KB", 1000ULL }, { "kB", 1000ULL },
	{ "MB", 1000000ULL }, { "GB", 1000000000ULL },
	{ "TB", 1000000000000ULL }, { "KiB", 1ULL << 10 },
	{ "MiB", 1ULL << 20 }, { "GiB", 1ULL << 30 }, { "TiB", 1ULL << 40 },
	{ NULL, 0 }
};

static const struct unit rate_units[] = {
	{ "bps", 1ULL }, { "Kbps", 1000ULL }, { "Mbps", 1000000ULL },
	{ "Gbps", 1000000000ULL }, { "Tbps", 1000000000000ULL },
	{ NULL, 0 }
};

/*
 * A kind of value: its units, whether a bare number is one of the
 * first unit, and for the messages that refuse one, what a bare number
 * is (NULL: it needs a unit) and an example.
 */
struct kind {
	const char		*name;
	const struct unit	*u;
	int			 bare_ok;
	const char		*bare;
	const char		*eg;
};

static const struct kind time_kind = { "a time", time_units, 0, NULL,
	"10us" };
static const struct kind size_kind = { "a size", size_units, 1, "bytes",
	"64MiB" };
static const struct kind rate_kind = { "a rate", rate_units, 0, NULL,
	"800Gbps" };
/* A bare number of seconds is read apart, by units_parse_seconds(). */
static const struct kind seconds_kind = { "a duration", time_units, 0,
	"seconds", "500ms or 10" };

static const char	NOT_A_NUMBER[] = "not a number";
static const char	NOT_SECONDS[] = "not a positive number of seconds";

/* The message of the last refusal that names what is accepted. */
static _Thread_local char msg[256];

static void
put(size_t *n, const char *s)
{
	*n += strlen(s);
	if (*n < sizeof(msg))
		strcat(msg, s);
}

/*
 * "WHY (a time takes ps, ns, us, ms or s, as in 10us)" in msg, with
 * "WHY \"UNIT\"" for an unknown unit: a message that says what would
 * do, because people type 800G, 10usec or "10 us".
 */
static const char *
explain(const struct kind *k, const char *why, const char *unit)
{
	const struct unit *u;
	size_t n;

	if (unit != NULL)
		snprintf(msg, sizeof(msg), "%s \"%.32s\" (", why, unit);
	else
		snprintf(msg, sizeof(msg), "%s (", why);
	n = strlen(msg);
	put(&n, k->name);
	put(&n, " takes ");
	for (u = k->u; u->name != NULL; u++) {
		if (u != k->u)
			put(&n, u[1].name == NULL ? " or " : ", ");
		put(&n, u->name);
	}
	if (k->bare != NULL) {
		put(&n, ", or none for ");
		put(&n, k->bare);
	}
	put(&n, ", as in ");
	put(&n, k->eg);
	put(&n, ")");
	return msg;
}

/*
 * Split "12.345unit" into mantissa 12345, 3 fraction digits and the
 * unit text.  Returns NULL or an error message.
 */
static const char *
parse_number(const char *s, uint64_t *mant, unsigned *frac,
    const char **unit)
{
	uint64_t m = 0;
	unsigned f = 0, digits = 0;
	int dot = 0;

	for (; *s != '\0'; s++) {
		if (*s == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (*s < '0' || *s > '9')
			break;
		if (__builtin_mul_overflow(m, 10, &m) ||
		    __builtin_add_overflow(m, (uint64_t)(*s - '0'), &m))
			return "number too large";
		digits++;
		if (dot)
			f++;
	}
	if (digits == 0)
		return NOT_A_NUMBER;
	if (f > 18)
		return "too many decimals";
	*mant = m;
	*frac = f;
	*unit = s;
	return NULL;
}

static const char *
parse_units(const char *s, const struct kind *k, uint64_t *out)
{
	const struct unit *u = k->u;
	const char *e, *name;
	uint64_t m, v, p10 = 1;
	unsigned f, i;

	if ((e = parse_number(s, &m, &f, &name)) != NULL)
		return e == NOT_A_NUMBER ? explain(k, e, NULL) : e;
	if (*name == '\0') {
		if (m == 0) {
			*out = 0;
			return NULL;
		}
		if (!k->bare_ok)
			return explain(k, "missing unit", NULL);
		name = u[0].name;
	}
	for (; u->name != NULL; u++)
		if (strcmp(u->name, name) == 0)
			break;
	if (u->name == NULL)
		return explain(k, "unknown unit", name);
	for (i = 0; i < f; i++)
		p10 *= 10;
	if (__builtin_mul_overflow(m, u->mult, &v))
		return "value too large";
	if (v % p10 != 0)
		return "not a whole number of the base unit";
	*out = v / p10;
	return NULL;
}

const char *
units_parse_time(const char *s, uint64_t *ps)
{
	return parse_units(s, &time_kind, ps);
}

const char *
units_parse_size(const char *s, uint64_t *bytes)
{
	return parse_units(s, &size_kind, bytes);
}

const char *
units_parse_rate(const char *s, uint64_t *bps)
{
	return parse_units(s, &rate_kind, bps);
}

/* A plain whole number in [lo, hi]. */
const char *
units_parse_count(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const char *e, *rest;
	uint64_t m;
	unsigned f;

	if ((e = parse_number(s, &m, &f, &rest)) != NULL)
		return e;
	if (f != 0 || strchr(s, '.') != NULL || *rest != '\0')
		return "not a whole number";
	if (m < lo)
		return "too small";
	if (m > hi)
		return "too large";
	*out = m;
	return NULL;
}

/* Print v / mult with up to three decimals, trailing zeros dropped. */
static char *
fmt_scaled(char *buf, size_t n, uint64_t v, uint64_t mult,
    const char *name)
{
	char num[UNITS_BUFSZ], *p;

	snprintf(num, sizeof(num), "%.3f", (double)v / (double)mult);
	if ((p = strchr(num, '.')) != NULL) {
		p += strlen(p) - 1;
		while (*p == '0')
			*p-- = '\0';
		if (*p == '.')
			*p = '\0';
	}
	snprintf(buf, n, "%s%s", num, name);
	return buf;
}

static char *
fmt_units(char *buf, size_t n, uint64_t v, const struct unit *u,
    size_t nu)
{
	size_t i;

	if (v == 0) {
		snprintf(buf, n, "0%s", u[0].name);
		return buf;
	}
	for (i = nu; i-- > 1;)
		if (v >= u[i].mult)
			break;
	return fmt_scaled(buf, n, v, u[i].mult, u[i].name);
}

char *
units_fmt_time(char *buf, size_t n, uint64_t ps)
{
	return fmt_units(buf, n, ps, time_units, 5);
}

char *
units_fmt_size(char *buf, size_t n, uint64_t bytes)
{
	static const struct unit iec[] = {
		{ "B", 1ULL }, { "KiB", 1ULL << 10 }, { "MiB", 1ULL << 20 },
		{ "GiB", 1ULL << 30 }, { "TiB", 1ULL << 40 }
	};

	return fmt_units(buf, n, bytes, iec, 5);
}

char *
units_fmt_rate(char *buf, size_t n, uint64_t bps)
{
	return fmt_units(buf, n, bps, rate_units, 5);
}

char *
units_fmt_u128(char *buf, size_t n, unsigned __int128 v)
{
	char tmp[48], *p = tmp + sizeof(tmp) - 1;

	*p = '\0';
	do
		*--p = (char)('0' + (int)(v % 10));
	while ((v /= 10) > 0);
	snprintf(buf, n, "%s", p);
	return buf;
}

/*
 * A bare number is seconds, read by strtod(3) as ever; anything else
 * must be a time with its unit, read exactly and then turned to
 * seconds (10s is 10, 500ms 0.5).
 */
const char *
units_parse_seconds(const char *s, double *v)
{
	const char *e, *unit;
	uint64_t ps;
	unsigned f;
	char *end;

	*v = strtod(s, &end);
	if (*s != '\0' && *end == '\0')
		return *v > 0 ? NULL : explain(&seconds_kind, NOT_SECONDS,
		    NULL);
	if (parse_number(s, &ps, &f, &unit) == NOT_A_NUMBER)
		return explain(&seconds_kind, NOT_SECONDS, NULL);
	if ((e = parse_units(s, &seconds_kind, &ps)) != NULL)
		return e;
	if (ps == 0)
		return explain(&seconds_kind, NOT_SECONDS, NULL);
	*v = (double)ps / 1e12;
	return NULL;
}

const char *
units_parse_fraction(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || !(*v > 0 && *v <= 1))
		return "must be a number in (0, 1]";
	return NULL;
}
