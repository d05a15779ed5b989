/* die: error reporting and allocation for tools. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/die.h"

static const char *prog = "fluxocs";

/*
 * The coverage build (make coverage) writes its counts before _exit,
 * which would skip them: every refusal is a path the tests take.
 */
#ifdef FLUXOCS_COVERAGE
void	__gcov_dump(void);
#define quit(n)	(__gcov_dump(), _exit(n))
#else
#define quit(n)	_exit(n)
#endif

void
die_init(const char *name)
{
	prog = name;
}

const char *
die_prog(void)
{
	return prog;
}

char **
die_argv(char **argv)
{
	argv[0] = (char *)prog;	/* getopt only reads it */
	return argv;
}

static void
vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	/*
	 * _exit: buffered output is a partial result and is dropped, and
	 * memory still held is the kernel's to reclaim.
	 */
	quit(1);
}

void
die_usage(const char *usage)
{
	fputs(usage, stderr);
	quit(2);
}

void
warnmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void *
xmalloc(size_t n)
{
	void *p;

	if ((p = malloc(n ? n : 1)) == NULL)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t n, size_t sz)
{
	void *p;

	if ((p = calloc(n ? n : 1, sz ? sz : 1)) == NULL)
		die("out of memory (%zu x %zu bytes)", n, sz);
	return p;
}

void *
xreallocarray(void *old, size_t n, size_t sz)
{
	void *p;

	if (sz != 0 && n > SIZE_MAX / sz)
		die("out of memory (%zu x %zu bytes)", n, sz);
	if ((p = realloc(old, n * sz != 0 ? n * sz : 1)) == NULL)
		die("out of memory (%zu x %zu bytes)", n, sz);
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p;

	p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void
xgrow(void *pp, size_t *cap, size_t n, size_t sz)
{
	void **p = pp;
	size_t c;

	if (n <= *cap)
		return;
	c = *cap ? *cap : 16;
	while (c < n)
		c = c > SIZE_MAX / 2 ? n : c * 2;
	*p = xreallocarray(*p, c, sz);
	*cap = c;
}

/* Binary streams never go to a terminal: say how to look at one. */
void
die_if_tty(void)
{
	if (!isatty(STDOUT_FILENO))
		return;
	warnmsg("refusing to write a binary stream to a terminal; "
	    "redirect it to a file or pipe it into another tool, "
	    "or read it with: | report --dump");
	quit(2);
}
