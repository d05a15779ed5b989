/*
 * fuzz_rows: report(1) reading its own CSV and JSON lines back into
 * runs (tools/report/report_rows.c, with the columns of
 * report_run.c).
 *
 * An input that begins as report's CSV does ("f") is read as CSV, one
 * that begins with "{" as JSON lines, as report tells them; any other
 * as CSV when its first byte is even, else as JSON lines.  Bad input
 * must come back as an error; the runs read are freed by runs_free().
 */
#include <stdint.h>
#include <stdio.h>

#include "fuzz.h"
#include "../../tools/report/report.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct runs rs = { NULL, 0, 0 };
	char err[400];
	FILE *fp;
	int csv;

	if ((fp = fuzz_open(data, size)) == NULL)
		return 0;
	csv = size == 0 || data[0] == 'f' || (data[0] != '{' &&
	    data[0] % 2 == 0);
	(void)rows_read(&rs, fp, "fuzz", csv, err, sizeof(err));
	fclose(fp);
	runs_free(&rs);
	return 0;
}
