/*
 * report.h: the private parts of report(1), one file each.
 *
 * Every part reads its streams through report_walk() of report.c,
 * which checks the headers and the end record.  report_runs.c reads
 * streams into runs (one per stream: the result, the schedule, the
 * solve and what the run was made from), relates
 * each run to the ideal-fabric run and the best run of its kind, and
 * prints them as a table, CSV or JSON.  report_plot.c draws runs
 * through gnuplot(1).  report_gantt.c draws one simulated stream as an
 * SVG timeline.  report_rows.c reads runs back from report's own CSV
 * or JSON lines, whose columns are runs_keys; report_run.c holds those
 * and runs_free().  Functions return 0, or -1 with a message in err;
 * only report.c exits.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "records/rec.h"
#include "records/stream.h"

struct run {
	char		*file;
	char		*model;		/* workload.model, or NULL */
	char		*trace;		/* workload.trace (chakra), or NULL */
	uint64_t	 ranks;
	uint64_t	 layers, tp, dp, pp;
	char		*sched;		/* "ideal", "flux", "rotor", ... */
	char		*mode;		/* forwarding or method, or NULL */
	int		 placed;	/* ranks not on their own ports */
	uint64_t	 tau_ps;
	int		 has_net;
	char		*fabric;	/* "2x800Gbps", or a tiered one's name */
	int		 has_result;
	uint64_t	 makespan_ps;
	uint64_t	 buffer_bytes;
	int		 has_nic;	/* the result has the nic keys */
	uint64_t	 nic_bytes;
	char		*host;
	uint64_t	 packet_bytes;
	int		 has_lb;
	uint64_t	 lower_bound_ps;
	uint64_t	 reconfigs;
	int		 has_solve;
	char		*status;
	double		 gap;
	uint64_t	 bound_ps;
	uint64_t	 dag;		/* hash: workload, tasks, net but tau */
	size_t		 order;		/* position on the command line */
	size_t		 group;		/* first run with its dag key */
	double		 x_ideal;	/* 0 when unknown */
	double		 x_bound;	/* 0 when unknown */
	double		 x_best;
};

struct runs {
	struct run	*v;
	size_t		 n, cap;
};

int	 report_walk(struct stream_reader *, int,
	    int (*)(void *, const struct stream_rec *, struct rec *), void *,
	    char *, size_t);

#define RUNS_NKEY	27
extern const char *const runs_keys[RUNS_NKEY];

int	 runs_read(struct runs *, struct stream_reader *, const char *,
	    char *, size_t);
int	 rows_read(struct runs *, FILE *, const char *, int, char *, size_t);
void	 runs_relate(struct runs *);
void	 runs_free(struct runs *);
int	 runs_table(FILE *, const struct runs *);
int	 runs_csv(FILE *, const struct runs *);
int	 runs_json(FILE *, const struct runs *);
char	*runs_series(const struct run *, char *, size_t);
char	*runs_workload(const struct run *, char *, size_t);

int	 plot_script(FILE *, const struct runs *, const char *, char *,
	    size_t);
int	 plot_draw(const struct runs *, const char *, char *, size_t);

struct gantt_opts {
	uint64_t	 from_ps;	/* window shown: [from_ps, to_ps) */
	uint64_t	 to_ps;		/* 0: up to the makespan */
	unsigned	 width;		/* of the drawing area, in pixels */
};

int	 gantt_write(FILE *, struct stream_reader *, const struct gantt_opts *,
	    char *, size_t);

#endif
