/*
 * version: the commit the build came from, the one object the Makefile
 * compiles with FLUXOCS_COMMIT (cli.h).
 */
#include "records/cli.h"

#ifndef FLUXOCS_COMMIT
#define FLUXOCS_COMMIT	"unknown"
#endif

const char *
cli_commit(void)
{
	return FLUXOCS_COMMIT;
}
