/*
 * die: error reporting and allocation for tools.
 *
 * Only tools call these; library modules return errors instead.
 * die_init() records the tool's name once; every message then reads
 * "tool: message" on stderr.  die() exits 1 (bad input, failed work),
 * die_usage() prints the tool's usage text and exits 2; both drop what
 * stdio holds of standard output (a partial result).  The x* allocators never return NULL: on failure they die.
 * die_argv() puts the tool's name in argv[0] and returns argv, so that
 * getopt's own messages read "tool: invalid option" and not the path
 * the binary was run by: getopt_long(argc, die_argv(argv), ...).
 */
#ifndef DIE_H
#define DIE_H

#include <stddef.h>

void	 die_init(const char *);
const char *die_prog(void);
char	**die_argv(char **);
void	 die(const char *, ...)
	    __attribute__((noreturn, format(printf, 1, 2)));
void	 die_usage(const char *) __attribute__((noreturn));
void	 warnmsg(const char *, ...) __attribute__((format(printf, 1, 2)));

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);

void	 die_if_tty(void);

/* Grow *pp (holding *cap elements of size sz) to hold at least n. */
void	 xgrow(void *, size_t *, size_t, size_t);

#endif
