/*
 * units: exact parsing and human printing of times, sizes and rates.
 *
 * Parsers take a decimal number with an optional fraction and a unit
 * ("10us", "1.5ms", "64MiB", "800Gbps") and store an exact integer:
 * picoseconds, bytes or bits per second.  They return NULL on success
 * and a message on failure (no unit where one is needed, an unknown
 * unit, a value that is not a whole number of the base unit, or one
 * that overflows 64 bits).  A message about the unit, or about no
 * number at all, lists the units accepted with an example, and quotes
 * an unknown unit: unknown unit "usec" (a time takes ps, ns, us, ms or
 * s, as in 10us).  Such a message lives in a buffer of the calling
 * thread, good until its next call of a parser; the others are static.
 * Units are matched exactly: no 800G, no space before the unit.  A bare
 * "0" is accepted everywhere; a bare number is bytes for sizes and an
 * error for times and rates.
 * units_parse_seconds() reads a positive duration, a time limit, into
 * a double of seconds: a bare decimal number is seconds (10, 2.5), and
 * a time with its unit is taken too (10s, 500ms); no exactness
 * promised.  units_parse_fraction() reads a number in (0, 1], an
 * efficiency, the same way, without units.
 *
 * Printers write into the caller's buffer (UNITS_BUFSZ is enough) and
 * return it; they round to at most three significant decimals and are
 * meant for people, never for the stream.  units_fmt_u128() writes a
 * 128-bit count exactly, in decimal, for messages that name a figure
 * past 64 bits (40 bytes hold any).
 */
#ifndef UNITS_H
#define UNITS_H

#include <stddef.h>
#include <stdint.h>

#define UNITS_BUFSZ	32

const char	*units_parse_time(const char *, uint64_t *);
const char	*units_parse_size(const char *, uint64_t *);
const char	*units_parse_rate(const char *, uint64_t *);
const char	*units_parse_count(const char *, uint64_t, uint64_t,
		    uint64_t *);
const char	*units_parse_seconds(const char *, double *);
const char	*units_parse_fraction(const char *, double *);

char	*units_fmt_time(char *, size_t, uint64_t);
char	*units_fmt_size(char *, size_t, uint64_t);
char	*units_fmt_rate(char *, size_t, uint64_t);
char	*units_fmt_u128(char *, size_t, unsigned __int128);

#endif
