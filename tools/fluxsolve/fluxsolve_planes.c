/* fluxsolve on a tiered fabric: the greedy on planes, and its bound. */
#include <stdint.h>
#include <string.h>

#include "model/dagin.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/die.h"
#include "records/stream.h"
#include "records/wclock.h"
#include "solve/fabbound.h"
#include "solve/fabgreedy.h"
#include "solve/fsolve.h"
#include "solve/wsolve.h"
#include "fluxsolve.h"

static void
write_solve(msgpack_packer *pk, const struct fsolve_opts *o, uint64_t obj,
    uint64_t bound, double seconds)
{
	stream_pack_record(pk, "solve", 17);
	stream_pack_kstr(pk, "method", fsolve_methods[o->method]);
	stream_pack_kstr(pk, "solver", "none");
	stream_pack_kstr(pk, "window_solver", wsolve_solvers[o->wsolver]);
	stream_pack_kstr(pk, "status", obj == bound ? "optimal" : "feasible");
	stream_pack_ku64(pk, "objective_ps", obj);
	stream_pack_ku64(pk, "bound_ps", bound);
	stream_pack_kdbl(pk, "gap", obj > 0 ? (double)(obj - bound) / obj : 0);
	stream_pack_ku64(pk, "greedy_ps", obj);
	stream_pack_str(pk, "interrupted");
	msgpack_pack_false(pk);
	stream_pack_kdbl(pk, "seconds", seconds);
	stream_pack_kdbl(pk, "time_limit", o->limit);
	stream_pack_ku64(pk, "windows", 0);
	stream_pack_ku64(pk, "windows_failed", 0);
	stream_pack_ku64(pk, "improved", 0);
	stream_pack_ku64(pk, "models_omitted", 0);
	stream_pack_str(pk, "models");
	msgpack_pack_array(pk, 0);
}

void
planes_solve(struct dagin *in, const struct fsolve_opts *o,
    struct stream_writer *w, double t0)
{
	struct schedule sc;
	struct planes pl;
	uint64_t obj, bound;
	char err[400];
	size_t i;
	int rc;

	if (o->method == FSOLVE_EXACT || o->write != NULL)
		die("%s: the net is a tiered fabric (%s), where fluxsolve plans "
		    "by its greedy (-m flux or greedy) so far", o->write != NULL ?
		    "--write-lp/--write-mps" : "-m exact", in->fab.name);
	sched_init(&sc);
	if (planes_expand(&pl, &in->fab, in->net.gpus) != 0 ||
	    fabbound_planes(&in->dag, &pl, &bound) != 0)
		die("out of memory (the planes of %s on %u GPUs)",
		    in->fab.name, in->net.gpus);
	if (fabgreedy_run(&in->dag, &pl, &sc, &obj, err, sizeof(err)) != 0)
		die("%s", err);
	if (bound > obj)
		die("internal error: bound %llu above the plan's %llu",
		    (unsigned long long)bound, (unsigned long long)obj);
	snprintf(sc.scheduler, sizeof(sc.scheduler), "%s",
	    fsolve_methods[o->method]);
	if (in->omit.on)
		dagin_write_omitted(in, stream_packer(w));
	sched_write_schedule(stream_packer(w), &sc);
	for (i = 0; i < sc.nc; i++)
		sched_write_circuit(stream_packer(w), &sc.c[i]);
	for (i = 0; i < sc.np; i++)
		sched_write_plan(stream_packer(w), &sc.p[i]);
	write_solve(stream_packer(w), o, obj, bound, wclock_now() - t0);
	if ((rc = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(rc));
	sched_free(&sc);
	planes_free(&pl);
}
