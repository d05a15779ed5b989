/*
 * report_keys.c: the columns of report --csv and the keys of report
 * --json, in their order: what report_runs.c writes and report_rows.c
 * reads back.
 */
#include "report.h"

const char *const runs_keys[RUNS_NKEY] = {
	"file", "model", "layers", "tp", "dp", "pp", "scheduler", "mode",
	"tau_ps", "makespan_ps", "x_ideal", "x_best", "peak_buffer_bytes",
	"reconfigs", "status", "gap", "bound_ps", "lower_bound_ps", "x_bound",
	"peak_nic_bytes", "nic_host", "packet_bytes", "trace", "ranks",
	"placed", "dag"
};
