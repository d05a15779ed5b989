/*
 * dagin: the network and the task DAG, as a tool reads them.
 *
 * dagin_take() reads a net or task record into the struct (one net,
 * before the tasks) and returns 1, or returns 0 for any other record;
 * problems go through the record's sticky error.  dagin_missing()
 * says what a finished stream lacked, or NULL.  dagin_read() does the
 * whole reading of a tool's input through filter_run(): nets and tasks
 * into the struct, every other record to the tool's function (which
 * reports problems through the record), everything passed through;
 * it returns 0, or -1 with a message in the caller's buffer.  The
 * struct owns its dag; dagin_free() releases it.
 *
 * Task records laid out as dagbuild writes them are read straight from
 * the reader's buffer (filter_run_quick(), taskfast_run()); records
 * it does not take so, the struct's quick function (when set, and the
 * net has been read) may take the same way, a run at a time: it must do
 * with each record exactly what the tool's function would (see
 * filter.h), or decline.
 *
 * With omit.on (a tool's --own) the records filter_bulk() names are
 * left out of what passes (filter.h) and counted in omit, and the task
 * records are digested, in order, into tasks; dagin_write_omitted()
 * then writes the "omitted" record that says so (fluxocs(5)).  A
 * stream that has one is refused: its DAG is not there.
 *
 * A tool that takes a tiered net (model/netplanes) sets planes_ok;
 * when the stream holds one, tiered is set, fab holds its planes and
 * net only its GPUs and, as switches, its number of planes (what the
 * schedule's readers check plane numbers against): no rate, no tau.
 * Other tools refuse such a net (net_read()).
 *
 * When on_net is set, dagin_take() calls it with on_net_arg once the
 * net is read, before any task: a tool checks there what its options
 * ask of the net, so that it can refuse them before the first byte of
 * its output.
 *
 * dagin_unscheduled() is such a function for a scheduler's input: it
 * refuses a schedule, circuit, plan or solve record (the stream holds a
 * schedule already) and a result (it was simulated already).
 */
#ifndef DAGIN_H
#define DAGIN_H

#include "model/dag.h"
#include "model/fabric.h"
#include "model/net.h"
#include "records/rec.h"
#include <stdio.h>

#include "records/filter.h"
#include "records/stream.h"
#include "records/xxh64.h"

struct dagin {
	struct net		net;
	int			have_net;
	int			planes_ok;	/* the tool's: it takes a
						   tiered net */
	int			tiered;		/* the net is one: */
	struct fabric		fab;		/* its planes */
	struct dag		dag;
	struct filter_quick	quick;	/* the tool's, or { NULL } */
	struct filter_omit	omit;	/* --own: on, and what was left out */
	struct xxh64		tasks;	/* --own: the task records' digest */
	void			(*on_net)(const struct dagin *, void *);
	void			*on_net_arg;
};

void		 dagin_init(struct dagin *);
void		 dagin_free(struct dagin *);
int		 dagin_take(struct dagin *, struct rec *,
		    const struct stream_rec *);
const char	*dagin_missing(const struct dagin *);
int		 dagin_read(struct dagin *, FILE *, const char *,
		    struct stream_writer *, const char *, int, char *const *,
		    void (*)(void *, struct rec *, const struct stream_rec *),
		    void *, char *, size_t);
void		 dagin_write_omitted(const struct dagin *, msgpack_packer *);
void		 dagin_unscheduled(void *, struct rec *,
		    const struct stream_rec *);

#endif
