/*
 * report_run.c: what a run is beside struct run: the columns of report
 * --csv and the keys of report --json, in their order (what
 * report_runs.c writes and report_rows.c reads back), and freeing runs.
 */
#include <stdlib.h>

#include "report.h"

const char *const runs_keys[RUNS_NKEY] = {
	"file", "model", "layers", "tp", "dp", "pp", "scheduler", "mode",
	"tau_ps", "makespan_ps", "x_ideal", "x_best", "peak_buffer_bytes",
	"reconfigs", "status", "gap", "bound_ps", "lower_bound_ps", "x_bound",
	"peak_nic_bytes", "nic_host", "packet_bytes", "trace", "ranks",
	"placed", "dag", "fabric"
};

void
runs_free(struct runs *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		free(rs->v[i].file);
		free(rs->v[i].model);
		free(rs->v[i].trace);
		free(rs->v[i].sched);
		free(rs->v[i].mode);
		free(rs->v[i].status);
		free(rs->v[i].host);
		free(rs->v[i].fabric);
	}
	free(rs->v);
	rs->v = NULL;
	rs->n = rs->cap = 0;
}
