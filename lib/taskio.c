/* taskio: task records to and from a struct dag. */
#include <stdint.h>
#include <stdlib.h>

#include "dag.h"
#include "rec.h"
#include "stream.h"
#include "taskio.h"

static const char *const kinds[] = { "compute", "transfer", NULL };

void
taskio_write(msgpack_packer *pk, const struct dag *d, size_t i,
    const char *name, int64_t op)
{
	const struct dag_task *t = &d->t[i];
	const uint32_t *dep = dag_deps(d, i);
	size_t j, n = 7 + (t->kind == DAG_TRANSFER) + (name != NULL) +
	    (op >= 0);

	stream_pack_record(pk, "task", n);
	stream_pack_ku64(pk, "id", i);
	stream_pack_kstr(pk, "kind", kinds[t->kind]);
	stream_pack_str(pk, "deps");
	msgpack_pack_array(pk, t->ndep);
	for (j = 0; j < t->ndep; j++)
		msgpack_pack_uint32(pk, dep[j]);
	if (t->kind == DAG_COMPUTE) {
		stream_pack_ku64(pk, "gpu", t->gpu);
		stream_pack_ku64(pk, "duration_ps", t->amount);
	} else {
		stream_pack_ku64(pk, "src", t->gpu);
		stream_pack_ku64(pk, "dst", t->dst);
		stream_pack_ku64(pk, "bytes", t->amount);
	}
	stream_pack_ku64(pk, "step", t->step);
	if (op >= 0)
		stream_pack_ku64(pk, "op", (uint64_t)op);
	if (name != NULL)
		stream_pack_kstr(pk, "name", name);
}

int
taskio_read(struct rec *r, struct dag *d, uint32_t gpus)
{
	const msgpack_object_array *a;
	struct dag_task t = { 0 };
	uint32_t *deps;
	uint64_t id;
	size_t i;
	int rc;

	id = rec_u64(r, "id");
	t.kind = (uint8_t)rec_enum(r, "kind", kinds);
	a = rec_array(r, "deps");
	if (t.kind == DAG_COMPUTE) {
		t.gpu = (uint32_t)rec_u64_max(r, "gpu", UINT32_MAX);
		t.amount = rec_u64(r, "duration_ps");
	} else {
		t.gpu = (uint32_t)rec_u64_max(r, "src", UINT32_MAX);
		t.dst = (uint32_t)rec_u64_max(r, "dst", UINT32_MAX);
		t.amount = rec_u64(r, "bytes");
	}
	t.step = (uint32_t)rec_u64_or(r, "step", 0);
	if (rec_failed(r))
		return -1;
	if (id != d->n) {
		rec_fail(r, "id %llu out of order (expected %zu)",
		    (unsigned long long)id, d->n);
		return -1;
	}
	if (t.gpu >= gpus || (t.kind == DAG_TRANSFER && t.dst >= gpus)) {
		rec_fail(r, "GPU out of range (the net has %u)", gpus);
		return -1;
	}
	if (t.kind == DAG_TRANSFER && t.gpu == t.dst) {
		rec_fail(r, "transfer from GPU %u to itself", t.gpu);
		return -1;
	}
	if ((deps = malloc((a->size + 1) * sizeof(*deps))) == NULL) {
		rec_fail(r, "out of memory");
		return -1;
	}
	for (i = 0; i < a->size; i++) {
		uint64_t v = rec_elem_u64(r, "deps", a, i);

		if (!rec_failed(r) && v >= id)
			rec_fail(r, "task %llu depends on %llu, which is not "
			    "an earlier task", (unsigned long long)id,
			    (unsigned long long)v);
		deps[i] = (uint32_t)v;
	}
	rc = rec_failed(r) ? -1 : dag_add(d, &t, deps, a->size);
	if (rc != 0 && !rec_failed(r))
		rec_fail(r, "out of memory");
	free(deps);
	return rc;
}
