/*
 * fuzz_tasks: the task reader (lib/dagin, lib/taskio, lib/net), as
 * fluxsolve, ocssim and report read their input.
 */
#include <stdint.h>
#include <stdio.h>

#include "dagin.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stream_writer *w = fuzz_writer();
	struct dagin di;
	char err[400];
	FILE *fp;

	fp = fuzz_open(data, size);
	dagin_init(&di);
	(void)dagin_read(&di, fp, "fuzz", w, "fuzz", 0, NULL, NULL, NULL,
	    err, sizeof(err));
	dagin_free(&di);
	(void)stream_writer_close(w);
	fclose(fp);
	return 0;
}
