/* cli: -h/--help and --version, written alike by every tool. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records/cli.h"
#include "records/die.h"
#include "records/header.h"

/* Flush standard output and exit 0, or 1 saying why it failed. */
static void __attribute__((noreturn))
done(void)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		die("standard output: %s", strerror(errno ? errno : EIO));
	exit(0);
}

void
cli_help(const char *usage, const char *options)
{
	errno = 0;
	printf("%s\n%s\nSee %s(1), or in the source tree: man man/man1/%s.1\n",
	    usage, options, die_prog(), die_prog());
	done();
}

void
cli_version(void)
{
	errno = 0;
	printf("%s (fluxocs) %s commit %s\n", die_prog(), FLUXOCS_RELEASE,
	    cli_commit());
	done();
}
