/* ocssim on a tiered fabric: the planes of the stream's net (fabsim). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model/dagin.h"
#include "model/fabric.h"
#include "model/planes.h"
#include "model/sched.h"
#include "records/die.h"
#include "records/stream.h"
#include "sim/fabsim.h"
#include "sim/simctl.h"
#include "solve/fabbound.h"
#include "ocssim.h"

/* The options of the flat net's simulator alone. */
static void
refuse(const struct input *in, const struct args *a)
{
	const char *o = a->online ? "-O" : a->replay != SIMCTL_NONE ? "-R" :
	    a->plan_file != NULL ? "-S" : a->host != SIM_HOST_PLAN ? "-H" :
	    a->every ? "-E" : a->logpath != NULL ? "-l" :
	    a->fabric == SIM_STATIC ? "-f static" : NULL;

	if (o != NULL)
		die("%s: the net is a tiered fabric (%s), where ocssim runs "
		    "-f ideal, a plan (fluxsolve) or circuits alone "
		    "(rotorsched) so far", o, in->di.fab.name);
	if (a->fabric != SIM_IDEAL && !in->sc.present)
		die("stdin: no schedule record: plan the DAG (fluxsolve), "
		    "schedule its circuits (rotorsched) or give -f ideal");
}

static void
write_planes(msgpack_packer *pk, const struct fabric *f, uint32_t gpus,
    const struct fabsim_out *o)
{
	char buf[200];
	size_t i;

	stream_pack_str(pk, "planes");
	msgpack_pack_array(pk, f->n);
	for (i = 0; i < f->n; i++) {
		msgpack_pack_map(pk, 6);
		stream_pack_kstr(pk, "plane", fabric_describe(&f->d[i], buf,
		    sizeof(buf)));
		stream_pack_kstr(pk, "kind", plane_kinds[f->d[i].kind]);
		stream_pack_ku64(pk, "planes", fabric_plane_count(&f->d[i],
		    gpus));
		stream_pack_ku64(pk, "bytes", o->desc[i].bytes);
		stream_pack_ku64(pk, "busy_ps", o->desc[i].busy_ps);
		stream_pack_ku64(pk, "reconfigs", o->desc[i].reconfigs);
	}
}

static void
write_result(msgpack_packer *pk, const struct input *in, int ideal,
    const struct fabsim_out *o, uint64_t bound)
{
	uint64_t prev = 0, e;
	uint32_t i;

	stream_pack_record(pk, "result", 15);
	stream_pack_ku64(pk, "makespan_ps", o->makespan);
	stream_pack_str(pk, "step_ps");
	msgpack_pack_array(pk, o->nsteps);
	for (i = 0; i < o->nsteps; i++) {
		e = o->step_end[i] > prev ? o->step_end[i] : prev;
		msgpack_pack_uint64(pk, e - prev);
		prev = e;
	}
	stream_pack_ku64(pk, "peak_buffer_bytes", o->peak_buffer);
	stream_pack_ku64(pk, "peak_nic_bytes", o->peak_nic);
	stream_pack_kstr(pk, "nic_host", sim_hosts[SIM_HOST_PLAN]);
	stream_pack_ku64(pk, "packet_bytes", 0);
	stream_pack_ku64(pk, "lower_bound_ps", bound);
	stream_pack_ku64(pk, "reconfigs", o->reconfigs);
	stream_pack_ku64(pk, "bytes_sent", o->bytes_sent);
	stream_pack_kstr(pk, "fabric", sim_fabrics[ideal ? SIM_IDEAL :
	    SIM_SCHEDULE]);
	stream_pack_kstr(pk, "scheduler", ideal ? "none" : in->sc.scheduler);
	stream_pack_ku64(pk, "events", o->events);
	stream_pack_kstr(pk, "replay", simctl_policies[SIMCTL_NONE]);
	write_planes(pk, &in->di.fab, in->di.net.gpus, o);
}

static void
write_gpus(msgpack_packer *pk, const struct fabsim_out *o, uint32_t gpus)
{
	uint32_t i;

	for (i = 0; i < gpus; i++) {
		stream_pack_record(pk, "gpustat", 7);
		stream_pack_ku64(pk, "gpu", i);
		stream_pack_ku64(pk, "busy_ps", o->gpu[i].busy_ps);
		stream_pack_ku64(pk, "stall_ps", o->gpu[i].stall_ps);
		stream_pack_ku64(pk, "peak_buffer_bytes",
		    o->gpu[i].peak_buffer);
		stream_pack_ku64(pk, "peak_nic_bytes", o->gpu[i].peak_nic);
		stream_pack_ku64(pk, "bytes_sent", o->gpu[i].bytes_sent);
	}
}

void
planes_sim(struct input *in, const struct args *a, struct stream_writer *w)
{
	struct fabsim_opts opt = { 0 };
	struct fabsim_out out;
	struct planes pl;
	uint64_t bound;
	char err[400];
	int rc, ideal = a->fabric == SIM_IDEAL;

	refuse(in, a);
	if (planes_expand(&pl, &in->di.fab, in->di.net.gpus) != 0 ||
	    fabbound_planes(&in->di.dag, &pl, &bound) != 0)
		die("out of memory (the planes of %s on %u GPUs)",
		    in->di.fab.name, in->di.net.gpus);
	opt.mode = ideal ? FABSIM_IDEAL : in->sc.np > 0 ? FABSIM_PLAN :
	    FABSIM_CIRCUITS;
	opt.time_limit = a->time_limit;
	if (isatty(STDERR_FILENO))
		opt.progress = ocssim_progress;
	rc = fabsim_run(&in->di.dag, &pl, &in->sc, &opt, &out, err,
	    sizeof(err));
	if (opt.progress != NULL)
		fputc('\n', stderr);
	if (rc != 0)
		die("%s", err);
	if (a->own)
		dagin_write_omitted(&in->di, stream_packer(w));
	write_result(stream_packer(w), in, ideal, &out, bound);
	write_gpus(stream_packer(w), &out, in->di.net.gpus);
	if (a->taskruns)
		ocssim_runs(stream_packer(w), out.start, out.end,
		    in->di.dag.n);
	if ((rc = stream_writer_close(w)) != 0)
		die("write error: %s", strerror(rc));
	if (a->verbose)
		fprintf(stderr, "ocssim: %zu tasks on %zu planes, %llu events\n",
		    in->di.dag.n, pl.n, (unsigned long long)out.events);
	fabsim_out_free(&out);
	planes_free(&pl);
	dagin_free(&in->di);
	sched_free(&in->sc);
}
