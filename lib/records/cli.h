/*
 * cli: what every tool answers the same way, -h/--help and --version.
 *
 * A tool keeps its usage (the synopsis, "usage: tool ...\n") and its
 * options (one line an option, as printed) in two strings, adds
 * CLI_LONGOPTS to its long options and "h" to its short ones, and in
 * its getopt_long() loop calls cli_help() for 'h' and cli_version() for
 * CLI_VERSION, before it reads or writes anything else.
 *
 * cli_help() writes the usage, a blank line, the options and a pointer
 * to the manual page to standard output; cli_version() writes
 * "tool (fluxocs) RELEASE commit COMMIT".  Both exit 0, or 1 with a
 * message when standard output cannot be written (a full disk, a
 * closed pipe).  cli_commit() is the commit the build came from ("git
 * describe --always --dirty --abbrev=12", "unknown" outside a
 * checkout): it is compiled into version.c alone, so that a new commit
 * relinks the tools but changes no object else, and no stream ever
 * carries it (headers carry FLUXOCS_RELEASE).
 */
#ifndef CLI_H
#define CLI_H

#include <getopt.h>

#define CLI_VERSION	0x7f00	/* getopt_long's value of --version */
#define CLI_LONGOPTS \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, CLI_VERSION }

void	 cli_help(const char *, const char *) __attribute__((noreturn));
void	 cli_version(void) __attribute__((noreturn));
const char *cli_commit(void);

#endif
