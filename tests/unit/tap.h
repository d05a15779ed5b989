/*
 * tap.h: a minimal TAP producer for the C unit tests.
 *
 * ok(cond, fmt, ...) prints one "ok N - ..." or "not ok N - ..." line;
 * tap_done() prints the plan and returns the exit status.
 */
#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_fail;

static int
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_fail++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_fail != 0;
}

#endif
