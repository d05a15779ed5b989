/* netplanes: the net record of a tiered fabric. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fabric.h"
#include "model/net.h"
#include "model/netplanes.h"
#include "records/rec.h"
#include "records/stream.h"

static const char *const attaches[] = { "all", "group", "rail", "uplink",
	"gpus", NULL };

static size_t
plane_keys(const struct plane_desc *d)
{
	size_t n = 5;		/* kind, attach, count, rate, latency */

	n += d->attach == ATTACH_GROUP || d->attach == ATTACH_RAIL ||
	    d->attach == ATTACH_UPLINK;
	n += d->attach == ATTACH_UPLINK;
	n += d->attach == ATTACH_GPUS;
	n += d->kind == PLANE_OCS ? 2 + (d->radix != 0) : 2;
	return n;
}

static void
write_plane(msgpack_packer *pk, const struct plane_desc *d)
{
	size_t i;

	msgpack_pack_map(pk, plane_keys(d));
	stream_pack_kstr(pk, "kind", plane_kinds[d->kind]);
	stream_pack_kstr(pk, "attach", attaches[d->attach]);
	if (d->attach == ATTACH_GROUP || d->attach == ATTACH_RAIL ||
	    d->attach == ATTACH_UPLINK)
		stream_pack_ku64(pk, "k", d->k);
	if (d->attach == ATTACH_UPLINK)
		stream_pack_ku64(pk, "u", d->u);
	if (d->attach == ATTACH_GPUS) {
		stream_pack_str(pk, "gpus");
		msgpack_pack_array(pk, d->ngpus * 2);
		for (i = 0; i < d->ngpus; i++) {
			msgpack_pack_uint64(pk, d->gpus[i].lo);
			msgpack_pack_uint64(pk, d->gpus[i].hi);
		}
	}
	stream_pack_ku64(pk, "count", d->count);
	stream_pack_ku64(pk, "rate_bps", d->rate_bps);
	stream_pack_ku64(pk, "latency_ps", d->latency_ps);
	if (d->kind == PLANE_OCS) {
		stream_pack_ku64(pk, "reconfig_ps", d->reconfig_ps);
		stream_pack_kstr(pk, "reconfig_model", net_models[d->model]);
		if (d->radix != 0)
			stream_pack_ku64(pk, "radix", d->radix);
	} else {
		stream_pack_ku64(pk, "oversub_num", d->over_num);
		stream_pack_ku64(pk, "oversub_den", d->over_den);
	}
}

void
netplanes_write(msgpack_packer *pk, uint32_t gpus, const struct fabric *f)
{
	size_t i;

	stream_pack_record(pk, "net", 4);
	stream_pack_ku64(pk, "gpus", gpus);
	stream_pack_kstr(pk, "fabric", f->name);
	stream_pack_str(pk, "planes");
	msgpack_pack_array(pk, f->n);
	for (i = 0; i < f->n; i++)
		write_plane(pk, &f->d[i]);
}

int
netplanes_is(const struct rec *r)
{
	return rec_has(r, "planes");
}

/* Reading: one plane's map. */

static const msgpack_object *
get(const msgpack_object *m, const char *key)
{
	uint32_t i;

	for (i = 0; i < m->via.map.size; i++) {
		const msgpack_object *k = &m->via.map.ptr[i].key;

		if (k->type == MSGPACK_OBJECT_STR &&
		    rec_streq(k->via.str.ptr, k->via.str.size, key))
			return &m->via.map.ptr[i].val;
	}
	return NULL;
}

static uint32_t
u32(struct rec *r, const msgpack_object *m, const char *key, uint32_t lo,
    uint32_t hi)
{
	uint64_t v = rec_val_u64(r, key, get(m, key));

	if (!rec_failed(r) && (v < lo || v > hi))
		rec_fail(r, "planes: key \"%s\": %llu is not %u to %u", key,
		    (unsigned long long)v, lo, hi);
	return (uint32_t)v;
}

static void
read_gpus(struct rec *r, const msgpack_object *m, struct plane_desc *d)
{
	const msgpack_object_array *a = rec_val_array(r, "gpus",
	    get(m, "gpus"));
	size_t i;

	if (rec_failed(r))
		return;
	if (a->size == 0 || a->size % 2 != 0) {
		rec_fail(r, "planes: key \"gpus\": pairs of first and last "
		    "GPU wanted");
		return;
	}
	if ((d->gpus = calloc(a->size / 2, sizeof(*d->gpus))) == NULL) {
		rec_fail(r, "out of memory");
		return;
	}
	d->ngpus = a->size / 2;
	for (i = 0; i < d->ngpus; i++) {
		d->gpus[i].lo = (uint32_t)rec_elem_u64(r, "gpus", a, 2 * i);
		d->gpus[i].hi = (uint32_t)rec_elem_u64(r, "gpus", a,
		    2 * i + 1);
		if (!rec_failed(r) && (d->gpus[i].hi < d->gpus[i].lo ||
		    d->gpus[i].hi >= NET_MAX_GPUS))
			rec_fail(r, "planes: key \"gpus\": %u-%u is not a "
			    "range of GPUs", d->gpus[i].lo, d->gpus[i].hi);
	}
}

static void
read_plane(struct rec *r, const msgpack_object *m, struct plane_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->over_num = d->over_den = 1;
	if (m->type != MSGPACK_OBJECT_MAP) {
		rec_fail(r, "planes: a plane is a map");
		return;
	}
	d->kind = rec_val_enum(r, "kind", get(m, "kind"), plane_kinds);
	d->attach = rec_val_enum(r, "attach", get(m, "attach"), attaches);
	if (rec_failed(r))
		return;
	if (d->attach == ATTACH_GROUP || d->attach == ATTACH_RAIL ||
	    d->attach == ATTACH_UPLINK)
		d->k = u32(r, m, "k", 1, NET_MAX_GPUS);
	if (d->attach == ATTACH_UPLINK)
		d->u = u32(r, m, "u", 1, NET_MAX_GPUS);
	if (d->attach == ATTACH_GPUS)
		read_gpus(r, m, d);
	d->count = u32(r, m, "count", 1, 1024);
	d->rate_bps = rec_val_u64(r, "rate_bps", get(m, "rate_bps"));
	d->latency_ps = rec_val_u64_or(r, "latency_ps", get(m, "latency_ps"),
	    0);
	if (!rec_failed(r) && d->rate_bps == 0)
		rec_fail(r, "planes: key \"rate_bps\": must be positive");
	if (d->kind == PLANE_OCS) {
		d->reconfig_ps = rec_val_u64(r, "reconfig_ps",
		    get(m, "reconfig_ps"));
		d->model = get(m, "reconfig_model") == NULL ? NET_PORT :
		    rec_val_enum(r, "reconfig_model", get(m, "reconfig_model"),
		    net_models);
		d->radix = get(m, "radix") == NULL ? 0 :
		    u32(r, m, "radix", 2, NET_MAX_GPUS);
	} else {
		d->over_num = u32(r, m, "oversub_num", 1, 1000000000);
		d->over_den = u32(r, m, "oversub_den", 1, 1000000000);
		if (!rec_failed(r) && d->over_num < d->over_den)
			rec_fail(r, "planes: oversubscription %u/%u is below 1",
			    d->over_num, d->over_den);
	}
}

int
netplanes_read(struct rec *r, uint32_t *gpus, struct fabric *f)
{
	const msgpack_object_array *a;
	const char *name;
	char err[300];
	size_t len, i;

	fabric_free(f);
	*gpus = (uint32_t)rec_u64_max(r, "gpus", NET_MAX_GPUS);
	name = rec_str(r, "fabric", &len);
	a = rec_array(r, "planes");
	if (rec_failed(r))
		return -1;
	if (a->size == 0 || a->size > FABRIC_MAX_DESC) {
		rec_fail(r, "key \"planes\": 1 to %d planes", FABRIC_MAX_DESC);
		return -1;
	}
	snprintf(f->name, sizeof(f->name), "%.*s", (int)(len <
	    FABRIC_NAME ? len : FABRIC_NAME - 1), name);
	for (i = 0; i < a->size && !rec_failed(r); i++)
		read_plane(r, &a->ptr[i], &f->d[f->n++]);
	if (!rec_failed(r) && fabric_check(f, *gpus, err, sizeof(err)) != 0)
		rec_fail(r, "%s", err);
	return rec_failed(r) ? -1 : 0;
}
