/*
 * fuzzdie.h: for a target that includes a tool's own .c with die()
 * renamed to fuzz_die() (fuzz_ops, fuzz_chakra): fuzz_die() returns
 * to the target's setjmp(refused) by longjmp, printing the message when
 * FUZZ_VERBOSE is set, and the input counts as refused.  What the tool
 * had allocated on the way is lost then, so leak detection is off for
 * such a target.  Include it once, after the tool's source.
 */
#ifndef FUZZDIE_H
#define FUZZDIE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int	__lsan_is_turned_off(void);

static jmp_buf refused;
static int verbose = -1;

void
fuzz_die(const char *fmt, ...)
{
	va_list ap;

	if (verbose < 0)
		verbose = getenv("FUZZ_VERBOSE") != NULL;
	if (verbose) {
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	longjmp(refused, 1);
}

int
__lsan_is_turned_off(void)
{
	return 1;
}

#endif
